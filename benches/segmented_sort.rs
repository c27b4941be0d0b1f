//! Throughput of the segmented and row sorts: key bytes read and written per second
//! (8 n), swept over sizes, for `argsort_rows` of rows of 16, 256 and 4096 f32 keys and
//! `segmented_argsort` of u32 keys in segments of 1 to 2^16 (mostly merged).
//!
//! `cargo bench --bench segmented_sort`. Iterations use the `_into` forms (the keys are
//! only read, so every iteration sorts the same input) and wait for the GPU; the
//! `bandwidth` table (lab/)'s `segmented_sort` section has the GPU-only table with
//! torch's rows beside it (lab/peers_next.py).

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::{Ctx, Grid2D, Sort};

/// `n` keys from a multiplicative hash.
fn input(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect()
}

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    for width in [16usize, 256, 4096] {
        common::sweep(
            c,
            &ctx,
            &format!("argsort_rows_f32_width{width}"),
            |n| {
                let n = n.max(width) / width * width;
                let keys: Vec<f32> = input(n).iter().map(|&k| (k >> 8) as f32).collect();
                let keys = ctx.upload(&keys).unwrap();
                let out = ctx.zeros::<u32>(n).unwrap();
                ((keys, out, n), 8 * n)
            },
            |(keys, out, n)| {
                let grid = Grid2D::new(keys, width as u32, (*n / width) as u32).unwrap();
                ctx.argsort_rows_into(&grid, &Sort::ascending(), out)
                    .unwrap();
                ctx.synchronize().unwrap();
            },
        );
    }
    common::sweep(
        c,
        &ctx,
        "segmented_argsort_u32_lengths_1_to_65536",
        |n| {
            let mut offsets = vec![0u32];
            let mut s = 1u32;
            while (*offsets.last().unwrap() as usize) < n {
                s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                offsets.push((offsets.last().unwrap() + 1 + (s >> 16)).min(n as u32));
            }
            let keys = ctx.upload(&input(n)).unwrap();
            let offsets = ctx.upload(&offsets).unwrap();
            let out = ctx.zeros::<u32>(n).unwrap();
            ((keys, offsets, out), 8 * n)
        },
        |(keys, offsets, out)| {
            ctx.segmented_argsort_into(keys, offsets, &Sort::ascending(), out)
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
