//! sort_lab: GPU time of one sort call (the profiler's first to last timestamp: the median
//! of 40 after 0.8 s of warm-up), and whether the result matches the CPU's sort; for
//! issue #19's experiments (lab/perf-journal.md, runs S1-S5).
//!
//! `sort_lab LOG2N [pairs]`, with `GP_SORT_TILE=1024x10` (OneSweep's tile: invocations x
//! keys per invocation), `GP_SORT_KEYS=small16|few|unit` (keys below 2^16, below 16, or
//! the bits of f32 values uniform in [0, 1); default: uniform 32-bit keys),
//! `GP_SORT_SPINS` (the look-back's probes before its fallback), `GP_SORT_BITS=24..32`
//! (the key bits sorted by) and `GP_SORT_PEERS=ballots` (the digit pass's peers by
//! ballots where it would use its tables).

use gpuprim::{Ctx, Result, Sort};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let log2: u32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(26);
    let pairs = args.iter().any(|a| a == "pairs");
    let n = 1usize << log2;
    let ctx = Ctx::builder().profiling(true).build()?;
    let flavor = std::env::var("GP_SORT_KEYS").unwrap_or_default();
    let shift = match flavor.as_str() {
        "small16" => 16,
        "few" => 28,
        _ => 0,
    };
    let mut s = 0x9E3779B97F4A7C15u64;
    let host: Vec<u32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if flavor == "unit" {
                // the bits of f32 values uniform in [0, 1) (as u32 keys: the same order)
                ((s >> 40) as f32 / (1u32 << 24) as f32).to_bits()
            } else {
                (s >> 32) as u32 >> shift
            }
        })
        .collect();
    let pristine = ctx.upload(&host)?;
    let mut keys = ctx.zeros::<u32>(n)?;
    let ids = ctx.upload(&(0..n as u32).collect::<Vec<_>>())?;
    let mut vals = ctx.zeros::<u32>(n)?;
    let mut sort = Sort::ascending();
    if let Ok(spins) = std::env::var("GP_SORT_SPINS") {
        sort = sort.look_back_spins(spins.parse().expect("GP_SORT_SPINS: a number"));
    }
    let mut bits = 0..32u32;
    if let Ok(b) = std::env::var("GP_SORT_BITS") {
        let (lo, hi) = b.split_once("..").expect("GP_SORT_BITS: LO..HI");
        bits = lo.parse().unwrap()..hi.parse().unwrap();
        sort = sort.bits(bits.clone());
    }
    if std::env::var("GP_SORT_PEERS").as_deref() == Ok("ballots") {
        sort = sort.ballot_peers();
    }
    if let Ok(t) = std::env::var("GP_SORT_TILE") {
        let (w, k) = t.split_once('x').expect("WGxKPT");
        sort = sort.tile(w.parse().unwrap(), k.parse().unwrap());
    }
    let once = |keys: &mut gpuprim::GpuVec<u32>, vals: &mut gpuprim::GpuVec<u32>| -> Result<()> {
        keys.copy_from(&pristine)?;
        if pairs {
            vals.copy_from(&ids)?;
            ctx.sort_by_key_with(keys, vals, &sort)
        } else {
            ctx.sort_with(keys, &sort)
        }
    };
    let warm = std::time::Instant::now();
    while warm.elapsed().as_millis() < 800 {
        once(&mut keys, &mut vals)?;
        ctx.synchronize()?;
    }
    let _ = ctx.profile()?;
    for _ in 0..40 {
        once(&mut keys, &mut vals)?;
    }
    ctx.synchronize()?;
    let mut ms: Vec<f64> = (ctx.profile()?.calls.into_iter())
        .filter(|c| c.name.starts_with("sort"))
        .filter_map(|c| c.gpu_ms)
        .collect();
    ms.sort_by(f64::total_cmp);
    let got = keys.to_vec()?;
    let mut want = host.clone();
    // stable, by the sorted bits only
    let width = bits.end - bits.start;
    let mask = if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    };
    want.sort_by_key(|&k| (k.checked_shr(bits.start).unwrap_or(0)) & mask);
    let ok = got == want;
    println!(
        "keys={:>7} tile={:>7} bits={:?} peers={} n=2^{log2}{} median {:.4} ms min {:.4} max {:.4} ({} calls) sorted={}",
        std::env::var("GP_SORT_KEYS").unwrap_or_default(),
        std::env::var("GP_SORT_TILE").unwrap_or_default(),
        bits,
        std::env::var("GP_SORT_PEERS").unwrap_or_default(),
        if pairs { " pairs" } else { "" },
        ms[ms.len() / 2],
        ms[0],
        ms[ms.len() - 1],
        ms.len(),
        ok
    );
    Ok(())
}
