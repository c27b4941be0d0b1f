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
use crate::dispatch::{
    Step, chunks, encode_steps, pow2_workgroup_size, units_per_binding, workgroup_grid,
};
use crate::element::{GpuElement, ScalarKind};
use crate::error::{Error, Result};
use crate::pipeline::{PipelineKey, render};
use crate::vec::{GpuVec, LANES, Scratch};

const REDUCE_WGSL: &str = include_str!("../../wgsl/reduce.wgsl");
const TREE_WGSL: &str = include_str!("../../wgsl/reduce_tree.wgsl");
const SUBGROUP_WGSL: &str = include_str!("../../wgsl/reduce_subgroup.wgsl");

/// Size of the `Params` uniform in `wgsl/reduce.wgsl`: eight u32.
const PARAMS_BYTES: u64 = 32;

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
        self.reduce_start("reduce_with", v, None, &op)?
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
        self.reduce_start("reduce_with", v, None, &op)?
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
        self.reduce_submit("reduce_with_into", v, None, &op, out)
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
        self.reduce_start("dot", a, Some(b), &Reduce::Sum)?
            .wait()
            .map(first)
    }

    /// Async twin of [`Ctx::dot`].
    pub async fn dot_async<T: GpuElement>(&self, a: &GpuVec<T>, b: &GpuVec<T>) -> Result<T> {
        self.reduce_start("dot", a, Some(b), &Reduce::Sum)?
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
        self.reduce_submit("dot_into", a, Some(b), &Reduce::Sum, out)
    }

    /// Records the reduction into a fresh one-element buffer and submits it together
    /// with its read-back.
    fn reduce_start<T: GpuElement>(
        &self,
        op: &'static str,
        x: &GpuVec<T>,
        y: Option<&GpuVec<T>>,
        reduce: &Reduce<T>,
    ) -> Result<crate::vec::ReadBack<T>> {
        if x.is_empty() && matches!(reduce, Reduce::Min | Reduce::Max) {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "{reduce:?} of an empty vector has no value; check `is_empty()` first, or use \
                     `reduce_with_into`, which writes the identity"
                ),
            });
        }
        let result = self.result_buffer((LANES * size_of::<T>()) as u64)?;
        let (enc, scratch) = self.record_reduce(op, x, y, reduce, &result)?;
        let read_back = self.submit_result(op, enc, result, 1);
        drop(scratch); // back to the pool only once the work that uses it is submitted
        read_back
    }

    fn reduce_submit<T: GpuElement>(
        &self,
        op: &'static str,
        x: &GpuVec<T>,
        y: Option<&GpuVec<T>>,
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
        let (enc, scratch) = self.record_reduce(op, x, y, reduce, &out.buffer)?;
        self.submit(op, enc)?;
        drop(scratch);
        Ok(())
    }

    /// Records both passes into a new encoder; the result lands in element 0 of `result`.
    /// The partials scratch buffer comes back with the encoder: keep it until it is submitted.
    fn record_reduce<T: GpuElement>(
        &self,
        op: &'static str,
        x: &GpuVec<T>,
        y: Option<&GpuVec<T>>,
        reduce: &Reduce<T>,
        result: &wgpu::Buffer,
    ) -> Result<(wgpu::CommandEncoder, Scratch)> {
        let mut owners = vec![&x.ctx];
        if let Some(y) = y {
            check_len(op, ("a", x.len()), ("b", y.len()))?;
            owners.push(&y.ctx);
        }
        self.check_owned(op, &owners)?;
        let spec = Spec::new(self, reduce)?;
        let wg = pow2_workgroup_size(self, 256);
        let key = PipelineKey {
            op: if y.is_some() { "dot" } else { "reduce" },
            element: T::WGSL,
            workgroup_size: wg,
            variant: format!(
                "{}{}",
                spec.name,
                if spec.subgroup_op.is_some() {
                    "+subgroup"
                } else {
                    ""
                }
            ),
            code: spec.code.clone(),
        };
        let finish_wg = finish_workgroup_size(self, wg);
        let source = || spec.render::<T>(wg, finish_wg, y.is_some());
        let partials_kernel = self.kernel_entry(key.clone(), "partials_main", source)?;
        let finish_kernel = self.kernel_entry(key, "finish_main", source)?;

        // One parameter slot per binding window, then one for the finishing pass.
        let unit_bytes = (LANES * size_of::<T>()) as u64;
        let tail = (x.len() % LANES) as u32;
        let windows: Vec<_> = chunks(x.lanes4(), units_per_binding(self, unit_bytes)).collect();
        let cap = partial_groups_cap(self, finish_wg);
        let mut params = Vec::with_capacity(windows.len() + 1);
        let mut base = 0u32;
        for (i, w) in windows.iter().enumerate() {
            let last = i + 1 == windows.len();
            let full = w.units as u32 - u32::from(last && tail != 0);
            let groups = full.div_ceil(wg).clamp(1, cap);
            params.push([full, if last { tail } else { 0 }, groups, base, 0, 0, 0, 0]);
            base += groups;
        }
        // One workgroup in all: it writes the result, and there is no second pass.
        let direct = base == 1;
        if direct {
            params[0][5] = 1;
        }
        params.push([base, 0, 1, 0, 0, 0, 0, 0]);
        let grids = params[..windows.len()]
            .iter()
            .map(|p| workgroup_grid(u64::from(p[2]), self.info().max_workgroups_per_dimension))
            .collect::<Result<Vec<_>>>()?;

        let slot =
            u64::from(self.info().limits.min_uniform_buffer_offset_alignment).max(PARAMS_BYTES);
        let mut bytes = vec![0u8; (slot * params.len() as u64) as usize];
        for (i, p) in params.iter().enumerate() {
            let at = i * slot as usize;
            bytes[at..at + PARAMS_BYTES as usize].copy_from_slice(bytemuck::bytes_of(p));
        }
        let param_buffer = self.uniform_constant(&bytes)?;
        let partials = self.scratch(
            "reduce partials",
            spec.accumulator_bytes * u64::from(base.max(1)),
            wgpu::BufferUsages::STORAGE,
        )?;

        let param_at = |i: usize| {
            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &param_buffer,
                offset: slot * i as u64,
                size: wgpu::BufferSize::new(PARAMS_BYTES),
            })
        };
        let partial_steps = windows
            .iter()
            .zip(&grids)
            .enumerate()
            .map(|(i, (w, grid))| {
                let (offset, size) = w.byte_range(unit_bytes);
                let window = |buffer| {
                    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset,
                        size: Some(size),
                    })
                };
                let mut entries = vec![
                    entry(0, param_at(i)),
                    entry(1, partials.as_entire_binding()),
                    entry(2, window(&x.buffer)),
                    entry(4, result.as_entire_binding()),
                ];
                if let Some(y) = y {
                    entries.push(entry(3, window(&y.buffer)));
                }
                Step {
                    kernel: &partials_kernel,
                    entries,
                    grid: *grid,
                }
            });
        let finish_step = (!direct).then(|| Step {
            kernel: &finish_kernel,
            entries: vec![
                entry(0, param_at(windows.len())),
                entry(1, partials.as_entire_binding()),
                entry(4, result.as_entire_binding()),
            ],
            grid: [1, 1, 1],
        });
        let enc = encode_steps(self, op, partial_steps.chain(finish_step))?;
        Ok((enc, partials))
    }
}

