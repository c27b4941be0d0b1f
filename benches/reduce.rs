//! Throughput of reductions and dot: input bytes per second, swept over sizes.
//!
//! `cargo bench --bench reduce`. Iterations use the device-resident forms and wait for
//! the GPU; the `bandwidth` table (lab/) has the GPU-only table at 2^28.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::{Ctx, Reduce};

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    let ops: [(&str, Reduce<f32>); 3] = [
        ("sum_f32", Reduce::Sum),
        ("max_f32", Reduce::Max),
        ("sum_compensated_f32", Reduce::SumCompensated),
    ];
    let input = |n: usize| ctx.upload(&vec![0.5f32; n]).unwrap();
    for (name, op) in ops {
        common::sweep(
            c,
            &ctx,
            name,
            |n| ((input(n), ctx.zeros::<f32>(1).unwrap()), 4 * n),
            |(v, out)| {
                ctx.reduce_with_into(v, op.clone(), out).unwrap();
                ctx.synchronize().unwrap();
            },
        );
    }
    common::sweep(
        c,
        &ctx,
        "dot_f32",
        |n| ((input(n), ctx.zeros::<f32>(1).unwrap()), 8 * n),
        |(a, out)| {
            ctx.dot_into(a, a, out).unwrap();
            ctx.synchronize().unwrap();
        },
    );
    common::sweep(
        c,
        &ctx,
        "reduce_blocking_f32",
        |n| (input(n), 4 * n),
        |v| {
            ctx.reduce(v).unwrap();
        },
    );
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}
criterion_main!(benches);
