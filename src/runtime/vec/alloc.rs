//! Allocation and error capture: new vectors ([`Ctx::upload`], [`Ctx::zeros`]), buffers
//! checked against the device's limits with allocation failures returned as errors
//! (`Ctx::create_buffer`), and the error scopes every call's GPU work runs in
//! (`Ctx::capture`).

use std::marker::PhantomData;

use super::{GpuVec, LANES};
use crate::element::Element;
use crate::error::{Error, Limit, Result};
use crate::runtime::context::Ctx;

impl Ctx {
    /// Copies `data` to a new vector on the device.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1.0f32, 2.0, 3.0])?;
    /// assert_eq!(v.len(), 3);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<GpuVec<T>> {
        let v = self.alloc::<T>(data.len(), true)?;
        let _inside = crate::runtime::driver::enter();
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
    pub fn zeros<T: Element>(&self, n: usize) -> Result<GpuVec<T>> {
        self.alloc::<T>(n, false)
    }

    fn alloc<T: Element>(&self, n: usize, mapped: bool) -> Result<GpuVec<T>> {
        self.alloc_usage(n, mapped, wgpu::BufferUsages::empty())
    }

    /// A new vector of `n` zeros whose buffer has `usage` too (e.g. `INDIRECT`).
    pub(crate) fn alloc_with<T: Element>(
        &self,
        n: usize,
        usage: wgpu::BufferUsages,
    ) -> Result<GpuVec<T>> {
        self.alloc_usage(n, false, usage)
    }

    fn alloc_usage<T: Element>(
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
            buffer: crate::runtime::driver::Gated::new(buffer),
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
        let _inside = crate::runtime::driver::enter();
        let device = &self.inner.device;
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(what),
            size: bytes,
            usage,
            mapped_at_creation,
        });
        let invalid = crate::runtime::native::block_on(validation.pop());
        let out_of_memory = crate::runtime::native::block_on(oom.pop());
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
        let _inside = crate::runtime::driver::enter();
        self.check_alive()?;
        let device = &self.inner.device;
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
        let r = f();
        let internal = crate::runtime::native::block_on(internal.pop());
        let invalid = crate::runtime::native::block_on(validation.pop());
        let out_of_memory = crate::runtime::native::block_on(oom.pop());
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
