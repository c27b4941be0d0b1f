//! [`Ctx`]: the device, its queue, what the adapter offers, and the pipeline cache.

use std::fmt;
use std::sync::{Arc, Mutex};

use crate::element::GpuElement;
use crate::error::{Error, Result};
use crate::runtime::cache::PipelineCache;

/// The optional wgpu features gpuprim uses when an adapter has them.
pub const WANTED_FEATURES: wgpu::Features = wgpu::Features::SUBGROUP
    .union(wgpu::Features::SUBGROUP_BARRIER)
    .union(wgpu::Features::TIMESTAMP_QUERY)
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    .union(wgpu::Features::SHADER_F16)
    .union(wgpu::Features::SHADER_F64)
    .union(wgpu::Features::SHADER_FLOAT32_ATOMIC)
    .union(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);

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
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
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
    pub(crate) pending: Mutex<crate::runtime::dispatch::Held>,
    /// Calls whose work one submission may gather ([`CtxBuilder::batch_limit`]).
    pub(crate) batch_limit: usize,
    /// Treat the GPU as busy whatever a poll says ([`CtxBuilder::assume_gpu_busy`]).
    pub(crate) assume_busy: bool,
    /// Longest a call's work is held before the next call submits it
    /// ([`CtxBuilder::hold_max`], default [`crate::runtime::dispatch::HOLD_MAX`]).
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
}

/// Values of any types, one per type: what ops keep with a context or its builder. The
/// runtime stores them and never looks inside.
#[derive(Clone, Default)]
pub(crate) struct TypeSlots(
    Arc<Mutex<std::collections::HashMap<std::any::TypeId, Arc<dyn std::any::Any + Send + Sync>>>>,
);

impl TypeSlots {
    fn get<S: Send + Sync + 'static>(&self) -> Option<Arc<S>> {
        let map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let any = Arc::clone(map.get(&std::any::TypeId::of::<S>())?);
        any.downcast::<S>().ok()
    }

    fn get_or_default<S: Default + Send + Sync + 'static>(&self) -> Arc<S> {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let any = map
            .entry(std::any::TypeId::of::<S>())
            .or_insert_with(|| Arc::new(S::default()));
        Arc::clone(any)
            .downcast::<S>()
            .unwrap_or_else(|_| unreachable!("slots are keyed by their type"))
    }

    /// A copy whose map is its own (a builder's options, given to a new context).
    fn detached(&self) -> TypeSlots {
        let map = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        TypeSlots(Arc::new(Mutex::new(map)))
    }

    fn set<S: Send + Sync + 'static>(&mut self, value: S) {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        map.insert(std::any::TypeId::of::<S>(), Arc::new(value));
    }
}

impl fmt::Debug for TypeSlots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        write!(f, "TypeSlots({} values)", map.len())
    }
}

impl Ctx {
    /// The state of type `S` an op keeps with this context (and its clones), made by
    /// `S::default()` on first use: what the op learns at run time, such as a measured
    /// choice. Each op's state is a type of its own module.
    pub(crate) fn op_state<S: Default + Send + Sync + 'static>(&self) -> Arc<S> {
        self.inner.op_state.get_or_default()
    }

    /// The option of type `S` the builder was given ([`CtxBuilder::option`]), if any.
    pub(crate) fn option<S: Send + Sync + 'static>(&self) -> Option<Arc<S>> {
        self.inner.options.get()
    }
}

impl CtxBuilder {
    /// Sets the option of type `S` for an op (each op's options are types of its own
    /// module); the context built returns it from [`Ctx::option`].
    pub(crate) fn option<S: Send + Sync + 'static>(mut self, value: S) -> Self {
        self.options = self.options.detached();
        self.options.set(value);
        self
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
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

/// Choices made when creating a [`Ctx`]. Start with [`Ctx::builder`].
///
/// ```
/// // The software adapter, with a 1 MiB binding limit (to exercise the split path).
/// let ctx = gpuprim::Ctx::builder()
///     .software(true)
///     .max_binding_bytes(1 << 20)
///     .build()?;
/// assert_eq!(ctx.info().max_binding_bytes, 1 << 20);
/// # Ok::<(), gpuprim::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct CtxBuilder {
    power: wgpu::PowerPreference,
    software: bool,
    backends: wgpu::Backends,
    max_binding_bytes: Option<u64>,
    max_workgroups_per_dimension: Option<u32>,
    without_features: wgpu::Features,
    options: TypeSlots,
    batch_limit: usize,
    profiling: bool,
    assume_busy: bool,
    hold_max: std::time::Duration,
    limits: Option<wgpu::Limits>,
    memory_budget: Option<u8>,
    wait_timeout: std::time::Duration,
    dedicated_device: bool,
}

