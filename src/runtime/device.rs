//! Instances, adapters and the devices contexts share.
//!
//! Several wgpu devices that are torn down while others work, from several threads, can
//! hang a process on NVIDIA's Vulkan driver, and a device torn down while the process
//! exits can crash it (docs/PERFORMANCE.md, "Several contexts"; wgpu issue 8365). Plain
//! wgpu shows it: threads that each make an instance and a device, use them and drop
//! them hung 2 of 8 runs; with one instance for the process, 8 of 8 ended. So gpuprim
//! tears down neither the instance nor a shared device while the process runs:
//!
//! - **One instance per set of primary backends** (Vulkan, Metal, DX12), made and its
//!   adapters enumerated on first use, and kept for the process. Instances, adapter lists
//!   and devices are made under one lock: threads enumerating one instance at once
//!   crashed and hung inside NVIDIA's driver.
//! - **Shared devices.** Contexts made by [`CtxBuilder::build`](crate::CtxBuilder::build)
//!   on one adapter with the same features and limits share one wgpu device, made by the
//!   first of them and kept for the process (its memory use is the driver's own; every
//!   buffer of a context is freed with the context). Each context keeps its own pipeline
//!   cache, buffer pool, batching and settings; the device's error scopes are per thread,
//!   so each call still sees only its own errors. A device that is lost or destroyed
//!   leaves the registry, and the next context gets a new one.
//! - [`CtxBuilder::dedicated_device`](crate::CtxBuilder::dedicated_device) asks for a
//!   device of the context's own, dropped with it (on the shared instance), for a program
//!   that destroys its device on purpose. Destroying or dropping it while other devices
//!   work can still hang NVIDIA's driver (docs/multidevice-hang.md).

use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::{Error, Result};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A device with its queue and the flag its lost callback sets.
#[derive(Clone)]
pub(crate) struct DeviceHandles {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) lost: Arc<Mutex<Option<String>>>,
}

/// What makes two contexts' devices interchangeable.
#[derive(PartialEq)]
struct DeviceKey {
    adapter: wgpu::AdapterInfo,
    memory_budget: Option<u8>,
    features: wgpu::Features,
    limits: wgpu::Limits,
}

/// The process's setup, under one lock: every instance made, adapter list enumerated and
/// device created goes through it. On NVIDIA's driver, threads enumerating one instance's
/// adapters at once crashed (a segmentation fault inside the driver, under wgpu-hal's
/// `expose_adapter`) or hung, so nothing of this runs on two threads at once.
static SETUP: Mutex<Setup> = Mutex::new(Setup {
    instances: Vec::new(),
    devices: Vec::new(),
});

struct Setup {
    /// Each instance for the primary backends with its adapters, enumerated once.
    instances: Vec<(InstanceKey, wgpu::Instance, Vec<wgpu::Adapter>)>,
    /// The shared devices, kept for the process.
    devices: Vec<(DeviceKey, DeviceHandles)>,
}

/// The device of every living context (shared, dedicated, or yours through
/// `Ctx::from_wgpu`), with the id each context holds; with the shared devices these are
/// the devices [`quiesce`] waits for at exit.
static LIVE: Mutex<Vec<(u64, wgpu::Device)>> = Mutex::new(Vec::new());

/// Notes `device` as a living context's; returns the id [`forget_live`] takes.
pub(crate) fn note_live(device: &wgpu::Device) -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    lock(&LIVE).push((id, device.clone()));
    id
}

/// The context of `id` is dropped (called inside the driver's door, so the device's last
/// handle is not dropped here).
pub(crate) fn forget_live(id: u64) {
    lock(&LIVE).retain(|(i, _)| *i != id);
}

