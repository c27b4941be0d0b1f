//! Reductions and the dot product: [`Ctx::reduce`], [`Ctx::reduce_with`], [`Ctx::dot`].
//!
//! Two passes (`wgsl/reduce.wgsl`): a fixed number of workgroups folds the input with
//! vec4 loads in a grid-stride loop and writes one partial per workgroup; one workgroup
//! combines the partials. The workgroup step uses subgroup operations where the adapter
//! has them (`wgsl/reduce_subgroup.wgsl`) and a shared-memory tree otherwise
//! (`wgsl/reduce_tree.wgsl`). No atomics: the order of combination depends only on the
//! adapter and the length, so float results are the same bits on every run.

use crate::context::Ctx;
use crate::context::check_len;
use crate::dispatch::{Chunk, chunks, pow2_workgroup_size, units_per_window, workgroup_grid};
use crate::element::{GpuElement, ScalarKind};
use crate::error::{Error, Result};
use crate::ops::kernel::{Access, Args, KernelScalar, Pieces, Plan, View, read_only_args};
use crate::pipeline::{PipelineKey, render};
use crate::record::{Res, Work};
use crate::vec::{GpuVec, LANES};

const REDUCE_WGSL: &str = include_str!("../../wgsl/reduce.wgsl");
const TREE_WGSL: &str = include_str!("../../wgsl/reduce_tree.wgsl");
const SUBGROUP_WGSL: &str = include_str!("../../wgsl/reduce_subgroup.wgsl");

/// A reduction: how [`Ctx::reduce_with`] combines elements.
///
/// Custom operators must be associative and commutative: elements are combined in an
/// order fixed by the dispatch (the same on every run), not from left to right.
///
/// Accuracy of the float sums, for `n` values with `S = sum |x_i|` and unit roundoff
/// `u` (2^-24 for f32):
/// - [`Reduce::Sum`]: each thread adds about `n / (4 * threads)` values in sequence,
///   then partials are combined in a tree: error at most about
///   `(n / (4 * threads) + log2(threads) + 2) * u * S`; for 3 million values in
///   [0, 1) on any adapter that is below 1e-5 relative.
/// - [`Reduce::SumCompensated`]: every addition is an exact two-sum whose rounding
///   error is carried along; error about `2 u |sum| + n u^2 S`.
/// - [`Reduce::SumWide`]: accumulates in f64 (adapters with `SHADER_F64`) and rounds
///   once: within one rounding of the exact sum for any practical `n`.
///
/// For integers the three sums are the same exact, wrapping sum.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Reduce<T> {
    /// Sum; integers wrap like `wrapping_add`. Identity 0.
    Sum,
    /// Sum with compensated (two-sum) accumulation, for f32: slower, much more accurate.
    /// (For f64 and f16 it is an [`Error::InvalidArgument`]; for integers it is `Sum`.)
    SumCompensated,
    /// Sum accumulated in f64 (needs `SHADER_F64`), rounded once to the element type.
    SumWide,
    /// Product; integers wrap like `wrapping_mul`. Identity 1.
    Product,
    /// Minimum. NaN inputs give an unspecified result.
    Min,
    /// Maximum. NaN inputs give an unspecified result.
    Max,
    /// A WGSL binary expression in `a` and `b` of the element type, with its identity:
    /// `Reduce::Custom { op: "max(abs(a), abs(b))".into(), identity: 0.0 }`.
    Custom {
        /// The expression, e.g. `"a ^ b"`.
        op: String,
        /// `op(identity, x) == x` for every `x`; empty inputs reduce to it.
        identity: T,
    },
}

impl<T> Reduce<T> {
    /// `Reduce::Custom` from an expression in `a` and `b` and its identity.
    pub fn custom(op: impl Into<String>, identity: T) -> Self {
        Reduce::Custom {
            op: op.into(),
            identity,
        }
    }
}

