//! [`Ctx`]: the device, its queue, what the adapter offers, and whether the device is
//! still alive. The builder is in `builder.rs`, the handles for your own wgpu code in
//! `interop.rs`, the argument checks calls share in `checks.rs`, what ops keep with a
//! context in `slots.rs`.

mod builder;
mod checks;
mod interop;
mod slots;

use std::fmt;
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::runtime::cache::PipelineCache;
use crate::runtime::driver::Gated;

pub use builder::{CtxBuilder, DEFAULT_BATCH_LIMIT, WANTED_FEATURES, WEBGPU_FEATURES};
pub(crate) use checks::{check_apart, check_len};
pub use interop::Interop;
pub(crate) use slots::TypeSlots;

/// A GPU context: one device and queue, what it can do, and its compiled pipelines.
///
/// `Ctx` is cheap to clone (an `Arc`), `Send` and `Sync`: clones share the device and
/// the pipeline cache, and calls from several threads are safe.
///
/// ```
/// let ctx = gpuprim::Ctx::new()?;
/// println!("{}", ctx.info());
/// # Ok::<(), gpuprim::Error>(())
/// ```
#[derive(Clone)]
pub struct Ctx {
    pub(crate) inner: Arc<Inner>,
    /// Inside [`Ctx::record`]: where calls leave their work for the caller's encoder.
    pub(crate) sink: Option<Arc<Mutex<Vec<crate::runtime::record::Work>>>>,
}

pub(crate) struct Inner {
    /// Dropped through the driver's door: a dedicated device is freed with its context.
    pub(crate) device: Gated<wgpu::Device>,
    pub(crate) queue: Gated<wgpu::Queue>,
    pub(crate) info: Info,
    pub(crate) cache: PipelineCache,
    pub(crate) pool: crate::runtime::vec::BufferPool,
    /// Set by the device-lost callback.
    pub(crate) lost: Arc<Mutex<Option<String>>>,
    /// The limit of every wait for the GPU, in nanoseconds ([`CtxBuilder::wait_timeout`]).
    pub(crate) wait_timeout: std::sync::atomic::AtomicU64,
    /// The thread that async waits share ([`crate::runtime::wait`]).
    pub(crate) waiter: crate::runtime::wait::Waiter,
    /// Recorded work not yet submitted, in call order (see [`Ctx::flush`]).
    pub(crate) pending: Mutex<crate::runtime::submit::Held>,
    /// Calls whose work one submission may gather ([`CtxBuilder::batch_limit`]).
    pub(crate) batch_limit: usize,
    /// Treat the GPU as busy whatever a poll says ([`CtxBuilder::assume_gpu_busy`]).
    pub(crate) assume_busy: bool,
    /// Longest a call's work is held before the next call submits it
    /// ([`CtxBuilder::hold_max`], default [`crate::runtime::submit::HOLD_MAX`]).
    pub(crate) hold_max: std::time::Duration,
    /// `queue.submit` calls made so far ([`Ctx::submissions`]).
    pub(crate) submissions: std::sync::atomic::AtomicU64,
    /// An error from a submission that no call could return (made by [`Ctx::queue`] or
    /// [`Ctx::device`]); the next call returns it.
    pub(crate) deferred: Mutex<Option<Error>>,
    /// A one-binding layout, for checking that a buffer belongs to this device.
    pub(crate) probe_layout: std::sync::OnceLock<wgpu::BindGroupLayout>,
    /// The profiler of a context built with [`CtxBuilder::profiling`].
    pub(crate) profiler: Option<Mutex<crate::runtime::profile::Profiler>>,
    /// What ops learn at run time and keep with the context, one value per type
    /// ([`Ctx::op_state`]).
    pub(crate) op_state: TypeSlots,
    /// The options ops were given through the builder ([`CtxBuilder::option`]).
    pub(crate) options: TypeSlots,
    /// The context's entry in the registry of devices drained at exit
    /// ([`crate::runtime::device::quiesce`]).
    pub(crate) live: u64,
}

