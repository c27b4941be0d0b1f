//! Rows for the atomic primitives: atomic_sum in each strategy and histograms, all
//! device-resident (`_into`), so the times are GPU work only.

use gpuprim::{AtomicStrategy, Result};

use gpuprim_lab::timing::Bench;

pub fn rows(b: &mut Bench) -> Result<()> {
    let ctx = b.ctx;
    let n = b.n;
    let v = b.random_u32(11)?;
    let mut acc = ctx.zeros::<u32>(1)?;
    let mut strategies = vec![AtomicStrategy::PerElement, AtomicStrategy::Hybrid];
    if ctx.has_features(gpuprim::wgpu::Features::SUBGROUP) {
        strategies.push(AtomicStrategy::Subgroup);
    }
    for s in strategies {
        b.row(&format!("atomic_sum u32 ({s:?})"), 4 * n, || {
            ctx.atomic_sum_into(&v, s, &mut acc)
        })?;
    }
    let f = b.random_f32(12)?;
    let mut facc = ctx.zeros::<f32>(1)?;
    b.row("atomic_sum f32 (Hybrid, CAS loop)", 4 * n, || {
        ctx.atomic_sum_into(&f, AtomicStrategy::Hybrid, &mut facc)
    })?;
    drop(f);

    // Keys are uniform over all u32: reduce them to the bins with a map first.
    for bins in [256u32, 65536] {
        let keys = ctx.map(&v, &format!("x % {bins}u"))?;
        let mut counts = ctx.zeros::<u32>(bins as usize)?;
        b.row(&format!("histogram u32, {bins} bins"), 4 * n, || {
            ctx.histogram_into(&keys, bins, &mut counts)
        })?;
    }
    // The figure to compare with torch.histc(x, bins=256, min=0, max=1).
    let x = b.random_f32(9)?;
    let mut counts = ctx.zeros::<u32>(256)?;
    b.row("histogram_range f32 [0,1], 256 bins", 4 * n, || {
        ctx.histogram_range_into(&x, 256, 0.0, 1.0, &mut counts)
    })?;
    Ok(())
}
