//! Out of memory on a real device: allocate 1 GiB vectors until the device refuses,
//! check that the refusal is `Error::OutOfMemory` and that the context still works
//! (a held call made before the refusal runs, freed memory can be allocated again).
//! Then the same with `CtxBuilder::memory_budget(50)`, where the driver reports a budget
//! (Vulkan with `VK_EXT_memory_budget`): refused near half of it.
//!
//! `cargo run --release --example oom`
//!
//! On a software adapter this allocates host memory without limit: run it on a GPU
//! (`tests/faults.rs` causes the same error on the software adapter under `ulimit -v`).

use gpuprim::{Ctx, Error, GpuVec};

/// Elements per vector: 2^28 u32, 1 GiB.
const CHUNK: usize = 1 << 28;

fn fill(ctx: &Ctx, label: &str) -> Result<(), Error> {
    let host: Vec<u32> = (0..1_000_000u32)
        .map(|i| i.wrapping_mul(2654435761))
        .collect();
    let a = ctx.upload(&host)?;
    let mut out = ctx.zeros::<u32>(host.len())?;
    ctx.map_into(&a, "x + 1u", &mut out)?; // compiled before the memory runs out
    ctx.synchronize()?;
    ctx.map_into(&a, "x + 1u", &mut out)?; // may be held until the read-back below
    let start = std::time::Instant::now();
    let mut kept: Vec<GpuVec<u32>> = Vec::new();
    let refused = loop {
        match ctx.zeros::<u32>(CHUNK) {
            Ok(v) => kept.push(v),
            Err(e) => break e,
        }
        if kept.len() >= 4096 {
            println!("{label}: 4 TiB allocated and never refused; stopping");
            return Ok(());
        }
    };
    println!(
        "{label}: refused after {} x 1 GiB ({:.1} s): {refused}",
        kept.len(),
        start.elapsed().as_secs_f64()
    );
    let is_oom = matches!(refused, Error::OutOfMemory { .. });
    println!("{label}: the refusal is Error::OutOfMemory: {is_oom}");
    let want: Vec<u32> = host.iter().map(|x| x.wrapping_add(1)).collect();
    let held_ok = out.to_vec()? == want;
    kept.truncate(kept.len() / 2);
    let again = ctx.zeros::<u32>(CHUNK).is_ok();
    let sum = ctx.reduce(&ctx.map(&a, "x + 1u")?)?;
    let sum_ok = sum == want.iter().fold(0u32, |s, &x| s.wrapping_add(x));
    println!(
        "{label}: held call correct: {held_ok}; 1 GiB again after freeing half: {again}; \
         map + reduce correct: {sum_ok}"
    );
    if !(is_oom && held_ok && again && sum_ok) {
        std::process::exit(1);
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    let ctx = Ctx::new()?;
    println!("adapter: {}", ctx.info());
    fill(&ctx, "device memory")?;
    drop(ctx);
    let ctx = Ctx::builder().memory_budget(50).build()?;
    fill(&ctx, "memory_budget(50)")?;
    Ok(())
}
