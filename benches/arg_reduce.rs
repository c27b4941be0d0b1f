//! Throughput of argmax and argmin: input bytes per second, swept over sizes; and of
//! argmax per row (`argmax_rows`) of a square grid of n values and of n / 256 rows of 256,
//! next to `reduce_rows` (max) of the same grids.
//!
//! `cargo bench --bench arg_reduce`. Iterations use the device-resident forms and wait
//! for the GPU; the `bandwidth` table (lab/) (section `arg_reduce`) has the GPU-only table.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::{Ctx, GpuVec, Grid2D, Reduce};

/// `n` f32 in [0, 1) in a scrambled order, so the best element is not at either end.
fn input(ctx: &Ctx, n: usize) -> GpuVec<f32> {
    let host: Vec<f32> = (0..n as u64)
        .map(|i| (i.wrapping_mul(0x9e37_79b9) % 1_000_003) as f32 / 1_000_003.0)
        .collect();
    ctx.upload(&host).unwrap()
}

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    for (name, max) in [("argmax_f32", true), ("argmin_f32", false)] {
        common::sweep(
            c,
            &ctx,
            name,
            |n| {
                let outputs = (ctx.zeros::<f32>(1).unwrap(), ctx.zeros::<u32>(1).unwrap());
                ((input(&ctx, n), outputs), 4 * n)
            },
            |(v, (value, index))| {
                if max {
                    ctx.argmax_into(v, value, index).unwrap();
                } else {
                    ctx.argmin_into(v, value, index).unwrap();
                }
                ctx.synchronize().unwrap();
            },
        );
    }
    common::sweep(
        c,
        &ctx,
        "argmax_blocking_f32",
        |n| (input(&ctx, n), 4 * n),
        |v| {
            ctx.argmax(v).unwrap();
        },
    );
    // A square grid and rows of 256.
    for shape in ["square", "rows_of_256"] {
        let width_of = |n: usize| {
            if shape == "square" {
                1 << n.ilog2().div_ceil(2)
            } else {
                256
            }
        };
        for reduce in [false, true] {
            let name = if reduce {
                format!("reduce_rows_max_f32_{shape}")
            } else {
                format!("argmax_rows_f32_{shape}")
            };
            common::sweep(
                c,
                &ctx,
                &name,
                |n| {
                    let w = width_of(n);
                    let h = n / w;
                    let outputs = (ctx.zeros::<f32>(h).unwrap(), ctx.zeros::<u32>(h).unwrap());
                    ((input(&ctx, n), w, outputs), 4 * n)
                },
                |(v, w, (values, indices))| {
                    let grid = Grid2D::new(v, *w as u32, (v.len() / *w) as u32).unwrap();
                    if reduce {
                        ctx.reduce_rows_into(&grid, Reduce::Max, values).unwrap();
                    } else {
                        ctx.argmax_rows_into(&grid, values, indices).unwrap();
                    }
                    ctx.synchronize().unwrap();
                },
            );
        }
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}
criterion_main!(benches);
