//! Rows for the radix sorts and the runs built on them.
//!
//! A sort works in place, so each timed call sorts a fresh copy of random keys: a row's
//! time is (copy + sort) minus the copy alone, as `peers.py` times CUB. Bytes count the
//! keys (and values) read once and written once: 8 n for keys, 16 n for pairs, 12 n for
//! argsort (read keys, write indices; peers.py's figure).

use gpuprim::{GpuVec, Reduce, Result, Sort, SortAlgorithm};

use gpuprim_lab::timing::Bench;

/// The sizes of the rows "at 2^26 and at n" (CUB's reference figures are at 2^26).
pub fn sizes(n: usize) -> Vec<usize> {
    if n > 1 << 26 {
        vec![1 << 26, n]
    } else {
        vec![n]
    }
}

pub fn log2(m: usize) -> u32 {
    m.trailing_zeros()
}

pub fn rows(b: &mut Bench) -> Result<()> {
    let n = b.n;
    for m in sizes(n) {
        // (the rows' `n` in --csv / --json is this size)
        b.n = m;
        let keys = random_u32(b, m, 31)?;
        keys_row(
            b,
            &format!("sort u32 keys n=2^{}", log2(m)),
            &keys,
            &Sort::ascending(),
        )?;
        argsort_row(b, &format!("argsort u32 n=2^{}", log2(m)), &keys)?;
    }
    b.n = n;
    let keys = random_u32(b, n, 32)?;
    keys_row(
        b,
        "sort u32 keys, reduce-then-scan",
        &keys,
        &Sort::ascending().algorithm(SortAlgorithm::ReduceThenScan),
    )?;
    keys_row(b, "sort u32 keys, descending", &keys, &Sort::descending())?;
    pairs_row(b, "sort_by_key u32 + u32 values", &keys, &Sort::ascending())?;
    let small: Vec<u32> = keys.to_vec()?.iter().map(|k| k & 0xffff).collect();
    let small = b.ctx.upload(&small)?;
    keys_row(
        b,
        "sort u32 keys < 2^16, bits 0..16",
        &small,
        &Sort::ascending().bits(0..16),
    )?;
    keys_row(
        b,
        "sort u32 keys < 2^16, all 32 bits",
        &small,
        &Sort::ascending(),
    )?;
    drop(small);
    let host = keys.to_vec()?;
    drop(keys);
    let ints: Vec<i32> = host.iter().map(|&k| k as i32).collect();
    keys_row(
        b,
        "sort i32 keys",
        &b.ctx.upload(&ints)?,
        &Sort::ascending(),
    )?;
    drop(ints);
    // Uniform in [0, 1): what depth sorts see.
    let floats: Vec<f32> = host
        .iter()
        .map(|&k| (k >> 8) as f32 / (1 << 24) as f32)
        .collect();
    keys_row(
        b,
        "sort f32 keys",
        &b.ctx.upload(&floats)?,
        &Sort::ascending(),
    )?;
    drop(floats);
    runs_rows(b, &host)
}

/// The tile shapes of OneSweep's digit passes, for tuning (`sort_tiles` section).
pub fn tile_rows(b: &mut Bench) -> Result<()> {
    let n = b.n;
    let keys = random_u32(b, n, 33)?;
    let shapes = [
        (1024, 8),
        (1024, 9),
        (1024, 10),
        (1024, 11),
        (512, 8),
        (512, 15),
        (256, 12),
        (256, 15),
    ];
    for (wg, kpt) in shapes {
        let sort = Sort::ascending()
            .algorithm(SortAlgorithm::OneSweep)
            .tile(wg, kpt);
        if let Err(e) = keys_row(
            b,
            &format!("sort u32 keys, tile {wg} x {kpt}"),
            &keys,
            &sort,
        ) {
            println!("  (tile {wg} x {kpt}: {e})");
        }
    }
    for (wg, kpt) in [(1024, 8), (1024, 11), (512, 15)] {
        let sort = Sort::ascending()
            .algorithm(SortAlgorithm::OneSweep)
            .tile(wg, kpt);
        if let Err(e) = pairs_row(
            b,
            &format!("sort_by_key u32 + u32, tile {wg} x {kpt}"),
            &keys,
            &sort,
        ) {
            println!("  (tile {wg} x {kpt}: {e})");
        }
    }
    for spins in [1, 8, 256] {
        let sort = Sort::ascending().look_back_spins(spins);
        keys_row(
            b,
            &format!("sort u32 keys, look-back spins {spins}"),
            &keys,
            &sort,
        )?;
    }
    Ok(())
}

