//! Throughput of scans by key, swept over sizes.
//!
//! `cargo bench --bench scan_by_key`. Bytes count what every algorithm must move: read
//! the keys and the values, write the output (12 bytes an element for u32 keys and f32
//! values). Iterations use the device-resident form and wait for the GPU.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::{Ctx, Scan, ScanOp};

/// `n` keys in runs of mean length `mean` (geometric, from a multiplicative hash) and
/// `n` values in [0, 1).
fn inputs(n: usize, mean: u32) -> (Vec<u32>, Vec<f32>) {
    let hash = |i: u32, salt: u32| (i ^ salt).wrapping_mul(2_654_435_761).rotate_left(13);
    let mut key = 0u32;
    let keys = (0..n as u32)
        .map(|i| {
            if hash(i, 0x9e37_79b9) < u32::MAX / mean {
                key += 1;
            }
            key
        })
        .collect();
    let values = (0..n as u32)
        .map(|i| (hash(i, 0) >> 8) as f32 / (1 << 24) as f32)
        .collect();
    (keys, values)
}

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    let cases = [
        ("scan_by_key_f32_runs_16", 16, false, ScanOp::Sum),
        ("scan_by_key_exclusive_f32_runs_16", 16, true, ScanOp::Sum),
        ("scan_by_key_max_f32_runs_16", 16, false, ScanOp::Max),
        ("scan_by_key_f32_runs_4096", 4096, false, ScanOp::Sum),
    ];
    for (name, mean, exclusive, op) in cases {
        let scan = if exclusive {
            Scan::exclusive(op)
        } else {
            Scan::inclusive(op)
        };
        common::sweep(
            c,
            &ctx,
            name,
            |n| {
                let (keys, values) = inputs(n, mean);
                (
                    (
                        ctx.upload(&keys).unwrap(),
                        ctx.upload(&values).unwrap(),
                        ctx.zeros::<f32>(n).unwrap(),
                    ),
                    12 * n,
                )
            },
            |(keys, values, out)| {
                ctx.scan_by_key_with_into(keys, values, &scan, out).unwrap();
                ctx.synchronize().unwrap();
            },
        );
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}
criterion_main!(benches);
