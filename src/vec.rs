//! [`GpuVec<T>`]: a typed vector in device memory.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context as TaskContext, Poll, Waker};

use crate::context::Ctx;
use crate::element::GpuElement;
use crate::error::{Error, Result};

/// A vector of `T` in device memory, made by [`Ctx::upload`] or [`Ctx::zeros`].
///
/// The buffer is padded to a whole number of 4-element groups so kernels can use vector
/// loads; the padding is never visible through the API. A `GpuVec` keeps its [`Ctx`]
/// alive and may be larger than the device's largest storage binding.
pub struct GpuVec<T: GpuElement> {
    pub(crate) buffer: wgpu::Buffer,
    pub(crate) len: usize,
    pub(crate) ctx: Ctx,
    _element: PhantomData<T>,
}

impl<T: GpuElement> fmt::Debug for GpuVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GpuVec<{}>(len {})", T::WGSL, self.len)
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

    /// The underlying buffer, for your own wgpu code: the elements, then padding to a
    /// multiple of 4 elements (a vector made by [`Ctx::compact`] may have more room after).
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// Number of 4-element groups the kernels process (`len` rounded up).
    pub(crate) fn lanes4(&self) -> u64 {
        self.len.div_ceil(LANES) as u64
    }

    /// Bytes of the elements padded to whole 4-element groups (at least 1 group). The
    /// buffer may be larger (a compacted vector keeps its input's capacity).
    pub(crate) fn padded_bytes(&self) -> u64 {
        (self.lanes4().max(1) * (LANES * size_of::<T>()) as u64).min(self.buffer.size())
    }

    /// The padded elements as one binding.
    pub(crate) fn binding(&self) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &self.buffer,
            offset: 0,
            size: wgpu::BufferSize::new(self.padded_bytes()),
        })
    }

    /// Copies the vector to the host, blocking until the GPU is done.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1u32, 2, 3])?;
    /// assert_eq!(v.to_vec()?, vec![1, 2, 3]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.read_back_start()?.wait()
    }

    /// Async twin of [`GpuVec::to_vec`]. It needs no particular executor: the GPU is
    /// waited on by a short-lived helper thread, which wakes the task.
    pub async fn to_vec_async(&self) -> Result<Vec<T>> {
        self.read_back_start()?.wait_async().await
    }

    fn read_back_start(&self) -> Result<ReadBack<T>> {
        let enc = self
            .ctx
            .inner
            .device
            .create_command_encoder(&Default::default());
        self.ctx
            .submit_read_back("GpuVec::to_vec", enc, &self.buffer, self.len)
    }

    /// Copies all of `src` into `self` on the GPU. The lengths must match.
    pub fn copy_from(&mut self, src: &GpuVec<T>) -> Result<()> {
        let op = "GpuVec::copy_from";
        if !self.ctx.same(&src.ctx) {
            return Err(Error::ContextMismatch { op });
        }
        if self.len != src.len {
            return Err(Error::LengthMismatch {
                op,
                left_name: "destination",
                left: self.len,
                right_name: "source",
                right: src.len,
            });
        }
        if self.len == 0 {
            return Ok(());
        }
        let bytes = (self.len * size_of::<T>()).next_multiple_of(4) as u64;
        let mut enc = self
            .ctx
            .inner
            .device
            .create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&src.buffer, 0, &self.buffer, 0, bytes);
        self.ctx.submit(op, enc)
    }

    /// A new vector with the same contents.
    pub fn try_clone(&self) -> Result<GpuVec<T>> {
        let mut out = self.ctx.zeros::<T>(self.len)?;
        out.copy_from(self)?;
        Ok(out)
    }
}

