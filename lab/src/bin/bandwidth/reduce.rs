//! Rows for reductions and dot, and the host round trip of a blocking reduce.

use std::time::Instant;

use gpuprim::{Ctx, Reduce, Result};

use gpuprim_lab::timing::Bench;

pub fn rows(b: &mut Bench) -> Result<()> {
    let (ctx, n) = (b.ctx, b.n);
    let a = b.random_f32(3)?;
    let c = b.random_f32(4)?;
    let u = b.random_u32(5)?;
    let mut out = ctx.zeros::<f32>(1)?;
    let mut out_u = ctx.zeros::<u32>(1)?;
    // Device-resident forms: the GPU time of the reduction, no read-back.
    b.row("sum f32 (reduce_into)", 4 * n, || {
        ctx.reduce_into(&a, &mut out)
    })?;
    b.row("max f32", 4 * n, || {
        ctx.reduce_with_into(&a, Reduce::Max, &mut out)
    })?;
    b.row("sum u32", 4 * n, || ctx.reduce_into(&u, &mut out_u))?;
    b.row("dot f32", 8 * n, || ctx.dot_into(&a, &c, &mut out))?;
    b.row("sum f32 compensated", 4 * n, || {
        ctx.reduce_with_into(&a, Reduce::SumCompensated, &mut out)
    })?;
    if ctx.has_features(gpuprim::wgpu::Features::SHADER_F64) {
        b.row("sum f32 wide (f64 accumulators)", 4 * n, || {
            ctx.reduce_with_into(&a, Reduce::SumWide, &mut out)
        })?;
    }
    if ctx.has_features(gpuprim::wgpu::Features::SUBGROUP) {
        // The same sum with the shared-memory tree instead of subgroup operations.
        let tree = Ctx::builder()
            .batch_limit(gpuprim_lab::timing::batch_limit())
            .without_features(gpuprim::wgpu::Features::SUBGROUP)
            .build()?;
        let ta = tree.upload(&a.to_vec()?)?;
        let mut tout = tree.zeros::<f32>(1)?;
        b.row_on(&tree, "sum f32 without subgroups (tree)", 4 * n, || {
            tree.reduce_into(&ta, &mut tout)
        })?;
    }
    Ok(())
}

/// Host round trips, median of many calls: a blocking `ctx.reduce` on data already on
/// the GPU (the figure to compare with `torch.sum(x).item()`), and its parts: a wait on
/// an idle device, a small kernel plus a wait, a 4-byte read-back.
pub fn latency(b: &mut Bench) -> Result<()> {
    let ctx = b.ctx;
    let reps = if b.software { 20 } else { 300 };
    let median_us = |f: &mut dyn FnMut() -> Result<()>| -> Result<f64> {
        for _ in 0..20 {
            f()?;
        }
        let mut us = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t0 = Instant::now();
            f()?;
            us.push(t0.elapsed().as_secs_f64() * 1e6);
        }
        us.sort_by(f64::total_cmp);
        Ok(us[us.len() / 2])
    };
    println!("-- host round trip (median of {reps} calls)");
    let small = ctx.upload(&vec![1.0f32; 1024])?;
    let mut small_out = ctx.zeros::<f32>(1024)?;
    let one = ctx.zeros::<f32>(1)?;
    let rows: [(&str, Option<usize>, f64); 3] = [
        (
            "synchronize, idle device",
            None,
            median_us(&mut || ctx.synchronize())?,
        ),
        (
            "map_into n=2^10 + synchronize",
            Some(1024),
            median_us(&mut || {
                ctx.map_into(&small, "x", &mut small_out)?;
                ctx.synchronize()
            })?,
        ),
        (
            "to_vec of 1 f32",
            Some(1),
            median_us(&mut || one.to_vec().map(drop))?,
        ),
    ];
    for (name, n, us) in rows {
        b.latency_row(name, n, us);
    }
    // The host's share of a call: recording and submitting a reduction without waiting
    // (the GPU keeps up, so this is the CPU time per call).
    let mut sum = ctx.zeros::<f32>(1)?;
    let host_us = median_us(&mut || ctx.reduce_into(&small, &mut sum))?;
    ctx.synchronize()?;
    b.latency_row("reduce_into n=2^10 host, no wait", Some(1024), host_us);
    for log2 in [10, 16, 20, 24] {
        let n = 1usize << log2;
        if n > b.n {
            break;
        }
        let v = ctx.upload(&vec![1.0f32; n])?;
        let us = median_us(&mut || ctx.reduce(&v).map(drop))?;
        b.latency_row(&format!("reduce n=2^{log2}"), Some(n), us);
    }
    Ok(())
}