/// Default of [`CtxBuilder::batch_limit`].
pub const DEFAULT_BATCH_LIMIT: usize = 16;

impl Default for CtxBuilder {
    fn default() -> Self {
        CtxBuilder {
            power: wgpu::PowerPreference::HighPerformance,
            software: false,
            backends: wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all()),
            max_binding_bytes: None,
            max_workgroups_per_dimension: None,
            without_features: wgpu::Features::empty(),
            options: TypeSlots::default(),
            batch_limit: DEFAULT_BATCH_LIMIT,
            profiling: false,
            assume_busy: false,
            hold_max: crate::runtime::dispatch::HOLD_MAX,
            limits: None,
            memory_budget: None,
            wait_timeout: crate::runtime::wait::DEFAULT_WAIT_TIMEOUT,
            dedicated_device: false,
        }
    }
}

impl CtxBuilder {
    /// Prefer the fast discrete GPU (default) or the low-power one.
    pub fn power_preference(mut self, power: wgpu::PowerPreference) -> Self {
        self.power = power;
        self
    }

    /// Use only a software (CPU) adapter such as Mesa's lavapipe.
    pub fn software(mut self, software: bool) -> Self {
        self.software = software;
        self
    }

    /// Search only these backends (default: all, or `WGPU_BACKEND` from the environment).
    pub fn backends(mut self, backends: wgpu::Backends) -> Self {
        self.backends = backends;
        self
    }

    /// Use storage bindings of at most `bytes` (lower than the device's limit), so the
    /// path that splits large vectors into several bindings can be tested on small data.
    /// At least 256 bytes.
    pub fn max_binding_bytes(mut self, bytes: u64) -> Self {
        self.max_binding_bytes = Some(bytes);
        self
    }

    /// Dispatch at most `n` workgroups per dimension (lower than the device's limit, at
    /// least 1), so the 2D/3D folding of large dispatches can be tested on small data.
    pub fn max_workgroups_per_dimension(mut self, n: u32) -> Self {
        self.max_workgroups_per_dimension = Some(n);
        self
    }

    /// Do not enable these optional features even if the adapter has them (e.g. to test
    /// the fallbacks, or the errors for f64 on an adapter without it).
    pub fn without_features(mut self, features: wgpu::Features) -> Self {
        self.without_features |= features;
        self
    }

    /// How many calls' work one submission may gather while the GPU is busy (default
    /// [`DEFAULT_BATCH_LIMIT`]; at least 1). A call made while the GPU is idle is
    /// submitted at once; calls made while it is busy are held and submitted together,
    /// because each submission leaves the GPU idle for a while between the work of two
    /// submissions (see docs/PERFORMANCE.md). Held work is submitted when
    /// `n` calls have gathered, by the first call after the oldest held one has waited
    /// 100 us (so that large calls reach the GPU before it runs out of work), when
    /// anything waits for or reads from the GPU, on [`Ctx::flush`], and before each use
    /// of [`Ctx::queue`] or [`Ctx::device`]. `batch_limit(1)` submits every call on its
    /// own.
    pub fn batch_limit(mut self, n: usize) -> Self {
        self.batch_limit = n;
        self
    }

    /// Time every call's GPU work with timestamp queries (through wgpu-profiler) for
    /// [`Ctx::profile`]: GPU time per call by primitive, a summary table and a Chrome
    /// trace. Off by default, and then it costs nothing. Needs `TIMESTAMP_QUERY`
    /// ([`Error::Unsupported`] from `build` where the adapter lacks it).
    pub fn profiling(mut self, on: bool) -> Self {
        self.profiling = on;
        self
    }

