//! Moves by index: [`Ctx::gather`], [`Ctx::gather_into`] and [`Ctx::scatter`] (NumPy's
//! `src[indices]` and `dst[indices] = src`, torch's `index_select` and `index_copy_`).
//!
//! Element-wise kernels of the kernel family (`ops::kernel`) over the indices: the
//! indices and the vector that follows them (the gather's output, the scatter's
//! source) are read unit by unit and may span several storage bindings. The vector
//! indexed freely (the gather's source, the scatter's destination) is bound whole when
//! it fits one binding; past that, each of its binding windows takes a pass over all the
//! indices, moving those that fall in it. An index past the end of that vector is skipped: nothing is
//! read or written for it (no clamping to the last element); the `_counted` forms add
//! the number skipped to a counter on the device.

use crate::element::GpuElement;
use crate::error::Result;
use crate::ops::kernel::{Access, Args, View, record_statements};
use crate::runtime::context::{Ctx, check_len};
use crate::runtime::dispatch::{chunks, units_per_window};
use crate::runtime::record::Work;
use crate::runtime::vec::{GpuVec, LANES};

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
    /// [`Error::TooLarge`](crate::Error::TooLarge) if `src` has more than `u32::MAX`
    /// elements (a `src` larger than one storage binding works: one pass over the
    /// indices per binding window of it),
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
        self.gather_impl("gather", src, indices, out, None)
    }

    /// [`Ctx::gather_into`], also adding the number of indices `>= src.len()` (those
    /// skipped) to `skipped[0]`, on the device.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let src = ctx.upload(&[1u32, 2, 3])?;
    /// let idx = ctx.upload(&[2u32, 3, 0, 40])?;
    /// let mut out = ctx.zeros::<u32>(4)?;
    /// let mut skipped = ctx.zeros::<u32>(1)?;
    /// ctx.gather_into_counted(&src, &idx, &mut out, &mut skipped)?;
    /// assert_eq!(out.to_vec()?, vec![3, 0, 1, 0]);
    /// assert_eq!(skipped.to_vec()?, vec![2]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::gather_into`], and [`Error::InvalidArgument`](crate::Error::InvalidArgument)
    /// for an empty `skipped` or one that shares a buffer with another argument.
    pub fn gather_into_counted<T: GpuElement>(
        &self,
        src: &GpuVec<T>,
        indices: &GpuVec<u32>,
        out: &mut GpuVec<T>,
        skipped: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.gather_impl("gather_into_counted", src, indices, out, Some(skipped))
    }

    fn gather_impl<T: GpuElement>(
        &self,
        op: &'static str,
        src: &GpuVec<T>,
        indices: &GpuVec<u32>,
        out: &mut GpuVec<T>,
        skipped: Option<&mut GpuVec<u32>>,
    ) -> Result<()> {
        self.check_owned(op, &[&src.ctx, &indices.ctx, &out.ctx])?;
        check_len(op, ("out", out.len()), ("indices", indices.len()))?;
        check_indexable(op, "src", src)?;
        if let Some(s) = &skipped {
            self.check_skipped(op, s, &[View::of(src), View::of(indices), View::of(out)])?;
        }
        if indices.is_empty() {
            return Ok(());
        }
        let follower = ("dst", View::of(out), Access::ReadWrite);
        let indexed = ("src", src, Access::Raw);
        self.record_moves(op, indices, follower, indexed, "dst = src[k];", skipped)
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
    /// [`Error::TooLarge`](crate::Error::TooLarge) if `dst` has more than `u32::MAX`
    /// elements (past one storage binding: one pass over the indices per window of it),
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for prefix views or if `dst` shares a buffer with an
    /// input, [`Error::ContextMismatch`](crate::Error::ContextMismatch) for vectors of another context.
    pub fn scatter<T: GpuElement>(
        &self,
        src: &GpuVec<T>,
        indices: &GpuVec<u32>,
        dst: &mut GpuVec<T>,
    ) -> Result<()> {
        self.scatter_impl("scatter", src, indices, dst, None)
    }

    /// [`Ctx::scatter`], also adding the number of indices `>= dst.len()` (those
    /// skipped) to `skipped[0]`, on the device.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let src = ctx.upload(&[7i32, 8, 9])?;
    /// let idx = ctx.upload(&[1u32, 5, 0])?;
    /// let mut dst = ctx.zeros::<i32>(2)?;
    /// let mut skipped = ctx.upload(&[10u32])?;
    /// ctx.scatter_counted(&src, &idx, &mut dst, &mut skipped)?;
    /// assert_eq!(dst.to_vec()?, vec![9, 7]);
    /// assert_eq!(skipped.to_vec()?, vec![11]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::scatter`], and [`Error::InvalidArgument`](crate::Error::InvalidArgument)
    /// for an empty `skipped` or one that shares a buffer with another argument.
    pub fn scatter_counted<T: GpuElement>(
        &self,
        src: &GpuVec<T>,
        indices: &GpuVec<u32>,
        dst: &mut GpuVec<T>,
        skipped: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.scatter_impl("scatter_counted", src, indices, dst, Some(skipped))
    }

    fn scatter_impl<T: GpuElement>(
        &self,
        op: &'static str,
        src: &GpuVec<T>,
        indices: &GpuVec<u32>,
        dst: &mut GpuVec<T>,
        skipped: Option<&mut GpuVec<u32>>,
    ) -> Result<()> {
        self.check_owned(op, &[&src.ctx, &indices.ctx, &dst.ctx])?;
        check_len(op, ("src", src.len()), ("indices", indices.len()))?;
        check_indexable(op, "dst", dst)?;
        if let Some(s) = &skipped {
            self.check_skipped(op, s, &[View::of(src), View::of(indices), View::of(dst)])?;
        }
        if indices.is_empty() {
            return Ok(());
        }
        let follower = ("src", View::of(src), Access::Read);
        let indexed = ("dst", &*dst, Access::RawReadWrite);
        self.record_moves(op, indices, follower, indexed, "dst[k] = src;", skipped)
    }

    /// A gather's or scatter's kernels: one pass over `indices` (and the vector that
    /// `follower` names, element by element) per binding window of the vector that
    /// `indexed` names (indexed freely; its length checked by `check_indexable`), `body` run
    /// with `k` the index within the window for the indices that fall in it. Indices past
    /// its end are
    /// counted into `skipped`: in the pass itself when there is one window, else (no
    /// window for an empty vector, or several) by a pass of their own.
    fn record_moves<'a, T: GpuElement>(
        &self,
        op: &'static str,
        indices: &'a GpuVec<u32>,
        (follower, follower_view, follower_access): (&str, View<'a>, Access),
        (indexed, indexed_vec, indexed_access): (&str, &'a GpuVec<T>, Access),
        body: &str,
        mut skipped: Option<&'a mut GpuVec<u32>>,
    ) -> Result<()> {
        let mut work = Work::new(self, op);
        let parts = self.parts(indexed_vec);
        let one = parts.len() == 1;
        for (part, base) in parts {
            let mut args = Args::new(op);
            args.vec("index", View::of(indices), Access::Read);
            args.vec(follower, follower_view, follower_access);
            args.vec(indexed, part, indexed_access);
            args.scalar("base", base);
            args.scalar("part_len", part.len as u32);
            let count = if one {
                counted(&mut args, skipped.take())
            } else {
                ""
            };
            let code = format!(
                "let k = index - base; if index >= base && k < part_len {{ {body} }}{count}"
            );
            record_statements(self, &mut work, &code, args)?;
        }
        if let Some(s) = skipped {
            let len = indexed_vec.len() as u32;
            self.record_skipped(&mut work, indices, len, s)?;
        }
        work.submit()
    }
}

/// With `skipped`, binds it as an atomic counter and returns the statement's `else`
/// branch that counts a skipped index; "" without.
pub(crate) fn counted<'a>(
    args: &mut Args<'a>,
    skipped: Option<&'a mut GpuVec<u32>>,
) -> &'static str {
    match skipped {
        Some(s) => {
            args.vec("skipped", View::of(&*s), Access::Atomic);
            " else { atomicAdd(&skipped[0], 1u); }"
        }
        None => "",
    }
}

