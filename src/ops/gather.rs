//! Moves by index: [`Ctx::gather`], [`Ctx::gather_into`] and [`Ctx::scatter`] (NumPy's
//! `src[indices]` and `dst[indices] = src`, torch's `index_select` and `index_copy_`).
//!
//! Element-wise kernels of the kernel family (`ops::kernel`) over the indices: the
//! indices and the vector that follows them (the gather's output, the scatter's
//! source) are read unit by unit and may span several storage bindings; the vector
//! indexed freely (the gather's source, the scatter's destination) is bound whole, so it
//! must fit one binding. An index past the end of that vector is skipped: nothing is
//! read or written for it (no clamping to the last element).

use crate::element::GpuElement;
use crate::error::Result;
use crate::ops::kernel::{Access, Args, View, record_statements};
use crate::runtime::context::{Ctx, check_len};
use crate::runtime::record::Work;
use crate::runtime::vec::GpuVec;

impl Ctx {
    /// `out[i] = src[indices[i]]` for every `i`, into a new vector of the indices'
    /// length. An index `>= src.len()` is skipped: that element of the result is zero.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let src = ctx.upload(&[10.0f32, 20.0, 30.0])?;
    /// let idx = ctx.upload(&[2u32, 0, 0, 7, 1])?;
    /// assert_eq!(ctx.gather(&src, &idx)?.to_vec()?, vec![30.0, 10.0, 10.0, 0.0, 20.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::TooLarge`](crate::Error::TooLarge) if `src` does not fit one storage binding
    /// (`ctx.info().max_binding_bytes`; the indices may be longer),
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for prefix views ([`GpuVec::prefix`]),
    /// [`Error::ContextMismatch`](crate::Error::ContextMismatch) for vectors of another context.
    pub fn gather<T: GpuElement>(
        &self,
        src: &GpuVec<T>,
        indices: &GpuVec<u32>,
    ) -> Result<GpuVec<T>> {
        let mut out = self.zeros::<T>(indices.len())?;
        self.gather_into(src, indices, &mut out)?;
        Ok(out)
    }

    /// [`Ctx::gather`] into `out` (the indices' length), without waiting. Where an index
    /// is `>= src.len()`, `out` keeps the element it had.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let src = ctx.upload(&[1i32, -2, 3])?;
    /// let idx = ctx.upload(&[1u32, 3, 2])?;
    /// let mut out = ctx.upload(&[9i32, 9, 9])?;
    /// ctx.gather_into(&src, &idx, &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![-2, 9, 3]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::gather`], and [`Error::LengthMismatch`](crate::Error::LengthMismatch) unless `out` has the indices'
    /// length; [`Error::InvalidArgument`](crate::Error::InvalidArgument) if `out` shares a buffer with an input.
    pub fn gather_into<T: GpuElement>(
        &self,
        src: &GpuVec<T>,
        indices: &GpuVec<u32>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        let op = "gather";
        self.check_owned(op, &[&src.ctx, &indices.ctx, &out.ctx])?;
        check_len(op, ("out", out.len()), ("indices", indices.len()))?;
        let len = self.freely_indexed_len(op, "src", src)?;
        if indices.is_empty() || src.is_empty() {
            // Nothing to read: every index is out of range, so `out` keeps what it had.
            return Ok(());
        }
        let mut args = Args::new(op);
        args.vec("index", View::of(indices), Access::Read);
        args.vec("dst", View::of(out), Access::ReadWrite);
        args.vec("src", View::of(src), Access::Raw);
        args.scalar("src_len", len);
        let mut work = Work::new(self, op);
        record_statements(
            self,
            &mut work,
            "if index < src_len { dst = src[index]; }",
            args,
        )?;
        work.submit()
    }

    /// `dst[indices[i]] = src[i]` for every `i`, without waiting. An index
    /// `>= dst.len()` is skipped (nothing is written for it). Where several indices are
    /// equal, one of their elements lands, which one is unspecified (as torch's
    /// `index_copy_` with repeated indices).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let src = ctx.upload(&[1.5f32, 2.5, 3.5])?;
    /// let idx = ctx.upload(&[3u32, 0, 9])?;
    /// let mut dst = ctx.upload(&[0.0f32; 4])?;
    /// ctx.scatter(&src, &idx, &mut dst)?;
    /// assert_eq!(dst.to_vec()?, vec![2.5, 0.0, 0.0, 1.5]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) unless `src` and `indices` have one length,
    /// [`Error::TooLarge`](crate::Error::TooLarge) if `dst` does not fit one storage binding,
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for prefix views or if `dst` shares a buffer with an
    /// input, [`Error::ContextMismatch`](crate::Error::ContextMismatch) for vectors of another context.
    pub fn scatter<T: GpuElement>(
        &self,
        src: &GpuVec<T>,
        indices: &GpuVec<u32>,
        dst: &mut GpuVec<T>,
    ) -> Result<()> {
        let op = "scatter";
        self.check_owned(op, &[&src.ctx, &indices.ctx, &dst.ctx])?;
        check_len(op, ("src", src.len()), ("indices", indices.len()))?;
        let len = self.freely_indexed_len(op, "dst", dst)?;
        if indices.is_empty() || dst.is_empty() {
            return Ok(());
        }
        let mut args = Args::new(op);
        args.vec("index", View::of(indices), Access::Read);
        args.vec("src", View::of(src), Access::Read);
        args.vec("dst", View::of(dst), Access::RawReadWrite);
        args.scalar("dst_len", len);
        let mut work = Work::new(self, op);
        record_statements(
            self,
            &mut work,
            "if index < dst_len { dst[index] = src; }",
            args,
        )?;
        work.submit()
    }
}