    /// Request these device limits instead of the adapter's full limits, e.g.
    /// `wgpu::Limits::default()` (WebGPU's) to check that a program runs within what
    /// every WebGPU device offers. Each limit must be within the adapter's
    /// (`Error::RequestDevice` names the one that is not). gpuprim then keeps to them:
    /// [`Info::limits`] are these, and vectors past their largest binding are split.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::builder().limits(gpuprim::wgpu::Limits::default()).build()?;
    /// assert_eq!(ctx.info().limits.max_compute_invocations_per_workgroup, 256);
    /// let v = ctx.upload(&[1u32, 2, 3])?;
    /// assert_eq!(ctx.reduce(&v)?, 6);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn limits(mut self, limits: wgpu::Limits) -> Self {
        self.limits = Some(limits);
        self
    }

    /// Refuse new buffers (with [`Error::OutOfMemory`]) once the device's memory use
    /// would pass `percent` of the budget the driver reports, instead of letting the
    /// driver decide. Only where the driver reports a budget: Vulkan with
    /// `VK_EXT_memory_budget` (NVIDIA, AMD, Intel and Mesa's drivers have it) and DX12;
    /// elsewhere it has no effect. 1 to 100.
    pub fn memory_budget(mut self, percent: u8) -> Self {
        self.memory_budget = Some(percent);
        self
    }

    /// Treat the GPU as busy whatever it is doing, so every call's work is held until
    /// one of the other rules in [`CtxBuilder::batch_limit`] submits it.
    ///
    /// For tests of batching: whether a call finds the GPU busy otherwise depends on how
    /// fast the GPU is (a software adapter's queue may finish a call's work before the
    /// next call; a fast GPU finishes it in microseconds). Not for production use: work
    /// then waits for the next call, a read-back, [`Ctx::flush`] or the batch limit.
    #[cfg(feature = "internals")]
    pub fn assume_gpu_busy(mut self, busy: bool) -> Self {
        self.assume_busy = busy;
        self
    }

    /// Hold a call's work at most this long before the next call submits it (default
    /// 100 us; see [`CtxBuilder::batch_limit`]). With [`CtxBuilder::assume_gpu_busy`] and
    /// a long hold, what is held and when it goes no longer depends on the host's speed:
    /// tests can count held calls and submissions exactly.
    #[cfg(feature = "internals")]
    pub fn hold_max(mut self, hold: std::time::Duration) -> Self {
        self.hold_max = hold;
        self
    }

    /// How long a wait for the GPU (a read-back, [`Ctx::synchronize`], an async
    /// read-back) may take before it returns [`Error::Timeout`] instead of blocking on
    /// (default [`DEFAULT_WAIT_TIMEOUT`](crate::DEFAULT_WAIT_TIMEOUT), 120 s). The work
    /// goes on and the context stays usable; [`Ctx::set_wait_timeout`] changes the limit
    /// later. Waits spin for at most 500 us, then sleep in the driver (see the crate's
    /// notes on [waiting](crate#waiting-for-the-gpu)).
    ///
    /// ```
    /// use std::time::Duration;
    /// let ctx = gpuprim::Ctx::builder().wait_timeout(Duration::from_secs(30)).build()?;
    /// assert_eq!(ctx.wait_timeout(), Duration::from_secs(30));
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn wait_timeout(mut self, limit: std::time::Duration) -> Self {
        self.wait_timeout = limit;
        self
    }

    /// Give the context a wgpu device of its own instead of the one that contexts on the
    /// same adapter, with the same features and limits, share (the default; see
    /// [`Ctx::new`]). The device is dropped with the context. For a program that destroys
    /// its device on purpose ([`Interop::destroy`]), which would end every context on a
    /// shared device. On NVIDIA's Vulkan driver, destroying or dropping a device while
    /// other devices of the process work can hang the process (docs/multidevice-hang.md
    /// in the repository): destroy and drop dedicated contexts while no other context
    /// works.
    ///
    /// ```
    /// let a = gpuprim::Ctx::new()?;
    /// let b = gpuprim::Ctx::new()?;
    /// assert_eq!(*a.device(), *b.device()); // one device, shared
    /// let own = gpuprim::Ctx::builder().dedicated_device(true).build()?;
    /// let v = own.upload(&[1u32, 2, 3])?;
    /// own.device().destroy(); // ends `own` alone
    /// assert!(matches!(own.reduce(&v), Err(gpuprim::Error::DeviceLost { .. })));
    /// assert_eq!(a.reduce(&a.upload(&[1u32, 2, 3])?)?, 6);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn dedicated_device(mut self, dedicated: bool) -> Self {
        self.dedicated_device = dedicated;
        self
    }

    /// Create the context (blocking).
    pub fn build(self) -> Result<Ctx> {
        pollster::block_on(self.build_async())
    }

    /// Create the context.
    pub async fn build_async(self) -> Result<Ctx> {
        if let Some(p) = self.memory_budget {
            if !(1..=100).contains(&p) {
                return Err(Error::InvalidArgument {
                    op: "CtxBuilder::memory_budget",
                    message: format!("{p}% of the budget; pass 1 to 100"),
                });
            }
        }
        let adapters = crate::runtime::device::find_adapters(self.backends, self.memory_budget);
        let adapter = adapters
            .into_iter()
            .filter(|a| {
                a.get_downlevel_capabilities()
                    .flags
                    .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
                    && (!self.software || a.get_info().device_type == wgpu::DeviceType::Cpu)
            })
            .max_by_key(|a| crate::runtime::device::adapter_rank(&a.get_info(), self.power))
            .ok_or_else(|| Error::NoAdapter {
                searched: format!(
                    "backends {:?}{}",
                    self.backends,
                    if self.software {
                        ", software adapters only"
                    } else {
                        ""
                    }
                ),
            })?;
        let adapter_info = adapter.get_info();
        // Argument errors before a device exists: nothing to create and tear down.
        self.check(&adapter.limits())?;
        let features = adapter.features() & WANTED_FEATURES & !self.without_features;
        let limits = self.limits.clone().unwrap_or_else(|| adapter.limits());
        let handles = crate::runtime::device::device_for(
            &adapter,
            self.memory_budget,
            features,
            &limits,
            self.dedicated_device,
        )?;
        self.assemble(handles, adapter_info, features, limits)
    }

    /// A context on a device someone else made ([`Ctx::from_wgpu`]), with this builder's
    /// choices. The device's limits are the context's; of its features, those gpuprim
    /// uses ([`WANTED_FEATURES`], less [`CtxBuilder::without_features`]). The choices of
    /// adapter, backends, limits and memory budget do not apply (the device exists).
    ///
    /// ```
    /// // A device of your own, with WebGPU's default limits and no optional features.
    /// let instance = gpuprim::wgpu::Instance::new(
    ///     gpuprim::wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
    /// );
    /// let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    /// let (device, queue) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    /// let ctx = gpuprim::Ctx::builder().batch_limit(1).from_wgpu(device, queue)?;
    /// let v = ctx.upload(&[1u32, 2, 3])?;
    /// assert_eq!(ctx.reduce(&v)?, 6);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn from_wgpu(self, device: wgpu::Device, queue: wgpu::Queue) -> Result<Ctx> {
        let limits = device.limits();
        self.check(&limits)?;
        let features = device.features() & WANTED_FEATURES & !self.without_features;
        let adapter_info = device.adapter_info();
        // Your device: gpuprim installs no callbacks on it (it captures its own errors in
        // scopes, and notices a loss by its calls failing).
        let handles = crate::runtime::device::DeviceHandles {
            device,
            queue,
            lost: Arc::new(Mutex::new(None)),
        };
        self.assemble(handles, adapter_info, features, limits)
    }

    /// The argument errors a builder can hold, for a device with `limits`.
    fn check(&self, limits: &wgpu::Limits) -> Result<()> {
        if let Some(b) = self.max_binding_bytes {
            let align = u64::from(limits.min_storage_buffer_offset_alignment).max(256);
            if b < align {
                return Err(Error::InvalidArgument {
                    op: "CtxBuilder::max_binding_bytes",
                    message: format!(
                        "{b} bytes is below the smallest usable binding of {align} bytes"
                    ),
                });
            }
        }
        if self.batch_limit == 0 {
            return Err(Error::InvalidArgument {
                op: "CtxBuilder::batch_limit",
                message: "a batch of 0 calls; pass at least 1 (1 submits every call on its own)"
                    .into(),
            });
        }
        if self.max_workgroups_per_dimension == Some(0) {
            return Err(Error::InvalidArgument {
                op: "CtxBuilder::max_workgroups_per_dimension",
                message: "0 workgroups per dimension; pass at least 1".into(),
            });
        }
        Ok(())
    }

    /// The context on a device.
    fn assemble(
        self,
        handles: crate::runtime::device::DeviceHandles,
        adapter_info: wgpu::AdapterInfo,
        features: wgpu::Features,
        limits: wgpu::Limits,
    ) -> Result<Ctx> {
        let crate::runtime::device::DeviceHandles {
            device,
            queue,
            lost,
        } = handles;
        let profiler = if self.profiling {
            if !features.contains(wgpu::Features::TIMESTAMP_QUERY) {
                return Err(Error::Unsupported {
                    what: "CtxBuilder::profiling".into(),
                    feature: format!("{:?}", wgpu::Features::TIMESTAMP_QUERY),
                    adapter: adapter_info.name.clone(),
                });
            }
            Some(Mutex::new(crate::runtime::profile::Profiler::new(
                &device, features,
            )?))
        } else {
            None
        };
        let device_binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let max_binding_bytes = self
            .max_binding_bytes
            .unwrap_or(device_binding)
            .min(device_binding);
        let max_workgroups_per_dimension = self
            .max_workgroups_per_dimension
            .unwrap_or(u32::MAX)
            .min(limits.max_compute_workgroups_per_dimension);

        let info = Info {
            name: adapter_info.name.clone(),
            backend: adapter_info.backend,
            device_type: adapter_info.device_type,
            vendor: adapter_info.vendor,
            driver: format!("{} {}", adapter_info.driver, adapter_info.driver_info),
            subgroup_min_size: adapter_info.subgroup_min_size,
            subgroup_max_size: adapter_info.subgroup_max_size,
            limits,
            features,
            max_binding_bytes,
            max_workgroups_per_dimension,
        };
        Ok(Ctx {
            sink: None,
            inner: Arc::new(Inner {
                device,
                queue,
                info,
                cache: PipelineCache::default(),
                pool: Default::default(),
                lost,
                wait_timeout: crate::runtime::wait::limit_nanos(self.wait_timeout),
                waiter: Default::default(),
                pending: Mutex::default(),
                batch_limit: self.batch_limit,
                assume_busy: self.assume_busy,
                hold_max: self.hold_max,
                submissions: Default::default(),
                deferred: Mutex::new(None),
                probe_layout: Default::default(),
                profiler,
                op_state: TypeSlots::default(),
                options: self.options.detached(),
            }),
        })
    }
}

