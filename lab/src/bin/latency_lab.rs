//! Where a blocking call's round trip goes: medians of the host round trips the
//! bandwidth table's latency section prints; the same round trip through wgpu alone
//! (`raw_floor`: no gpuprim code in the path, one row per thing gpuprim adds); the GPU
//! time of the blocking reduce; then a sampling profile (pprof, SIGPROF) of many
//! blocking `ctx.reduce` calls, printed as the functions that appear most often in the
//! samples' stacks (inclusive) and at their tops (self).
//!
//! `cargo run --release -p gpuprim-lab --features profile --bin latency_lab -- [log2 n]
//! [calls]` (defaults 10 and 20000).

use std::collections::HashMap;
use std::time::Instant;

use gpuprim::{Ctx, Result};

fn median_us(reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    for _ in 0..50 {
        f()?;
    }
    let mut us = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t0 = Instant::now();
        f()?;
        us.push(t0.elapsed().as_secs_f64() * 1e6);
    }
    us.sort_by(f64::total_cmp);
    Ok(us[us.len() / 2])
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let log2: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let calls: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let ctx = Ctx::new()?;
    println!("adapter: {}", ctx.info().name);
    // A GPU that has idled clocks down and takes its time to answer: keep it busy for a
    // second first, as a program in the middle of its work would (peers.py measures
    // PyTorch after its table, the bandwidth table after its rows).
    let big = ctx.zeros::<f32>(1 << 24)?;
    let mut big_out = ctx.zeros::<f32>(1 << 24)?;
    let warm = Instant::now();
    while warm.elapsed().as_millis() < 1000 {
        ctx.map_into(&big, "x + 1.0", &mut big_out)?;
        ctx.synchronize()?;
    }
    drop((big, big_out));
    let n = 1usize << log2;
    let v = ctx.upload(&vec![1.0f32; n])?;
    let one = ctx.zeros::<f32>(1)?;
    let mut out = ctx.zeros::<f32>(n)?;
    let mut sum = ctx.zeros::<f32>(1)?;
    for (name, us) in [
        (
            "reduce (blocking)",
            median_us(2000, || ctx.reduce(&v).map(drop))?,
        ),
        ("synchronize, idle", median_us(2000, || ctx.synchronize())?),
        (
            "map_into + synchronize",
            median_us(2000, || {
                ctx.map_into(&v, "x", &mut out)?;
                ctx.synchronize()
            })?,
        ),
        (
            "to_vec of 1 f32",
            median_us(2000, || one.to_vec().map(drop))?,
        ),
        (
            "reduce_into, no wait (host)",
            median_us(2000, || ctx.reduce_into(&v, &mut sum))?,
        ),
    ] {
        println!("latency n=2^{log2} {name:32} {us:8.1} us");
    }
    ctx.synchronize()?;
    raw_floor(&ctx, n)?;
    {
        // The GPU's own time for the blocking reduce (timestamps around its passes).
        let prof = Ctx::builder().profiling(true).build()?;
        let v = prof.upload(&vec![1.0f32; n])?;
        for _ in 0..300 {
            prof.reduce(&v)?;
        }
        let mut ms: Vec<f64> = prof
            .profile()?
            .calls
            .iter()
            .filter_map(|c| c.gpu_ms)
            .collect();
        ms.sort_by(f64::total_cmp);
        if !ms.is_empty() {
            println!(
                "latency n=2^{log2} reduce GPU time (timestamps) median {:.1} us of {} calls",
                ms[ms.len() / 2] * 1e3,
                ms.len()
            );
        }
    }

    let guard = pprof::ProfilerGuardBuilder::default()
        .frequency(4000)
        .build()
        .expect("the profiler starts");
    let t0 = Instant::now();
    for _ in 0..calls {
        ctx.reduce(&v)?;
    }
    let seconds = t0.elapsed().as_secs_f64();
    let report = guard.report().build().expect("a report");
    println!(
        "profiled {calls} blocking reduces of 2^{log2}: {:.1} us each",
        seconds / calls as f64 * 1e6
    );
    let mut inclusive: HashMap<String, isize> = HashMap::new();
    let mut own: HashMap<String, isize> = HashMap::new();
    let mut total = 0;
    for (frames, count) in &report.data {
        total += count;
        let names: Vec<String> = frames
            .frames
            .iter()
            .map(|f| f.first().map_or("?".to_string(), |s| short(&s.name())))
            .collect();
        if let Some(top) = names.first() {
            *own.entry(top.clone()).or_default() += count;
        }
        let mut seen = std::collections::HashSet::new();
        for name in names {
            if seen.insert(name.clone()) {
                *inclusive.entry(name).or_default() += count;
            }
        }
    }
    for (title, map) in [("inclusive", inclusive), ("self", own)] {
        let mut rows: Vec<_> = map.into_iter().collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.1));
        println!("-- {title} samples of {total}");
        for (name, count) in rows.into_iter().take(45) {
            println!("{:6.1}% {name}", 100.0 * count as f64 / total as f64);
        }
    }
    Ok(())
}

