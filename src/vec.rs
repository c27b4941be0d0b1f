//! [`GpuVec<T>`]: a typed vector in device memory.

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
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

    /// The underlying buffer (padded to a multiple of 4 elements), for your own wgpu code.
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// Number of 4-element groups the kernels process (`len` rounded up).
    pub(crate) fn lanes4(&self) -> u64 {
        self.len.div_ceil(LANES) as u64
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
        let staging = self.read_back_start()?;
        let Some(staging) = staging else {
            return Ok(Vec::new());
        };
        self.ctx
            .inner
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| self.ctx.poll_error(e))?;
        staging.finish(self.len)
    }

    /// Async twin of [`GpuVec::to_vec`]. It needs no particular executor: the GPU is
    /// waited on by a short-lived helper thread, which wakes the task.
    pub async fn to_vec_async(&self) -> Result<Vec<T>> {
        let staging = self.read_back_start()?;
        let Some(staging) = staging else {
            return Ok(Vec::new());
        };
        MapWait::new(&self.ctx, Arc::clone(&staging.state)).await;
        staging.finish(self.len)
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
        self.ctx.capture(op, || {
            let mut enc = self
                .ctx
                .inner
                .device
                .create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(&src.buffer, 0, &self.buffer, 0, bytes);
            self.ctx.inner.queue.submit([enc.finish()]);
        })
    }

    /// A new vector with the same contents.
    pub fn try_clone(&self) -> Result<GpuVec<T>> {
        let mut out = self.ctx.zeros::<T>(self.len)?;
        out.copy_from(self)?;
        Ok(out)
    }

    /// Records the copy into a staging buffer and starts mapping it.
    fn read_back_start(&self) -> Result<Option<Staging<T>>> {
        self.ctx.check_alive()?;
        if self.len == 0 {
            return Ok(None);
        }
        let bytes = (self.len * size_of::<T>()).next_multiple_of(4) as u64;
        let ctx = &self.ctx;
        let buffer = ctx.create_buffer(
            "read-back staging buffer",
            bytes,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            false,
        )?;
        let state = Arc::new(MapState::default());
        ctx.capture("GpuVec::to_vec", || {
            let mut enc = ctx.inner.device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(&self.buffer, 0, &buffer, 0, bytes);
            ctx.inner.queue.submit([enc.finish()]);
            let s = Arc::clone(&state);
            buffer
                .slice(..)
                .map_async(wgpu::MapMode::Read, move |r| s.set(r));
        })?;
        Ok(Some(Staging {
            buffer,
            state,
            _element: PhantomData,
        }))
    }
}

/// A staging buffer being mapped for reading.
struct Staging<T> {
    buffer: wgpu::Buffer,
    state: Arc<MapState>,
    _element: PhantomData<T>,
}

impl<T: GpuElement> Staging<T> {
    /// Reads the mapped buffer (the map must have completed).
    fn finish(self, len: usize) -> Result<Vec<T>> {
        let result = self
            .state
            .result
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        match result {
            Some(Ok(())) => {}
            Some(Err(e)) => {
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
        let view = self
            .buffer
            .get_mapped_range(..)
            .map_err(|e| Error::Internal {
                op: "GpuVec::to_vec",
                message: e.to_string(),
            })?;
        // The mapped bytes need not be aligned for T; pod_collect_to_vec copies safely.
        let out: Vec<T> = bytemuck::pod_collect_to_vec(&view[..len * size_of::<T>()]);
        drop(view);
        self.buffer.unmap();
        Ok(out)
    }
}

#[derive(Default)]
struct MapState {
    result: Mutex<Option<std::result::Result<(), wgpu::BufferAsyncError>>>,
    waker: Mutex<Option<Waker>>,
}

impl MapState {
    fn set(&self, r: std::result::Result<(), wgpu::BufferAsyncError>) {
        *self.result.lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
        if let Some(w) = self.waker.lock().unwrap_or_else(|p| p.into_inner()).take() {
            w.wake();
        }
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
                let _ = ctx.inner.device.poll(wgpu::PollType::wait_indefinitely());
                if !state.done() {
                    state.set(Err(wgpu::BufferAsyncError));
                }
            });
        }
        Poll::Pending
    }
}

impl Ctx {
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
        if !data.is_empty() {
            let mut view = v
                .buffer
                .get_mapped_range_mut(..)
                .map_err(|e| Error::Internal {
                    op: "upload",
                    message: e.to_string(),
                })?;
            view.slice(..size_of_val(data))
                .copy_from_slice(bytemuck::cast_slice(data));
        }
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
            return Err(Error::OutOfMemory {
                what: what.to_string(),
                bytes,
                message: e.to_string(),
            });
        }
        if let Some(e) = invalid {
            return Err(Error::Internal {
                op: "create_buffer",
                message: e.to_string(),
            });
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
            return Err(Error::OutOfMemory {
                what: format!("the work of `{op}`"),
                bytes: 0,
                message: e.to_string(),
            });
        }
        if let Some(e) = invalid.or(internal) {
            return Err(Error::Internal {
                op,
                message: e.to_string(),
            });
        }
        Ok(r)
    }
}
