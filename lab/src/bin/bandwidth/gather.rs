//! Rows for gather and scatter of f32 by u32 indices: random indices over the whole
//! source (every read a cache miss at 2^28), then in-order indices (the identity, a
//! copy through the index path), then a scatter by a random permutation. Bytes count
//! the indices read, the moved elements read once and written once (12 n). Against
//! `x.index_select(0, idx)`, `x.gather(0, idx)` and `y.index_copy_(0, perm, x)` in
//! lab/peers_next.py. Each row's output is checked against the host at a sample.

use gpuprim::{Error, Result};

use gpuprim_lab::timing::{Bench, stream_u32 as stream};

fn wrong(what: &str, i: usize) -> Error {
    Error::InvalidArgument {
        op: "bandwidth gather",
        message: format!("{what}: element {i} differs from the host's"),
    }
}

pub fn rows(b: &mut Bench) -> Result<()> {
    let (ctx, n) = (b.ctx, b.n);
    let l = n.trailing_zeros();
    let src_host: Vec<f32> = stream(n, 71).map(|r| r as f32).collect();
    let src = ctx.upload(&src_host)?;
    let mut out = ctx.zeros::<f32>(n)?;
    let random: Vec<u32> = stream(n, 72).map(|r| r % n as u32).collect();
    let identity: Vec<u32> = (0..n as u32).collect();
    for (name, host) in [("random", &random), ("in-order", &identity)] {
        let idx = ctx.upload(host)?;
        b.row(&format!("gather f32 2^{l}, {name} indices"), 12 * n, || {
            ctx.gather_into(&src, &idx, &mut out)
        })?;
        let got = out.to_vec()?;
        if let Some(i) = (0..n)
            .step_by(4099)
            .find(|&i| got[i].to_bits() != src_host[host[i] as usize].to_bits())
        {
            return Err(wrong("gather", i));
        }
    }
    drop((random, identity));
    // A permutation: i * odd mod n, a bijection for n a power of two.
    let perm: Vec<u32> = (0..n as u64)
        .map(|i| (i.wrapping_mul(0x9e37_79b1) % n as u64) as u32)
        .collect();
    let idx = ctx.upload(&perm)?;
    b.row(
        &format!("scatter f32 2^{l}, random permutation"),
        12 * n,
        || ctx.scatter(&src, &idx, &mut out),
    )?;
    let got = out.to_vec()?;
    if let Some(i) = (0..n)
        .step_by(4099)
        .find(|&i| got[perm[i] as usize].to_bits() != src_host[i].to_bits())
    {
        return Err(wrong("scatter", i));
    }
    Ok(())
}

/// Rows for scatter_add of f32 (issue 46): 2^(log2 n - 4) values (2^24 at the default
/// 2^28) by random indices into 2^10 and 2^20 bins, by atomics and in the deterministic
/// order. Bytes count the indices and values read once (8 per value; the bins stay in
/// cache). Against `out.index_add_(0, idx, v)` and `out.scatter_add_(0, idx, v)` in
/// lab/peers_next.py. Checked first on zeroed bins with small integer values, whose sums
/// are exact in any order.
pub fn scatter_rows(b: &mut Bench) -> Result<()> {
    let ctx = b.ctx;
    let m = (b.n / 16).max(1);
    let l = m.trailing_zeros();
    let r: Vec<u32> = stream(m, 73).collect();
    let values: Vec<f32> = r.iter().map(|x| (x >> 8) as f32 % 17.0 - 8.0).collect();
    let vals = ctx.upload(&values)?;
    for bins_log2 in [10u32, 20] {
        let bins = 1usize << bins_log2;
        let host: Vec<u32> = r.iter().map(|x| x % bins as u32).collect();
        let idx = ctx.upload(&host)?;
        let mut want = vec![0f32; bins];
        for (&i, &v) in host.iter().zip(&values) {
            want[i as usize] += v;
        }
        for deterministic in [false, true] {
            let how = gpuprim::ScatterReduce::new(gpuprim::ScatterOp::Sum);
            let how = if deterministic {
                how.deterministic()
            } else {
                how
            };
            let mut out = ctx.zeros::<f32>(bins)?;
            ctx.scatter_reduce(&mut out, &idx, &vals, how, None)?;
            if let Some(i) = out.to_vec()?.iter().zip(&want).position(|(a, b)| a != b) {
                return Err(wrong("scatter_add", i));
            }
            let order = if deterministic { ", sorted" } else { "" };
            b.row(
                &format!("scatter_add f32 2^{l}, 2^{bins_log2} bins{order}"),
                8 * m,
                || ctx.scatter_reduce(&mut out, &idx, &vals, how, None),
            )?;
        }
    }
    Ok(())
}
