//! Throughput of top_k: input bytes per second (4 n), swept over sizes, at k = 16 and
//! k = 4096 (the radix select) and k = n / 2 (the full sort).
//!
//! `cargo bench --bench top_k`. Iterations use the `_into` form and wait for the GPU;
//! the `bandwidth` table (lab/)'s `top_k` section has the GPU-only table.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::Ctx;

/// `n` floats in [0, 1) from a multiplicative hash.
fn input(n: usize) -> Vec<f32> {
    (0..n as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 8) as f32 / (1u32 << 24) as f32)
        .collect()
}

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    for (name, k_of) in [
        ("top_k_f32_k16", (|_| 16) as fn(usize) -> usize),
        ("top_k_f32_k4096", |n| 4096.min(n)),
        ("top_k_f32_half", |n| n / 2),
    ] {
        common::sweep(
            c,
            &ctx,
            name,
            |n| {
                let k = k_of(n);
                let v = ctx.upload(&input(n)).unwrap();
                let values = ctx.zeros::<f32>(k).unwrap();
                let indices = ctx.zeros::<u32>(k).unwrap();
                ((v, values, indices), 4 * n)
            },
            |(v, values, indices)| {
                ctx.top_k_into(v, values, indices).unwrap();
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
