//! Throughput of map and zip: bytes read + written per second, swept over sizes.
//!
//! `cargo bench --bench map`. Each iteration submits the kernel and waits for the GPU,
//! so the time includes one submit + wait; see `examples/bandwidth` for GPU-only
//! figures at large sizes.

mod common;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gpuprim::Ctx;

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    let mut group = c.benchmark_group("map");
    for n in common::sizes(&ctx) {
        let a = ctx.upload(&vec![1.5f32; n]).unwrap();
        let mut out = ctx.zeros::<f32>(n).unwrap();
        group.throughput(Throughput::Bytes((8 * n) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                ctx.map_into(&a, "x * 2.0 + 1.0", &mut out).unwrap();
                ctx.synchronize().unwrap();
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("zip");
    for n in common::sizes(&ctx) {
        let a = ctx.upload(&vec![1.5f32; n]).unwrap();
        let b = ctx.upload(&vec![2.5f32; n]).unwrap();
        let mut out = ctx.zeros::<f32>(n).unwrap();
        group.throughput(Throughput::Bytes((12 * n) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |bch, _| {
            bch.iter(|| {
                ctx.zip_into(&a, &b, "a + b", &mut out).unwrap();
                ctx.synchronize().unwrap();
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