/// Small buffers kept for reuse, so a call like a blocking `reduce` creates no buffers
/// once warm. Work on one queue runs in the order it is queued (submitted, or held for
/// batching in call order), and wgpu orders the accesses of successive command buffers,
/// so a buffer can go back as soon as its work is queued.
#[derive(Default)]
pub(crate) struct BufferPool {
    free: Mutex<HashMap<(u64, wgpu::BufferUsages), Vec<wgpu::Buffer>>>,
    /// Immutable uniform buffers by content (kernel parameters repeat call to call).
    constants: Mutex<HashMap<Vec<u8>, wgpu::Buffer>>,
}

/// Distinct parameter blocks kept; the cache starts over when full.
const CONSTANTS_KEPT: usize = 256;

/// Buffers up to this size are pooled; a few of each size and usage are kept.
const POOLED_MAX_BYTES: u64 = 1 << 20;
const POOLED_PER_KIND: usize = 8;

/// A buffer from the pool; it goes back when dropped (unless marked otherwise).
pub(crate) struct Scratch {
    buffer: Option<wgpu::Buffer>,
    ctx: Ctx,
    usage: wgpu::BufferUsages,
    /// False while the buffer may be mapped or pending a map.
    reusable: bool,
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
        if !self.reusable || buffer.size() > POOLED_MAX_BYTES {
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
        })
    }
}

/// A read-back in flight: a staging buffer being mapped (or nothing, for zero elements).
pub(crate) struct ReadBack<T> {
    ctx: Ctx,
    staging: Option<(Scratch, Arc<MapState>)>,
    len: usize,
    _element: PhantomData<T>,
}

impl<T: GpuElement> ReadBack<T> {
    /// Blocks until the GPU is done and returns the elements.
    pub(crate) fn wait(self) -> Result<Vec<T>> {
        if let Some((_, state)) = &self.staging {
            // Poll without blocking for a short while first (see `Ctx::spin_poll`).
            if !state.done() && !self.ctx.spin_poll(|_| state.done())? {
                self.ctx.wait_idle()?;
            }
            // The GPU is done, but when several threads poll, another thread's poll may
            // be the one running our map callback: wait for it to land.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            while !state.wait_done(std::time::Duration::from_millis(1)) {
                // `poll_now`: a wgpu-core assertion that a concurrent submit can trip is
                // caught and the poll retried, as in `Ctx::wait_idle`.
                if let Some(Err(e)) = self.ctx.poll_now() {
                    return Err(self.ctx.poll_error(e));
                }
                if std::time::Instant::now() > deadline {
                    break; // finish() reports the missing read-back
                }
            }
        }
        self.finish()
    }

    /// Waits without blocking the task (see [`GpuVec::to_vec_async`]).
    pub(crate) async fn wait_async(self) -> Result<Vec<T>> {
        if let Some((_, state)) = &self.staging {
            MapWait::new(&self.ctx, Arc::clone(state)).await;
        }
        self.finish()
    }

    /// Reads the mapped buffer (the map must have completed).
    fn finish(self) -> Result<Vec<T>> {
        let Some((mut buffer, state)) = self.staging else {
            return Ok(Vec::new());
        };
        let result = state
            .result
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
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

#[derive(Default)]
struct MapState {
    result: Mutex<Option<std::result::Result<(), wgpu::BufferAsyncError>>>,
    landed: Condvar,
    waker: Mutex<Option<Waker>>,
}

impl MapState {
    fn set(&self, r: std::result::Result<(), wgpu::BufferAsyncError>) {
        *self.result.lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
        self.landed.notify_all();
        if let Some(w) = self.waker.lock().unwrap_or_else(|p| p.into_inner()).take() {
            w.wake();
        }
    }

    /// Whether the callback has run, waiting up to `timeout` for it.
    fn wait_done(&self, timeout: std::time::Duration) -> bool {
        let guard = self.result.lock().unwrap_or_else(|p| p.into_inner());
        let (guard, _) = self
            .landed
            .wait_timeout_while(guard, timeout, |r| r.is_none())
            .unwrap_or_else(|p| p.into_inner());
        guard.is_some()
    }

    fn done(&self) -> bool {
        self.result
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }
}

/// Resolves when a map callback has run. The first poll starts a thread that waits on
/// the device (which runs the callback); no executor integration is needed.
struct MapWait {
    ctx: Ctx,
    state: Arc<MapState>,
    started: bool,
}

impl MapWait {
    fn new(ctx: &Ctx, state: Arc<MapState>) -> Self {
        MapWait {
            ctx: ctx.clone(),
            state,
            started: false,
        }
    }
}

impl Future for MapWait {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        *self.state.waker.lock().unwrap_or_else(|p| p.into_inner()) = Some(cx.waker().clone());
        if self.state.done() {
            return Poll::Ready(());
        }
        if !self.started {
            self.started = true;
            let ctx = self.ctx.clone();
            let state = Arc::clone(&self.state);
            std::thread::spawn(move || {
                // Poll errors mean the device is lost; wake the task so it reports that.
                let _ = ctx.wait_idle();
                if !state.done() {
                    state.set(Err(wgpu::BufferAsyncError));
                }
            });
        }
        Poll::Pending
    }
}

