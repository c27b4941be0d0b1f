//! Throughput of the random fills: bytes written per second (stateful: plus the state
//! read and written), swept over sizes.
//!
//! `cargo bench --bench random`. Each iteration submits the fill and waits for the GPU.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::{Ctx, Rng};

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    let out = |n: usize| ctx.zeros::<f32>(n).unwrap();
    for (name, rng) in [
        ("fill_random/wang_hash", Rng::WangHash { seed: 1 }),
        ("fill_random/xorshift32", Rng::Xorshift32 { seed: 1 }),
        ("fill_random/pcg32", Rng::Pcg32 { seed: 1 }),
    ] {
        common::sweep(
            c,
            &ctx,
            name,
            |n| (out(n), 4 * n),
            |v| {
                ctx.fill_random(v, rng).unwrap();
                ctx.synchronize().unwrap();
            },
        );
    }
    common::sweep(
        c,
        &ctx,
        "fill_normal/pcg32",
        |n| (out(n), 4 * n),
        |v| {
            ctx.fill_normal(v, Rng::Pcg32 { seed: 1 }, 0.0, 1.0)
                .unwrap();
            ctx.synchronize().unwrap();
        },
    );
    // 4 bytes written, 16 bytes of state read and written per element
    common::sweep(
        c,
        &ctx,
        "fill_random_stateful/xorshift128",
        |n| ((out(n), ctx.xorshift128_state(n, 1).unwrap()), 36 * n),
        |(v, state)| {
            ctx.fill_random_stateful(v, state).unwrap();
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