impl Ctx {
    /// The sum of all elements (integers wrap). Blocks until the GPU is done and reads
    /// back only the result. Empty vectors sum to 0.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&(1..=100u32).collect::<Vec<_>>())?;
    /// assert_eq!(ctx.reduce(&v)?, 5050);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn reduce<T: GpuElement>(&self, v: &GpuVec<T>) -> Result<T> {
        self.reduce_with(v, Reduce::Sum)
    }

    /// Reduces with `op` (see [`Reduce`] for the operators and their accuracy).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for the `Min` or `Max` of an empty vector (they have no
    /// value) and for a custom operator that is not exactly one WGSL expression,
    /// [`Error::Compile`] if a custom operator is not valid WGSL of the element type,
    /// [`Error::Unsupported`] for [`Reduce::SumWide`] without `SHADER_F64`.
    ///
    /// ```
    /// use gpuprim::Reduce;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[3.0f32, -7.5, 2.0])?;
    /// assert_eq!(ctx.reduce_with(&v, Reduce::Min)?, -7.5);
    /// assert_eq!(ctx.reduce_with(&v, Reduce::Max)?, 3.0);
    /// assert_eq!(ctx.reduce_with(&v, Reduce::Product)?, -45.0);
    /// assert_eq!(ctx.reduce_with(&v, Reduce::custom("max(abs(a), abs(b))", 0.0))?, 7.5);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn reduce_with<T: GpuElement>(&self, v: &GpuVec<T>, op: Reduce<T>) -> Result<T> {
        self.reduce_start("reduce_with", Input::Vectors(v, None), &op)?
            .wait()
            .map(first)
    }

    /// Async twin of [`Ctx::reduce`].
    pub async fn reduce_async<T: GpuElement>(&self, v: &GpuVec<T>) -> Result<T> {
        self.reduce_with_async(v, Reduce::Sum).await
    }

    /// Async twin of [`Ctx::reduce_with`].
    pub async fn reduce_with_async<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        op: Reduce<T>,
    ) -> Result<T> {
        self.reduce_start("reduce_with", Input::Vectors(v, None), &op)?
            .wait_async()
            .await
            .map(first)
    }

    /// The sum of `v` written to `out[0]` on the device, without waiting or reading back:
    /// the first step of a chain that pays one round trip at its end.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1.5f32, 2.5, 4.0])?;
    /// let mut total = ctx.zeros::<f32>(1)?;
    /// ctx.reduce_into(&v, &mut total)?;
    /// let scaled = ctx.map(&total, "x * 10.0")?;
    /// assert_eq!(scaled.to_vec()?, vec![80.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn reduce_into<T: GpuElement>(&self, v: &GpuVec<T>, out: &mut GpuVec<T>) -> Result<()> {
        self.reduce_with_into(v, Reduce::Sum, out)
    }

    /// [`Ctx::reduce_with`] into `out[0]` on the device, without waiting. An empty `v`
    /// writes the operator's identity (for `Min`/`Max`: the greatest/least value).
    pub fn reduce_with_into<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        op: Reduce<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        self.reduce_submit("reduce_with_into", Input::Vectors(v, None), &op, out)
    }

    /// The dot product `sum(a[i] * b[i])` (integers wrap). Lengths must match.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[1.0f32, 2.0, 3.0])?;
    /// let b = ctx.upload(&[4.0f32, 5.0, 6.0])?;
    /// assert_eq!(ctx.dot(&a, &b)?, 32.0);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn dot<T: GpuElement>(&self, a: &GpuVec<T>, b: &GpuVec<T>) -> Result<T> {
        self.reduce_start("dot", Input::Vectors(a, Some(b)), &Reduce::Sum)?
            .wait()
            .map(first)
    }

    /// Async twin of [`Ctx::dot`].
    pub async fn dot_async<T: GpuElement>(&self, a: &GpuVec<T>, b: &GpuVec<T>) -> Result<T> {
        self.reduce_start("dot", Input::Vectors(a, Some(b)), &Reduce::Sum)?
            .wait_async()
            .await
            .map(first)
    }

    /// [`Ctx::dot`] into `out[0]` on the device, without waiting.
    pub fn dot_into<T: GpuElement>(
        &self,
        a: &GpuVec<T>,
        b: &GpuVec<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        self.reduce_submit("dot_into", Input::Vectors(a, Some(b)), &Reduce::Sum, out)
    }

    /// A reduction of `expr`, a WGSL expression of type `U` evaluated for every element
    /// `i` in `0..n`, over the vectors and scalars you name (as [`Ctx::elementwise`]'s
    /// body sees them: element vectors as their element `i`, raw vectors whole, scalars,
    /// device scalars, and `i` and `n`). No temporary vector is made: the reduction reads
    /// the arguments and combines the values of `expr` as [`Ctx::reduce_with`] combines
    /// elements, with the same order (deterministic run to run) and accuracy.
    ///
    /// ```
    /// use gpuprim::Reduce;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let x = ctx.upload(&[1.0f32, -2.0, 3.0])?;
    /// let y = ctx.upload(&[0.5f32, 0.5, 1.0])?;
    /// let sum_of_squares: f32 = ctx.transform_reduce("x * x", Reduce::Sum).read("x", &x).run()?;
    /// assert_eq!(sum_of_squares, 14.0);
    /// let weighted: f32 = ctx
    ///     .transform_reduce("w * x * y", Reduce::Sum)
    ///     .read("x", &x)
    ///     .read("y", &y)
    ///     .scalar("w", 2.0f32)
    ///     .run()?;
    /// assert_eq!(weighted, 5.0); // 2 * (0.5 - 1.0 + 3.0)
    /// let positive: u32 = ctx
    ///     .transform_reduce("select(0u, 1u, x > 0.0)", Reduce::Sum)
    ///     .read("x", &x)
    ///     .run()?;
    /// assert_eq!(positive, 2);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn transform_reduce<U: GpuElement>(
        &self,
        expr: &str,
        op: Reduce<U>,
    ) -> TransformReduce<'_, U> {
        TransformReduce {
            ctx: self,
            expr: expr.to_string(),
            op,
            args: Args::new("transform_reduce"),
        }
    }

    /// Records the reduction into a fresh one-element buffer and submits it together
    /// with its read-back.
    fn reduce_start<T: GpuElement>(
        &self,
        op: &'static str,
        input: Input<'_, T>,
        reduce: &Reduce<T>,
    ) -> Result<crate::vec::ReadBack<T>> {
        if input.is_empty() && matches!(reduce, Reduce::Min | Reduce::Max) {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "{reduce:?} of an empty vector has no value; check `is_empty()` first, or use \
                     `reduce_with_into`, which writes the identity"
                ),
            });
        }
        let result = self.result_buffer((LANES * size_of::<T>()) as u64)?;
        let mut work = Work::new(self, op);
        self.record_reduce(&mut work, input, reduce, Res::whole(&result))?;
        self.submit_result(work, result, 1)
    }

    fn reduce_submit<T: GpuElement>(
        &self,
        op: &'static str,
        input: Input<'_, T>,
        reduce: &Reduce<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        self.check_owned(op, &[&out.ctx])?;
        if out.is_empty() {
            return Err(Error::InvalidArgument {
                op,
                message: "the output vector has 0 elements; the result goes to element 0, pass a vector of length >= 1".into(),
            });
        }
        let mut work = Work::new(self, op);
        self.record_reduce(&mut work, input, reduce, out.whole_binding())?;
        work.submit()
    }

    /// Adds both passes to `work`; the result lands in element 0 of `result`.
    fn record_reduce<T: GpuElement>(
        &self,
        work: &mut Work,
        input: Input<'_, T>,
        reduce: &Reduce<T>,
        result: Res,
    ) -> Result<()> {
        let op = work.op();
        let spec = Spec::new(self, reduce)?;
        let wg = pow2_workgroup_size(self, 256);
        let finish_wg = finish_workgroup_size(self, wg);
        // A device count (prefix views) is bound after the inputs.
        let (count, count_binding) = input.count(op)?;
        // WGSL text is built only when a kernel is not cached yet.
        let bounds = || bounds_wgsl(count.map(|_| count_binding));
        let counted = if count.is_some() { "+count" } else { "" };
        let (partials_kernel, finish_kernel) = match &input {
            Input::Vectors(x, y) => {
                let mut owners = vec![&x.ctx];
                if let Some(y) = y {
                    check_len(op, ("a", x.len()), ("b", y.len()))?;
                    owners.push(&y.ctx);
                }
                self.check_owned(op, &owners)?;
                let (xv, yv) = (View::of(*x), y.map(|y| View::of(y)));
                // The layouts change the WGSL of a borrowed vector of ragged length only.
                let layouts = match yv {
                    Some(yv) => format!("{}/{}", xv.layout(), yv.layout()),
                    None => xv.layout().to_string(),
                };
                let key = PipelineKey {
                    op: if y.is_some() { "dot" } else { "reduce" },
                    element: T::WGSL,
                    workgroup_size: wg,
                    variant: format!("{}|{layouts}{counted}", spec.variant()),
                    code: spec.code.clone(),
                };
                let source = || {
                    let inputs = vector_inputs(&xv, yv.as_ref());
                    spec.render::<T>(wg, finish_wg, T::ENABLE, (&inputs, &bounds()))
                };
                (
                    self.kernel_entry(key.clone(), "partials_main", source)?,
                    self.kernel_entry(key, "finish_main", source)?,
                )
            }
            Input::Expression { expr, plan } => {
                let key = PipelineKey {
                    op: "transform_reduce",
                    element: T::WGSL,
                    workgroup_size: wg,
                    variant: format!(
                        "{}|{}|{}{counted}",
                        spec.variant(),
                        plan.signature(),
                        spec.code
                    ),
                    code: expr.to_string(),
                };
                let pieces = std::cell::OnceCell::new();
                let source = |code: &str| {
                    let pieces = pieces.get_or_init(|| plan.pieces(EXPRESSION_FIRST_BINDING));
                    let enable = [T::ENABLE, pieces.enable.as_str()].join("\n");
                    let inputs = expression_inputs(pieces, plan.vectors(), code);
                    spec.render::<T>(wg, finish_wg, &enable, (&inputs, &bounds()))
                };
                (
                    self.kernel_checked(key.clone(), "partials_main", op, "T()", source)?,
                    self.kernel_checked(key, "finish_main", op, "T()", source)?,
                )
            }
        };

        // One parameter block per binding window, then one for the finishing pass.
        let n = input.len() as u64;
        let units = n.div_ceil(LANES as u64);
        let unit_sizes = input.unit_sizes();
        let per_window = if unit_sizes.is_empty() {
            units.max(1)
        } else {
            units_per_window(self, &unit_sizes)
        };
        let windows = partial_windows(self, n, per_window, wg, finish_wg);
        let base: u32 = windows.iter().map(|w| w.groups).sum();
        let mut params: Vec<_> = windows
            .iter()
            .map(|w| ReduceParams {
                full_units: w.full_units,
                tail: w.tail,
                groups: w.groups,
                base: w.base,
                first_unit: w.chunk.offset_units as u32,
                n_cap: n as u32,
                ..ReduceParams::default()
            })
            .collect();
        // One workgroup in all: it writes the result, and there is no second pass.
        let direct = base == 1;
        if direct {
            params[0].direct = 1;
        }
        let partials = work.keep(self.scratch(
            "reduce partials",
            spec.accumulator_bytes * u64::from(base.max(1)),
            wgpu::BufferUsages::STORAGE,
        )?);
        for (w, p) in windows.iter().map(|w| &w.chunk).zip(&params) {
            let grid = workgroup_grid(
                u64::from(p.groups),
                self.info().max_workgroups_per_dimension,
            )?;
            let block = work.params(p);
            let expression_block = match &input {
                Input::Expression { plan, .. } => Some(work.params_words(&plan.params([
                    (w.offset_units * LANES as u64) as u32,
                    n as u32,
                    w.units as u32,
                    0,
                ]))),
                Input::Vectors(..) => None,
            };
            let d = work.dispatch(&partials_kernel, grid);
            d.bind(0, block)
                .bind(1, Res::whole(&partials))
                .bind(4, result.clone());
            if let Some((buffer, offset)) = count {
                d.bind(count_binding, Res::range(buffer, *offset, 4));
            }
            match &input {
                Input::Vectors(x, y) => {
                    d.bind(2, View::of(*x).window(w));
                    if let Some(y) = y {
                        d.bind(3, View::of(*y).window(w));
                    }
                }
                Input::Expression { plan, .. } => {
                    plan.bind(d, EXPRESSION_FIRST_BINDING, w);
                    if let Some(b) = expression_block {
                        d.bind(EXPRESSION_FIRST_BINDING + plan.vectors(), b);
                    }
                }
            }
        }
        if !direct {
            let block = work.params(&ReduceParams {
                full_units: base,
                groups: 1,
                ..ReduceParams::default()
            });
            work.dispatch(&finish_kernel, [1, 1, 1])
                .bind(0, block)
                .bind(1, Res::whole(&partials))
                .bind(4, result.clone());
        }
        Ok(())
    }
}

