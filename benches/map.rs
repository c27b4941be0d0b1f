//! Throughput of map and zip: bytes read + written per second, swept over sizes.
//!
//! `cargo bench --bench map`. Each iteration submits the kernel and waits for the GPU,
//! so the time includes one submit + wait; see the `bandwidth` table (lab/) for GPU-only
//! figures at large sizes.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::Ctx;

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    let filled = |n: usize, x: f32| ctx.upload(&vec![x; n]).unwrap();
    common::sweep(
        c,
        &ctx,
        "map",
        |n| ((filled(n, 1.5), ctx.zeros::<f32>(n).unwrap()), 8 * n),
        |(a, out)| {
            ctx.map_into(a, "x * 2.0 + 1.0", out).unwrap();
            ctx.synchronize().unwrap();
        },
    );
    common::sweep(
        c,
        &ctx,
        "zip",
        |n| {
            let inputs = (filled(n, 1.5), filled(n, 2.5), ctx.zeros::<f32>(n).unwrap());
            (inputs, 12 * n)
        },
        |(a, b, out)| {
            ctx.zip_into(a, b, "a + b", out).unwrap();
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
