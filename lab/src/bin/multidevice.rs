//! The smallest program that shows several wgpu devices, used at once from several
//! threads, hang or crash (wgpu 30 on NVIDIA's Vulkan driver). No gpuprim code runs:
//! each thread makes a device (or shares one), runs a small kernel `iterations` times with
//! a mapped read-back of its result, and checks it; then the process exits.
//!
//! `multidevice [threads] [iterations] [instance] [device] [lock] [end]`
//! - instance: `own` (one wgpu instance a thread) or `shared`;
//! - device: `own` (one device a thread) or `shared` (one device for every thread);
//! - lock: `none`, or `process` (every submit and poll of every device under one
//!   process-wide mutex; waits poll without blocking, then sleep);
//! - end: `drop` (each thread drops its device when done), `main` (the main thread drops
//!   them all after joining) or `keep` (devices are never dropped: the process exits with
//!   them alive).
//!
//! Exit status 0 when every result was right and the process ended by itself; a hang or a
//! crash shows as the runner's timeout or signal.

use std::sync::{Arc, Mutex};

use gpuprim::wgpu;

const SHADER: &str = r#"
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&data) {
        data[id.x] = data[id.x] * 3u + 1u;
    }
}
"#;

/// Every submit and poll of every device, when `lock` is `process`.
static PROCESS: Mutex<()> = Mutex::new(());

#[derive(Clone, Copy, PartialEq)]
enum Lock {
    None,
    Process,
}

fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = wgpu::Backends::VULKAN;
    wgpu::Instance::new(desc)
}

fn device(instance: &wgpu::Instance) -> (wgpu::Device, wgpu::Queue) {
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .expect("no Vulkan adapter");
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))
        .expect("no device")
}

/// `iterations` rounds of the kernel over 4096 words with a read-back each; panics on a
/// wrong result.
fn work(device: &wgpu::Device, queue: &wgpu::Queue, iterations: u32, lock: Lock, t: u32) {
    let n = 4096u64;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let data = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: n * 4,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: n * 4,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: data.as_entire_binding(),
        }],
    });
    let mut host: Vec<u32> = (0..n as u32).map(|i| i ^ t).collect();
    queue.write_buffer(&data, 0, bytemuck::cast_slice(&host));
    for _ in 0..iterations {
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups((n / 64) as u32, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&data, 0, &staging, 0, n * 4);
        let done = Arc::new(Mutex::new(None));
        let done_cb = Arc::clone(&done);
        {
            let _g = (lock == Lock::Process).then(|| PROCESS.lock().unwrap());
            queue.submit([encoder.finish()]);
        }
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            *done_cb.lock().unwrap() = Some(r.is_ok());
        });
        loop {
            if lock == Lock::Process {
                let status = {
                    let _g = PROCESS.lock().unwrap();
                    device.poll(wgpu::PollType::Poll)
                };
                status.expect("poll");
                if done.lock().unwrap().is_some() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_micros(50));
            } else {
                device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .expect("poll");
                if done.lock().unwrap().is_some() {
                    break;
                }
            }
        }
        assert_eq!(*done.lock().unwrap(), Some(true), "map failed");
        for x in host.iter_mut() {
            *x = x.wrapping_mul(3).wrapping_add(1);
        }
        let view = staging.slice(..).get_mapped_range().expect("mapped");
        let got: &[u32] = bytemuck::cast_slice(&view);
        assert_eq!(got, &host[..], "thread {t}: wrong result");
        drop(view);
        staging.unmap();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or(default.to_string());
    let threads: u32 = arg(0, "6").parse().expect("threads");
    let iterations: u32 = arg(1, "50").parse().expect("iterations");
    let shared_instance = arg(2, "own") == "shared";
    let shared_device = arg(3, "own") == "shared";
    let lock = if arg(4, "none") == "process" {
        Lock::Process
    } else {
        Lock::None
    };
    let end = arg(5, "drop");
    let common_instance = (shared_instance || shared_device).then(instance);
    let common_device = shared_device.then(|| device(common_instance.as_ref().unwrap()));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let common_instance = common_instance.clone();
            let common_device = common_device.clone();
            let end = end.clone();
            std::thread::spawn(move || {
                let (device, queue) = match common_device {
                    Some(d) => d,
                    None => {
                        let own;
                        let instance = match &common_instance {
                            Some(i) => i,
                            None => {
                                own = instance();
                                &own
                            }
                        };
                        device(instance)
                    }
                };
                work(&device, &queue, iterations, lock, t);
                if end == "drop" {
                    None
                } else {
                    Some((device, queue))
                }
            })
        })
        .collect();
    let mut kept = Vec::new();
    let mut failed = 0;
    for h in handles {
        match h.join() {
            Ok(d) => kept.extend(d),
            Err(_) => failed += 1,
        }
    }
    println!("{threads} threads done, {failed} failed");
    if end == "keep" {
        std::mem::forget(kept);
        std::mem::forget(common_device);
    } else {
        drop(kept);
    }
    if failed > 0 {
        std::process::exit(1);
    }
}