/// A reduction of an expression over named arguments, made by
/// [`Ctx::transform_reduce`]; add its arguments, then run it.
///
/// Mistakes in the arguments are returned by the `run` methods, as for
/// [`Elementwise`](crate::Elementwise).
#[must_use = "a reduction does nothing until it is run"]
pub struct TransformReduce<'a, U: GpuElement> {
    ctx: &'a Ctx,
    expr: String,
    op: Reduce<U>,
    args: Args<'a>,
}

impl<U: GpuElement> std::fmt::Debug for TransformReduce<'_, U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransformReduce")
            .field("expr", &self.expr)
            .field("op", &self.op)
            .finish_non_exhaustive()
    }
}

impl<'a, U: GpuElement> TransformReduce<'a, U> {
    read_only_args!();

    /// The reduction, read back (blocking).
    ///
    /// # Errors
    /// As [`Elementwise::run`](crate::Elementwise::run) for the arguments and the
    /// expression, and as [`Ctx::reduce_with`] for the operator (`Min`/`Max` over no
    /// elements).
    pub fn run(self) -> Result<U> {
        self.start()?.wait().map(first)
    }

    /// Async twin of [`TransformReduce::run`].
    pub async fn run_async(self) -> Result<U> {
        self.start()?.wait_async().await.map(first)
    }

