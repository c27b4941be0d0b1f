//! Throughput of the random fills: bytes written per second (stateful: plus the state
//! read and written), swept over sizes.
//!
//! `cargo bench --bench random`. Each iteration submits the fill and waits for the GPU.

mod common;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gpuprim::{Ctx, Rng};

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    for (name, rng) in [
        ("fill_random/wang_hash", Rng::WangHash { seed: 1 }),
        ("fill_random/xorshift32", Rng::Xorshift32 { seed: 1 }),
        ("fill_random/pcg32", Rng::Pcg32 { seed: 1 }),
    ] {
        let mut group = c.benchmark_group(name);
        for n in common::sizes(&ctx) {
            let mut v = ctx.zeros::<f32>(n).unwrap();
            group.throughput(Throughput::Bytes((4 * n) as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| {
                    ctx.fill_random(&mut v, rng).unwrap();
                    ctx.synchronize().unwrap();
                })
            });
        }
        group.finish();
    }

    let mut group = c.benchmark_group("fill_normal/pcg32");
    for n in common::sizes(&ctx) {
        let mut v = ctx.zeros::<f32>(n).unwrap();
        group.throughput(Throughput::Bytes((4 * n) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                ctx.fill_normal(&mut v, Rng::Pcg32 { seed: 1 }, 0.0, 1.0)
                    .unwrap();
                ctx.synchronize().unwrap();
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("fill_random_stateful/xorshift128");
    for n in common::sizes(&ctx) {
        let mut v = ctx.zeros::<f32>(n).unwrap();
        let mut state = ctx.xorshift128_state(n, 1).unwrap();
        // 4 bytes written, 16 bytes of state read and written per element
        group.throughput(Throughput::Bytes((36 * n) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                ctx.fill_random_stateful(&mut v, &mut state).unwrap();
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
