//! Throughput of prefix scans and stream compaction, swept over sizes.
//!
//! `cargo bench --bench scan`. Scans count the bytes every algorithm must move, read n +
//! write n (reduce-then-scan reads the input twice, so its figure is below the bytes it
//! really moves); compaction counts read n + write the kept elements (50% here). Scan
//! iterations use the device-resident form and wait for the GPU; compaction is blocking
//! (it reads the count back), so it includes that round trip.

mod common;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gpuprim::{Ctx, Scan, ScanAlgorithm, ScanOp};

/// `n` values in [0, 1) from a multiplicative hash: about half are above 0.5, in no
/// pattern a kernel could exploit.
fn values(n: usize) -> Vec<f32> {
    (0..n as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 8) as f32 / (1 << 24) as f32)
        .collect()
}

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    let algorithms = [
        ("scan_f32_reduce_then_scan", ScanAlgorithm::ReduceThenScan),
        ("scan_f32_single_pass", ScanAlgorithm::SinglePass),
    ];
    for (name, algorithm) in algorithms {
        let scan = Scan::inclusive(ScanOp::Sum).algorithm(algorithm);
        let mut group = c.benchmark_group(name);
        for n in common::sizes(&ctx) {
            let v = ctx.upload(&values(n)).unwrap();
            let mut out = ctx.zeros::<f32>(n).unwrap();
            group.throughput(Throughput::Bytes((8 * n) as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| {
                    ctx.scan_with_into(&v, &scan, &mut out).unwrap();
                    ctx.synchronize().unwrap();
                })
            });
        }
        group.finish();
    }

    let mut group = c.benchmark_group("compact_f32_50pct");
    for n in common::sizes(&ctx) {
        let host = values(n);
        let kept = host.iter().filter(|&&x| x > 0.5).count();
        let v = ctx.upload(&host).unwrap();
        group.throughput(Throughput::Bytes((4 * (n + kept)) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| ctx.compact(&v, "x > 0.5").unwrap())
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
