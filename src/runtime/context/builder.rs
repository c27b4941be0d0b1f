//! [`CtxBuilder`]: the choices made when creating a [`Ctx`], and the making of it on the
//! adapter they pick (`device.rs` ranks adapters and shares devices) or on a device of
//! yours.

use std::sync::{Arc, Mutex};

use super::{Ctx, Info, Inner, TypeSlots};
use crate::error::{Error, Result};
use crate::runtime::cache::PipelineCache;
use crate::runtime::driver::Gated;

/// The optional wgpu features gpuprim uses when an adapter has them.
pub const WANTED_FEATURES: wgpu::Features = wgpu::Features::SUBGROUP
    .union(wgpu::Features::SUBGROUP_BARRIER)
    .union(wgpu::Features::TIMESTAMP_QUERY)
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    .union(wgpu::Features::SHADER_F16)
    .union(wgpu::Features::SHADER_F64)
    .union(wgpu::Features::SHADER_FLOAT32_ATOMIC)
    .union(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);

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

/// The optional features a WebGPU device may grant that gpuprim uses
/// ([`CtxBuilder::webgpu`] keeps these and leaves the rest of [`WANTED_FEATURES`] out).
pub const WEBGPU_FEATURES: wgpu::Features = wgpu::Features::SUBGROUP
    .union(wgpu::Features::TIMESTAMP_QUERY)
    .union(wgpu::Features::SHADER_F16);

/// Default of [`CtxBuilder::batch_limit`].
pub const DEFAULT_BATCH_LIMIT: usize = 16;

impl Default for CtxBuilder {
    /// The defaults, then `GPUPRIM_PROFILE` from the environment where it is set (as
    /// wgpu reads `WGPU_BACKEND`): `webgpu` is [`CtxBuilder::webgpu`], `webgpu-no-subgroups`
    /// the same without `SUBGROUP`. For running a whole program or test suite as a
    /// browser would; another value is ignored.
    fn default() -> Self {
        let builder = CtxBuilder::plain();
        match std::env::var("GPUPRIM_PROFILE").as_deref() {
            Ok("webgpu") => builder.webgpu(),
            Ok("webgpu-no-subgroups") => {
                builder.webgpu().without_features(wgpu::Features::SUBGROUP)
            }
            _ => builder,
        }
    }
}

impl CtxBuilder {
    fn plain() -> Self {
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
            hold_max: crate::runtime::submit::HOLD_MAX,
            limits: None,
            memory_budget: None,
            wait_timeout: crate::runtime::wait::DEFAULT_WAIT_TIMEOUT,
            dedicated_device: false,
        }
    }

    /// Hold the context to what every WebGPU device offers: WebGPU's default limits
    /// (`wgpu::Limits::default()`: 8 storage buffers per stage, 16 KiB of workgroup
    /// memory, 256 invocations per workgroup, 128 MiB bindings, 256 MiB buffers) and, of
    /// the optional features, only those WebGPU has ([`WEBGPU_FEATURES`]: subgroups,
    /// timestamps and f16 where the adapter has them; no f64). Every primitive runs under
    /// it, choosing smaller tiles where it must; a program tested so behaves as it will
    /// in a browser. Leave subgroups out too with
    /// `.without_features(wgpu::Features::SUBGROUP)`. `GPUPRIM_PROFILE=webgpu` in the
    /// environment turns it on for every builder (see [`CtxBuilder::default`]).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::builder().webgpu().build()?;
    /// assert_eq!(ctx.info().limits.max_compute_workgroup_storage_size, 16384);
    /// assert!(!ctx.has_features(gpuprim::wgpu::Features::SHADER_F64));
    /// let v = ctx.upload(&[3u32, 1, 2])?;
    /// assert_eq!(ctx.reduce(&v)?, 6);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn webgpu(self) -> Self {
        self.limits(wgpu::Limits::default())
            .without_features(WANTED_FEATURES.difference(WEBGPU_FEATURES))
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
    /// its device on purpose ([`Interop::destroy`](super::Interop::destroy)), which would end every context on a
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
        crate::runtime::native::block_on(self.build_async())
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
        let adapter = self.pick_adapter()?;
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

    /// The adapter the context is made on: the best of every adapter on the builder's
    /// backends. Inside the driver's door, so the adapters not chosen (an instance's
    /// last handles, a GL one's driver unload among them) are dropped inside it too.
    fn pick_adapter(&self) -> Result<wgpu::Adapter> {
        let _inside = crate::runtime::driver::enter();
        let adapters = crate::runtime::device::find_adapters(self.backends, self.memory_budget);
        adapters
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
            })
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
        if adapter_info.backend == wgpu::Backend::Gl {
            crate::runtime::driver::serialize_for_gl();
        }
        crate::runtime::driver::close_at_exit();
        let _inside = crate::runtime::driver::enter();
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
        let live = crate::runtime::device::note_live(&device);
        Ok(Ctx {
            sink: None,
            inner: Arc::new(Inner {
                device: Gated::new(device),
                queue: Gated::new(queue),
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
                live,
            }),
        })
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