fn random_u32(b: &Bench, m: usize, seed: u64) -> Result<GpuVec<u32>> {
    random_u32_on(b.ctx, m, seed)
}

/// `m` random keys from `seed` on `ctx` (the same keys on every context).
pub fn random_u32_on(ctx: &gpuprim::Ctx, m: usize, seed: u64) -> Result<GpuVec<u32>> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let host: Vec<u32> = (0..m)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 32) as u32
        })
        .collect();
    ctx.upload(&host)
}

/// Sorts fresh copies of `pristine`; prints (copy + sort) - copy and checks the result.
fn keys_row<K: gpuprim::SortKey>(
    b: &mut Bench,
    name: &str,
    pristine: &GpuVec<K>,
    sort: &Sort,
) -> Result<()> {
    let ctx = b.ctx;
    keys_row_on(b, ctx, name, pristine, sort)
}

/// [`keys_row`] on another context (`pristine` is one of its vectors).
pub fn keys_row_on<K: gpuprim::SortKey>(
    b: &mut Bench,
    ctx: &gpuprim::Ctx,
    name: &str,
    pristine: &GpuVec<K>,
    sort: &Sort,
) -> Result<()> {
    let m = pristine.len();
    let mut work = ctx.zeros::<K>(m)?;
    // Refused shapes and options fail here, before any timing.
    work.copy_from(pristine)?;
    ctx.sort_with(&mut work, sort)?;
    let copy = b.time_on(ctx, || work.copy_from(pristine))?;
    let both = b.time_on(ctx, || {
        work.copy_from(pristine)?;
        ctx.sort_with(&mut work, sort)
    })?;
    b.print_row(name, 8 * m, both - copy);
    check_sorted(&pristine.to_vec()?, &work.to_vec()?, sort, name);
    Ok(())
}

fn pairs_row(b: &mut Bench, name: &str, pristine: &GpuVec<u32>, sort: &Sort) -> Result<()> {
    let ctx = b.ctx;
    pairs_row_on(b, ctx, name, pristine, sort)
}

/// [`pairs_row`] on another context (`pristine` is one of its vectors).
pub fn pairs_row_on(
    b: &mut Bench,
    ctx: &gpuprim::Ctx,
    name: &str,
    pristine: &GpuVec<u32>,
    sort: &Sort,
) -> Result<()> {
    let m = pristine.len();
    let values = ctx.upload(&(0..m as u32).collect::<Vec<_>>())?;
    let mut keys = ctx.zeros::<u32>(m)?;
    let mut vals = ctx.zeros::<u32>(m)?;
    let copy_both = |keys: &mut GpuVec<u32>, vals: &mut GpuVec<u32>| -> Result<()> {
        keys.copy_from(pristine)?;
        vals.copy_from(&values)
    };
    copy_both(&mut keys, &mut vals)?;
    ctx.sort_by_key_with(&mut keys, &mut vals, sort)?;
    let copy = b.time_on(ctx, || copy_both(&mut keys, &mut vals))?;
    let both = b.time_on(ctx, || {
        copy_both(&mut keys, &mut vals)?;
        ctx.sort_by_key_with(&mut keys, &mut vals, sort)
    })?;
    b.print_row(name, 16 * m, both - copy);
    // The values are the keys' indices: each must point at its key, in a stable order.
    let (host, k, v) = (pristine.to_vec()?, keys.to_vec()?, vals.to_vec()?);
    let bad = (0..m)
        .filter(|&i| host[v[i] as usize] != k[i] || (i > 0 && k[i - 1] == k[i] && v[i - 1] > v[i]))
        .count();
    check_sorted(&host, &k, sort, name);
    if bad > 0 {
        println!("  ({name}: {bad} values out of place)");
    }
    Ok(())
}