/// A wgpu handle of a [`Ctx`] ([`Ctx::device`], [`Ctx::queue`]) for your own wgpu code.
///
/// gpuprim may hold the work of recent calls to submit it together (see
/// [`CtxBuilder::batch_limit`]). Every use of this handle (it dereferences to the wgpu
/// type) first submits what is held, so your submissions, `write_buffer`s and polls come
/// after every gpuprim call made before them, even if you keep the handle across calls.
/// A clone of the wgpu object itself (`ctx.queue().clone()` gives a `wgpu::Queue`) does
/// not do this: call [`Ctx::flush`] before using it. An error from that submission is
/// returned by the next gpuprim call.
pub struct Interop<'a, T> {
    ctx: &'a Ctx,
    handle: &'a T,
}

impl<T> std::ops::Deref for Interop<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.ctx.flush_deferring_errors();
        self.handle
    }
}

impl Interop<'_, wgpu::Device> {
    /// Destroys the device ([`wgpu::Device::destroy`]) after submitting the work gpuprim
    /// holds, and marks the context lost: from now on every call of this context, its
    /// clones and every other context on the same device returns [`Error::DeviceLost`],
    /// and read-backs already waiting resolve. Contexts made by [`Ctx::new`] share their
    /// device: make the context with [`CtxBuilder::dedicated_device`] to destroy only its
    /// own.
    ///
    /// (A `destroy` through a clone of the `wgpu::Device` is noticed too, by the first
    /// call whose wgpu work fails or that waits for the GPU; a vector allocated before
    /// then reports the loss when it is used.)
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::builder().dedicated_device(true).build()?;
    /// let v = ctx.upload(&[1.0f32, 2.0])?;
    /// ctx.device().destroy();
    /// assert!(matches!(ctx.reduce(&v), Err(gpuprim::Error::DeviceLost { .. })));
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn destroy(&self) {
        self.ctx.flush_deferring_errors();
        self.ctx
            .mark_lost("Destroyed: Ctx::device().destroy() was called");
        self.handle.destroy();
    }
}