impl Ctx {
    /// The binding windows of a vector indexed freely, each with the index of its first
    /// element (one window when it fits one binding).
    fn parts<'a, T: GpuElement>(&self, v: &'a GpuVec<T>) -> Vec<(View<'a>, u32)> {
        let whole = View::of(v);
        let unit = whole.unit_bytes();
        chunks(whole.units(), units_per_window(self, &[unit]))
            .map(|c| {
                let first = c.offset_units * LANES as u64;
                let part = View {
                    offset: whole.offset + c.offset_units * unit,
                    len: (c.units * LANES as u64).min(whole.len as u64 - first) as usize,
                    // Only the last window may reach into the vector's padding.
                    padded: whole.padded && first + c.units * (LANES as u64) >= whole.len as u64,
                    ..whole
                };
                (part, first as u32)
            })
            .collect()
    }
}

/// Checks a vector gather or scatter indexes: its length on the host, and at most
/// `u32::MAX` elements (its indices are `u32`).
fn check_indexable<T: GpuElement>(op: &'static str, name: &str, v: &GpuVec<T>) -> Result<()> {
    v.require_host_len(op)?;
    if u32::try_from(v.len()).is_err() {
        return Err(crate::Error::TooLarge {
            what: format!(
                "{op}'s {name} of {} elements (its indices are u32)",
                v.len()
            ),
            kind: crate::Limit::Elements,
            requested: v.len() as u64,
            limit: u64::from(u32::MAX),
        });
    }
    Ok(())
}
