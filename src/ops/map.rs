//! Element-wise kernels from a WGSL expression: [`Ctx::map`] and [`Ctx::zip`], short forms
//! of [`Ctx::elementwise`] (`out = expr`) with an output type of their own
//! ([`Ctx::map_to`], [`Ctx::zip_to`]).

use crate::element::GpuElement;
use crate::error::Result;
use crate::ops::kernel::{Access, Args, View, record_expression};
use crate::runtime::context::{Ctx, check_len};
use crate::runtime::record::Work;
use crate::runtime::vec::GpuVec;

impl Ctx {
    /// A new vector with `expr` applied to every element of `src`.
    ///
    /// `expr` is a WGSL expression in `x` (the element, of `src`'s type) that has the same
    /// type, e.g. `"x * 2.0 + 1.0"` for `f32` or `"x ^ 0xffu"` for `u32`. WGSL built-ins
    /// (`sin`, `select`, `clamp`, `bitcast`, ...) are available, and so are the random
    /// functions of [`RANDOM_WGSL`](crate::RANDOM_WGSL) (`wang_hash`, `pcg_hash`, `rng_pcg32(i, seed)`, ...).
    /// Integer arithmetic wraps.
    /// Each distinct expression compiles once per element type; later calls reuse it.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) if `expr` is not exactly
    /// one WGSL expression (it may not hold `;`, braces or comments),
    /// [`Error::Compile`](crate::Error::Compile) if the expression is not valid WGSL of the element type (the
    /// message quotes the compiler), [`Error::OutOfMemory`](crate::Error::OutOfMemory) if the output cannot be made.
    ///
    /// # Examples
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[1.0f32, 2.0, 3.0])?;
    /// let b = ctx.map(&a, "x * 2.0 + 1.0")?;
    /// assert_eq!(b.to_vec()?, vec![3.0, 5.0, 7.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn map<T: GpuElement>(&self, src: &GpuVec<T>, expr: &str) -> Result<GpuVec<T>> {
        self.map_to::<T, T>(src, expr)
    }

    /// [`Ctx::map`] with an output type of its own: `expr` is a WGSL expression in `x`
    /// (of `src`'s type) of type `U`, e.g. a conversion to a bin index.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[0.05f32, 0.51, 0.99])?;
    /// let bins = ctx.map_to::<f32, u32>(&a, "u32(x * 10.0)")?;
    /// assert_eq!(bins.to_vec()?, vec![0, 5, 9]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn map_to<T: GpuElement, U: GpuElement>(
        &self,
        src: &GpuVec<T>,
        expr: &str,
    ) -> Result<GpuVec<U>> {
        let mut dst = self.zeros::<U>(src.len())?;
        self.map_into(src, expr, &mut dst)?;
        dst.count = src.count.clone();
        Ok(dst)
    }

    /// [`Ctx::map`] into an existing vector of the same length (of the expression's type).
    /// The work is recorded without waiting; later calls and read-backs see its result.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[1u32, 2, 3])?;
    /// let mut out = ctx.zeros::<u32>(3)?;
    /// ctx.map_into(&a, "x * x", &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![1, 4, 9]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn map_into<T: GpuElement, U: GpuElement>(
        &self,
        src: &GpuVec<T>,
        expr: &str,
        dst: &mut GpuVec<U>,
    ) -> Result<()> {
        let op = "map";
        check_len(op, ("dst", dst.len()), ("src", src.len()))?;
        let mut args = Args::new(op);
        args.vec("x", View::of(src), Access::Read);
        self.run_expression(op, expr, args, dst)
    }

    /// A new vector with `expr` applied to every pair of elements of `a` and `b`.
    ///
    /// `expr` is a WGSL expression in `a` and `b` of the element type, e.g. `"a + b"` or
    /// `"max(a, b)"`. The lengths must match.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) if `a` and `b` differ in length, [`Error::Compile`](crate::Error::Compile) if the
    /// expression is not valid WGSL of the element type, [`Error::InvalidArgument`](crate::Error::InvalidArgument)
    /// if it is not exactly one expression.
    ///
    /// # Examples
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[1i32, 2, 3])?;
    /// let b = ctx.upload(&[10i32, 20, 30])?;
    /// let c = ctx.zip(&a, &b, "a * b - 1")?;
    /// assert_eq!(c.to_vec()?, vec![9, 39, 89]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn zip<T: GpuElement>(
        &self,
        a: &GpuVec<T>,
        b: &GpuVec<T>,
        expr: &str,
    ) -> Result<GpuVec<T>> {
        self.zip_to::<T, T>(a, b, expr)
    }

    /// [`Ctx::zip`] with an output type of its own: `expr` is a WGSL expression in `a`
    /// and `b` of type `U`.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[1.0f32, 5.0, 3.0])?;
    /// let b = ctx.upload(&[2.0f32, 4.0, 3.0])?;
    /// let above = ctx.zip_to::<f32, u32>(&a, &b, "select(0u, 1u, a > b)")?;
    /// assert_eq!(above.to_vec()?, vec![0, 1, 0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn zip_to<T: GpuElement, U: GpuElement>(
        &self,
        a: &GpuVec<T>,
        b: &GpuVec<T>,
        expr: &str,
    ) -> Result<GpuVec<U>> {
        check_len("zip", ("a", a.len()), ("b", b.len()))?;
        let mut dst = self.zeros::<U>(a.len())?;
        self.zip_into(a, b, expr, &mut dst)?;
        dst.count = a.count.clone().or_else(|| b.count.clone());
        Ok(dst)
    }

    /// [`Ctx::zip`] into an existing vector of the same length (of the expression's
    /// type), without waiting.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[1.0f32, 2.0])?;
    /// let b = ctx.upload(&[0.5f32, 0.25])?;
    /// let mut c = ctx.zeros::<f32>(2)?;
    /// ctx.zip_into(&a, &b, "a / b", &mut c)?;
    /// assert_eq!(c.to_vec()?, vec![2.0, 8.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn zip_into<T: GpuElement, U: GpuElement>(
        &self,
        a: &GpuVec<T>,
        b: &GpuVec<T>,
        expr: &str,
        dst: &mut GpuVec<U>,
    ) -> Result<()> {
        let op = "zip";
        check_len(op, ("a", a.len()), ("b", b.len()))?;
        check_len(op, ("dst", dst.len()), ("a", a.len()))?;
        let mut args = Args::new(op);
        args.vec("a", View::of(a), Access::Read);
        args.vec("b", View::of(b), Access::Read);
        self.run_expression(op, expr, args, dst)
    }

    /// Runs `out = expr` over `args` (whose element vectors have `out`'s length).
    fn run_expression<'a, U: GpuElement>(
        &self,
        op: &'static str,
        expr: &str,
        mut args: Args<'a>,
        out: &'a mut GpuVec<U>,
    ) -> Result<()> {
        crate::expr::check_expression(op, "expression", expr)?;
        args.internal("gp_out", View::of(out), Access::Write);
        let mut work = Work::new(self, op);
        record_expression(self, &mut work, expr, args)?;
        work.submit()
    }
}
