//! [`GpuVec<T>`]: a typed vector in device memory.

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use crate::element::GpuElement;
use crate::error::{Error, Limit, Result};
use crate::runtime::context::Ctx;
use crate::runtime::record::Work;
use crate::runtime::view::View;
use crate::runtime::wait::{MapState, MapWait, Until};

/// A vector of `T` in device memory: made by [`Ctx::upload`] or [`Ctx::zeros`], or a
/// view of a buffer of your own ([`GpuVec::from_buffer`]).
///
/// gpuprim's own buffers are padded to a whole number of 4-element groups so kernels can
/// use vector loads; the padding is never visible through the API. A vector over your
/// buffer is exactly its elements: no call reads or writes a byte outside them. A
/// `GpuVec` keeps its [`Ctx`] alive and may be larger than the device's largest storage
/// binding.
pub struct GpuVec<T: GpuElement> {
    pub(crate) buffer: wgpu::Buffer,
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

impl<T: GpuElement> fmt::Debug for GpuVec<T> {
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

impl<T: GpuElement> GpuVec<T> {
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
        self.buffer
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
            buffer,
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
            buffer,
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

    /// Copies the vector to the host, blocking until the GPU is done.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1u32, 2, 3])?;
    /// assert_eq!(v.to_vec()?, vec![1, 2, 3]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// A [`GpuVec::prefix`] view reads its count first and returns that many elements.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let len = match &self.count {
            Some(c) => self.count_start(c)?.wait()?[0] as usize,
            None => self.len,
        };
        self.read_back_start(len)?.wait()
    }

    /// Async twin of [`GpuVec::to_vec`]. It needs no particular executor: the GPU is
    /// waited on by the context's one waiter thread, which wakes the task (see the
    /// crate's notes on [waiting](crate#waiting-for-the-gpu)).
    pub async fn to_vec_async(&self) -> Result<Vec<T>> {
        let len = match &self.count {
            Some(c) => self.count_start(c)?.wait_async().await?[0] as usize,
            None => self.len,
        };
        self.read_back_start(len)?.wait_async().await
    }

    fn read_back_start(&self, len: usize) -> Result<ReadBack<T>> {
        let op = "GpuVec::to_vec";
        self.require_usage(op, wgpu::BufferUsages::COPY_SRC)?;
        self.ctx.submit_read_back(
            Work::new(&self.ctx, op),
            (&self.buffer, self.offset),
            len.min(self.len),
        )
    }

