//! Rows for argmax and argmin: bytes are the input read once (4 n for 32-bit types).
//! The device-resident forms are timed (no read-back), and each row's answer is
//! checked against the host once. Then argmax per row (`argmax_rows`, bytes: the values
//! read once and the values and indices written) of a square grid of `n` values and of
//! `n / 256` rows of 256 (16384 x 16384 and 2^20 x 256 at 2^28), each next to
//! `reduce_rows` (max) of the same grid, and `segmented_argmax` of segments of 256.

use gpuprim::{Ctx, GpuVec, Grid2D, Reduce, Result};

use gpuprim_lab::timing::Bench;

pub fn rows(b: &mut Bench) -> Result<()> {
    let (ctx, n) = (b.ctx, b.n);
    let a = b.random_f32(41)?;
    let u = b.random_u32(42)?;
    let mut value = ctx.zeros::<f32>(1)?;
    let mut value_u = ctx.zeros::<u32>(1)?;
    let mut index = ctx.zeros::<u32>(1)?;
    let host = a.to_vec()?;
    check(ctx, &a, &host)?;
    b.row("argmax f32 (argmax_into)", 4 * n, || {
        ctx.argmax_into(&a, &mut value, &mut index)
    })?;
    b.row("argmin f32 (argmin_into)", 4 * n, || {
        ctx.argmin_into(&a, &mut value, &mut index)
    })?;
    b.row("argmax u32", 4 * n, || {
        ctx.argmax_into(&u, &mut value_u, &mut index)
    })?;
    if ctx.has_features(gpuprim::wgpu::Features::SUBGROUP) {
        // The same call with the workgroup-memory tree instead of subgroup operations.
        let tree = Ctx::builder()
            .batch_limit(gpuprim_lab::timing::batch_limit())
            .without_features(gpuprim::wgpu::Features::SUBGROUP)
            .build()?;
        let ta = tree.upload(&host)?;
        check(&tree, &ta, &host)?;
        let mut tvalue = tree.zeros::<f32>(1)?;
        let mut tindex = tree.zeros::<u32>(1)?;
        b.row_on(&tree, "argmax f32 without subgroups (tree)", 4 * n, || {
            tree.argmax_into(&ta, &mut tvalue, &mut tindex)
        })?;
    }

    let side = 1u32 << (n.ilog2() / 2);
    for (shape, width, height) in [
        ("square", (n / side as usize) as u32, side),
        ("rows of 256", 256u32, (n / 256) as u32),
    ] {
        let grid = Grid2D::new(&a, width, height)?;
        let h = height as usize;
        check_rows(&grid, &host)?;
        let mut values = ctx.zeros::<f32>(h)?;
        let mut indices = ctx.zeros::<u32>(h)?;
        let bytes = 4 * width as usize * h + 8 * h;
        b.row(
            &format!("argmax_rows f32 {height} x {width} ({shape})"),
            bytes,
            || ctx.argmax_rows_into(&grid, &mut values, &mut indices),
        )?;
        b.row(
            &format!("reduce_rows max f32 {height} x {width} ({shape}, reference)"),
            4 * width as usize * h + 4 * h,
            || ctx.reduce_rows_into(&grid, Reduce::Max, &mut values),
        )?;
        if shape == "rows of 256" {
            let offsets: Vec<u32> = (0..=h as u32).map(|s| s * 256).collect();
            let o = ctx.upload(&offsets)?;
            b.row(
                &format!("segmented_argmax f32, {h} segments of 256"),
                bytes + 4 * (h + 1),
                || ctx.segmented_argmax_into(&a, &o, &mut values, &mut indices),
            )?;
        }
    }
    Ok(())
}

/// Panics unless the GPU's argmax of a few rows of `grid` is the host's.
fn check_rows(grid: &Grid2D<'_, f32>, host: &[f32]) -> Result<()> {
    let (values, indices) = grid.vec().ctx().argmax_rows(grid)?;
    let (values, indices) = (values.to_vec()?, indices.to_vec()?);
    let w = grid.width() as usize;
    for y in [0, grid.height() as usize / 2, grid.height() as usize - 1] {
        let row = &host[y * w..][..w];
        let mut want = 0;
        for (i, &x) in row.iter().enumerate() {
            if x > row[want] {
                want = i;
            }
        }
        assert_eq!(
            (values[y], indices[y] as usize),
            (row[want], want),
            "argmax_rows on the GPU, row {y}"
        );
    }
    Ok(())
}

/// Panics unless the GPU's argmax of `v` is the host's (first index of the largest).
fn check(ctx: &Ctx, v: &GpuVec<f32>, host: &[f32]) -> Result<()> {
    let (value, index) = ctx.argmax(v)?;
    let mut want = 0;
    for (i, &x) in host.iter().enumerate() {
        if x > host[want] {
            want = i;
        }
    }
    assert_eq!(
        (value, index as usize),
        (host[want], want),
        "argmax on the GPU"
    );
    Ok(())
}