fn first<T: Copy>(v: Vec<T>) -> T {
    v[0]
}

fn entry(binding: u32, resource: wgpu::BindingResource<'_>) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry { binding, resource }
}

/// Threads of the finishing pass, which combines the partials: as many as the device
/// allows, up to 1024. The pass is one workgroup and its time is latency, so fewer
/// partials per invocation is faster.
fn finish_workgroup_size(ctx: &Ctx, wg: u32) -> u32 {
    pow2_workgroup_size(ctx, 1024).max(wg)
}

/// Workgroups in the first pass. On a GPU, many short-lived workgroups (16 partials per
/// finishing invocation: 16384 with a 1024-invocation finish) balance the load across
/// the compute units better than a few long ones. On the H100, `examples/reduce_lab.rs`
/// (a sum kernel of this shape, 2^28 f32, 20 calls back to back) took 0.3601 ms per
/// call with 2048 workgroups and a 256-invocation finish, 0.3566 ms with 16384 and
/// 1024. On a CPU adapter each workgroup runs on one core, and more only add partials.
/// Never more than a 3D grid of the allowed size holds: the loop strides past the rest.
fn partial_groups_cap(ctx: &Ctx, finish_wg: u32) -> u32 {
    let wanted = match ctx.info().device_type {
        wgpu::DeviceType::Cpu => 32,
        _ => 16 * finish_wg,
    };
    wanted.min(ctx.info().max_workgroups_per_dimension.saturating_pow(3))
}

