//! Rows for the paths without subgroups (issue 35): each call on the context, then on a
//! context of the same adapter built `without_features(SUBGROUP)`, so the two paths
//! stand next to each other in one process. Adapters without subgroups print one row
//! each (the only path they have).
//!
//! `GP_RTS_TILES=256x8,256x16` in the environment adds rows per reduce-then-scan tile
//! shape (invocations x keys per invocation) for the sorts (keys, and keys with values
//! where the shape fits) of the first size on the context without subgroups.

use gpuprim::wgpu::Features;
use gpuprim::{Ctx, Result, Scan, ScanAlgorithm, ScanOp, Sort, SortAlgorithm};

use gpuprim_lab::timing::Bench;

use crate::sort::{keys_row_on, log2, pairs_row_on, random_u32_on, sizes};

pub fn rows(b: &mut Bench) -> Result<()> {
    let ctx = b.ctx;
    let n = b.n;
    let mut contexts: Vec<(Ctx, &str)> = vec![(ctx.clone(), "with subgroups")];
    if ctx.has_features(Features::SUBGROUP) {
        let without = gpuprim_lab::timing::tuning(Ctx::builder())
            .batch_limit(gpuprim_lab::timing::batch_limit())
            .without_features(Features::SUBGROUP)
            .build()?;
        contexts.push((without, "without subgroups"));
    } else {
        println!("  (this adapter has no subgroups: one row each)");
    }
    let host: Vec<f32> = b.random_f32(61)?.to_vec()?;
    for (c, path) in &contexts {
        let a = c.upload(&host)?;
        let mut out = c.zeros::<f32>(n)?;
        let mut count = c.zeros::<u32>(1)?;
        for (algorithm, name) in [
            (ScanAlgorithm::SinglePass, "single pass"),
            (ScanAlgorithm::ReduceThenScan, "reduce-then-scan"),
        ] {
            let scan = Scan::inclusive(ScanOp::Sum).algorithm(algorithm);
            b.row_on(
                c,
                &format!("scan f32 inclusive, {name}, {path}"),
                8 * n,
                || c.scan_with_into(&a, &scan, &mut out),
            )?;
        }
        let kept = c.compact(&a, "x < 0.5")?.len();
        b.row_on(
            c,
            &format!("compact f32 (x < 0.5), 50% kept, {path}"),
            4 * n + 4 * kept,
            || c.compact_into(&a, "x < 0.5", &mut out, &mut count),
        )?;
    }
    for m in sizes(n) {
        b.n = m;
        for (c, path) in &contexts {
            let keys = random_u32_on(c, m, 62)?;
            let name = format!("sort u32 keys n=2^{}, {path}", log2(m));
            keys_row_on(b, c, &name, &keys, &Sort::ascending())?;
            if m == sizes(n)[0] {
                let name = format!("sort_by_key u32 + u32 n=2^{}, {path}", log2(m));
                pairs_row_on(b, c, &name, &keys, &Sort::ascending())?;
                if !c.has_features(Features::SUBGROUP) {
                    for (wg, kpt) in rts_tiles() {
                        let name =
                            format!("sort u32 keys n=2^{}, {path}, tile {wg}x{kpt}", log2(m));
                        let sort = Sort::ascending()
                            .algorithm(SortAlgorithm::ReduceThenScan)
                            .tile(wg, kpt);
                        keys_row_on(b, c, &name, &keys, &sort)?;
                        // With values the tile also holds each key's origin: a shape
                        // that fits keys alone may not fit.
                        let name = format!(
                            "sort_by_key u32 + u32 n=2^{}, {path}, tile {wg}x{kpt}",
                            log2(m)
                        );
                        if let Err(e) = pairs_row_on(b, c, &name, &keys, &sort) {
                            println!("{name}: {e}");
                        }
                    }
                }
            }
        }
    }
    b.n = n;
    Ok(())
}

/// The tile shapes of `GP_RTS_TILES` (`256x8,256x16`); none when it is not set.
fn rts_tiles() -> Vec<(u32, u32)> {
    std::env::var("GP_RTS_TILES")
        .unwrap_or_default()
        .split(',')
        .filter_map(|t| {
            let (wg, kpt) = t.split_once('x')?;
            Some((wg.trim().parse().ok()?, kpt.trim().parse().ok()?))
        })
        .collect()
}