    /// The reduction queued with its read-back (`run` and `run_async` wait on it).
    fn start(self) -> Result<crate::vec::ReadBack<U>> {
        let ctx = self.ctx;
        crate::expr::check_expression("transform_reduce", "expression", &self.expr)?;
        let plan = self.args.plan(ctx)?;
        let input = Input::Expression {
            expr: &self.expr,
            plan,
        };
        ctx.reduce_start("transform_reduce", input, &self.op)
    }

    /// The reduction into `out[0]` on the device, without waiting (an empty run writes
    /// the operator's identity).
    pub fn run_into(self, out: &mut GpuVec<U>) -> Result<()> {
        let ctx = self.ctx;
        crate::expr::check_expression("transform_reduce", "expression", &self.expr)?;
        let plan = self.args.plan(ctx)?;
        let input = Input::Expression {
            expr: &self.expr,
            plan,
        };
        ctx.reduce_submit("transform_reduce", input, &self.op, out)
    }
}

/// The first binding of a transform-reduce's arguments (after the reduction's own).
const EXPRESSION_FIRST_BINDING: u32 = 5;

/// What a reduction reads.
enum Input<'v, T: GpuElement> {
    /// `x` (reduce) or `x * y` (dot).
    Vectors(&'v GpuVec<T>, Option<&'v GpuVec<T>>),
    /// An expression over kernel arguments (transform_reduce).
    Expression { expr: &'v str, plan: Plan<'v> },
}

