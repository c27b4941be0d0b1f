//! Throughput of gather and scatter of f32 by random u32 indices, swept over n; bytes
//! are the indices read and the moved elements read and written once (12 n). Then
//! scatter_add of n f32 values into 2^10 bins (8 n: indices and values read once).
//!
//! `cargo bench --bench gather`. Iterations use `gather_into`, `scatter` and
//! `scatter_add` and wait for the GPU; the `bandwidth` table (lab/) (sections `gather`
//! and `scatter_add`) has the GPU-only table.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::{Ctx, GpuVec};

/// `n` f32, `n` random indices into them, and an output of `n`.
fn inputs(ctx: &Ctx, n: usize) -> (GpuVec<f32>, GpuVec<u32>, GpuVec<f32>) {
    let src: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let idx: Vec<u32> = (0..n as u64)
        .map(|i| ((i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % n as u64) as u32)
        .collect();
    (
        ctx.upload(&src).unwrap(),
        ctx.upload(&idx).unwrap(),
        ctx.zeros::<f32>(n).unwrap(),
    )
}

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    common::sweep(
        c,
        &ctx,
        "gather_f32",
        |n| (inputs(&ctx, n), 12 * n),
        |(src, idx, out)| {
            ctx.gather_into(src, idx, out).unwrap();
            ctx.synchronize().unwrap();
        },
    );
    common::sweep(
        c,
        &ctx,
        "scatter_f32",
        |n| (inputs(&ctx, n), 12 * n),
        |(src, idx, out)| {
            ctx.scatter(src, idx, out).unwrap();
            ctx.synchronize().unwrap();
        },
    );
    common::sweep(
        c,
        &ctx,
        "scatter_add_f32_1024_bins",
        |n| {
            let (values, idx, _) = inputs(&ctx, n);
            let bins = ctx.map(&idx, "x % 1024u").unwrap();
            ((values, bins, ctx.zeros::<f32>(1024).unwrap()), 8 * n)
        },
        |(values, bins, out)| {
            ctx.scatter_add(out, bins, values).unwrap();
            ctx.synchronize().unwrap();
        },
    );
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}
criterion_main!(benches);
