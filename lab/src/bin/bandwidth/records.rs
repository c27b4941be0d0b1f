//! Rows for issue 46's calls built on the sort and the searches: `unique_with` (sorted
//! values, inverse and counts) of 2^(log2 n - 4) random u32 over 2^20 values (2^24 at the
//! default 2^28); `merge` of two sorted halves of 2^(log2 n - 2) u32 (2^26), next to the
//! sort of the same keys concatenated (the target: the merge 3x faster);
//! `random_permutation` of 2^(log2 n - 4). unique_with and random_permutation block (they
//! read a count back, as torch.unique does), so their rows include that round trip.
//! Against `torch.unique(..., return_inverse=True, return_counts=True)` and
//! `torch.randperm` in lab/peers_next.py. Each result is checked against the host.

use gpuprim::{Error, Result, Sort};

use gpuprim_lab::timing::{Bench, stream_u32 as stream};

fn wrong(what: &str, i: usize) -> Error {
    Error::InvalidArgument {
        op: "bandwidth records",
        message: format!("{what}: element {i} differs from the host's"),
    }
}

pub fn rows(b: &mut Bench) -> Result<()> {
    let ctx = b.ctx;
    let n = b.n;
    let m = (n / 16).max(1);
    let l = m.trailing_zeros();
    let host: Vec<u32> = stream(m, 81).map(|x| x % (1 << 20)).collect();
    let v = ctx.upload(&host)?;
    let (values, inverse, counts) = ctx.unique_with(&v)?;
    let (values, inverse) = (values.to_vec()?, inverse.to_vec()?);
    if let Some(i) = (0..m).find(|&i| values[inverse[i] as usize] != host[i]) {
        return Err(wrong("unique_with", i));
    }
    let counted: u64 = counts.to_vec()?.iter().map(|&c| u64::from(c)).sum();
    if counted != m as u64 {
        return Err(wrong("unique_with counts", 0));
    }
    b.row(
        &format!("unique_with u32 2^{l} (inverse, counts)"),
        8 * m,
        || ctx.unique_with(&v).map(|_| ()),
    )?;

    let half = (n / 8).max(1);
    let lh = half.trailing_zeros();
    let mut a: Vec<u32> = stream(half, 82).collect();
    let mut c: Vec<u32> = stream(half, 83).collect();
    a.sort_unstable();
    c.sort_unstable();
    let (ga, gc) = (ctx.upload(&a)?, ctx.upload(&c)?);
    let merged = ctx.merge(&ga, &gc)?.to_vec()?;
    if let Some(i) = merged.windows(2).position(|p| p[0] > p[1]) {
        return Err(wrong("merge", i));
    }
    b.row(
        &format!("merge u32 2 x 2^{lh} (sorted halves)"),
        16 * half,
        || ctx.merge(&ga, &gc).map(|_| ()),
    )?;
    let mut out = ctx.zeros::<u32>(2 * half)?;
    b.row(
        &format!("merge_into u32 2 x 2^{lh} (sorted halves)"),
        16 * half,
        || ctx.merge_into(&ga, &gc, &mut out),
    )?;
    if out.to_vec()? != merged {
        return Err(wrong("merge_into", 0));
    }
    let mut both = a;
    both.extend(&c);
    let both = ctx.upload(&both)?;
    crate::sort::keys_row_on(
        b,
        ctx,
        &format!("sort u32 of the concatenation, 2^{}", lh + 1),
        &both,
        &Sort::ascending(),
    )?;

    // What a call that returns a new vector pays for it: allocating and zeroing.
    b.row(
        &format!("zeros u32 2^{} (a new vector)", lh + 1),
        8 * half,
        || ctx.zeros::<u32>(2 * half).map(|_| ()),
    )?;

    let p = ctx.random_permutation(m, 5)?.to_vec()?;
    let mut seen = vec![false; m];
    for (i, &x) in p.iter().enumerate() {
        if std::mem::replace(&mut seen[x as usize], true) {
            return Err(wrong("random_permutation", i));
        }
    }
    b.row(&format!("random_permutation 2^{l}"), 4 * m, || {
        ctx.random_permutation(m, 5).map(|_| ())
    })?;
    Ok(())
}