impl<T: fmt::Debug> fmt::Debug for Interop<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.handle.fmt(f)
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

    /// The underlying wgpu device, for interop with your own wgpu code. Each use of the
    /// handle first submits the work gpuprim holds for batching (see [`Interop`]), so a
    /// `poll` through it waits for every call made so far.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let encoder = ctx.device().create_command_encoder(&Default::default());
    /// ctx.queue().submit([encoder.finish()]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn device(&self) -> Interop<'_, wgpu::Device> {
        Interop {
            ctx: self,
            handle: &self.inner.device,
        }
    }

    /// The underlying wgpu queue. Each use of the handle first submits the work gpuprim
    /// holds for batching (see [`Interop`]), so what you submit or write through it comes
    /// after every call made so far.
    pub fn queue(&self) -> Interop<'_, wgpu::Queue> {
        Interop {
            ctx: self,
            handle: &self.inner.queue,
        }
    }

    /// Records the work of the calls `f` makes through the `&Ctx` it is given into
    /// `encoder`, a command encoder of this context's device that you submit, in order
    /// with your own passes before and after: gpuprim inside your frame.
    ///
    /// Ordering rules:
    /// - work gpuprim holds for batching is submitted first, so calls made before
    ///   `record` run before your encoder;
    /// - inside `f`, every call made through its argument is recorded, in call order, at
    ///   this point of `encoder`; it runs when you submit `encoder`, not before;
    /// - calls through other handles (the outer `ctx`) submit as usual, ahead of your
    ///   encoder;
    /// - calls that wait for the GPU or read back (`reduce`, `to_vec`, `synchronize`,
    ///   `compact`, `Swizzle::Auto`'s first call) cannot be recorded: they return
    ///   [`Error::InvalidArgument`]; use their `_into` forms and read back after your
    ///   submission;
    /// - if `f` returns an error, nothing is recorded into `encoder`.
    ///
    /// Scratch buffers and parameters stay alive until the work has run (wgpu keeps what
    /// an encoder uses). Vectors made inside `f` belong to this context as usual.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[1.0f32, 2.0, 3.0])?;
    /// let mut doubled = ctx.zeros::<f32>(3)?;
    /// let mut total = ctx.zeros::<f32>(1)?;
    /// let mut encoder = ctx.device().create_command_encoder(&Default::default());
    /// // ... your own passes ...
    /// ctx.record(&mut encoder, |ctx| {
    ///     ctx.map_into(&a, "x * 2.0", &mut doubled)?;
    ///     ctx.reduce_into(&doubled, &mut total)
    /// })?;
    /// // ... more passes of your own, reading `total.buffer()` ...
    /// ctx.queue().submit([encoder.finish()]);
    /// assert_eq!(total.to_vec()?, vec![12.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn record<R>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        f: impl FnOnce(&Ctx) -> Result<R>,
    ) -> Result<R> {
        self.check_not_recording("Ctx::record")?;
        self.flush()?;
        let sink = Arc::new(Mutex::new(Vec::new()));
        let recording = Ctx {
            inner: Arc::clone(&self.inner),
            sink: Some(Arc::clone(&sink)),
        };
        let result = f(&recording);
        drop(recording);
        let works = std::mem::take(&mut *sink.lock().unwrap_or_else(|p| p.into_inner()));
        let value = result?;
        for work in works {
            work.record(encoder)?;
        }
        Ok(value)
    }

    /// This context without a [`Ctx::record`] sink: what vectors keep.
    pub(crate) fn plain(&self) -> Ctx {
        Ctx {
            inner: Arc::clone(&self.inner),
            sink: None,
        }
    }

    /// `Err(InvalidArgument)` inside [`Ctx::record`]: `op` waits for the GPU.
    pub(crate) fn check_not_recording(&self, op: &'static str) -> Result<()> {
        if self.sink.is_none() {
            return Ok(());
        }
        Err(Error::InvalidArgument {
            op,
            message: format!(
                "`{op}` waits for the GPU or reads back, which cannot be recorded into your \
                 encoder (its work runs only when you submit it); use the `_into` form inside \
                 `Ctx::record` and read back after submitting"
            ),
        })
    }

    /// Whether the device has `features` enabled.
    pub fn has_features(&self, features: wgpu::Features) -> bool {
        self.inner.info.features.contains(features)
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
        if self.device_refuses_work() {
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

    /// Whether the device refuses new work: a 4-byte buffer mapped at creation cannot be
    /// read. On a live device that works, or fails with an error its scope catches (out
    /// of memory); a lost device reports nothing (wgpu leaves loss errors to the lost
    /// callback) and hands back an invalid buffer.
    fn device_refuses_work(&self) -> bool {
        let device = &self.inner.device;
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
        let probe = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpuprim device check"),
            size: 4,
            usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        });
        let unreadable = probe.get_mapped_range_mut(..).is_err();
        drop(probe);
        let reported = [
            pollster::block_on(internal.pop()),
            pollster::block_on(validation.pop()),
            pollster::block_on(oom.pop()),
        ];
        unreadable && reported.iter().all(Option::is_none)
    }

    /// `Err(Unsupported)` unless the device can use element type `T`.
    pub(crate) fn check_element<T: GpuElement>(&self) -> Result<()> {
        self.require(T::FEATURES, || format!("element type {}", T::WGSL))
    }

    /// `Err(Unsupported)` unless the device has `features`.
    pub(crate) fn require(
        &self,
        features: wgpu::Features,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        if self.has_features(features) {
            Ok(())
        } else {
            Err(Error::Unsupported {
                what: what(),
                feature: format!("{:?}", features - self.inner.info.features),
                adapter: self.inner.info.name.clone(),
            })
        }
    }

    /// `Err(InvalidArgument)` unless `buffer` belongs to this context's device: a bind
    /// group of its first word is made under an error scope (wgpu refuses another
    /// device's buffer there).
    pub(crate) fn check_same_device(&self, op: &'static str, buffer: &wgpu::Buffer) -> Result<()> {
        if buffer.size() < 4 {
            return Ok(()); // nothing a vector could hold
        }
        let device = &self.inner.device;
        let layout = self.inner.probe_layout.get_or_init(|| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("gpuprim buffer probe"),
                entries: &[wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                }],
            })
        });
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        // A buffer of another wgpu instance (your own instance's, against gpuprim's) is an
        // id into another registry, which wgpu-core may assert on (it cannot always tell:
        // `Ctx::from_wgpu` with your own device is the way to share buffers). The
        // assertion is caught; wgpu-core's locks do not poison.
        let probe = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("gpuprim buffer probe"),
                layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset: 0,
                        size: wgpu::BufferSize::new(4),
                    }),
                }],
            })
        }));
        let error = pollster::block_on(scope.pop());
        let problem = match (probe, error) {
            (Ok(_), None) => return Ok(()),
            (Err(_), _) => "it belongs to another wgpu instance".to_string(),
            (Ok(_), Some(e)) => e.to_string(),
        };
        Err(Error::InvalidArgument {
            op,
            message: format!(
                "the buffer cannot be used on this Ctx's device ({problem}); make the Ctx with \
                 Ctx::from_wgpu on the device that owns the buffer"
            ),
        })
    }

    /// Whether `other` is this context or a clone of it.
    pub(crate) fn same(&self, other: &Ctx) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// `Err(ContextMismatch)` unless every vector's context is this one.
    pub(crate) fn check_owned(&self, op: &'static str, owners: &[&Ctx]) -> Result<()> {
        if owners.iter().all(|c| self.same(c)) {
            Ok(())
        } else {
            Err(Error::ContextMismatch { op })
        }
    }
}

/// `Err(LengthMismatch)` unless the two named lengths are equal.
pub(crate) fn check_len(
    op: &'static str,
    left: (&'static str, usize),
    right: (&'static str, usize),
) -> Result<()> {
    if left.1 == right.1 {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            op,
            left_name: left.0.into(),
            left: left.1,
            right_name: right.0.into(),
            right: right.1,
        })
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
