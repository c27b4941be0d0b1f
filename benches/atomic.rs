//! Throughput of the atomic primitives: bytes read per second, swept over sizes.
//!
//! `cargo bench --bench atomic`. Each iteration submits the work (device-resident
//! `_into` calls) and waits for the GPU, so the time includes one submit + wait; see
//! `examples/bandwidth` for GPU-only figures at large sizes.

mod common;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gpuprim::{AtomicStrategy, Ctx};

fn strategies(ctx: &Ctx) -> Vec<AtomicStrategy> {
    let mut s = vec![AtomicStrategy::PerElement, AtomicStrategy::Hybrid];
    if ctx.has_features(gpuprim::wgpu::Features::SUBGROUP) {
        s.push(AtomicStrategy::Subgroup);
    }
    s
}

/// `n` pseudo-random u32 (xorshift), small enough that sums stay cheap to check by eye.
fn data(n: usize) -> Vec<u32> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 32) as u32
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    for strategy in strategies(&ctx) {
        let mut group = c.benchmark_group(format!("atomic_sum_u32/{strategy:?}"));
        for n in common::sizes(&ctx) {
            let v = ctx.upload(&data(n)).unwrap();
            let mut acc = ctx.zeros::<u32>(1).unwrap();
            group.throughput(Throughput::Bytes((4 * n) as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| {
                    ctx.atomic_sum_into(&v, strategy, &mut acc).unwrap();
                    ctx.synchronize().unwrap();
                })
            });
        }
        group.finish();
    }

    let mut group = c.benchmark_group("atomic_sum_f32/Hybrid");
    for n in common::sizes(&ctx) {
        let v = ctx.upload(&vec![0.5f32; n]).unwrap();
        let mut acc = ctx.zeros::<f32>(1).unwrap();
        group.throughput(Throughput::Bytes((4 * n) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                ctx.atomic_sum_into(&v, AtomicStrategy::Hybrid, &mut acc)
                    .unwrap();
                ctx.synchronize().unwrap();
            })
        });
    }
    group.finish();

    for bins in [256u32, 65536] {
        let mut group = c.benchmark_group(format!("histogram/{bins}_bins"));
        for n in common::sizes(&ctx) {
            let keys: Vec<u32> = data(n).iter().map(|k| k % bins).collect();
            let keys = ctx.upload(&keys).unwrap();
            let mut counts = ctx.zeros::<u32>(bins as usize).unwrap();
            group.throughput(Throughput::Bytes((4 * n) as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| {
                    ctx.histogram_into(&keys, bins, &mut counts).unwrap();
                    ctx.synchronize().unwrap();
                })
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