fn argsort_row(b: &mut Bench, name: &str, keys: &GpuVec<u32>) -> Result<()> {
    let ctx = b.ctx;
    let m = keys.len();
    let mut order = ctx.zeros::<u32>(m)?;
    let sort = Sort::ascending();
    b.row(name, 12 * m, || ctx.argsort_into(keys, &sort, &mut order))?;
    let (host, o) = (keys.to_vec()?, order.to_vec()?);
    let mut seen = vec![false; m];
    let mut bad = 0;
    for i in 0..m {
        let j = o[i] as usize;
        if j >= m || seen[j] || (i > 0 && host[o[i - 1] as usize] > host[j]) {
            bad += 1;
        } else {
            seen[j] = true;
        }
    }
    if bad > 0 {
        println!("  ({name}: {bad} indices wrong)");
    }
    Ok(())
}

/// Checks `sorted` is in order (ascending unless `sort` says otherwise, by the full key)
/// and holds the keys of `input` (by sum and xor of their bits).
fn check_sorted<K: gpuprim::SortKey>(input: &[K], sorted: &[K], sort: &Sort, name: &str) {
    let bits = sort.key_bits();
    let word = |k: &K| {
        let w = k.ordered_bits();
        let w = if sort.is_descending() { !w } else { w };
        ((u64::from(w) >> bits.start) & ((1u64 << (bits.end - bits.start)) - 1)) as u32
    };
    let out_of_order = sorted
        .windows(2)
        .filter(|p| word(&p[0]) > word(&p[1]))
        .count();
    let digest = |v: &[K]| {
        let words: &[u32] = bytemuck::cast_slice(v);
        words
            .iter()
            .fold((0u64, 0u32), |(s, x), &w| (s + u64::from(w), x ^ w))
    };
    if out_of_order > 0 || digest(input) != digest(sorted) {
        println!(
            "  ({name}: {out_of_order} pairs out of order; keys {})",
            if digest(input) == digest(sorted) {
                "kept"
            } else {
                "LOST"
            }
        );
    }
}

/// unique, run_length_encode and reduce_by_key over sorted keys with about 16 elements
/// per run.
fn runs_rows(b: &mut Bench, host: &[u32]) -> Result<()> {
    let ctx = b.ctx;
    let n = host.len();
    let distinct = (n as u32 / 16).max(1);
    let mut sorted: Vec<u32> = host.iter().map(|k| k % distinct).collect();
    sorted.sort_unstable();
    let runs = 1 + sorted.windows(2).filter(|p| p[0] != p[1]).count();
    println!("  (runs: {n} sorted keys, {runs} runs)");
    let keys = ctx.upload(&sorted)?;
    let values = ctx.upload(&vec![1.0f32; n])?;
    let mut out = ctx.zeros::<u32>(n)?;
    let mut lengths = ctx.zeros::<u32>(n)?;
    let mut totals = ctx.zeros::<f32>(n)?;
    let mut count = ctx.zeros::<u32>(1)?;
    b.row(
        "unique u32 (sorted, 1/16 distinct)",
        4 * n + 4 * runs,
        || ctx.unique_into(&keys, &mut out, &mut count),
    )?;
    b.row("run_length_encode u32", 4 * n + 8 * runs, || {
        ctx.run_length_encode_into(&keys, &mut out, &mut lengths, &mut count)
    })?;
    b.row("reduce_by_key u32 keys, f32 sum", 8 * n + 8 * runs, || {
        ctx.reduce_by_key_into(
            &keys,
            &values,
            Reduce::Sum,
            &mut out,
            &mut totals,
            &mut count,
        )
    })?;
    if count.to_vec()?[0] as usize != runs {
        println!(
            "  (reduce_by_key: {} runs, want {runs})",
            count.to_vec()?[0]
        );
    }
    Ok(())
}
