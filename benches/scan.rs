//! Throughput of prefix scans and stream compaction, swept over sizes.
//!
//! `cargo bench --bench scan`. Scans count the bytes every algorithm must move, read n +
//! write n (reduce-then-scan reads the input twice, so its figure is below the bytes it
//! really moves); compaction counts read n + write the kept elements (50% here). Scan
//! iterations use the device-resident form and wait for the GPU; compaction is blocking
//! (it reads the count back), so it includes that round trip. Partition (also blocking)
//! counts read n + write n.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
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
        common::sweep(
            c,
            &ctx,
            name,
            |n| {
                (
                    (
                        ctx.upload(&values(n)).unwrap(),
                        ctx.zeros::<f32>(n).unwrap(),
                    ),
                    8 * n,
                )
            },
            |(v, out)| {
                ctx.scan_with_into(v, &scan, out).unwrap();
                ctx.synchronize().unwrap();
            },
        );
    }
    common::sweep(
        c,
        &ctx,
        "compact_f32_50pct",
        |n| {
            let host = values(n);
            let kept = host.iter().filter(|&&x| x > 0.5).count();
            (ctx.upload(&host).unwrap(), 4 * (n + kept))
        },
        |v| {
            ctx.compact(v, "x > 0.5").unwrap();
        },
    );
    common::sweep(
        c,
        &ctx,
        "partition_f32_50pct",
        |n| (ctx.upload(&values(n)).unwrap(), 8 * n),
        |v| {
            ctx.partition(v, "x > 0.5").unwrap();
        },
    );
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}
criterion_main!(benches);
