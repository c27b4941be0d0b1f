//! Throughput of argmax and argmin: input bytes per second, swept over sizes.
//!
//! `cargo bench --bench arg_reduce`. Iterations use the device-resident forms and wait
//! for the GPU; the `bandwidth` table (lab/) (section `arg_reduce`) has the GPU-only table.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::{Ctx, GpuVec};

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
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}
criterion_main!(benches);
