//! Rows for argmax and argmin: bytes are the input read once (4 n for 32-bit types).
//! The device-resident forms are timed (no read-back), and each row's answer is
//! checked against the host once.

use gpuprim::{Ctx, GpuVec, Result};

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
