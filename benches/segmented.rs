//! Throughput of segmented and per-axis reductions: bytes read and written per second,
//! swept over sizes.
//!
//! `cargo bench --bench segmented`. Iterations use the device-resident forms and wait for
//! the GPU; the `bandwidth` table (lab/) (section `segmented`) has the GPU-only table at 2^28.

mod common;

use criterion::Criterion;
use criterion::{criterion_group, criterion_main};
use gpuprim::{Ctx, Grid2D, Reduce};

/// Offsets of `n / len` segments of `len` values.
fn even_offsets(n: usize, len: usize) -> Vec<u32> {
    (0..=n / len).map(|s| (s * len) as u32).collect()
}

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    let input = |n: usize| {
        let host: Vec<f32> = (0..n).map(|i| (i % 1021) as f32 / 1021.0).collect();
        ctx.upload(&host).unwrap()
    };
    for (name, len) in [
        ("segmented_sum_f32_one_segment", 0usize),
        ("segmented_sum_f32_segments_of_16", 16),
        ("segmented_sum_f32_segments_of_1000", 1000),
    ] {
        common::sweep(
            c,
            &ctx,
            name,
            |n| {
                let offsets = if len == 0 {
                    vec![0, n as u32]
                } else {
                    even_offsets(n, len)
                };
                let segments = offsets.len() - 1;
                let o = ctx.upload(&offsets).unwrap();
                let out = ctx.zeros::<f32>(segments).unwrap();
                ((input(n), o, out), 4 * n + 8 * segments + 4)
            },
            |(v, o, out)| {
                ctx.segmented_reduce_into(v, o, Reduce::Sum, out).unwrap();
                ctx.synchronize().unwrap();
            },
        );
    }
    for (name, columns) in [
        ("reduce_rows_sum_f32", false),
        ("reduce_columns_sum_f32", true),
    ] {
        common::sweep(
            c,
            &ctx,
            name,
            |n| {
                // A square grid of about n values.
                let side = 1usize << (n.ilog2() / 2);
                let out = ctx.zeros::<f32>(side).unwrap();
                (
                    (input(side * side), out, side as u32),
                    4 * side * side + 4 * side,
                )
            },
            |(v, out, side)| {
                let grid = Grid2D::new(v, *side, *side).unwrap();
                if columns {
                    ctx.reduce_columns_into(&grid, Reduce::Sum, out).unwrap();
                } else {
                    ctx.reduce_rows_into(&grid, Reduce::Sum, out).unwrap();
                }
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
