//! Throughput of lower_bound and upper_bound: n random queries in a sorted table of n
//! u32, swept over n; bytes are the queries read and the answers written (8 n).
//!
//! Then `merge` of two sorted halves and `unique_with` (both built on the searches and
//! the sort). `cargo bench --bench search`. Iterations use the `_into` forms where there
//! are and wait for the GPU; the `bandwidth` table (lab/) (sections `search` and
//! `records`) has the GPU-only table.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::{Ctx, GpuVec};

/// A sorted table of `n` u32 over the whole range, `n` random queries and their output.
fn inputs(ctx: &Ctx, n: usize) -> (GpuVec<u32>, GpuVec<u32>, GpuVec<u32>) {
    let spacing = (1u64 << 32) / n as u64;
    let table: Vec<u32> = (0..n as u64).map(|i| (i * spacing) as u32).collect();
    let queries: Vec<u32> = (0..n as u64)
        .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as u32)
        .collect();
    (
        ctx.upload(&table).unwrap(),
        ctx.upload(&queries).unwrap(),
        ctx.zeros::<u32>(n).unwrap(),
    )
}

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    for (name, upper) in [("lower_bound_u32", false), ("upper_bound_u32", true)] {
        common::sweep(
            c,
            &ctx,
            name,
            |n| (inputs(&ctx, n), 8 * n),
            |(table, queries, out)| {
                if upper {
                    ctx.upper_bound_into(table, queries, out).unwrap();
                } else {
                    ctx.lower_bound_into(table, queries, out).unwrap();
                }
                ctx.synchronize().unwrap();
            },
        );
    }
    // merge of two sorted vectors of n / 2 (the table's halves): read n, write n.
    common::sweep(
        c,
        &ctx,
        "merge_u32",
        |n| {
            let (table, _, _) = inputs(&ctx, n);
            let host = table.to_vec().unwrap();
            let (even, odd): (Vec<u32>, Vec<u32>) =
                host.chunks(2).map(|p| (p[0], p[p.len() - 1])).unzip();
            (
                (ctx.upload(&even).unwrap(), ctx.upload(&odd).unwrap()),
                8 * n,
            )
        },
        |(a, b)| {
            ctx.merge(a, b).unwrap();
            ctx.synchronize().unwrap();
        },
    );
    // unique_with of n random queries over n / 16 values (blocking): read n, write n.
    common::sweep(
        c,
        &ctx,
        "unique_with_u32",
        |n| {
            let (_, queries, _) = inputs(&ctx, n);
            let few = ctx
                .map(&queries, &format!("x % {}u", (n / 16).max(1)))
                .unwrap();
            (few, 8 * n)
        },
        |v| {
            ctx.unique_with(v).unwrap();
        },
    );
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}
criterion_main!(benches);
