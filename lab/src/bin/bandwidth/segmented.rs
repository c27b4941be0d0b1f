//! Rows for segmented and per-axis reductions over `n` f32 values (2^28 on a GPU): one
//! segment, segments of 16, random lengths 0..100000 (next to `reduce_into` over the same
//! values, the figure they aim at), and rows and columns of a tall-thin (n/256 x 256),
//! short-wide (256 x n/256), square, 16-wide and 2048-wide grid. Bytes count the values
//! and offsets read and the results written once.

use gpuprim::{GpuVec, Grid2D, Reduce, Result};

use gpuprim_lab::timing::Bench;

pub fn rows(b: &mut Bench) -> Result<()> {
    let (ctx, n) = (b.ctx, b.n);
    let a = values_and_reference(b)?;

    // (name, segment lengths)
    let random = random_lengths(n, 100_000, 0x9e37_79b9_7f4a_7c15);
    let cases: [(String, Vec<usize>); 3] = [
        ("1 segment".into(), vec![n]),
        (format!("{} segments of 16", n / 16), vec![16; n / 16]),
        (format!("{} random lengths 0..100000", random.len()), random),
    ];
    for (name, lengths) in cases {
        let offsets = offsets_of(&lengths);
        let o = ctx.upload(&offsets)?;
        let mut out = ctx.zeros::<f32>(lengths.len())?;
        let bytes = 4 * n + 4 * offsets.len() + 4 * lengths.len();
        b.row(&format!("segmented sum f32, {name}"), bytes, || {
            ctx.segmented_reduce_into(&a, &o, Reduce::Sum, &mut out)
        })?;
        b.row(&format!("segmented max f32, {name}"), bytes, || {
            ctx.segmented_reduce_into(&a, &o, Reduce::Max, &mut out)
        })?;
    }

    let side = 1u32 << (n.ilog2() / 2);
    let shapes = [
        ("tall-thin", 256u32, (n / 256) as u32),
        ("short-wide", (n / 256) as u32, 256u32),
        ("square", side, side),
        ("rows of 16", 16, (n / 16) as u32),
        ("rows of 2048", 2048, (n / 2048) as u32),
    ];
    for (shape, width, height) in shapes {
        let grid = Grid2D::new(&a, width, height)?;
        let px = width as usize * height as usize;
        let mut rows_out = ctx.zeros::<f32>(height as usize)?;
        let mut cols_out = ctx.zeros::<f32>(width as usize)?;
        b.row(
            &format!("reduce_rows sum f32 {width} x {height} ({shape})"),
            4 * px + 4 * height as usize,
            || ctx.reduce_rows_into(&grid, Reduce::Sum, &mut rows_out),
        )?;
        b.row(
            &format!("reduce_columns sum f32 {width} x {height} ({shape})"),
            4 * px + 4 * width as usize,
            || ctx.reduce_columns_into(&grid, Reduce::Sum, &mut cols_out),
        )?;
    }
    Ok(())
}

/// The `n` random f32 values every row reduces, after the row of `reduce_into` over
/// them (the figure the segmented rows aim at).
fn values_and_reference(b: &mut Bench) -> Result<GpuVec<f32>> {
    let a = b.random_f32(7)?;
    let mut one = b.ctx.zeros::<f32>(1)?;
    let ctx = b.ctx;
    b.row("reduce_into f32 (reference)", 4 * b.n, || {
        ctx.reduce_into(&a, &mut one)
    })?;
    Ok(a)
}

/// Segment lengths from 0 to `most` (xorshift from `seed`) that add up to `n`.
fn random_lengths(n: usize, most: u64, seed: u64) -> Vec<usize> {
    let mut s = seed;
    let mut lengths = Vec::new();
    let mut total = 0usize;
    while total < n {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let len = (((s >> 33) % (most + 1)) as usize).min(n - total);
        lengths.push(len);
        total += len;
    }
    lengths
}

/// Offsets for segment lengths from 0.
fn offsets_of(lengths: &[usize]) -> Vec<u32> {
    let mut offsets = Vec::with_capacity(lengths.len() + 1);
    offsets.push(0u32);
    for l in lengths {
        offsets.push(offsets.last().unwrap() + *l as u32);
    }
    offsets
}

/// Both kernels of segmented sums over offsets (`segmented_path_into`), side by side:
/// segments of 16, 64, 256 and 1024 values, random lengths 0..32, and segments of 16
/// with one of a million (which the kernel for short segments hands to the segmented
/// kernel), then the automatic choice.
pub fn path_rows(b: &mut Bench) -> Result<()> {
    let (ctx, n) = (b.ctx, b.n);
    let a = values_and_reference(b)?;
    let random = random_lengths(n, 32, 0x2545_f491_4f6c_dd1d);
    let long = (1usize << 20).min(n / 2);
    let mut one_long = vec![16usize; (n - long) / 16];
    let middle = one_long.len() / 2;
    one_long.insert(middle, long);
    let mut cases: Vec<(String, Vec<usize>)> = [16usize, 64, 256, 1024]
        .iter()
        .map(|&len| (format!("{} segments of {len}", n / len), vec![len; n / len]))
        .collect();
    cases.push((format!("{} random lengths 0..32", random.len()), random));
    cases.push((
        format!("{} of 16 and one of {long}", one_long.len() - 1),
        one_long,
    ));
    for (name, lengths) in cases {
        let offsets = offsets_of(&lengths);
        let o = ctx.upload(&offsets)?;
        let mut out = ctx.zeros::<f32>(lengths.len())?;
        let bytes = 4 * n + 4 * offsets.len() + 4 * lengths.len();
        for (kernel, short) in [
            ("tiles", Some(false)),
            ("short", Some(true)),
            ("auto", None),
        ] {
            b.row(
                &format!("segmented sum f32, {name}, {kernel}"),
                bytes,
                || match short {
                    Some(short) => ctx.segmented_path_into(&a, &o, Reduce::Sum, short, &mut out),
                    None => ctx.segmented_reduce_into(&a, &o, Reduce::Sum, &mut out),
                },
            )?;
        }
    }
    Ok(())
}
