//! Run 61's probe of gpuprim-burn's argsort of 4096 rows of 4096 (issue 47): raw `argsort_rows`,
//! gpuprim-burn's argsort (with `probe47-lib.patch` applied to `integrations/burn/src/lib.rs`
//! and `GPUPRIM_BURN_PROBE` set, each phase between two device syncs, and GPU time per
//! primitive from a profiling context), results dropped or kept, after Burn's own argsort.
//! Build: copy into `integrations/burn/examples/`, `cargo build --release --example probe47`.

use std::time::Instant;

use burn::tensor::{Tensor, TensorData};
use gpuprim::Grid2D;
use gpuprim_burn::BurnGpu;

fn settle(gpu: &BurnGpu) {
    gpu.device().sync().expect("sync");
    gpu.ctx().synchronize().expect("synchronize");
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = BurnGpu::new()?;
    let log2: u32 = std::env::args().nth(1).map(|a| a.parse().unwrap()).unwrap_or(24);
    let n = 1usize << log2;
    let side = 1usize << (log2 / 2);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let values: Vec<f32> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect();
    let t = Tensor::<1>::from_data(TensorData::new(values.clone(), [n]), gpu.device());
    let m = t.clone().reshape([n / side, side]);
    if std::env::var_os("PROBE_EXAMPLE").is_some() {
        return example_sequence(&gpu, &t, &m);
    }
    let probing = std::env::var_os("GPUPRIM_BURN_PROBE").is_some();
    let profile = |what: &str| {
        if probing {
            match gpu.ctx().profile() {
                Ok(p) => println!("-- GPU profile {what}\n{p}"),
                Err(e) => println!("-- profile {what}: {e}"),
            }
        }
    };
    let ctx = gpu.ctx();
    let keys = ctx.upload(&values)?;
    let grid = Grid2D::new(&keys, side as u32, (n / side) as u32)?;
    // A: raw row kernel, 8 timed
    for i in 0..8 {
        let s = Instant::now();
        let r = ctx.argsort_rows(&grid)?;
        settle(&gpu);
        println!("A raw argsort_rows #{i}: {:.3} ms", ms(s));
        drop(r);
    }
    profile("A");
    // B: gpuprim-burn argsort, 8 timed
    for i in 0..8 {
        let s = Instant::now();
        let r = gpu.argsort(m.clone(), 1, false)?;
        settle(&gpu);
        println!("B gpuprim-burn argsort #{i}: {:.3} ms", ms(s));
        drop(r);
    }
    profile("B");
    // C: gpuprim-burn argsort keeping results alive (no drop inside the loop)
    let mut kept = Vec::new();
    for i in 0..4 {
        let s = Instant::now();
        kept.push(gpu.argsort(m.clone(), 1, false)?);
        settle(&gpu);
        println!("C argsort, results kept #{i}: {:.3} ms", ms(s));
    }
    drop(kept);
    profile("C");
    // D: gpuprim-burn sort with values (sort_rows_by_key path) and topk for contrast
    for i in 0..4 {
        let s = Instant::now();
        let r = gpu.sort(m.clone(), 1, false)?;
        settle(&gpu);
        println!("D gpuprim-burn sort rows #{i}: {:.3} ms", ms(s));
        drop(r);
    }
    profile("D");
    // E: after Burn's own argsort on the host, as the example does
    let s = Instant::now();
    let b = m.clone().argsort(1);
    settle(&gpu);
    println!("E Burn argsort: {:.3} ms", ms(s));
    drop(b);
    for i in 0..6 {
        let s = Instant::now();
        let r = gpu.argsort(m.clone(), 1, false)?;
        settle(&gpu);
        println!("E gpuprim-burn argsort #{i}: {:.3} ms", ms(s));
        drop(r);
    }
    profile("E");
    for i in 0..4 {
        let s = Instant::now();
        let r = ctx.argsort_rows(&grid)?;
        settle(&gpu);
        println!("F raw argsort_rows #{i}: {:.3} ms", ms(s));
        drop(r);
    }
    profile("F");
    Ok(())
}

/// The example's sequence: Burn's sort on the host, ours (200 ms warm-up, five timed), then
/// Burn's argsort on the host and ours the same way, each timed run's phases printed.
fn example_sequence(
    gpu: &BurnGpu,
    t: &Tensor<1>,
    m: &Tensor<2>,
) -> Result<(), Box<dyn std::error::Error>> {
    let median = |what: &str, f: &dyn Fn()| {
        let start = Instant::now();
        let mut warm = 0;
        while start.elapsed().as_millis() < 200 {
            f();
            settle(gpu);
            warm += 1;
        }
        println!("{what}: {warm} warm-up calls");
        if std::env::var_os("PROBE_QUIET").is_none() {
            unsafe { std::env::set_var("GPUPRIM_BURN_PROBE", "1") };
        }
        for i in 0..5 {
            let s = Instant::now();
            f();
            settle(gpu);
            println!("{what} #{i}: {:.3} ms", ms(s));
        }
        unsafe { std::env::remove_var("GPUPRIM_BURN_PROBE") };
    };
    // PROBE_EXAMPLE=keep: as the example, Burn's call twice and its result kept.
    let keep = std::env::var("PROBE_EXAMPLE").as_deref() == Ok("keep");
    if keep {
        drop(t.clone().sort(0));
        settle(gpu);
    }
    let s = Instant::now();
    let burn_sorted = t.clone().sort(0);
    settle(gpu);
    println!("Burn sort: {:.3} ms", ms(s));
    if !keep {
        drop(burn_sorted);
    }
    median("ours sort 1 row", &|| drop(gpu.sort(t.clone(), 0, false).unwrap()));
    if keep {
        drop(m.clone().argsort(1));
        settle(gpu);
    }
    let s = Instant::now();
    let burn_order = m.clone().argsort(1);
    settle(gpu);
    println!("Burn argsort: {:.3} ms", ms(s));
    if !keep {
        drop(burn_order);
    }
    median("ours argsort rows", &|| drop(gpu.argsort(m.clone(), 1, false).unwrap()));
    median("ours argsort rows again", &|| drop(gpu.argsort(m.clone(), 1, false).unwrap()));
    Ok(())
}