impl Drop for Inner {
    /// Everything the context holds in the driver (held work, pipelines, pooled buffers,
    /// its profiler's queries) is released through the driver's door
    /// ([`crate::runtime::driver`]), so a process that exits while a context is dropped
    /// waits for the drop to leave the driver, or stops it at the door.
    fn drop(&mut self) {
        // The waiter thread first: it polls through the door on its own.
        self.waiter.stop();
        let _inside = crate::runtime::driver::enter();
        // Work still held is submitted, so that writes into buffers the caller shares
        // with its own wgpu code happen.
        let pending = self
            .pending
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if !pending.is_empty() {
            self.queue.submit(pending);
        }
        drop(std::mem::take(&mut self.cache));
        drop(std::mem::take(&mut self.pool));
        drop(self.probe_layout.take());
        drop(self.profiler.take());
        drop(std::mem::take(&mut self.op_state));
        crate::runtime::device::forget_live(self.live);
    }
}

/// What the chosen adapter is and what the context may use on it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Info {
    /// Adapter name, e.g. "NVIDIA GeForce RTX 4090" or "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub name: String,
    /// Graphics API in use.
    pub backend: wgpu::Backend,
    /// Discrete, integrated, CPU (software), ...
    pub device_type: wgpu::DeviceType,
    /// PCI vendor id as the adapter reports it (0x10de NVIDIA, 0x1002 AMD, 0x8086 Intel;
    /// 0 where the backend has none).
    pub vendor: u32,
    /// Driver name and version as the adapter reports them.
    pub driver: String,
    /// Smallest subgroup (warp, wavefront) size the adapter may use.
    pub subgroup_min_size: u32,
    /// Largest subgroup size the adapter may use.
    pub subgroup_max_size: u32,
    /// Device limits (the adapter's full limits).
    pub limits: wgpu::Limits,
    /// Optional features enabled on the device.
    pub features: wgpu::Features,
    /// Largest storage binding gpuprim uses, in bytes: the device limit, or lower if the
    /// builder asked. Vectors past it are processed in several bindings.
    pub max_binding_bytes: u64,
    /// Largest workgroup count per dispatch dimension gpuprim uses.
    pub max_workgroups_per_dimension: u32,
}

impl Info {
    /// [`Ctx::subgroups_within`], from the adapter's description alone (for policies
    /// the CPU catalog evaluates without a device).
    pub(crate) fn subgroups_within(&self, workgroup_size: u32) -> bool {
        self.features.contains(wgpu::Features::SUBGROUP)
            && self.subgroup_min_size >= 1
            && self.subgroup_max_size <= workgroup_size
    }
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({:?}, {:?}, driver {:?}); subgroups {}..{}; max binding {} MiB; features {:?}",
            self.name,
            self.backend,
            self.device_type,
            self.driver,
            self.subgroup_min_size,
            self.subgroup_max_size,
            self.max_binding_bytes >> 20,
            self.features,
        )
    }
}

impl fmt::Debug for Ctx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ctx")
            .field("adapter", &self.inner.info.name)
            .field("backend", &self.inner.info.backend)
            .field("pipelines", &self.inner.cache.len())
            .finish()
    }
}

impl Ctx {
    /// The best adapter (a discrete GPU if there is one), with its full limits and every
    /// optional feature gpuprim can use. Blocking; see [`Ctx::new_async`].
    ///
    /// Contexts made this way (and by [`CtxBuilder::build`]) on one adapter with the same
    /// features and limits share one wgpu device, which lives as long as the process:
    /// making, using and dropping many contexts from many threads is safe and cheap, and
    /// each context keeps its own pipelines, buffers, batching and settings. Destroying
    /// that device ([`Interop::destroy`]) ends every context on it, and a callback you
    /// register on its queue or buffers runs in whichever thread polls the device next,
    /// which may be another context's; use [`CtxBuilder::dedicated_device`] for a device
    /// of a context's own.
    pub fn new() -> Result<Ctx> {
        CtxBuilder::default().build()
    }

    /// Async twin of [`Ctx::new`].
    pub async fn new_async() -> Result<Ctx> {
        CtxBuilder::default().build_async().await
    }

