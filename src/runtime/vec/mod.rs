//! [`GpuVec<T>`]: a typed vector in device memory, its constructors over your buffers and
//! its views. Where its memory comes from is in `alloc.rs` (with the error capture every
//! call's GPU work runs in), the pool of scratch buffers in `pool.rs`, read-backs in
//! `read_back.rs`.

mod alloc;
mod pool;
mod read_back;

use std::fmt;
use std::marker::PhantomData;

use crate::element::Element;
use crate::error::{Error, Result};
use crate::runtime::context::Ctx;
use crate::runtime::view::View;

pub(crate) use pool::{BufferPool, Scratch};
pub(crate) use read_back::ReadBack;

/// A vector of `T` in device memory: made by [`Ctx::upload`] or [`Ctx::zeros`], or a
/// view of a buffer of your own ([`GpuVec::from_buffer`]).
///
/// gpuprim's own buffers are padded to a whole number of 4-element groups so kernels can
/// use vector loads; the padding is never visible through the API. A vector over your
/// buffer is exactly its elements: no call reads or writes a byte outside them. A
/// `GpuVec` keeps its [`Ctx`] alive and may be larger than the device's largest storage
/// binding.
pub struct GpuVec<T: Element> {
    /// Dropped through the driver's door ([`crate::runtime::driver`]): the last handle
    /// frees the buffer in the driver.
    pub(crate) buffer: crate::runtime::driver::Gated<wgpu::Buffer>,
    /// Byte offset of element 0 in `buffer`.
    pub(crate) offset: u64,
    pub(crate) len: usize,
    /// gpuprim's buffer, padded past `len` to whole vec4 units.
    pub(crate) padded: bool,
    /// A length on the device ([`GpuVec::prefix`]): a `u32` at this buffer and offset;
    /// calls run over `min(it, len)` elements.
    pub(crate) count: Option<(wgpu::Buffer, u64)>,
    pub(crate) ctx: Ctx,
    _element: PhantomData<T>,
}

impl<T: Element> fmt::Debug for GpuVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.padded {
            write!(f, "GpuVec<{}>(len {})", T::WGSL, self.len)
        } else {
            write!(
                f,
                "GpuVec<{}>(len {}, borrowed at byte {})",
                T::WGSL,
                self.len,
                self.offset
            )
        }
    }
}

/// Elements per vector load in the kernels; buffers are padded to a multiple of it.
pub(crate) const LANES: usize = 4;

