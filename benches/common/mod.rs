//! Shared by the benchmarks.

use gpuprim::Ctx;

/// Sizes to sweep: the software adapter moves a few GB/s, so it stops at 2^20.
#[allow(dead_code)]
pub fn sizes(ctx: &Ctx) -> Vec<usize> {
    if ctx.info().device_type == gpuprim::wgpu::DeviceType::Cpu {
        vec![1 << 12, 1 << 16, 1 << 20]
    } else {
        vec![1 << 12, 1 << 16, 1 << 20, 1 << 24, 1 << 26]
    }
}

/// Square image sides for the 2D kernels: up to 1024 on the software adapter, 8192 on a GPU.
#[allow(dead_code)]
pub fn sides2d(ctx: &Ctx) -> Vec<u32> {
    if ctx.info().device_type == gpuprim::wgpu::DeviceType::Cpu {
        vec![256, 1024]
    } else {
        vec![256, 1024, 4096, 8192]
    }
}

/// The Criterion settings every bench uses: 20 samples, 0.5 s warm-up, 2 s of measuring.
#[allow(dead_code)]
pub fn config() -> criterion::Criterion {
    criterion::Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2))
}

/// One benchmark group `name` over [`sizes`]: `setup(n)` makes the inputs and says how
/// many bytes one call moves; `run` is what is timed (end it with the wait, e.g.
/// `ctx.synchronize()`, so the GPU work is inside the time).
#[allow(dead_code)]
pub fn sweep<S>(
    c: &mut criterion::Criterion,
    ctx: &Ctx,
    name: &str,
    mut setup: impl FnMut(usize) -> (S, usize),
    mut run: impl FnMut(&mut S),
) {
    let mut group = c.benchmark_group(name);
    for n in sizes(ctx) {
        let (mut inputs, bytes) = setup(n);
        group.throughput(criterion::Throughput::Bytes(bytes as u64));
        group.bench_with_input(criterion::BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| run(&mut inputs))
        });
    }
    group.finish();
}
