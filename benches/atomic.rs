//! Throughput of the atomic primitives: bytes read per second, swept over sizes.
//!
//! `cargo bench --bench atomic`. Each iteration submits the work (device-resident
//! `_into` calls) and waits for the GPU, so the time includes one submit + wait; see
//! the `bandwidth` table (lab/) for GPU-only figures at large sizes.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::{AtomicStrategy, Ctx};

fn strategies(ctx: &Ctx) -> Vec<AtomicStrategy> {
    let mut s = vec![AtomicStrategy::PerElement, AtomicStrategy::Hybrid];
    if ctx.has_features(gpuprim::wgpu::Features::SUBGROUP) {
        s.push(AtomicStrategy::Subgroup);
    }
    s
}

/// `n` pseudo-random u32 (xorshift), small enough that sums stay cheap to check by eye.
fn data(n: usize) -> Vec<u32> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 32) as u32
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    for strategy in strategies(&ctx) {
        common::sweep(
            c,
            &ctx,
            &format!("atomic_sum_u32/{strategy:?}"),
            |n| {
                (
                    (ctx.upload(&data(n)).unwrap(), ctx.zeros::<u32>(1).unwrap()),
                    4 * n,
                )
            },
            |(v, acc)| {
                ctx.atomic_sum_into(v, strategy, acc).unwrap();
                ctx.synchronize().unwrap();
            },
        );
    }
    common::sweep(
        c,
        &ctx,
        "atomic_sum_f32/Hybrid",
        |n| {
            let inputs = (
                ctx.upload(&vec![0.5f32; n]).unwrap(),
                ctx.zeros::<f32>(1).unwrap(),
            );
            (inputs, 4 * n)
        },
        |(v, acc)| {
            ctx.atomic_sum_into(v, AtomicStrategy::Hybrid, acc).unwrap();
            ctx.synchronize().unwrap();
        },
    );
    for bins in [256u32, 65536] {
        common::sweep(
            c,
            &ctx,
            &format!("histogram/{bins}_bins"),
            |n| {
                let keys: Vec<u32> = data(n).iter().map(|k| k % bins).collect();
                let inputs = (
                    ctx.upload(&keys).unwrap(),
                    ctx.zeros::<u32>(bins as usize).unwrap(),
                );
                (inputs, 4 * n)
            },
            |(keys, counts)| {
                ctx.histogram_into(keys, bins, counts).unwrap();
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