impl<T: Element> GpuVec<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the vector has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The context that owns this vector.
    pub fn ctx(&self) -> &Ctx {
        &self.ctx
    }

    /// The underlying buffer, for your own wgpu code. The elements start at
    /// [`GpuVec::offset`]; in gpuprim's own vectors (offset 0) padding to a multiple of 4
    /// elements follows them (a vector made by [`Ctx::compact`] may have more room after).
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// Byte offset of element 0 in [`GpuVec::buffer`]: 0 for gpuprim's own vectors.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The buffer, for the application to keep: the elements from byte
    /// [`GpuVec::offset`] (0 for gpuprim's vectors, whose buffers have `STORAGE`,
    /// `COPY_SRC` and `COPY_DST` usage).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1.0f32, 2.0])?;
    /// let buffer: gpuprim::wgpu::Buffer = v.into_buffer();
    /// assert!(buffer.size() >= 8);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn into_buffer(self) -> wgpu::Buffer {
        self.buffer.into_inner()
    }

    /// A vector of `len` elements at the start of `buffer`, a buffer of your own on
    /// `ctx`'s device: no copy is made, and no call reads or writes a byte of `buffer`
    /// outside the `len` elements. See [`GpuVec::from_buffer_at`].
    pub fn from_buffer(ctx: &Ctx, buffer: wgpu::Buffer, len: usize) -> Result<GpuVec<T>> {
        GpuVec::from_buffer_at(ctx, buffer, 0, len)
    }

    /// A vector of `len` elements starting `offset` bytes into `buffer`, a buffer of
    /// your own on `ctx`'s device. No copy is made: kernels bind exactly
    /// `offset..offset + len * size_of::<T>()` of the buffer, and no call reads or writes
    /// a byte outside it (the bytes around belong to you: other fields, other arrays).
    ///
    /// The buffer needs `STORAGE` usage; reading it back ([`GpuVec::to_vec`]) needs
    /// `COPY_SRC`, and being the destination of a copy ([`GpuVec::copy_from`],
    /// [`Ctx::compact_into`]'s count) `COPY_DST`: those calls say so if it lacks them.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if the buffer lacks `STORAGE`, is too small for the
    /// range, `offset` is not a multiple of the device's
    /// `min_storage_buffer_offset_alignment`, the range is not a whole number of 4-byte
    /// words (an odd number of f16), or the buffer belongs to another device;
    /// [`Error::Unsupported`] for an element type the device lacks.
    ///
    /// ```
    /// use gpuprim::{GpuVec, wgpu};
    /// let ctx = gpuprim::Ctx::new()?;
    /// // An application's buffer: 5 floats, then 3 floats of something else.
    /// let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
    ///     label: Some("mine"),
    ///     size: 32,
    ///     usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC
    ///         | wgpu::BufferUsages::COPY_DST,
    ///     mapped_at_creation: false,
    /// });
    /// ctx.queue().write_buffer(&buffer, 0, bytemuck::cast_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 7.0, 7.0, 7.0]));
    /// let mut v = GpuVec::<f32>::from_buffer(&ctx, buffer.clone(), 5)?;
    /// ctx.elementwise("x = x * 10.0;").read_write("x", &mut v).run()?;
    /// assert_eq!(v.to_vec()?, vec![10.0, 20.0, 30.0, 40.0, 50.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn from_buffer_at(
        ctx: &Ctx,
        buffer: wgpu::Buffer,
        offset: u64,
        len: usize,
    ) -> Result<GpuVec<T>> {
        let op = "GpuVec::from_buffer";
        ctx.check_element::<T>()?;
        let invalid = |message: String| Err(Error::InvalidArgument { op, message });
        if !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
            return invalid(format!(
                "the buffer's usage {:?} lacks STORAGE, which every kernel binding needs; create it \
                 with BufferUsages::STORAGE (and COPY_SRC to read it back, COPY_DST to copy into it)",
                buffer.usage()
            ));
        }
        let align = u64::from(ctx.info().limits.min_storage_buffer_offset_alignment);
        if !offset.is_multiple_of(align.max(1)) {
            return invalid(format!(
                "offset {offset} is not a multiple of this device's \
                 min_storage_buffer_offset_alignment ({align} bytes)"
            ));
        }
        let bytes = (len as u64).checked_mul(size_of::<T>() as u64);
        let end = bytes.and_then(|b| b.checked_add(offset));
        match end {
            Some(end) if end <= buffer.size() => {}
            _ => {
                return invalid(format!(
                    "{len} elements of {} bytes from byte {offset} need {} bytes, but the buffer has {}",
                    size_of::<T>(),
                    end.map_or("more than 2^64".to_string(), |e| e.to_string()),
                    buffer.size()
                ));
            }
        }
        if !bytes.unwrap_or(0).is_multiple_of(4) {
            return invalid(format!(
                "{len} elements of {} are {} bytes, not a whole number of 4-byte words, which \
                 storage bindings need; view an even number of {} elements",
                T::WGSL,
                bytes.unwrap_or(0),
                T::WGSL
            ));
        }
        ctx.check_same_device(op, &buffer)?;
        Ok(GpuVec {
            buffer: crate::runtime::driver::Gated::new(buffer),
            offset,
            len,
            padded: false,
            count: None,
            ctx: ctx.plain(),
            _element: PhantomData,
        })
    }

    /// `Err(InvalidArgument)` naming `op` unless the buffer has `usage`.
    pub(crate) fn require_usage(&self, op: &'static str, usage: wgpu::BufferUsages) -> Result<()> {
        if self.buffer.usage().contains(usage) {
            return Ok(());
        }
        Err(Error::InvalidArgument {
            op,
            message: format!(
                "`{op}` needs {:?} usage on the vector's buffer, which has {:?}",
                usage - self.buffer.usage(),
                self.buffer.usage()
            ),
        })
    }

    /// A vector of `len` elements over `buffer`, a buffer of gpuprim's with room for
    /// `len` rounded up to whole vec4 units (scratch handed to code that takes vectors).
    pub(crate) fn over_scratch(ctx: &Ctx, buffer: wgpu::Buffer, len: usize) -> GpuVec<T> {
        debug_assert!(buffer.size() >= (len.next_multiple_of(LANES) * size_of::<T>()) as u64);
        GpuVec {
            buffer: crate::runtime::driver::Gated::new(buffer),
            offset: 0,
            len,
            padded: true,
            count: None,
            ctx: ctx.plain(),
            _element: PhantomData,
        }
    }

    /// Number of 4-element groups the kernels process (`len` rounded up).
    pub(crate) fn lanes4(&self) -> u64 {
        self.len.div_ceil(LANES) as u64
    }

    /// The bytes kernels may touch (see [`View::bytes`]).
    pub(crate) fn padded_bytes(&self) -> u64 {
        View::of(self).bytes()
    }

    /// The vector's bytes as one binding.
    pub(crate) fn whole_binding(&self) -> crate::runtime::record::Res {
        View::of(self).whole()
    }

    /// A view of the first `count[0]` elements of this vector (at most all of them),
    /// where `count` is a vector on the device that earlier work writes, such as
    /// [`Ctx::compact_into`]'s count: calls over the view run over that many elements
    /// with no read-back in between (element-wise kernels dispatch indirectly, with as
    /// many workgroups as the count needs; reductions, scans and histograms stop at it).
    ///
    /// The view shares this vector's buffer; its [`len`](GpuVec::len) is this vector's
    /// (the most it can hold). Outputs of [`Ctx::map`], [`Ctx::zip`] and their `_to` forms
    /// over a view are views with the same count. Calls that need a length on the host
    /// (compaction, atomics, random fills, 2D views, sorting, copies) return
    /// [`Error::InvalidArgument`] for a view; [`GpuVec::to_vec`] reads the count first.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[0.75f32, 0.25, 0.5, 0.125, 1.5])?;
    /// let mut kept = ctx.zeros::<f32>(5)?;
    /// let mut count = ctx.zeros::<u32>(1)?;
    /// ctx.compact_into(&v, "x > 0.4", &mut kept, &mut count)?;
    /// // No read-back: the sum runs over the kept elements only.
    /// let kept = kept.prefix(&count)?;
    /// let mut sum = ctx.zeros::<f32>(1)?;
    /// ctx.reduce_into(&kept, &mut sum)?;
    /// assert_eq!(sum.to_vec()?, vec![2.75]);
    /// assert_eq!(kept.to_vec()?, vec![0.75, 0.5, 1.5]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `count` is empty; [`Error::ContextMismatch`].
    pub fn prefix(&self, count: &GpuVec<u32>) -> Result<GpuVec<T>> {
        let op = "GpuVec::prefix";
        self.ctx.check_owned(op, &[&count.ctx])?;
        if count.is_empty() {
            return Err(Error::InvalidArgument {
                op,
                message: "the count vector has 0 elements; the count is its element 0".into(),
            });
        }
        Ok(GpuVec {
            buffer: crate::runtime::driver::Gated::new(self.buffer.clone()),
            offset: self.offset,
            len: self.len,
            padded: self.padded,
            count: Some((count.buffer.clone(), count.offset)),
            ctx: self.ctx.clone(),
            _element: PhantomData,
        })
    }

    /// Whether this is a [`GpuVec::prefix`] view, whose length is on the device.
    pub fn has_device_len(&self) -> bool {
        self.count.is_some()
    }

    /// `Err(InvalidArgument)` naming `op` for a [`GpuVec::prefix`] view.
    pub(crate) fn require_host_len(&self, op: &'static str) -> Result<()> {
        if self.count.is_none() {
            return Ok(());
        }
        Err(Error::InvalidArgument {
            op,
            message: format!(
                "`{op}` needs its length on the host, and this vector is a prefix view whose \
                 length is on the device; read the count (or the vector) first, or call it on \
                 the whole vector"
            ),
        })
    }
}