impl Ctx {
    /// Appends to `enc` a copy of the first `len` elements of `src` into a new staging
    /// buffer, submits `enc` (with errors captured) and starts mapping the staging buffer.
    /// One submission carries a kernel and its read-back.
    pub(crate) fn submit_read_back<T: GpuElement>(
        &self,
        op: &'static str,
        mut enc: wgpu::CommandEncoder,
        src: &wgpu::Buffer,
        len: usize,
    ) -> Result<ReadBack<T>> {
        self.check_alive()?;
        if len == 0 {
            self.submit(op, enc)?;
            return Ok(ReadBack {
                ctx: self.clone(),
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
        enc.copy_buffer_to_buffer(src, 0, &staging, 0, bytes);
        self.submit_mapped(op, enc, staging, len)
    }

    /// Submits `enc` (with errors captured) and starts mapping `buffer`, which holds the
    /// `len` elements once the work is done: a staging buffer `enc` copies into, or
    /// a result buffer the kernels write directly (see [`Ctx::result_buffer`]).
    fn submit_mapped<T: GpuElement>(
        &self,
        op: &'static str,
        enc: wgpu::CommandEncoder,
        mut buffer: Scratch,
        len: usize,
    ) -> Result<ReadBack<T>> {
        buffer.reusable = false; // until it is unmapped again
        let state = Arc::new(MapState::default());
        self.capture(op, || {
            self.submit_now(enc);
            let s = Arc::clone(&state);
            buffer
                .slice(..)
                .map_async(wgpu::MapMode::Read, move |r| s.set(r));
        })?;
        Ok(ReadBack {
            ctx: self.clone(),
            staging: Some((buffer, state)),
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

    /// Submits `enc` and reads back the first `len` elements of `result` (from
    /// [`Ctx::result_buffer`]): mapped directly where it is mappable, else through a copy
    /// into a staging buffer.
    pub(crate) fn submit_result<T: GpuElement>(
        &self,
        op: &'static str,
        enc: wgpu::CommandEncoder,
        result: Scratch,
        len: usize,
    ) -> Result<ReadBack<T>> {
        if result.usage().contains(wgpu::BufferUsages::MAP_READ) {
            self.submit_mapped(op, enc, result, len)
        } else {
            self.submit_read_back(op, enc, &result, len)
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
        self.check_element::<T>()?;
        let what = || format!("a GpuVec<{}> of {n} elements", T::WGSL);
        let bytes = n
            .max(1)
            .checked_next_multiple_of(LANES)
            .and_then(|p| p.checked_mul(size_of::<T>()))
            .map(|b| b as u64)
            .ok_or_else(|| Error::TooLarge {
                what: what(),
                requested: u64::MAX,
                limit: self.info().limits.max_buffer_size,
            })?;
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let buffer = self.create_buffer(&what(), bytes, usage, mapped)?;
        Ok(GpuVec {
            buffer,
            len: n,
            ctx: self.clone(),
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
