//! Element-wise kernels from a WGSL expression: [`Ctx::map`] and [`Ctx::zip`].

use crate::context::{Ctx, check_len};
use crate::dispatch::{elementwise_workgroup_size, run_elementwise};
use crate::element::GpuElement;
use crate::error::Result;
use crate::ops::random::RANDOM_WGSL;
use crate::pipeline::{PipelineKey, render};
use crate::vec::{GpuVec, LANES};

const MAP_WGSL: &str = include_str!("../../wgsl/map.wgsl");
const ZIP_WGSL: &str = include_str!("../../wgsl/zip.wgsl");

/// Workgroups per binding window for map and zip; their kernels loop over the rest.
///
/// On the H100 (2^28 f32 copy) more workgroups were faster up to 33792 (0.7505 ms), and
/// one per vec4 (262144 workgroups, no loop) was slower (0.7687 ms); 1056 took 0.7832 ms.
/// A CPU adapter runs a workgroup per core at a time, so a few hundred are plenty.
fn max_groups(ctx: &Ctx) -> u64 {
    match ctx.info().device_type {
        wgpu::DeviceType::Cpu => 256,
        _ => 32768,
    }
}

impl Ctx {
    /// A new vector with `expr` applied to every element of `src`.
    ///
    /// `expr` is a WGSL expression in `x` (the element, of `src`'s type) that has the same
    /// type, e.g. `"x * 2.0 + 1.0"` for `f32` or `"x ^ 0xffu"` for `u32`. WGSL built-ins
    /// (`sin`, `select`, `clamp`, `bitcast`, ...) are available, and so are the random
    /// functions of [`RANDOM_WGSL`] (`wang_hash`, `pcg_hash`, `rng_pcg32(i, seed)`, ...).
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
        let mut dst = self.zeros::<T>(src.len())?;
        self.map_into(src, expr, &mut dst)?;
        Ok(dst)
    }

    /// [`Ctx::map`] into an existing vector of the same length. The work is recorded
    /// without waiting; later calls and read-backs see its result.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[1u32, 2, 3])?;
    /// let mut out = ctx.zeros::<u32>(3)?;
    /// ctx.map_into(&a, "x * x", &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![1, 4, 9]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn map_into<T: GpuElement>(
        &self,
        src: &GpuVec<T>,
        expr: &str,
        dst: &mut GpuVec<T>,
    ) -> Result<()> {
        let op = "map";
        self.check_owned(op, &[&src.ctx, &dst.ctx])?;
        check_len(op, ("dst", dst.len()), ("src", src.len()))?;
        self.run_expr::<T>(
            op,
            MAP_WGSL,
            expr,
            src.lanes4(),
            &[&src.buffer, &dst.buffer],
        )
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
        check_len("zip", ("a", a.len()), ("b", b.len()))?;
        let mut dst = self.zeros::<T>(a.len())?;
        self.zip_into(a, b, expr, &mut dst)?;
        Ok(dst)
    }

    /// [`Ctx::zip`] into an existing vector of the same length, without waiting.
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
    pub fn zip_into<T: GpuElement>(
        &self,
        a: &GpuVec<T>,
        b: &GpuVec<T>,
        expr: &str,
        dst: &mut GpuVec<T>,
    ) -> Result<()> {
        let op = "zip";
        self.check_owned(op, &[&a.ctx, &b.ctx, &dst.ctx])?;
        check_len(op, ("a", a.len()), ("b", b.len()))?;
        check_len(op, ("dst", dst.len()), ("a", a.len()))?;
        let buffers = [&a.buffer, &b.buffer, &dst.buffer];
        self.run_expr::<T>(op, ZIP_WGSL, expr, a.lanes4(), &buffers)
    }

    /// Compiles (once) `template` with the user's `expr` and runs it over `units` vec4
    /// units, `buffers` bound in order.
    fn run_expr<T: GpuElement>(
        &self,
        op: &'static str,
        template: &str,
        expr: &str,
        units: u64,
        buffers: &[&wgpu::Buffer],
    ) -> Result<()> {
        crate::expr::check_expression(op, "expression", expr)?;
        let wg = elementwise_workgroup_size(self);
        let kernel = self.kernel(key::<T>(op, wg, expr), || {
            render(template, &vars::<T>(wg, expr))
        })?;
        run_elementwise(
            self,
            op,
            &kernel,
            wg,
            max_groups(self),
            units,
            unit_bytes::<T>(),
            buffers,
        )
    }
}

fn key<T: GpuElement>(op: &'static str, wg: u32, expr: &str) -> PipelineKey {
    PipelineKey {
        op,
        element: T::WGSL,
        workgroup_size: wg,
        variant: String::new(),
        code: expr.to_string(),
    }
}

/// Template variables. `LIB` is [`RANDOM_WGSL`], a constant of the build, so it is not
/// part of the [`PipelineKey`].
fn vars<T: GpuElement>(wg: u32, expr: &str) -> [(&'static str, String); 5] {
    [
        ("LIB", RANDOM_WGSL.to_string()),
        ("ENABLE", T::ENABLE.to_string()),
        ("T", T::WGSL.to_string()),
        ("WG", wg.to_string()),
        ("EXPR", expr.to_string()),
    ]
}

fn unit_bytes<T: GpuElement>() -> u64 {
    (LANES * size_of::<T>()) as u64
}