    /// The read-back of a prefix view's count.
    fn count_start(&self, (buffer, offset): &(wgpu::Buffer, u64)) -> Result<ReadBack<u32>> {
        self.ctx
            .submit_read_back(Work::new(&self.ctx, "GpuVec::to_vec"), (buffer, *offset), 1)
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
            buffer: self.buffer.clone(),
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

/// Small buffers kept for reuse, so a call like a blocking `reduce` creates no buffers
/// once warm. Work on one queue runs in the order it is queued (submitted, or held for
/// batching in call order), and wgpu orders the accesses of successive command buffers,
/// so a buffer can go back as soon as its work is queued.
///
/// Larger buffers are not pooled, except those asked for by [`Ctx::scratch_kept`] (the
/// sorts' ping-pong keys and values, their tile statuses): those of the last size asked
/// for are kept in `large`, a few at most, so repeated calls of one size allocate
/// nothing (and wgpu does not zero the new buffers' memory again on first use). A
/// request of another size releases them first, so at most one size's set is held.
#[derive(Default)]
pub(crate) struct BufferPool {
    free: Mutex<HashMap<(u64, wgpu::BufferUsages), Vec<wgpu::Buffer>>>,
    large: Mutex<Vec<(wgpu::BufferUsages, wgpu::Buffer)>>,
    /// Immutable uniform buffers by content (kernel parameters repeat call to call).
    constants: Mutex<HashMap<Vec<u8>, wgpu::Buffer>>,
}

/// Distinct parameter blocks kept; the cache starts over when full.
const CONSTANTS_KEPT: usize = 256;

/// Buffers up to this size are pooled; a few of each size and usage are kept.
const POOLED_MAX_BYTES: u64 = 1 << 20;
const POOLED_PER_KIND: usize = 8;
/// Large buffers kept ([`Ctx::scratch_kept`]): enough for one sort's (argsort: two key
/// buffers, the indices, the tile statuses; reduce-then-scan: its digit counts).
const LARGE_KEPT: usize = 6;

/// A buffer from the pool; it goes back when dropped (unless marked otherwise).
pub(crate) struct Scratch {
    buffer: Option<wgpu::Buffer>,
    ctx: Ctx,
    usage: wgpu::BufferUsages,
    /// False while the buffer may be mapped or pending a map.
    reusable: bool,
    /// A large buffer goes back to [`BufferPool`]'s `large` list ([`Ctx::scratch_kept`]).
    keep_large: bool,
}

impl std::ops::Deref for Scratch {
    type Target = wgpu::Buffer;
    fn deref(&self) -> &wgpu::Buffer {
        self.buffer.as_ref().expect("present until drop")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let Some(buffer) = self.buffer.take() else {
            return;
        };
        if !self.reusable {
            return;
        }
        if buffer.size() > POOLED_MAX_BYTES {
            if self.keep_large {
                let mut large = self
                    .ctx
                    .inner
                    .pool
                    .large
                    .lock()
                    .unwrap_or_else(|p| p.into_inner());
                if large.len() < LARGE_KEPT {
                    large.push((self.usage, buffer));
                }
            }
            return;
        }
        let mut free = self
            .ctx
            .inner
            .pool
            .free
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let list = free.entry((buffer.size(), self.usage)).or_default();
        if list.len() < POOLED_PER_KIND {
            list.push(buffer);
        }
    }
}

impl Ctx {
    /// A uniform buffer holding `bytes`, never written again: the same bytes give the
    /// same buffer, so a repeated call uploads nothing.
    pub(crate) fn uniform_constant(&self, bytes: &[u8]) -> Result<wgpu::Buffer> {
        let mut constants = self
            .inner
            .pool
            .constants
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(b) = constants.get(bytes) {
            return Ok(b.clone());
        }
        let buffer = self.create_buffer(
            "kernel parameters",
            bytes.len() as u64,
            wgpu::BufferUsages::UNIFORM,
            true,
        )?;
        buffer
            .get_mapped_range_mut(..)
            .map_err(|e| {
                self.or_lost(Error::Internal {
                    op: "uniform_constant",
                    message: e.to_string(),
                })
            })?
            .copy_from_slice(bytes);
        buffer.unmap();
        if constants.len() >= CONSTANTS_KEPT {
            constants.clear();
        }
        constants.insert(bytes.to_vec(), buffer.clone());
        Ok(buffer)
    }

    /// A buffer of at least `bytes` with `usage`, from the pool if one is free.
    pub(crate) fn scratch(
        &self,
        what: &str,
        bytes: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<Scratch> {
        let size = bytes.max(256).next_power_of_two();
        let pooled = if size <= POOLED_MAX_BYTES {
            let mut free = self
                .inner
                .pool
                .free
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            free.get_mut(&(size, usage)).and_then(Vec::pop)
        } else {
            None
        };
        let buffer = match pooled {
            Some(b) => b,
            None => self.create_buffer(what, size, usage, false)?,
        };
        Ok(Scratch {
            buffer: Some(buffer),
            ctx: self.clone(),
            usage,
            reusable: true,
            keep_large: false,
        })
    }

    /// [`Ctx::scratch`] for buffers that may be larger than the pool's limit and are
    /// wanted again at the same size by the next call (a sort's ping-pong buffers): a
    /// kept buffer of `usage` from `bytes` to twice `bytes` is reused; otherwise the kept
    /// large buffers are released and a buffer of exactly `bytes` (rounded up to 256) is
    /// made. It is kept when dropped (see [`BufferPool`]).
    pub(crate) fn scratch_kept(
        &self,
        what: &str,
        bytes: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<Scratch> {
        if bytes.max(256).next_power_of_two() <= POOLED_MAX_BYTES {
            return self.scratch(what, bytes, usage);
        }
        let kept = {
            let mut large = self
                .inner
                .pool
                .large
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let fits = |b: &wgpu::Buffer| b.size() >= bytes && b.size() / 2 < bytes;
            match large.iter().position(|(u, b)| *u == usage && fits(b)) {
                Some(i) => Some(large.swap_remove(i).1),
                None => {
                    // Another size: this call's set replaces the last one.
                    large.clear();
                    None
                }
            }
        };
        let buffer = match kept {
            Some(b) => b,
            None => self.create_buffer(what, bytes.next_multiple_of(256), usage, false)?,
        };
        Ok(Scratch {
            buffer: Some(buffer),
            ctx: self.clone(),
            usage,
            reusable: true,
            keep_large: true,
        })
    }
}

/// A read-back in flight: a staging buffer being mapped (or nothing, for zero elements),
/// and the submission it waits for.
pub(crate) struct ReadBack<T> {
    ctx: Ctx,
    op: &'static str,
    staging: Option<(Scratch, Arc<MapState>, wgpu::SubmissionIndex)>,
    len: usize,
    _element: PhantomData<T>,
}

impl<T: GpuElement> ReadBack<T> {
    /// Blocks until the GPU is done and returns the elements (spin, sleep, deadline).
    pub(crate) fn wait(self) -> Result<Vec<T>> {
        if let Some((_, state, submission)) = &self.staging {
            self.ctx
                .wait_for(self.op, Until::Mapped(state, Some(submission)))?;
        }
        self.finish()
    }

    /// Waits without blocking the task, on the context's waiter thread.
    pub(crate) async fn wait_async(self) -> Result<Vec<T>> {
        let started = std::time::Instant::now();
        if let Some((_, state, submission)) = &self.staging {
            MapWait::new(&self.ctx, Arc::clone(state), submission.clone()).await;
            if !state.done() && state.timed_out() {
                return Err(Error::Timeout {
                    op: self.op,
                    waited: started.elapsed(),
                    limit: self.ctx.wait_timeout(),
                });
            }
        }
        self.finish()
    }

    /// Reads the mapped buffer (the map must have completed).
    fn finish(self) -> Result<Vec<T>> {
        let Some((mut buffer, state, _)) = self.staging else {
            return Ok(Vec::new());
        };
        let result = state.take();
        match result {
            Some(Ok(())) => {}
            Some(Err(e)) => {
                self.ctx.check_alive()?;
                return Err(Error::DeviceLost {
                    reason: format!("mapping the read-back buffer failed: {e}"),
                });
            }
            None => {
                return Err(Error::DeviceLost {
                    reason: "the GPU finished waiting but the read-back never completed".into(),
                });
            }
        }
        let view = buffer.get_mapped_range(..).map_err(|e| {
            self.ctx.or_lost(Error::Internal {
                op: "read-back",
                message: e.to_string(),
            })
        })?;
        // The mapped bytes need not be aligned for T; pod_collect_to_vec copies safely.
        let out: Vec<T> = bytemuck::pod_collect_to_vec(&view[..self.len * size_of::<T>()]);
        drop(view);
        buffer.unmap();
        buffer.reusable = true;
        Ok(out)
    }
}

impl Ctx {
    /// Adds to `work` a copy of the `len` elements at `src` into a staging buffer,
    /// submits it and starts mapping the staging buffer: one submission carries a
    /// kernel and its read-back.
    pub(crate) fn submit_read_back<T: GpuElement>(
        &self,
        mut work: Work,
        (src, src_offset): (&wgpu::Buffer, u64),
        len: usize,
    ) -> Result<ReadBack<T>> {
        let op = work.op();
        self.check_alive()?;
        self.check_not_recording(op)?;
        if len == 0 {
            work.submit()?;
            return Ok(ReadBack {
                ctx: self.clone(),
                op,
                staging: None,
                len,
                _element: PhantomData,
            });
        }
        let bytes = (len * size_of::<T>()).next_multiple_of(4) as u64;
        let staging = self.scratch(
            "read-back staging buffer",
            bytes,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        )?;
        work.copy((src, src_offset), (&staging, 0), bytes);
        self.submit_mapped(work, staging, len)
    }

    /// Records `work`, submits it with what is held and starts mapping `buffer`, which
    /// holds the `len` elements once the work is done (a staging buffer `work` copies
    /// into, or a result buffer its kernels write directly: [`Ctx::result_buffer`]).
    /// One error capture covers the recording, the submission and the map.
    fn submit_mapped<T: GpuElement>(
        &self,
        work: Work,
        mut buffer: Scratch,
        len: usize,
    ) -> Result<ReadBack<T>> {
        let op = work.op();
        self.check_not_recording(op)?;
        buffer.reusable = false; // until it is unmapped again
        let state = Arc::new(MapState::default());
        let submission = self.capture(op, || -> Result<wgpu::SubmissionIndex> {
            let enc = work.encode_captured()?;
            let submission = self.submit_now(enc);
            let s = Arc::clone(&state);
            buffer
                .slice(..)
                .map_async(wgpu::MapMode::Read, move |r| s.set(r));
            Ok(submission)
        })??;
        Ok(ReadBack {
            ctx: self.clone(),
            op,
            staging: Some((buffer, state, submission)),
            len,
            _element: PhantomData,
        })
    }

    /// A small buffer for a kernel's result that the host reads back (a blocking
    /// `reduce`'s one value); read it back with [`Ctx::submit_result`]. Where the adapter
    /// allows storage buffers to be mapped (`MAPPABLE_PRIMARY_BUFFERS`), the kernel writes
    /// the result straight into mappable memory: no copy into a staging buffer, and one
    /// command less in the round trip. Elsewhere it is a storage buffer to copy from.
    pub(crate) fn result_buffer(&self, bytes: u64) -> Result<Scratch> {
        let usage = if self.has_features(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS) {
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::MAP_READ
        } else {
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC
        };
        self.scratch("result", bytes, usage)
    }

    /// Submits `work` and reads back the first `len` elements of `result` (from
    /// [`Ctx::result_buffer`]): mapped directly where it is mappable, else through a copy
    /// into a staging buffer.
    pub(crate) fn submit_result<T: GpuElement>(
        &self,
        work: Work,
        result: Scratch,
        len: usize,
    ) -> Result<ReadBack<T>> {
        if result.usage().contains(wgpu::BufferUsages::MAP_READ) {
            self.submit_mapped(work, result, len)
        } else {
            let buffer = (*result).clone();
            let mut work = work;
            work.keep(result);
            self.submit_read_back(work, (&buffer, 0), len)
        }
    }

    /// Copies `data` to a new vector on the device.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1.0f32, 2.0, 3.0])?;
    /// assert_eq!(v.len(), 3);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn upload<T: GpuElement>(&self, data: &[T]) -> Result<GpuVec<T>> {
        let v = self.alloc::<T>(data.len(), true)?;
        // Mapped even for no data: a buffer that cannot be mapped (made on a lost device)
        // must not be unmapped.
        let mut view = v.buffer.get_mapped_range_mut(..).map_err(|e| {
            self.or_lost(Error::Internal {
                op: "upload",
                message: e.to_string(),
            })
        })?;
        view.slice(..size_of_val(data))
            .copy_from_slice(bytemuck::cast_slice(data));
        drop(view);
        v.buffer.unmap();
        Ok(v)
    }

    /// A new vector of `n` zeros.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.zeros::<i32>(5)?;
    /// assert_eq!(v.to_vec()?, vec![0; 5]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn zeros<T: GpuElement>(&self, n: usize) -> Result<GpuVec<T>> {
        self.alloc::<T>(n, false)
    }

    fn alloc<T: GpuElement>(&self, n: usize, mapped: bool) -> Result<GpuVec<T>> {
        self.alloc_usage(n, mapped, wgpu::BufferUsages::empty())
    }

    /// A new vector of `n` zeros whose buffer has `usage` too (e.g. `INDIRECT`).
    pub(crate) fn alloc_with<T: GpuElement>(
        &self,
        n: usize,
        usage: wgpu::BufferUsages,
    ) -> Result<GpuVec<T>> {
        self.alloc_usage(n, false, usage)
    }

    fn alloc_usage<T: GpuElement>(
        &self,
        n: usize,
        mapped: bool,
        extra: wgpu::BufferUsages,
    ) -> Result<GpuVec<T>> {
        self.check_element::<T>()?;
        let what = || format!("a GpuVec<{}> of {n} elements", T::WGSL);
        let bytes = n
            .max(1)
            .checked_next_multiple_of(LANES)
            .and_then(|p| p.checked_mul(size_of::<T>()))
            .map(|b| b as u64)
            .ok_or_else(|| Error::TooLarge {
                what: what(),
                kind: Limit::BufferBytes,
                requested: u64::MAX,
                limit: self.info().limits.max_buffer_size,
            })?;
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST
            | extra;
        let buffer = self.create_buffer(&what(), bytes, usage, mapped)?;
        Ok(GpuVec {
            buffer,
            offset: 0,
            len: n,
            padded: true,
            count: None,
            ctx: self.plain(),
            _element: PhantomData,
        })
    }

    /// A buffer of `bytes`, with the size checked against the device and allocation
    /// failures returned as errors.
    pub(crate) fn create_buffer(
        &self,
        what: &str,
        bytes: u64,
        usage: wgpu::BufferUsages,
        mapped_at_creation: bool,
    ) -> Result<wgpu::Buffer> {
        self.check_alive()?;
        let limit = self.info().limits.max_buffer_size;
        if bytes > limit {
            return Err(Error::TooLarge {
                what: what.to_string(),
                kind: Limit::BufferBytes,
                requested: bytes,
                limit,
            });
        }
        let device = &self.inner.device;
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(what),
            size: bytes,
            usage,
            mapped_at_creation,
        });
        let invalid = pollster::block_on(validation.pop());
        let out_of_memory = pollster::block_on(oom.pop());
        if let Some(e) = out_of_memory {
            return Err(self.or_lost(Error::OutOfMemory {
                what: what.to_string(),
                bytes,
                message: e.to_string(),
            }));
        }
        if let Some(e) = invalid {
            return Err(self.or_lost(Error::Internal {
                op: "create_buffer",
                message: e.to_string(),
            }));
        }
        Ok(buffer)
    }

