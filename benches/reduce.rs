//! Throughput of reductions and dot: input bytes per second, swept over sizes.
//!
//! `cargo bench --bench reduce`. Iterations use the device-resident forms and wait for
//! the GPU; `examples/bandwidth` has the GPU-only table at 2^28.

mod common;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gpuprim::{Ctx, Reduce};

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    let ops: [(&str, Reduce<f32>); 3] = [
        ("sum_f32", Reduce::Sum),
        ("max_f32", Reduce::Max),
        ("sum_compensated_f32", Reduce::SumCompensated),
    ];
    for (name, op) in ops {
        let mut group = c.benchmark_group(name);
        for n in common::sizes(&ctx) {
            let v = ctx.upload(&vec![0.5f32; n]).unwrap();
            let mut out = ctx.zeros::<f32>(1).unwrap();
            group.throughput(Throughput::Bytes((4 * n) as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| {
                    ctx.reduce_with_into(&v, op.clone(), &mut out).unwrap();
                    ctx.synchronize().unwrap();
                })
            });
        }
        group.finish();
    }
    let mut group = c.benchmark_group("dot_f32");
    for n in common::sizes(&ctx) {
        let a = ctx.upload(&vec![0.5f32; n]).unwrap();
        let mut out = ctx.zeros::<f32>(1).unwrap();
        group.throughput(Throughput::Bytes((8 * n) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                ctx.dot_into(&a, &a, &mut out).unwrap();
                ctx.synchronize().unwrap();
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group("reduce_blocking_f32");
    for n in common::sizes(&ctx) {
        let v = ctx.upload(&vec![0.5f32; n]).unwrap();
        group.throughput(Throughput::Bytes((4 * n) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| ctx.reduce(&v).unwrap())
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
