//! Rows for scans by key, next to the scan of the values alone.

use gpuprim::{Ctx, GpuVec, Result, Scan, ScanAlgorithm, ScanOp};

use gpuprim_lab::timing::Bench;

/// Keys in runs of geometric length with mean `mean` (a power of two), made on the GPU:
/// element i starts a run where a uniform u32 is below 2^32 / mean, and the keys are the
/// inclusive sum of those starts.
fn run_keys(b: &Bench, mean: u32, seed: u64) -> Result<GpuVec<u32>> {
    let r = b.random_u32(seed)?;
    let below = (1u64 << 32) / u64::from(mean);
    let heads = b.ctx.map(&r, &format!("select(0u, 1u, x < {below}u)"))?;
    b.ctx.scan(&heads)
}

pub fn rows(b: &mut Bench) -> Result<()> {
    let (ctx, n) = (b.ctx, b.n);
    let values = b.random_f32(8)?;
    let mut out = ctx.zeros::<f32>(n)?;
    // The target: scan by key within 1.5x of this (it moves 12 bytes an element to the
    // scan's 8, so 1.5x is the same bandwidth).
    let single = Scan::inclusive(ScanOp::Sum).algorithm(ScanAlgorithm::SinglePass);
    b.row("scan f32 values alone, single pass", 8 * n, || {
        ctx.scan_with_into(&values, &single, &mut out)
    })?;
    let keys16 = run_keys(b, 16, 9)?;
    b.row("scan_by_key u32 keys f32, runs mean 16", 12 * n, || {
        ctx.scan_by_key_into(&keys16, &values, &mut out)
    })?;
    b.row(
        "scan_by_key_exclusive u32 keys f32, mean 16",
        12 * n,
        || ctx.scan_by_key_exclusive_into(&keys16, &values, &mut out),
    )?;
    let max = Scan::inclusive(ScanOp::Max);
    b.row("scan_by_key u32 keys f32 max, mean 16", 12 * n, || {
        ctx.scan_by_key_with_into(&keys16, &values, &max, &mut out)
    })?;
    check(b, &keys16)?;
    // Other tiles (workgroup x vec4 units per invocation) than the adapter's default.
    for (wg, units) in [(256, 4), (512, 4), (128, 8), (512, 8), (1024, 4), (256, 6)] {
        let name = format!("scan_by_key mean 16, tile {wg} x {units}");
        if let Err(e) = b.row(&name, 12 * n, || {
            ctx.scan_by_key_tile_into(&keys16, &values, &mut out, wg, units)
        }) {
            println!("  (tile {wg} x {units}: {e})");
        }
    }
    let keys_long = run_keys(b, 1 << 16, 10)?;
    b.row("scan_by_key u32 keys f32, runs mean 65536", 12 * n, || {
        ctx.scan_by_key_into(&keys_long, &values, &mut out)
    })?;
    // One run: every look-back walks like the plain scan's.
    let one = ctx.zeros::<u32>(n)?;
    b.row("scan_by_key u32 keys f32, one run", 12 * n, || {
        ctx.scan_by_key_into(&one, &values, &mut out)
    })?;
    if ctx.has_features(gpuprim::wgpu::Features::SUBGROUP) {
        let tree = Ctx::builder()
            .batch_limit(gpuprim_lab::timing::batch_limit())
            .without_features(gpuprim::wgpu::Features::SUBGROUP)
            .build()?;
        let tk = tree.upload(&keys16.to_vec()?)?;
        let tv = tree.upload(&values.to_vec()?)?;
        let mut tout = tree.zeros::<f32>(n)?;
        b.row_on(
            &tree,
            "scan_by_key mean 16 without subgroups",
            12 * n,
            || tree.scan_by_key_into(&tk, &tv, &mut tout),
        )?;
    }
    Ok(())
}

/// The timed u32 scan by key must match the CPU's wrapping fold in every element.
fn check(b: &Bench, keys: &GpuVec<u32>) -> Result<()> {
    let ones = b.random_u32(11)?;
    let got = b.ctx.scan_by_key(keys, &ones)?.to_vec()?;
    let (k, x) = (keys.to_vec()?, ones.to_vec()?);
    let mut acc = 0u32;
    let bad = (0..k.len())
        .filter(|&i| {
            if i == 0 || k[i] != k[i - 1] {
                acc = 0;
            }
            acc = acc.wrapping_add(x[i]);
            got[i] != acc
        })
        .count();
    if bad > 0 {
        println!("  !! scan_by_key u32: {bad} elements differ from the CPU");
    }
    Ok(())
}