    /// Runs `f` (which records and submits GPU work) with wgpu errors captured and
    /// returned instead of reaching the panicking default handler.
    pub(crate) fn capture<R>(&self, op: &'static str, f: impl FnOnce() -> R) -> Result<R> {
        self.check_alive()?;
        let device = &self.inner.device;
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
        let r = f();
        let internal = pollster::block_on(internal.pop());
        let invalid = pollster::block_on(validation.pop());
        let out_of_memory = pollster::block_on(oom.pop());
        self.check_alive()?;
        if let Some(e) = out_of_memory {
            return Err(self.or_lost(Error::OutOfMemory {
                what: format!("the work of `{op}`"),
                bytes: 0,
                message: e.to_string(),
            }));
        }
        if let Some(e) = invalid.or(internal) {
            return Err(self.or_lost(Error::Internal {
                op,
                message: e.to_string(),
            }));
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use crate::Ctx;

    fn kept(ctx: &Ctx) -> Vec<u64> {
        let large = ctx.inner.pool.large.lock().unwrap();
        large.iter().map(|(_, b)| b.size()).collect()
    }

    /// [`Ctx::scratch_kept`]: a large buffer comes back to the next call of its size (up
    /// to twice the size asked for), a call of another size releases the kept ones first,
    /// and small ones stay in the ordinary pool.
    #[test]
    fn large_scratch_of_the_last_size_is_kept() {
        let ctx = Ctx::new().unwrap();
        let usage = wgpu::BufferUsages::STORAGE;
        let mib = 1u64 << 20;
        let first = ctx.scratch_kept("test", 3 * mib, usage).unwrap();
        let first_buffer = (*first).clone();
        assert_eq!(first.size(), 3 * mib);
        drop(first);
        assert_eq!(kept(&ctx), [3 * mib]);
        let again = ctx.scratch_kept("test", 2 * mib, usage).unwrap();
        assert!(
            *again == first_buffer,
            "a kept buffer up to twice the size is reused"
        );
        let second = ctx.scratch_kept("test", 3 * mib, usage).unwrap();
        assert!(*second != first_buffer);
        drop((again, second));
        assert_eq!(kept(&ctx), [3 * mib, 3 * mib]);
        // A size under half of the kept ones: those are released first.
        let other = ctx.scratch_kept("test", mib + 4, usage).unwrap();
        assert_eq!(other.size(), mib + 256);
        assert_eq!(kept(&ctx), [] as [u64; 0]);
        drop(other);
        assert_eq!(kept(&ctx), [mib + 256]);
        // Small requests are the ordinary pool's.
        drop(ctx.scratch_kept("test", 1000, usage).unwrap());
        assert_eq!(kept(&ctx), [mib + 256]);
    }
}