    /// A context on a device and queue your application already has (a renderer's, an
    /// engine's: Bevy's `RenderDevice` and `RenderQueue` wrap these types), with that
    /// device's limits and features: every primitive picks its variant from them, and a
    /// call that needs a feature the device lacks returns [`Error::Unsupported`] naming
    /// it. [`Ctx::info`] reports the adapter through `device.adapter_info()`. gpuprim
    /// installs no callbacks on your device. See [`CtxBuilder::from_wgpu`] for builder
    /// choices, [`GpuVec::from_buffer`](crate::GpuVec::from_buffer) for your buffers and
    /// [`Ctx::record`] for your encoder.
    ///
    /// ```
    /// let instance = gpuprim::wgpu::Instance::new(
    ///     gpuprim::wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
    /// );
    /// let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    /// let (device, queue) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    /// let ctx = gpuprim::Ctx::from_wgpu(device, queue)?;
    /// assert_eq!(ctx.info().limits.max_storage_buffers_per_shader_stage, 8);
    /// let v = ctx.upload(&[0.5f32, 1.5])?;
    /// assert_eq!(ctx.reduce(&v)?, 2.0);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn from_wgpu(device: wgpu::Device, queue: wgpu::Queue) -> Result<Ctx> {
        CtxBuilder::default().from_wgpu(device, queue)
    }

    /// A builder for the choices [`Ctx::new`] makes for you.
    pub fn builder() -> CtxBuilder {
        CtxBuilder::default()
    }

    /// The adapter, its limits and features.
    pub fn info(&self) -> &Info {
        &self.inner.info
    }

    /// Whether the device has `features` enabled.
    pub fn has_features(&self, features: wgpu::Features) -> bool {
        self.inner.info.features.contains(features)
    }

    /// Whether kernels of `workgroup_size` invocations can use subgroup operations: the
    /// adapter has them, reports its subgroup sizes, and no subgroup is larger than the
    /// workgroup.
    pub(crate) fn subgroups_within(&self, workgroup_size: u32) -> bool {
        self.inner.info.subgroups_within(workgroup_size)
    }

    /// How many times this context (and its clones) has called `queue.submit`: each
    /// submission of held work counts once, however many calls it carries. Your own
    /// submissions through [`Ctx::queue`] do not count.
    #[cfg(feature = "internals")]
    pub fn submissions(&self) -> u64 {
        self.inner
            .submissions
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(crate) fn count_submission(&self) {
        self.inner
            .submissions
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Pipelines compiled so far by this context (and its clones). A call that finds its
    /// pipeline in the cache does not add to it.
    pub fn pipelines_compiled(&self) -> usize {
        self.inner.cache.compiled()
    }

    /// Pipelines currently in the cache.
    pub fn pipelines_cached(&self) -> usize {
        self.inner.cache.len()
    }

    /// `Err(DeviceLost)` once the device is gone.
    pub(crate) fn check_alive(&self) -> Result<()> {
        self.check_lost()?;
        let deferred = self
            .inner
            .deferred
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        match deferred {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Records that the device is gone (the first reason stays); a shared device leaves
    /// the registry, so the next context gets a new one.
    pub(crate) fn mark_lost(&self, reason: &str) {
        let mut lost = self.inner.lost.lock().unwrap_or_else(|p| p.into_inner());
        lost.get_or_insert_with(|| reason.to_string());
        drop(lost);
        crate::runtime::device::forget(&self.inner.device);
    }

    /// The error to return for `e`, an error from wgpu: `DeviceLost` if the device is
    /// gone, else `e`. After a loss wgpu reports the objects it left invalid (a buffer
    /// made after the loss, an encoder, a pipeline) as validation errors; they are the
    /// loss, not a bug or the user's WGSL. Called only on error paths: when the lost flag
    /// is not set yet (the device was destroyed through a clone of the wgpu handle, and
    /// no poll has run the lost callback), it checks the device with a small probe.
    pub(crate) fn or_lost(&self, e: Error) -> Error {
        if let Err(lost @ Error::DeviceLost { .. }) = self.check_lost() {
            return lost;
        }
        if crate::runtime::device::refuses_work(&self.inner.device) {
            self.mark_lost("the device no longer accepts work (destroyed or lost)");
            if let Err(lost) = self.check_lost() {
                return lost;
            }
        }
        e
    }

    /// `Err(DeviceLost)` once the device is known to be gone.
    fn check_lost(&self) -> Result<()> {
        let lost = self
            .inner
            .lost
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        match lost {
            Some(reason) => Err(Error::DeviceLost { reason }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    fn assert_send_sync_clone<T: Send + Sync + Clone>() {}

    #[test]
    fn ctx_is_send_sync_clone() {
        assert_send_sync_clone::<super::Ctx>();
    }
}