/// At exit, after every gpuprim thread left the driver: waits on a thread of its own, at
/// most `budget` in all,
/// for the work already submitted to every device gpuprim knows to finish. A driver may
/// run that work on threads of its own (lavapipe's queue thread compiles a shader's
/// LLVM variant when the dispatch runs, and frees it there): still running while the
/// exit handlers tore LLVM down, they crashed the process (SIGSEGV in `~MCJIT`,
/// `corrupted size vs. prev_size` on `libvulkan_lvp.so`'s thread: 5 of 200 exits while
/// threads made contexts, 15 of 200 with every backend; docs/PERFORMANCE.md). A
/// registry another thread holds is skipped (that thread is still inside; waiting on it
/// could hang the exit).
pub(crate) fn quiesce(budget: std::time::Duration) {
    let start = std::time::Instant::now();
    let mut devices: Vec<wgpu::Device> = Vec::new();
    if let Ok(setup) = SETUP.try_lock() {
        devices.extend(setup.devices.iter().map(|(_, h)| h.device.clone()));
    }
    if let Ok(live) = LIVE.try_lock() {
        for (_, d) in live.iter() {
            if !devices.contains(d) {
                devices.push(d.clone());
            }
        }
    }
    if devices.is_empty() {
        return;
    }
    // On a thread of its own: the exiting thread's thread-locals are gone by now (glibc
    // runs them down before the exit handlers), and wgpu-core's debug lock tracing
    // needs its own (it panicked here on `main`, which had polled). The thread does not
    // pass the door: the door is closed and nobody else is inside.
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let waiter = std::thread::Builder::new()
        .name("gpuprim-exit".into())
        .spawn(move || {
            for device in &devices {
                let left = budget.saturating_sub(start.elapsed());
                if left.is_zero() {
                    break;
                }
                let _ = crate::runtime::wait::poll_blocking(device, None, left);
            }
            // The clones are dropped here: that frees nothing, the registries still hold
            // each device.
            let _ = done.send(());
        });
    // Joined once it is done, so that its own thread-locals are gone before the exit
    // handlers after this one run: on GL the poll made a context current on it, and
    // Mesa freeing that thread's state while its atexit handler tore the display down
    // aborted the process ("double free or corruption": 1 in 2 runs of the GL doc
    // tests). A waiter still waiting after the budget is left alone (joining could hang
    // the exit).
    if let Ok(waiter) = waiter
        && finished
            .recv_timeout(budget.saturating_sub(start.elapsed()))
            .is_ok()
    {
        let _ = waiter.join();
    }
}

/// The backends and memory budget an instance was made for.
type InstanceKey = (wgpu::Backends, Option<u8>);

/// The device for a context on `adapter`: the shared one for these features and limits
/// (made now if there is none), or a new one of its own when `dedicated`.
pub(crate) fn device_for(
    adapter: &wgpu::Adapter,
    memory_budget: Option<u8>,
    features: wgpu::Features,
    limits: &wgpu::Limits,
    dedicated: bool,
) -> Result<DeviceHandles> {
    let key = DeviceKey {
        adapter: adapter.get_info(),
        memory_budget,
        features,
        limits: limits.clone(),
    };
    if key.adapter.backend == wgpu::Backend::Gl {
        crate::runtime::driver::serialize_for_gl();
    }
    // The door before the setup lock, as everywhere (a lost device leaves the registry
    // from inside a call).
    let _inside = crate::runtime::driver::enter();
    let mut setup = lock(&SETUP);
    if !dedicated {
        if let Some(at) = setup.devices.iter().position(|(k, _)| *k == key) {
            // A device destroyed through a handle gpuprim never saw (a clone of
            // `Ctx::device()`'s, your own wgpu code) is known lost only once a poll runs
            // its lost callback: ask it now, so the next context never gets a dead one.
            let handles = &setup.devices[at].1;
            let lost = lock(&handles.lost).is_some();
            if !lost && !refuses_work(&handles.device) {
                return Ok(handles.clone());
            }
            setup.devices.remove(at);
        }
    }
    // Native wgpu creates the device before this future is first polled: blocking on it
    // under the lock costs nothing and keeps device creation on one thread at a time.
    let (device, queue) =
        crate::runtime::native::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("gpuprim"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| Error::RequestDevice {
            adapter: key.adapter.name.clone(),
            message: e.to_string(),
        })?;
    let lost = Arc::new(Mutex::new(None));
    install_callbacks(&device, &lost);
    let handles = DeviceHandles {
        device,
        queue,
        lost,
    };
    if !dedicated {
        setup.devices.push((key, handles.clone()));
    }
    Ok(handles)
}

