//! Where a blocking call's round trip goes: medians of the host round trips the
//! bandwidth example's latency section prints, then a sampling profile (pprof, SIGPROF)
//! of many blocking `ctx.reduce` calls, printed as the functions that appear most often
//! in the samples' stacks (inclusive) and at their tops (self).
//!
//! `cargo run --release -p gpuprim-lab --features profile --bin latency_lab -- [log2 n]
//! [calls]` (defaults 10 and 20000).

use std::collections::HashMap;
use std::time::Instant;

use gpuprim::{Ctx, Result};

fn median_us(reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    for _ in 0..50 {
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
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let log2: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let calls: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let ctx = Ctx::new()?;
    println!("adapter: {}", ctx.info().name);
    // A GPU that has idled clocks down and takes its time to answer: keep it busy for a
    // second first, as a program in the middle of its work would (peers.py measures
    // PyTorch after its table, the bandwidth example after its rows).
    let big = ctx.zeros::<f32>(1 << 24)?;
    let mut big_out = ctx.zeros::<f32>(1 << 24)?;
    let warm = Instant::now();
    while warm.elapsed().as_millis() < 1000 {
        ctx.map_into(&big, "x + 1.0", &mut big_out)?;
        ctx.synchronize()?;
    }
    drop((big, big_out));
    let n = 1usize << log2;
    let v = ctx.upload(&vec![1.0f32; n])?;
    let one = ctx.zeros::<f32>(1)?;
    let mut out = ctx.zeros::<f32>(n)?;
    let mut sum = ctx.zeros::<f32>(1)?;
    for (name, us) in [
        (
            "reduce (blocking)",
            median_us(2000, || ctx.reduce(&v).map(drop))?,
        ),
        ("synchronize, idle", median_us(2000, || ctx.synchronize())?),
        (
            "map_into + synchronize",
            median_us(2000, || {
                ctx.map_into(&v, "x", &mut out)?;
                ctx.synchronize()
            })?,
        ),
        (
            "to_vec of 1 f32",
            median_us(2000, || one.to_vec().map(drop))?,
        ),
        (
            "reduce_into, no wait (host)",
            median_us(2000, || ctx.reduce_into(&v, &mut sum))?,
        ),
    ] {
        println!("latency n=2^{log2} {name:32} {us:8.1} us");
    }
    ctx.synchronize()?;

    let guard = pprof::ProfilerGuardBuilder::default()
        .frequency(4000)
        .build()
        .expect("the profiler starts");
    let t0 = Instant::now();
    for _ in 0..calls {
        ctx.reduce(&v)?;
    }
    let seconds = t0.elapsed().as_secs_f64();
    let report = guard.report().build().expect("a report");
    println!(
        "profiled {calls} blocking reduces of 2^{log2}: {:.1} us each",
        seconds / calls as f64 * 1e6
    );
    let mut inclusive: HashMap<String, isize> = HashMap::new();
    let mut own: HashMap<String, isize> = HashMap::new();
    let mut total = 0;
    for (frames, count) in &report.data {
        total += count;
        let names: Vec<String> = frames
            .frames
            .iter()
            .map(|f| f.first().map_or("?".to_string(), |s| short(&s.name())))
            .collect();
        if let Some(top) = names.first() {
            *own.entry(top.clone()).or_default() += count;
        }
        let mut seen = std::collections::HashSet::new();
        for name in names {
            if seen.insert(name.clone()) {
                *inclusive.entry(name).or_default() += count;
            }
        }
    }
    for (title, map) in [("inclusive", inclusive), ("self", own)] {
        let mut rows: Vec<_> = map.into_iter().collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1));
        println!("-- {title} samples of {total}");
        for (name, count) in rows.into_iter().take(45) {
            println!("{:6.1}% {name}", 100.0 * count as f64 / total as f64);
        }
    }
    Ok(())
}

/// A demangled name without its hash and generic noise, cut to 110 characters.
fn short(name: &str) -> String {
    let name = name.split("::h").next().unwrap_or(name);
    name.chars().take(110).collect()
}
