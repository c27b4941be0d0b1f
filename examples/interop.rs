//! gpuprim inside an application's own wgpu program, checked against the CPU.
//!
//! The application makes its own device (WebGPU's default limits, no optional
//! features) and one buffer holding its particles: `n` heights, then `n` vertical
//! velocities at the next aligned offset, with guard words after each array that belong
//! to it (other fields of its own). Every frame it records, into one encoder of its own:
//!
//! 1. its own compute pass: gravity, `v -= g * dt` (a pipeline of its own);
//! 2. gpuprim, through `Ctx::record`: `x += v * dt` (`elementwise`, over two views of the
//!    one buffer), the particles still above the ground compacted (`compact_into`, whose
//!    count stays on the device) and their mean height summed over that count
//!    (`reduce_into` over a `GpuVec::prefix` view: no read-back in between);
//! 3. its own copy of the frame's sum and count into a buffer of its own.
//!
//! It then submits the encoder itself. After the frames it reads everything through its
//! own staging buffer and compares every height, velocity, guard word, sum and count with
//! the same simulation on the CPU; it exits non-zero on any difference.
//!
//! `cargo run --release --example interop` (runs on the software adapter too).

use gpuprim::wgpu;
use gpuprim::{Ctx, GpuVec, Result};

const N: usize = 10_001;
const FRAMES: usize = 8;
const DT: f32 = 0.125;
const G: f32 = 9.75;

/// The application's own kernel: gravity on the velocities (at binding 0, n of them).
const GRAVITY_WGSL: &str = "
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&v) {
        v[id.x] = v[id.x] - 9.75 * 0.125;
    }
}";

fn main() -> Result<()> {
    // --- the application's own device, buffer and pipeline ---------------------------
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .expect("an adapter");
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default()))
        .expect("a device with default limits");
    println!("adapter: {}", adapter.get_info().name);

    let align = device.limits().min_storage_buffer_offset_alignment as usize / 4;
    let v_at = (N + 3).next_multiple_of(align); // words: heights, 3 guard words, then v
    let words = v_at + N + 5;
    let mut host = vec![0u32; words];
    let mut x0 = Vec::with_capacity(N);
    let mut v0 = Vec::with_capacity(N);
    for i in 0..N {
        let h = (i % 97) as f32 * 0.5 + 1.0;
        let v = (i % 13) as f32 - 4.0;
        x0.push(h);
        v0.push(v);
        host[i] = h.to_bits();
        host[v_at + i] = v.to_bits();
    }
    for (k, w) in host.iter_mut().enumerate() {
        if (N..v_at).contains(&k) || k >= v_at + N {
            *w = 0xC0FF_EE00 | k as u32 & 0xff; // fields of the application's own
        }
    }
    let particles = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("particles"),
        size: 4 * words as u64,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&particles, 0, bytemuck::cast_slice(&host));
    let stats = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("per-frame sum and count"),
        size: 8 * FRAMES as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("gravity"),
        source: wgpu::ShaderSource::Wgsl(GRAVITY_WGSL.into()),
    });
    let gravity = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("gravity"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let gravity_bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("gravity"),
        layout: &gravity.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &particles,
                offset: 4 * v_at as u64,
                size: wgpu::BufferSize::new(4 * N as u64),
            }),
        }],
    });

    // --- gpuprim on the same device, over the same buffer ------------------------------
    let ctx = Ctx::from_wgpu(device.clone(), queue.clone())?;
    let mut x = GpuVec::<f32>::from_buffer_at(&ctx, particles.clone(), 0, N)?;
    let v = GpuVec::<f32>::from_buffer_at(&ctx, particles.clone(), 4 * v_at as u64, N)?;
    let mut kept = ctx.zeros::<f32>(N)?;
    let mut count = ctx.zeros::<u32>(1)?;
    let mut sum = ctx.zeros::<f32>(1)?;

    for frame in 0..FRAMES {
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&gravity);
            pass.set_bind_group(0, &gravity_bind, &[]);
            pass.dispatch_workgroups(N.div_ceil(64) as u32, 1, 1);
        }
        ctx.record(&mut encoder, |ctx| {
            ctx.elementwise("x = x + v * dt;")
                .read_write("x", &mut x)
                .read("v", &v)
                .scalar("dt", DT)
                .run()?;
            ctx.compact_into(&x, "x > 0.0", &mut kept, &mut count)?;
            ctx.reduce_into(&kept.prefix(&count)?, &mut sum)
        })?;
        let at = 8 * frame as u64;
        encoder.copy_buffer_to_buffer(sum.buffer(), 0, &stats, at, 4);
        encoder.copy_buffer_to_buffer(count.buffer(), 0, &stats, at + 4, 4);
        queue.submit([encoder.finish()]);
    }

    // --- read back through the application's own staging buffer ------------------------
    let read = |buffer: &wgpu::Buffer| -> Vec<u32> {
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("staging"),
            size: buffer.size(),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
        queue.submit([enc.finish()]);
        staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        bytemuck::cast_slice::<u8, u32>(&staging.slice(..).get_mapped_range().unwrap()).to_vec()
    };
    let got = read(&particles);
    let got_stats = read(&stats);

    // --- the same on the CPU -------------------------------------------------------------
    let (mut cx, mut cv) = (x0, v0);
    let mut failures = 0;
    for frame in 0..FRAMES {
        for i in 0..N {
            cv[i] -= G * DT;
            cx[i] += cv[i] * DT;
        }
        let above: Vec<f32> = cx.iter().copied().filter(|&h| h > 0.0).collect();
        let exact: f64 = above.iter().map(|&h| h as f64).sum();
        let abs: f64 = above.iter().map(|&h| (h as f64).abs()).sum();
        let gpu_sum = f32::from_bits(got_stats[2 * frame]) as f64;
        let gpu_count = got_stats[2 * frame + 1] as usize;
        // The sum's order is the GPU's: the f32 sum's bound (see `gpuprim::Reduce`).
        let ok = gpu_count == above.len() && (gpu_sum - exact).abs() <= 1e-5 * abs + 1e-6;
        println!(
            "frame {frame}: {gpu_count} particles above ground (CPU {}), height sum {gpu_sum:.3} (CPU {exact:.3}){}",
            above.len(),
            if ok { "" } else { "  MISMATCH" }
        );
        failures += usize::from(!ok);
    }
    for i in 0..N {
        // One multiply-add per frame: the GPU may fuse it (one rounding fewer).
        let (gx, gv) = (f32::from_bits(got[i]), f32::from_bits(got[v_at + i]));
        if gv != cv[i] || (gx - cx[i]).abs() > 1e-5 * cx[i].abs().max(1.0) {
            failures += 1;
            if failures < 5 {
                println!("particle {i}: GPU ({gx}, {gv}), CPU ({}, {})", cx[i], cv[i]);
            }
        }
    }
    for (k, (&g, &h)) in got.iter().zip(&host).enumerate() {
        if ((N..v_at).contains(&k) || k >= v_at + N) && g != h {
            failures += 1;
            println!("guard word {k} changed: {g:#x}, was {h:#x}");
        }
    }
    if failures > 0 {
        eprintln!("interop: {failures} differences from the CPU");
        std::process::exit(1);
    }
    println!("interop: ok ({N} particles, {FRAMES} frames, every value and guard word checked)");
    Ok(())
}