/// Takes `device` out of the shared registry (it is lost or destroyed): the next context
/// gets a new device.
pub(crate) fn forget(device: &wgpu::Device) {
    lock(&SETUP).devices.retain(|(_, h)| h.device != *device);
}

/// Whether `device` refuses new work: a 4-byte buffer mapped at creation cannot be read.
/// On a live device that works, or fails with an error its scope catches (out of
/// memory); a lost or destroyed device reports nothing (wgpu leaves loss errors to the
/// lost callback) and hands back an invalid buffer. Known at once after
/// [`wgpu::Device::destroy`], before any callback has run.
pub(crate) fn refuses_work(device: &wgpu::Device) -> bool {
    let _inside = crate::runtime::driver::enter();
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
        crate::runtime::native::block_on(internal.pop()),
        crate::runtime::native::block_on(validation.pop()),
        crate::runtime::native::block_on(oom.pop()),
    ];
    unreadable && reported.iter().all(Option::is_none)
}

/// On a device gpuprim made: every error gpuprim can foresee is caught in an error scope
/// and returned; an error that still gets out is printed instead of panicking the
/// process. Once the device is lost, errors about the objects it left invalid are
/// expected (from your own wgpu calls too): calls return `DeviceLost`, nothing is printed.
pub(crate) fn install_callbacks(device: &wgpu::Device, lost: &Arc<Mutex<Option<String>>>) {
    let lost_quiet = Arc::clone(lost);
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        if lost_quiet
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_none()
        {
            eprintln!("gpuprim: uncaptured wgpu error (a gpuprim bug): {e}");
        }
    }));
    let lost_cb = Arc::clone(lost);
    device.set_device_lost_callback(move |reason, message| {
        let mut l = lost_cb.lock().unwrap_or_else(|p| p.into_inner());
        l.get_or_insert_with(|| format!("{reason:?}: {message}"));
    });
}

/// Every adapter on `backends` with compute shaders: the primary APIs (Vulkan, Metal,
/// DX12) first, and GL only when they offer no GPU (slower to probe, no subgroups; a
/// GPU that only GL drives still beats a software Vulkan device, see [`adapter_rank`]).
///
/// Mesa's software Vulkan device (lavapipe) and its GL device (llvmpipe) are the same
/// rasterizer; lavapipe has subgroups, f16 and f64, so where both exist the rank picks
/// lavapipe, and GL only where no Vulkan driver is installed (or `WGPU_BACKEND=gl`).
pub(crate) fn find_adapters(
    backends: wgpu::Backends,
    memory_budget: Option<u8>,
) -> Vec<wgpu::Adapter> {
    let descriptor = |backends| {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        desc.backends = backends;
        desc.memory_budget_thresholds.for_resource_creation = memory_budget;
        desc
    };
    // Inside the door: a GL instance loads and unloads Mesa's GL driver, which must not
    // happen while the process exits.
    let _inside = crate::runtime::driver::enter();
    let primary = backends & wgpu::Backends::PRIMARY;
    let mut adapters = Vec::new();
    if !primary.is_empty() {
        adapters = primary_adapters(descriptor(primary));
    }
    let others = backends - primary;
    let has_gpu = adapters
        .iter()
        .any(|a| a.get_info().device_type != wgpu::DeviceType::Cpu);
    let key = (others, memory_budget);
    // Probed once where a primary adapter exists (see `GL_ONLY_CPU`).
    let known_cpu_only = !adapters.is_empty() && lock(&GL_ONLY_CPU).contains(&key);
    if !others.is_empty() && !has_gpu && !known_cpu_only {
        // GL instances are not shared: the adapters of one GL instance share its EGL
        // context, which two threads using it at once make current together (EGL's
        // BadAccess, a panic in wgpu-hal). GL has none of the teardown trouble that
        // sharing avoids (see the module's notes).
        let more = crate::runtime::native::block_on(
            new_instance(descriptor(others)).enumerate_adapters(others),
        );
        crate::runtime::driver::close_at_exit();
        if !adapters.is_empty()
            && more
                .iter()
                .all(|a| a.get_info().device_type == wgpu::DeviceType::Cpu)
        {
            lock(&GL_ONLY_CPU).push(key);
        }
        adapters.extend(more);
    }
    adapters
}