impl<'v, T: GpuElement> Input<'v, T> {
    /// The device count of prefix-view inputs (one count for all), and the binding it
    /// takes: after the inputs and, for an expression, its parameter block.
    fn count(&self, op: &'static str) -> Result<(Option<&'v (wgpu::Buffer, u64)>, u32)> {
        match self {
            Input::Vectors(x, y) => {
                let count = match (&x.count, y.and_then(|y| y.count.as_ref())) {
                    (Some(a), Some(b)) if a.0 != b.0 || a.1 != b.1 => {
                        return Err(Error::InvalidArgument {
                            op,
                            message: "a and b are prefix views of different counts; give them \
                                      the same count vector"
                                .into(),
                        });
                    }
                    (Some(a), _) => Some(a),
                    (None, b) => b,
                };
                Ok((count, 5))
            }
            Input::Expression { plan, .. } => {
                Ok((plan.count, EXPRESSION_FIRST_BINDING + plan.vectors() + 1))
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Input::Vectors(x, _) => x.len(),
            Input::Expression { plan, .. } => plan.n,
        }
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of a vec4 unit of each windowed input.
    fn unit_sizes(&self) -> Vec<u64> {
        match self {
            Input::Vectors(..) => vec![(LANES * size_of::<T>()) as u64],
            Input::Expression { plan, .. } => plan.unit_sizes(),
        }
    }
}

/// `gp_window()` and `gp_n()` of `wgsl/reduce.wgsl`: the window's whole units and tail
/// and the elements in all, from the parameters, or cut at the count bound at `count`.
fn bounds_wgsl(count: Option<u32>) -> String {
    match count {
        None => "fn gp_window() -> vec2<u32> { return vec2<u32>(gp_reduce.full_units, gp_reduce.tail); }\n\
                 fn gp_n() -> u32 { return gp_reduce.n_cap; }\n"
            .to_string(),
        Some(binding) => format!(
            "@group(0) @binding({binding}) var<storage, read> gp_count: array<u32>;\n\
             fn gp_n() -> u32 {{ return min(gp_count[0], gp_reduce.n_cap); }}\n\
             fn gp_window() -> vec2<u32> {{\n\
             \x20   let cap = 4u * gp_reduce.full_units + gp_reduce.tail;\n\
             \x20   let n = gp_n();\n\
             \x20   let first = 4u * gp_reduce.first_unit;\n\
             \x20   var e = 0u;\n\
             \x20   if n > first {{\n\
             \x20       e = min(n - first, cap);\n\
             \x20   }}\n\
             \x20   return vec2<u32>(e / 4u, e % 4u);\n\
             }}\n"
        ),
    }
}

/// The inputs of reduce and dot: `x` at binding 2, `y` at 3.
fn vector_inputs(x: &View<'_>, y: Option<&View<'_>>) -> String {
    let mut s = x.units_wgsl("gp_x", 2, false);
    match y {
        Some(y) => {
            s += &y.units_wgsl("gp_y", 3, false);
            s += "fn gp_unit(u: u32) -> vec4<T> {\n    return gp_x_load(u) * gp_y_load(u);\n}\n";
        }
        None => s += "fn gp_unit(u: u32) -> vec4<T> {\n    return gp_x_load(u);\n}\n",
    }
    s
}

/// The inputs of a transform-reduce: the arguments' bindings, their parameter block
/// after them, the user's expression as `gp_user_expr` and `gp_unit` evaluating it on the
/// four elements of a unit.
fn expression_inputs(p: &Pieces, vectors: u32, expr: &str) -> String {
    let lane = |l: &str, offset: &str| {
        format!(
            "gp_user_expr(base{offset}, gp_n(){})",
            p.expr_lane_args.replace("{L}", l)
        )
    };
    format!(
        "{bindings}\
         struct GpParams {{\n    first: u32,\n    n: u32,\n    units: u32,\n    _pad: u32,\n{fields}}}\n\
         @group(0) @binding({params}) var<uniform> gp_params: GpParams;\n\
         fn gp_user_expr(i: u32, n: u32{in_params}) -> T {{\n{prelude}    return ({expr});\n}}\n\
         fn gp_unit(u: u32) -> vec4<T> {{\n{loads}    let base = gp_params.first + 4u * u;\n    \
         return vec4<T>({x}, {y}, {z}, {w});\n}}\n",
        bindings = p.bindings,
        fields = p.scalar_fields,
        params = EXPRESSION_FIRST_BINDING + vectors,
        in_params = p.in_params,
        prelude = p.prelude,
        loads = p.loads,
        x = lane("x", ""),
        y = lane("y", " + 1u"),
        z = lane("z", " + 2u"),
        w = lane("w", " + 3u"),
    )
}

/// The parameter block of `wgsl/reduce.wgsl` (`struct Params` there).
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct ReduceParams {
    /// Whole vec4 units in this binding window (the finishing pass: partials to combine).
    full_units: u32,
    /// Valid elements (0..3) in the unit after them.
    tail: u32,
    /// Workgroups that take part; the surplus ones of a folded grid return.
    groups: u32,
    /// Where this window's partials go.
    base: u32,
    /// Always 0, which the compiler cannot know (see the compensated sum).
    opaque_zero: u32,
    /// 1: the only workgroup of the first pass writes the result.
    direct: u32,
    /// The window's first vec4 unit (for a device count).
    first_unit: u32,
    /// Elements at most (for a device count).
    n_cap: u32,
}

fn first<T: Copy>(v: Vec<T>) -> T {
    v[0]
}

/// Threads of the finishing pass, which combines the partials: as many as the device
/// allows, up to 1024. The pass is one workgroup and its time is latency, so fewer
/// partials per invocation is faster.
fn finish_workgroup_size(ctx: &Ctx, wg: u32) -> u32 {
    pow2_workgroup_size(ctx, 1024).max(wg)
}

/// Workgroups in the first pass. On a GPU, many short-lived workgroups (16 partials per
/// finishing invocation: 16384 with a 1024-invocation finish) balance the load across
/// the compute units better than a few long ones (measured with
/// `lab/src/bin/reduce_lab.rs`; see docs/perf-journal.md). On a CPU adapter each
/// workgroup runs on one core, and more only add partials.
/// Never more than a 3D grid of the allowed size holds: the loop strides past the rest.
fn partial_groups_cap(ctx: &Ctx, finish_wg: u32) -> u32 {
    let wanted = match ctx.info().device_type {
        wgpu::DeviceType::Cpu => 32,
        _ => 16 * finish_wg,
    };
    wanted.min(ctx.info().max_workgroups_per_dimension.saturating_pow(3))
}

/// One binding window of a two-level reduction's first pass (`reduce`, `argmax`).
pub(crate) struct PartialWindow {
    /// The window: its first vec4 unit in the vector and its units.
    pub(crate) chunk: Chunk,
    /// Its whole units (the last window leaves out a partial last unit).
    pub(crate) full_units: u32,
    /// Elements of the partial last unit (last window only; 0 elsewhere).
    pub(crate) tail: u32,
    /// Its workgroups, each writing one partial.
    pub(crate) groups: u32,
    /// The first partial its workgroups write.
    pub(crate) base: u32,
}

/// The first pass's windows over `n` elements of `per_window` units each, with
/// workgroups of `wg` invocations, as many as [`partial_groups_cap`] allows each.
pub(crate) fn partial_windows(
    ctx: &Ctx,
    n: u64,
    per_window: u64,
    wg: u32,
    finish_wg: u32,
) -> Vec<PartialWindow> {
    let units = n.div_ceil(LANES as u64);
    let tail = (n % LANES as u64) as u32;
    let cap = partial_groups_cap(ctx, finish_wg);
    let windows: Vec<_> = chunks(units, per_window).collect();
    let mut base = 0u32;
    let mut out = Vec::with_capacity(windows.len());
    for (i, w) in windows.iter().enumerate() {
        let last = i + 1 == windows.len();
        let full_units = w.units as u32 - u32::from(last && tail != 0);
        let groups = full_units.div_ceil(wg).clamp(1, cap);
        out.push(PartialWindow {
            chunk: *w,
            full_units,
            tail: if last { tail } else { 0 },
            groups,
            base,
        });
        base += groups;
    }
    out
}

/// The WGSL of one reduction operator (also rendered by `ops::segmented`, whose
/// templates declare `gp_reduce.opaque_zero` as this one does).
pub(crate) struct Spec {
    /// Variant name for the pipeline key.
    name: &'static str,
    /// The accumulator type.
    pub(crate) accumulator: String,
    pub(crate) accumulator_bytes: u64,
    /// identity(), lift(), combine(), finish().
    pub(crate) functions: String,
    /// The subgroup built-in that performs `combine` across a subgroup, if any.
    subgroup_op: Option<&'static str>,
    /// User code for the pipeline key (custom operator and identity).
    pub(crate) code: String,
}

impl Spec {
    pub(crate) fn new<T: GpuElement>(ctx: &Ctx, reduce: &Reduce<T>) -> Result<Spec> {
        let t = T::WGSL;
        let float = T::KIND == ScalarKind::Float;
        let plain = |name, identity: T, combine: &str, subgroup| Spec {
            name,
            accumulator: t.to_string(),
            accumulator_bytes: size_of::<T>() as u64,
            functions: format!(
                "fn gp_identity() -> A {{ return {}; }}\n\
                 fn gp_lift(x: T) -> A {{ return x; }}\n\
                 fn gp_combine(a: A, b: A) -> A {{ return {combine}; }}\n\
                 fn gp_finish(a: A) -> T {{ return a; }}\n",
                identity.wgsl_literal()
            ),
            // Subgroup arithmetic is defined for the 32-bit types.
            subgroup_op: (ctx.has_features(wgpu::Features::SUBGROUP) && size_of::<T>() == 4)
                .then_some(subgroup),
            code: String::new(),
        };
        Ok(match reduce {
            Reduce::Sum => plain("sum", T::ZERO, "a + b", "subgroupAdd"),
            Reduce::SumCompensated if t == "f32" => Spec {
                name: "sum-compensated",
                accumulator: "vec2<f32>".into(),
                accumulator_bytes: 8,
                // Shader compilers may treat float arithmetic as associative (SPIR-V
                // has no "precise" from WGSL) and fold (a + b) - a into b, which turns
                // two-sum into a plain sum. Passing the intermediates through an
                // identity the compiler cannot see (xor with a uniform zero) keeps them.
                functions: "fn gp_identity() -> A { return A(); }\n\
                            fn gp_lift(x: T) -> A { return A(x, 0.0); }\n\
                            fn gp_opaque(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) ^ gp_reduce.opaque_zero); }\n\
                            // Knuth's two-sum: s + e is exactly p.x + q.x.\n\
                            fn gp_combine(p: A, q: A) -> A {\n\
                            \x20   let s = gp_opaque(p.x + q.x);\n\
                            \x20   let v = gp_opaque(s - p.x);\n\
                            \x20   let e = (p.x - (s - v)) + (q.x - v);\n\
                            \x20   return A(s, (p.y + q.y) + e);\n\
                            }\n\
                            fn gp_finish(a: A) -> T { return a.x + a.y; }\n"
                    .to_string(),
                subgroup_op: None,
                code: String::new(),
            },
            Reduce::SumCompensated if float => {
                return Err(Error::InvalidArgument {
                    op: "reduce_with",
                    message: format!(
                        "Reduce::SumCompensated is implemented for f32, not {t}; use Reduce::Sum for f64 \
                         or Reduce::SumWide (f64 accumulation) for f16"
                    ),
                });
            }
            Reduce::SumWide if float && T::WGSL != "f64" => {
                ctx.require(wgpu::Features::SHADER_F64, || format!("Reduce::SumWide of {t}"))?;
                Spec {
                    name: "sum-wide",
                    accumulator: "f64".into(),
                    accumulator_bytes: 8,
                    functions: "fn gp_identity() -> A { return A(); }\n\
                                fn gp_lift(x: T) -> A { return A(x); }\n\
                                fn gp_combine(a: A, b: A) -> A { return a + b; }\n\
                                fn gp_finish(a: A) -> T { return T(a); }\n"
                        .to_string(),
                    subgroup_op: None,
                    code: String::new(),
                }
            }
            // Integer sums are exact already; f64 has nothing wider.
            Reduce::SumCompensated | Reduce::SumWide => plain("sum", T::ZERO, "a + b", "subgroupAdd"),
            Reduce::Product => plain("product", T::ONE, "a * b", "subgroupMul"),
            Reduce::Min => plain("min", T::HIGHEST, "min(a, b)", "subgroupMin"),
            Reduce::Max => plain("max", T::LOWEST, "max(a, b)", "subgroupMax"),
            Reduce::Custom { op, identity } => {
                crate::expr::check_expression("reduce_with", "operator", op)?;
                let mut spec = plain("custom", *identity, &format!("({op})"), "");
                spec.subgroup_op = None;
                spec.code = format!("{op} | identity {}", identity.wgsl_literal());
                spec
            }
        })
    }

    /// `wgsl/reduce.wgsl` with this operator and `inputs` (bindings and `gp_unit`).
    fn render<T: GpuElement>(
        &self,
        wg: u32,
        finish_wg: u32,
        enable: &str,
        (inputs, bounds): (&str, &str),
    ) -> String {
        let workgroup_reduce = match self.subgroup_op {
            Some(op) => render(SUBGROUP_WGSL, &[("SUBGROUP_OP", op)]),
            None => TREE_WGSL.to_string(),
        };
        let (wg, finish_wg) = (wg.to_string(), finish_wg.to_string());
        render(
            REDUCE_WGSL,
            &[
                ("ENABLE", enable),
                ("T", T::WGSL),
                ("A", &self.accumulator),
                ("OP", &self.functions),
                ("INPUTS", inputs),
                ("BOUNDS", bounds),
                ("WORKGROUP_REDUCE", &workgroup_reduce),
                ("WG", &wg),
                ("FINISH_WG", &finish_wg),
            ],
        )
    }

    /// The key's variant: the operator's name and workgroup step.
    pub(crate) fn variant(&self) -> String {
        let step = if self.subgroup_op.is_some() {
            "+subgroup"
        } else {
            ""
        };
        format!("{}{step}", self.name)
    }
}
