//! Reductions and the dot product: [`Ctx::reduce`], [`Ctx::reduce_with`], [`Ctx::dot`].
//!
//! Two passes (`wgsl/reduce.wgsl`): a fixed number of workgroups folds the input with
//! vec4 loads in a grid-stride loop and writes one partial per workgroup; one workgroup
//! combines the partials. The workgroup step uses subgroup operations where the adapter
//! has them (`wgsl/reduce_subgroup.wgsl`) and a shared-memory tree otherwise
//! (`wgsl/reduce_tree.wgsl`). No atomics: the order of combination depends only on the
//! adapter and the length, so float results are the same bits on every run.

mod kernel;
mod record;
mod spec;
pub(crate) mod tuning;

pub(crate) use record::partial_windows;
pub(crate) use spec::Spec;

use record::Input;

use crate::element::GpuElement;
use crate::error::{Error, Result};
use crate::ops::kernel::{Access, Args, KernelScalar, View, read_only_args};
use crate::runtime::context::Ctx;
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::{GpuVec, LANES};

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
    ) -> Result<crate::runtime::vec::ReadBack<T>> {
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
    fn start(self) -> Result<crate::runtime::vec::ReadBack<U>> {
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

fn first<T: Copy>(v: Vec<T>) -> T {
    v[0]
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`).
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    kernel::catalog(c);
}
