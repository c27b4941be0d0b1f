//! Throughput of the radix sorts and of reduce_by_key, swept over sizes.
//!
//! `cargo bench --bench sort`. Bytes count the keys (and values) read and written once:
//! 8 n for keys, 16 n for pairs and u64 keys, 40 n for u32 keys with 16-byte values,
//! 12 n for argsort. Each iteration sorts a fresh copy of
//! random keys (the copy is inside the time; the `bandwidth` table (lab/) subtracts it) and waits
//! for the GPU.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::{Ctx, GpuVec, Reduce, Sort, SortAlgorithm};

/// `n` keys from a multiplicative hash: every digit takes every value.
fn keys(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect()
}

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    let mut algorithms = vec![("sort_u32_reduce_then_scan", SortAlgorithm::ReduceThenScan)];
    if ctx.has_features(gpuprim::wgpu::Features::SUBGROUP) {
        algorithms.push(("sort_u32_onesweep", SortAlgorithm::OneSweep));
    }
    let fresh = |n: usize| -> (GpuVec<u32>, GpuVec<u32>) {
        (ctx.upload(&keys(n)).unwrap(), ctx.zeros::<u32>(n).unwrap())
    };
    for (name, algorithm) in algorithms {
        let sort = Sort::ascending().algorithm(algorithm);
        common::sweep(
            c,
            &ctx,
            name,
            |n| (fresh(n), 8 * n),
            |(pristine, work)| {
                work.copy_from(pristine).unwrap();
                ctx.sort_with(work, &sort).unwrap();
                ctx.synchronize().unwrap();
            },
        );
    }
    common::sweep(
        c,
        &ctx,
        "sort_by_key_u32_u32",
        |n| ((fresh(n), fresh(n)), 16 * n),
        |((pristine, keys), (values, work))| {
            keys.copy_from(pristine).unwrap();
            work.copy_from(values).unwrap();
            ctx.sort_by_key(keys, work).unwrap();
            ctx.synchronize().unwrap();
        },
    );
    common::sweep(
        c,
        &ctx,
        "sort_u64",
        |n| {
            let wide: Vec<u64> = keys(2 * n)
                .chunks(2)
                .map(|w| u64::from(w[0]) << 32 | u64::from(w[1]))
                .collect();
            let inputs = (ctx.upload(&wide).unwrap(), ctx.zeros::<u64>(n).unwrap());
            (inputs, 16 * n)
        },
        |(pristine, work)| {
            work.copy_from(pristine).unwrap();
            ctx.sort(work).unwrap();
            ctx.synchronize().unwrap();
        },
    );
    common::sweep(
        c,
        &ctx,
        "sort_by_key_u32_16_byte_values",
        |n| {
            let records: Vec<[u32; 4]> = (0..n as u32).map(|i| [i, 1, 2, 3]).collect();
            let inputs = (
                fresh(n),
                ctx.upload(&records).unwrap(),
                ctx.zeros::<[u32; 4]>(n).unwrap(),
            );
            (inputs, 40 * n)
        },
        |((pristine, keys), values, work)| {
            keys.copy_from(pristine).unwrap();
            work.copy_from(values).unwrap();
            ctx.sort_by_key(keys, work).unwrap();
            ctx.synchronize().unwrap();
        },
    );
    common::sweep(
        c,
        &ctx,
        "argsort_u32",
        |n| (fresh(n), 12 * n),
        |(keys, order)| {
            ctx.argsort_into(keys, &Sort::ascending(), order).unwrap();
            ctx.synchronize().unwrap();
        },
    );
    common::sweep(
        c,
        &ctx,
        "reduce_by_key_sum_f32",
        |n| {
            let sorted: Vec<u32> = (0..n as u32).map(|i| i / 16).collect();
            let inputs = (
                ctx.upload(&sorted).unwrap(),
                ctx.upload(&vec![1.0f32; n]).unwrap(),
                ctx.zeros::<u32>(n).unwrap(),
                ctx.zeros::<f32>(n).unwrap(),
                ctx.zeros::<u32>(1).unwrap(),
            );
            (inputs, 8 * n)
        },
        |(keys, values, keys_out, totals, count)| {
            ctx.reduce_by_key_into(keys, values, Reduce::Sum, keys_out, totals, count)
                .unwrap();
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
