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