/// The floor under a blocking round trip through wgpu itself: one hand-written
/// reduction kernel (one workgroup) writing its sum into a mappable buffer, submitted,
/// mapped and waited for by polling, with gpuprim nowhere in the path. Each mode adds
/// one thing gpuprim does per call, so the rows show what each costs; the `split` row
/// is the kept-bind-group mode's host time (encode + submit + map_async) and its wait.
fn raw_floor(ctx: &Ctx, n: usize) -> Result<()> {
    use gpuprim::wgpu;
    use wgpu::util::DeviceExt;
    let device: wgpu::Device = (*ctx.device()).clone();
    let queue: wgpu::Queue = (*ctx.queue()).clone();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("raw sum"),
        source: wgpu::ShaderSource::Wgsl(
            r#"
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
var<workgroup> part: array<f32, 256>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) i: u32) {
    var acc = 0.0;
    for (var j = i; j < arrayLength(&x); j += 256u) { acc += x[j]; }
    part[i] = acc;
    workgroupBarrier();
    for (var k = 128u; k > 0u; k >>= 1u) {
        if i < k { part[i] += part[i + k]; }
        workgroupBarrier();
    }
    if i == 0u { out[0] = part[0]; }
}

@compute @workgroup_size(1)
fn one() {
    out[0] = 1.0;
}
"#
            .into(),
        ),
    });
    let pipeline_of = |entry: &str| {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let pipeline = pipeline_of("main");
    let trivial = pipeline_of("one");
    let data: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let expect = data.iter().map(|&x| f64::from(x)).sum::<f64>() as f32;
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("raw input"),
        contents: bytemuck::cast_slice(&data),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let mappable = device
        .features()
        .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("raw out"),
        size: 4,
        usage: if mappable {
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::MAP_READ
        } else {
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC
        },
        mapped_at_creation: false,
    });
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("raw staging"),
        size: 4,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let read = if mappable { &out } else { &staging };
    let layout = pipeline.get_bind_group_layout(0);
    let make_group = || {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("raw sum"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: input.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: out.as_entire_binding(),
                },
            ],
        })
    };
    let kept = make_group();
    let trivial_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("raw one"),
        layout: &trivial.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 1,
            resource: out.as_entire_binding(),
        }],
    });
    // mode: 0 kept bind group, 1 new bind group, 2 new + three error scopes,
    // 3 kept + blocking wait, 4 no dispatch (map only), 5 a one-invocation kernel that
    // writes 1.0.
    let mut host = Vec::new();
    let mut wait = Vec::new();
    let mut call = |mode: u32, split: bool| -> f32 {
        let t0 = Instant::now();
        let scopes = (mode == 2).then(|| {
            (
                device.push_error_scope(wgpu::ErrorFilter::OutOfMemory),
                device.push_error_scope(wgpu::ErrorFilter::Validation),
                device.push_error_scope(wgpu::ErrorFilter::Internal),
            )
        });
        let fresh = (mode == 1 || mode == 2).then(make_group);
        let mut enc = device.create_command_encoder(&Default::default());
        if mode == 5 {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&trivial);
            pass.set_bind_group(0, &trivial_group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        } else if mode != 4 {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, fresh.as_ref().unwrap_or(&kept), &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        if !mappable {
            enc.copy_buffer_to_buffer(&out, 0, &staging, 0, 4);
        }
        queue.submit([enc.finish()]);
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = std::sync::Arc::clone(&done);
        read.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            r.expect("the raw map");
            flag.store(true, std::sync::atomic::Ordering::Release);
        });
        if let Some((a, b, c)) = scopes {
            assert!(pollster::block_on(c.pop()).is_none());
            assert!(pollster::block_on(b.pop()).is_none());
            assert!(pollster::block_on(a.pop()).is_none());
        }
        let t1 = Instant::now();
        if mode == 3 {
            device
                .poll(wgpu::PollType::wait_indefinitely())
                .expect("the raw wait");
        }
        while !done.load(std::sync::atomic::Ordering::Acquire) {
            device.poll(wgpu::PollType::Poll).expect("the raw poll");
        }
        let t2 = Instant::now();
        let v: f32 = bytemuck::pod_read_unaligned(
            &read.slice(..).get_mapped_range().expect("the raw range")[..4],
        );
        read.unmap();
        if split {
            host.push((t1 - t0).as_secs_f64() * 1e6);
            wait.push((t2 - t1).as_secs_f64() * 1e6);
        }
        v
    };
    for (mode, name) in [
        (0, "raw wgpu, kept bind group"),
        (1, "raw wgpu, new bind group"),
        (2, "raw wgpu, new bind group + scopes"),
        (3, "raw wgpu, kept, blocking wait"),
        (4, "raw wgpu, map only, no dispatch"),
        (5, "raw wgpu, one-invocation kernel"),
    ] {
        let us = median_us(2000, || {
            let v = call(mode, false);
            // (The CPU's sum is sequential, the kernel's a tree: equal up to rounding.)
            let right = match mode {
                4 => true,
                5 => v == 1.0,
                _ => (v - expect).abs() <= 1e-6 * expect.abs() * (n as f32).log2(),
            };
            assert!(right, "raw sum {v} against {expect}");
            Ok(())
        })?;
        println!("latency n=2^{} {name:32} {us:8.1} us", n.trailing_zeros());
    }
    for _ in 0..2000 {
        call(0, true);
    }
    host.sort_by(f64::total_cmp);
    wait.sort_by(f64::total_cmp);
    println!(
        "latency n=2^{} raw split: host (encode, submit, map_async) {:.1} us, wait {:.1} us (medians)",
        n.trailing_zeros(),
        host[host.len() / 2],
        wait[wait.len() / 2]
    );
    Ok(())
}

/// A demangled name without its hash and generic noise, cut to 110 characters.
fn short(name: &str) -> String {
    let name = name.split("::h").next().unwrap_or(name);
    name.chars().take(110).collect()
}
