//! Copies between vectors: [`GpuVec::copy_from`], [`GpuVec::try_clone`], and the copy
//! that calls ending in one record (`record_copy`). Large copies take wgpu's buffer copy
//! or the copy kernel, whichever the context measured faster.

use std::sync::OnceLock;

use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::kernel::{Access, Args, record_expression};
use crate::runtime::record::Work;
use crate::runtime::vec::GpuVec;
use crate::runtime::view::View;

/// Copies of at least this many bytes take the measured way ([`GpuVec::copy_from`]):
/// below it a copy is mostly submission overhead, too short to time by the host clock.
const COPY_MEASURED_BYTES: u64 = 16 << 20;

/// How much faster the copy kernel must be than the buffer copy to be chosen.
const COPY_MARGIN: f64 = 0.03;

/// How large copies go on a context, once measured: `true` through the copy kernel,
/// `false` through wgpu's buffer copy (kept in the context's op state).
#[derive(Default)]
struct CopyPath {
    by_kernel: OnceLock<bool>,
}

impl<T: Element> GpuVec<T> {
    /// Copies all of `src` into `self` on the GPU. The lengths must match.
    ///
    /// Copies of at least 16 MiB go the faster of two ways on this adapter: wgpu's buffer
    /// copy (`copy_buffer_to_buffer`) or gpuprim's copy kernel (on some GPUs the kernel
    /// is several times faster; see docs/PERFORMANCE.md). The first such copy on a
    /// context times both (a few rounds each, waiting for the GPU) and keeps the faster,
    /// the buffer copy unless the kernel is at least 3% faster; smaller copies, and copies
    /// inside [`Ctx::record`](crate::Ctx::record) before that, take the buffer copy.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[1u32, 2, 3])?;
    /// let mut b = ctx.zeros::<u32>(3)?;
    /// b.copy_from(&a)?;
    /// assert_eq!(b.to_vec()?, vec![1, 2, 3]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn copy_from(&mut self, src: &GpuVec<T>) -> Result<()> {
        let op = "GpuVec::copy_from";
        self.require_host_len(op)?;
        src.require_host_len(op)?;
        if !self.ctx.same(&src.ctx) {
            return Err(Error::ContextMismatch { op });
        }
        if self.len != src.len {
            return Err(Error::LengthMismatch {
                op,
                left_name: "destination".into(),
                left: self.len,
                right_name: "source".into(),
                right: src.len,
            });
        }
        self.require_usage(op, wgpu::BufferUsages::COPY_DST)?;
        src.require_usage(op, wgpu::BufferUsages::COPY_SRC)?;
        if self.len == 0 {
            return Ok(());
        }
        // Whole words: a borrowed vector is (checked at its making); gpuprim's are padded.
        let bytes = (self.len * size_of::<T>()).next_multiple_of(4) as u64;
        let ctx = self.ctx.clone();
        let by_kernel = if bytes < COPY_MEASURED_BYTES {
            false
        } else if let Some(&k) = ctx.op_state::<CopyPath>().by_kernel.get() {
            k
        } else if ctx.sink.is_some() {
            false
        } else {
            let k = self.measure_copy(src, bytes)?;
            *ctx.op_state::<CopyPath>().by_kernel.get_or_init(|| k)
        };
        if by_kernel {
            self.kernel_copy(src)
        } else {
            self.buffer_copy(src, bytes)
        }
    }

    /// `src` into `self` by the copy kernel, over both as 32-bit words.
    fn kernel_copy(&mut self, src: &GpuVec<T>) -> Result<()> {
        let mut work = Work::new(&self.ctx, "GpuVec::copy_from");
        let mut args = Args::new(work.op());
        args.vec("x", View::of(src).words(), Access::Read);
        args.internal("gp_out", View::of(self).words(), Access::Write);
        record_expression(&self.ctx, &mut work, "x", args)?;
        work.submit()
    }

    /// `src` into `self` by wgpu's buffer copy.
    fn buffer_copy(&mut self, src: &GpuVec<T>, bytes: u64) -> Result<()> {
        let mut work = Work::new(&self.ctx, "GpuVec::copy_from");
        work.copy(
            (&src.buffer, src.offset),
            (&self.buffer, self.offset),
            bytes,
        );
        work.submit()
    }

    /// Times `src` into `self` by buffer copy and by the copy kernel, alternating: whether
    /// the kernel is at least [`COPY_MARGIN`] faster. Every round makes the same copy.
    fn measure_copy(&mut self, src: &GpuVec<T>, bytes: u64) -> Result<bool> {
        let ctx = self.ctx.clone();
        let (mut buffer, mut kernel) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            for by_kernel in [false, true] {
                ctx.synchronize()?;
                let t0 = std::time::Instant::now();
                for _ in 0..3 {
                    if by_kernel {
                        self.kernel_copy(src)?;
                    } else {
                        self.buffer_copy(src, bytes)?;
                    }
                }
                ctx.synchronize()?;
                let s = t0.elapsed().as_secs_f64();
                if by_kernel { &mut kernel } else { &mut buffer }.push(s);
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        Ok(median(&mut kernel) < median(&mut buffer) * (1.0 - COPY_MARGIN))
    }

    /// A new vector with the same contents.
    pub fn try_clone(&self) -> Result<GpuVec<T>> {
        let mut out = self.ctx.zeros::<T>(self.len)?;
        out.copy_from(self)?;
        Ok(out)
    }
}

/// Adds a copy of `src` into `dst` (same element type and length, host lengths) to
/// `work`, for calls that end in a copy: wgpu's buffer copy, or the copy kernel where the
/// context measured it faster ([`GpuVec::copy_from`]) or a buffer lacks the copy usages (a
/// borrowed vector needs only `STORAGE`).
pub(crate) fn record_copy(work: &mut Work, src: &View<'_>, dst: &View<'_>) -> Result<()> {
    debug_assert_eq!((src.len, src.wgsl), (dst.len, dst.wgsl));
    let bytes = (dst.len as u64 * dst.size).next_multiple_of(4);
    let usable = dst.buffer.usage().contains(wgpu::BufferUsages::COPY_DST)
        && src.buffer.usage().contains(wgpu::BufferUsages::COPY_SRC);
    let measured = bytes >= COPY_MEASURED_BYTES
        && dst.ctx.op_state::<CopyPath>().by_kernel.get().copied() == Some(true);
    if usable && !measured {
        work.copy((src.buffer, src.offset), (dst.buffer, dst.offset), bytes);
        return Ok(());
    }
    let mut args = Args::new(work.op());
    args.vec("x", *src, Access::Read);
    args.internal("gp_out", *dst, Access::Write);
    record_expression(dst.ctx, work, "x", args)
}
