//! What the exit tests' contexts do: the calls of the issue that found the crash at exit
//! (reduce, scan, sort, compact, map, histogram on 20 000 to 70 000 `u32`), each checked
//! against the CPU.

use gpuprim::Ctx;

/// A small xorshift, so the binaries need no test dependencies.
pub fn random_u32(len: usize, seed: u64) -> Vec<u32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 16) as u32
        })
        .collect()
}

/// One round of the calls on `ctx`, `len` elements, results checked; `Err` names the
/// first call that was wrong or failed.
pub fn round(ctx: &Ctx, len: usize, seed: u64) -> Result<(), String> {
    let h = random_u32(len, seed);
    let v = ctx.upload(&h).map_err(|e| format!("upload: {e}"))?;
    let check = |what: &str, ok: bool| {
        if ok {
            Ok(())
        } else {
            Err(format!("{what} was wrong"))
        }
    };
    let sum = ctx.reduce(&v).map_err(|e| format!("reduce: {e}"))?;
    check(
        "reduce",
        sum == h.iter().fold(0u32, |a, &b| a.wrapping_add(b)),
    )?;
    let scanned = ctx
        .scan(&v)
        .and_then(|s| s.to_vec())
        .map_err(|e| format!("scan: {e}"))?;
    let mut acc = 0u32;
    let want: Vec<u32> = h
        .iter()
        .map(|&x| {
            acc = acc.wrapping_add(x);
            acc
        })
        .collect();
    check("scan", scanned == want)?;
    let mut keys = v.try_clone().map_err(|e| format!("try_clone: {e}"))?;
    ctx.sort(&mut keys).map_err(|e| format!("sort: {e}"))?;
    let mut sorted = h.clone();
    sorted.sort_unstable();
    check(
        "sort",
        keys.to_vec().map_err(|e| format!("sort: {e}"))? == sorted,
    )?;
    let kept = ctx
        .compact(&v, "(x & 3u) == 1u")
        .and_then(|k| k.to_vec())
        .map_err(|e| format!("compact: {e}"))?;
    let want: Vec<u32> = h.iter().copied().filter(|x| x & 3 == 1).collect();
    check("compact", kept == want)?;
    let mapped = ctx
        .map(&v, "x * 3u + 1u")
        .and_then(|m| m.to_vec())
        .map_err(|e| format!("map: {e}"))?;
    check(
        "map",
        mapped
            .iter()
            .zip(&h)
            .all(|(m, x)| *m == x.wrapping_mul(3).wrapping_add(1)),
    )?;
    let small = ctx.map(&v, "x % 64u").map_err(|e| format!("map: {e}"))?;
    let bins = ctx
        .histogram(&small, 64)
        .map_err(|e| format!("histogram: {e}"))?;
    let mut want = vec![0u32; 64];
    for x in &h {
        want[(x % 64) as usize] += 1;
    }
    check("histogram", bins == want)
}