/// The GL backends (with their memory budget) found to offer software adapters only.
/// Where a primary backend offers an adapter too, the primary one always ranks higher
/// ([`adapter_rank`]), so GL is probed once, not on every context: each probe made a
/// GL instance, which loaded Mesa's GL driver and unloaded it again when the instance
/// was dropped, on every `Ctx::new` of a machine whose only Vulkan device is lavapipe
/// (slow, and a process exiting during one crashed in the driver's unload).
static GL_ONLY_CPU: Mutex<Vec<InstanceKey>> = Mutex::new(Vec::new());

/// The adapters of the process's instance for `desc`'s backends and memory budget: the
/// instance is made and its adapters enumerated once, then kept, never destroyed (see the
/// module's notes). On Linux and FreeBSD, when no Wayland display can be
/// reached, its Vulkan backend is made without the `VK_KHR_wayland_surface` extension:
/// with it, Mesa's device-selection layer asks libwayland for a display while listing
/// devices, and libwayland prints `error: XDG_RUNTIME_DIR is invalid or not set in the
/// environment.` on a machine without a desktop session (twice, on every `Ctx::new`).
/// gpuprim makes no surfaces, and no Wayland surface can be made without a display.
fn primary_adapters(desc: wgpu::InstanceDescriptor) -> Vec<wgpu::Adapter> {
    let key = (
        desc.backends,
        desc.memory_budget_thresholds.for_resource_creation,
    );
    let mut setup = lock(&SETUP);
    if let Some((_, _, adapters)) = setup.instances.iter().find(|(k, _, _)| *k == key) {
        return adapters.clone();
    }
    let backends = desc.backends;
    let instance = new_instance(desc);
    let adapters = crate::runtime::native::block_on(instance.enumerate_adapters(backends));
    // The drivers are loaded now: gpuprim's exit handler, registered after theirs, runs
    // before them (see `driver`).
    crate::runtime::driver::close_at_exit();
    setup.instances.push((key, instance, adapters.clone()));
    adapters
}

/// A wgpu instance as gpuprim makes its own: [`wgpu::Instance::new`], except that on
/// Linux and FreeBSD, when no Wayland display can be reached, the Vulkan backend is made
/// without the `VK_KHR_wayland_surface` extension. With it, Mesa's device-selection
/// layer asks libwayland for a display while listing devices, and libwayland prints
/// `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` on every machine
/// without a desktop session (a GPU server, CI). For programs that make no window
/// surfaces, such as a compute runtime handed a device (Burn's, in
/// `integrations/burn`): on such an instance making a Wayland surface is an error, and
/// everything else is as `wgpu::Instance::new` makes it.
///
/// gpuprim's contexts use instances of their own ([`Ctx::new`](crate::Ctx::new)); this
/// is for a program that needs its own instance, for example to share one device with
/// another library through [`Ctx::from_wgpu`](crate::Ctx::from_wgpu).
///
/// ```
/// let instance = gpuprim::new_instance(gpuprim::wgpu::InstanceDescriptor::new_without_display_handle_from_env());
/// let adapters = pollster::block_on(instance.enumerate_adapters(gpuprim::wgpu::Backends::all()));
/// assert!(!adapters.is_empty(), "the tests run where wgpu finds an adapter");
/// ```
pub fn new_instance(desc: wgpu::InstanceDescriptor) -> wgpu::Instance {
    #[cfg(any(target_os = "linux", target_os = "freebsd"))]
    if desc.backends.contains(wgpu::Backends::VULKAN) && !wayland_reachable() {
        if let Some(instance) = vulkan_without_wayland(&desc) {
            return instance;
        }
    }
    wgpu::Instance::new(desc)
}

