//! Bandwidth table: each primitive's GPU time and effective bandwidth at one size, next
//! to a copy kernel, plus the host round trip of a blocking `reduce`.
//!
//! `cargo run --release --example bandwidth -- [log2 n] [section ...]` (default 28 on a
//! GPU, 22 on the software adapter; sections: reduce, scan, sort, atomic, random, grid2d,
//! auto (`Swizzle::Auto` against linear order), latency, all by default; and sort_tiles
//! (OneSweep's tile shapes, only when named); the element-wise rows always run). Bytes count each input read once and each output written
//! once. Times are medians over rounds of back-to-back calls ended by one wait.
//! `BATCH_LIMIT=1` in the environment times every call in a submission of its own
//! (`CtxBuilder::batch_limit`; the default lets calls made while the GPU is busy share one).

mod atomic;
mod grid2d;
mod random;
mod reduce;
mod scan;
mod sort;
mod timing;

use gpuprim::{Ctx, Result};
use timing::Bench;

fn main() -> Result<()> {
    let ctx = Ctx::builder().batch_limit(timing::batch_limit()).build()?;
    let software = ctx.info().device_type == gpuprim::wgpu::DeviceType::Cpu;
    let log2: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(if software { 22 } else { 28 });
    // Sections to run (all by default): reduce, scan, sort, atomic, random, grid2d, auto,
    // latency; sort_tiles only when named.
    let sections: Vec<String> = std::env::args().skip(2).collect();
    let n = 1usize << log2;
    println!("adapter: {}", ctx.info());
    println!("n = 2^{log2} = {n}, batch limit {}", timing::batch_limit());
    let mut b = Bench::new(&ctx, n, software);
    b.header();

    // Element-wise kernels; the copy kernel (map "x") is the reference every ratio uses.
    let a = b.random_f32(1)?;
    let c = b.random_f32(2)?;
    let mut out = ctx.zeros::<f32>(n)?;
    b.reference("copy kernel f32 (map x)", 8 * n, || {
        ctx.map_into(&a, "x", &mut out)
    })?;
    b.row("map x*2+1 f32", 8 * n, || {
        ctx.map_into(&a, "x * 2.0 + 1.0", &mut out)
    })?;
    b.row("zip a+b f32", 12 * n, || {
        ctx.zip_into(&a, &c, "a + b", &mut out)
    })?;
    b.row("GpuVec::copy_from f32 (buffer copy)", 8 * n, || {
        out.copy_from(&a)
    })?;
    drop((a, c, out));

    let run = |section: &str| sections.is_empty() || sections.iter().any(|s| s == section);
    if run("reduce") {
        reduce::rows(&mut b)?;
    }
    if run("scan") {
        scan::rows(&mut b)?;
    }
    if run("sort") {
        sort::rows(&mut b)?;
    }
    if sections.iter().any(|s| s == "sort_tiles") {
        sort::tile_rows(&mut b)?;
    }
    if run("atomic") {
        atomic::rows(&mut b)?;
    }
    if run("random") {
        random::rows(&mut b)?;
    }
    if run("grid2d") {
        grid2d::rows(&mut b)?;
    }
    if run("auto") {
        grid2d::auto_rows(&mut b)?;
    }
    if run("latency") {
        reduce::latency(&mut b)?;
    }
    Ok(())
}
