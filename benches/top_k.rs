//! Throughput of top_k: input bytes per second (4 n), swept over sizes, at k = 16 and
//! k = 4096 (the radix select) and k = n / 2 (the full sort); then top_k_rows of rows
//! of 16384 at k = 100 and of 1024 at k = 16 (as many rows as n makes).
//!
//! `cargo bench --bench top_k`. Iterations use the `_into` form and wait for the GPU;
//! the `bandwidth` table (lab/)'s `top_k` section has the GPU-only table.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::{Ctx, Grid2D};

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
    for (name, w, k) in [
        ("top_k_rows_f32_w16384_k100", 16384usize, 100usize),
        ("top_k_rows_f32_w1024_k16", 1024, 16),
    ] {
        common::sweep(
            c,
            &ctx,
            name,
            |n| {
                let h = (n / w).max(1);
                let v = ctx.upload(&input(w * h)).unwrap();
                let values = ctx.zeros::<f32>(h * k).unwrap();
                let indices = ctx.zeros::<u32>(h * k).unwrap();
                ((v, values, indices, h), 4 * w * h)
            },
            |(v, values, indices, h)| {
                let grid = Grid2D::new(v, w as u32, *h as u32).unwrap();
                ctx.top_k_rows_into(&grid, values, indices).unwrap();
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