/// Whether libwayland could find a display (its own rules in `wl_display_connect`): a
/// socket passed in `WAYLAND_SOCKET`, or a display path that is absolute or under an
/// absolute `XDG_RUNTIME_DIR`. Where this is false libwayland prints its error.
#[cfg(any(target_os = "linux", target_os = "freebsd"))]
fn wayland_reachable() -> bool {
    let absolute =
        |var| std::env::var_os(var).is_some_and(|v| v.as_encoded_bytes().starts_with(b"/"));
    std::env::var_os("WAYLAND_SOCKET").is_some()
        || absolute("WAYLAND_DISPLAY")
        || absolute("XDG_RUNTIME_DIR")
}

/// The Vulkan backend alone, made through wgpu-hal as wgpu would make it, less the
/// Wayland surface extension; `None` if Vulkan cannot be loaded (the caller then lets
/// wgpu try, and report, as usual).
#[cfg(any(target_os = "linux", target_os = "freebsd"))]
fn vulkan_without_wayland(desc: &wgpu::InstanceDescriptor) -> Option<wgpu::Instance> {
    use wgpu::hal;
    let hal_desc = hal::InstanceDescriptor {
        name: "wgpu",
        flags: desc.flags,
        memory_budget_thresholds: desc.memory_budget_thresholds,
        backend_options: desc.backend_options.clone(),
        telemetry: None,
        display: None,
    };
    let without_wayland: Box<hal::vulkan::CreateInstanceCallback<'_>> = Box::new(|args| {
        args.extensions
            .retain(|&name| name != c"VK_KHR_wayland_surface");
    });
    // SAFETY: `init_with_callback` is `Instance::init` (what `wgpu::Instance::new` calls)
    // plus the callback. Its contract asks callbacks not to remove extensions, because
    // wgpu-hal may assume an available extension is enabled. For this one it does not:
    // its only use, `create_surface_from_wayland`, checks the instance's enabled list
    // (which is the list after the callback) and returns an error when it is missing
    // (wgpu-hal 30.0.1, vulkan/instance.rs): a Wayland surface asked of this instance
    // is an error, not undefined behaviour (`new_instance` hands it out saying so).
    // `from_hal` takes a valid, usable instance of the Vulkan backend, which
    // `init_with_callback` returns.
    let hal_instance =
        unsafe { hal::vulkan::Instance::init_with_callback(&hal_desc, Some(without_wayland)) }
            .ok()?;
    Some(unsafe { wgpu::Instance::from_hal::<hal::api::Vulkan>(hal_instance) })
}

/// Higher is better: the preferred device type first, then a native API over GL.
pub(crate) fn adapter_rank(info: &wgpu::AdapterInfo, power: wgpu::PowerPreference) -> (u8, u8) {
    use wgpu::DeviceType::*;
    let ty = match (info.device_type, power) {
        (DiscreteGpu, wgpu::PowerPreference::LowPower) => 3,
        (IntegratedGpu, wgpu::PowerPreference::LowPower) => 4,
        (DiscreteGpu, _) => 4,
        (IntegratedGpu, _) => 3,
        (VirtualGpu, _) => 2,
        (Other, _) => 1,
        (Cpu, _) => 0,
    };
    let api = match info.backend {
        wgpu::Backend::Gl | wgpu::Backend::Noop => 0,
        _ => 1,
    };
    (ty, api)
}
