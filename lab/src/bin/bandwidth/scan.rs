//! Rows for prefix scans and stream compaction.

use gpuprim::{Ctx, GpuVec, Result, Scan, ScanAlgorithm, ScanOp};

use gpuprim_lab::timing::Bench;

pub fn rows(b: &mut Bench) -> Result<()> {
    let (ctx, n) = (b.ctx, b.n);
    let a = b.random_f32(6)?;
    let u = b.random_u32(7)?;
    let mut out = ctx.zeros::<f32>(n)?;
    let mut out_u = ctx.zeros::<u32>(n)?;
    let single = |s: Scan<f32>| s.algorithm(ScanAlgorithm::SinglePass);
    let rts = |s: Scan<f32>| s.algorithm(ScanAlgorithm::ReduceThenScan);
    let sum = Scan::inclusive(ScanOp::Sum);
    b.row("scan f32 inclusive, single pass", 8 * n, || {
        ctx.scan_with_into(&a, &single(sum.clone()), &mut out)
    })?;
    b.row("scan f32 inclusive, reduce-then-scan", 8 * n, || {
        ctx.scan_with_into(&a, &rts(sum.clone()), &mut out)
    })?;
    b.row("scan f32 exclusive, single pass", 8 * n, || {
        ctx.scan_with_into(&a, &single(Scan::exclusive(ScanOp::Sum)), &mut out)
    })?;
    b.row("scan u32 inclusive, single pass", 8 * n, || {
        ctx.scan_with_into(
            &u,
            &Scan::inclusive(ScanOp::Sum).algorithm(ScanAlgorithm::SinglePass),
            &mut out_u,
        )
    })?;
    check_u32(&u, &out_u, "single pass")?;
    ctx.scan_with_into(
        &u,
        &Scan::inclusive(ScanOp::Sum).algorithm(ScanAlgorithm::ReduceThenScan),
        &mut out_u,
    )?;
    check_u32(&u, &out_u, "reduce-then-scan")?;
    b.row("scan f32 running max, single pass", 8 * n, || {
        ctx.scan_with_into(&a, &single(Scan::inclusive(ScanOp::Max)), &mut out)
    })?;
    if ctx.has_features(gpuprim::wgpu::Features::SUBGROUP) {
        let tree = Ctx::builder()
            .batch_limit(gpuprim_lab::timing::batch_limit())
            .without_features(gpuprim::wgpu::Features::SUBGROUP)
            .build()?;
        let ta = tree.upload(&a.to_vec()?)?;
        let mut tout = tree.zeros::<f32>(n)?;
        b.row_on(
            &tree,
            "scan f32 single pass without subgroups",
            8 * n,
            || tree.scan_with_into(&ta, &single(sum.clone()), &mut tout),
        )?;
    }
    // Compaction of uniform [0, 1) values at 50% selectivity: read n, write n / 2.
    let mut count = ctx.zeros::<u32>(1)?;
    let kept = ctx.compact(&a, "x < 0.5")?.len();
    println!(
        "  (compaction keeps {kept} of {n}: {:.1}%; Auto uses {:?})",
        100.0 * kept as f64 / n as f64,
        ctx.scan_algorithm()
    );
    b.row("compact f32 (x < 0.5), 50% kept", 4 * n + 4 * kept, || {
        ctx.compact_into(&a, "x < 0.5", &mut out, &mut count)
    })?;
    b.row("compact_indices f32 (x < 0.5)", 4 * n + 4 * kept, || {
        ctx.compact_indices_into(&a, "x < 0.5", &mut out_u, &mut count)
    })?;
    // Partition (issue 46): every element is written, kept ones first; read n, write n.
    b.row("partition f32 (x < 0.5), 50% kept", 8 * n, || {
        ctx.partition_into(&a, "x < 0.5", &mut out, &mut count)
    })?;
    let host = a.to_vec()?;
    let got = out.to_vec()?;
    let want = host
        .iter()
        .filter(|&&x| x < 0.5)
        .chain(host.iter().filter(|&&x| x >= 0.5));
    if let Some(i) = got
        .iter()
        .zip(want)
        .position(|(g, w)| g.to_bits() != w.to_bits())
    {
        return Err(gpuprim::Error::InvalidArgument {
            op: "bandwidth partition",
            message: format!("element {i} differs from the host's"),
        });
    }
    Ok(())
}

/// The timed u32 scan must match the CPU's wrapping scan in every element.
fn check_u32(input: &GpuVec<u32>, output: &GpuVec<u32>, what: &str) -> Result<()> {
    let (x, y) = (input.to_vec()?, output.to_vec()?);
    let mut acc = 0u32;
    let bad = x
        .iter()
        .zip(&y)
        .filter(|&(&xi, &yi)| {
            acc = acc.wrapping_add(xi);
            acc != yi
        })
        .count();
    println!(
        "  (u32 scan, {what}: {bad} of {} elements differ from the CPU)",
        x.len()
    );
    Ok(())
}