/// The WGSL of one reduction operator.
struct Spec {
    /// Variant name for the pipeline key.
    name: &'static str,
    /// The accumulator type.
    accumulator: String,
    accumulator_bytes: u64,
    /// identity(), lift(), combine(), finish().
    functions: String,
    /// The subgroup built-in that performs `combine` across a subgroup, if any.
    subgroup_op: Option<&'static str>,
    /// User code for the pipeline key (custom operator and identity).
    code: String,
}

impl Spec {
    fn new<T: GpuElement>(ctx: &Ctx, reduce: &Reduce<T>) -> Result<Spec> {
        let t = T::WGSL;
        let float = T::KIND == ScalarKind::Float;
        let plain = |name, identity: T, combine: &str, subgroup| Spec {
            name,
            accumulator: t.to_string(),
            accumulator_bytes: size_of::<T>() as u64,
            functions: format!(
                "fn identity() -> A {{ return {}; }}\n\
                 fn lift(x: T) -> A {{ return x; }}\n\
                 fn combine(a: A, b: A) -> A {{ return {combine}; }}\n\
                 fn finish(a: A) -> T {{ return a; }}\n",
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
                functions: "fn identity() -> A { return A(); }\n\
                            fn lift(x: T) -> A { return A(x, 0.0); }\n\
                            fn opaque(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) ^ params.opaque_zero); }\n\
                            // Knuth's two-sum: s + e is exactly p.x + q.x.\n\
                            fn combine(p: A, q: A) -> A {\n\
                            \x20   let s = opaque(p.x + q.x);\n\
                            \x20   let v = opaque(s - p.x);\n\
                            \x20   let e = (p.x - (s - v)) + (q.x - v);\n\
                            \x20   return A(s, (p.y + q.y) + e);\n\
                            }\n\
                            fn finish(a: A) -> T { return a.x + a.y; }\n"
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
                    functions: "fn identity() -> A { return A(); }\n\
                                fn lift(x: T) -> A { return A(x); }\n\
                                fn combine(a: A, b: A) -> A { return a + b; }\n\
                                fn finish(a: A) -> T { return T(a); }\n"
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

    fn render<T: GpuElement>(&self, wg: u32, finish_wg: u32, dot: bool) -> String {
        let workgroup_reduce = match self.subgroup_op {
            Some(op) => render(SUBGROUP_WGSL, &[("SUBGROUP_OP", op)]),
            None => TREE_WGSL.to_string(),
        };
        let (wg, finish_wg) = (wg.to_string(), finish_wg.to_string());
        render(
            REDUCE_WGSL,
            &[
                ("ENABLE", T::ENABLE),
                ("T", T::WGSL),
                ("A", &self.accumulator),
                ("OP", &self.functions),
                ("UNIT", if dot { "x[u] * y[u]" } else { "x[u]" }),
                ("WORKGROUP_REDUCE", &workgroup_reduce),
                ("WG", &wg),
                ("FINISH_WG", &finish_wg),
            ],
        )
    }
}
