//! Rows for issue 46's wide sorts at 2^(log2 n - 2) (2^26 at the default 2^28): `sort`
//! of u64 and i64 keys next to the u32 sort of as many keys (the target: at most
//! 2.1x its time; torch.sort of int64 in lab/peers_next.py), and `sort_by_key` of u32 keys
//! with 16-byte values next to 4-byte values (target: at most 2.0x). Each row times a
//! copy and a sort of fresh copies less the copy alone, as the `sort` section does, and
//! checks the result on the host.

use gpuprim::{Error, GpuVec, Result, Sort};

use gpuprim_lab::timing::{Bench, stream_u32 as stream};

fn wrong(what: &str) -> Error {
    Error::InvalidArgument {
        op: "bandwidth wide_sort",
        message: format!("{what}: the result differs from the host's"),
    }
}

pub fn rows(b: &mut Bench) -> Result<()> {
    let ctx = b.ctx;
    let m = (b.n / 4).max(1);
    let l = m.trailing_zeros();
    let words: Vec<u32> = stream(2 * m, 91).collect();
    let narrow = ctx.upload(&words[..m])?;
    crate::sort::keys_row_on(
        b,
        ctx,
        &format!("sort u32 keys 2^{l}"),
        &narrow,
        &Sort::ascending(),
    )?;
    let host: Vec<u64> = (0..m)
        .map(|i| u64::from(words[2 * i]) << 32 | u64::from(words[2 * i + 1]))
        .collect();
    let mut want = host.clone();
    want.sort_unstable();
    keys64_row(
        b,
        &format!("sort u64 keys 2^{l}"),
        &ctx.upload(&host)?,
        &Sort::ascending(),
        &want,
    )?;
    let signed: Vec<i64> = host.iter().map(|&k| k as i64).collect();
    let mut want_signed = signed.clone();
    want_signed.sort_unstable();
    keys64_row(
        b,
        &format!("sort i64 keys 2^{l}"),
        &ctx.upload(&signed)?,
        &Sort::ascending(),
        &want_signed,
    )?;
    // Keys below 2^32: the high word is skipped by bits 0..32.
    let low: Vec<u64> = host.iter().map(|&k| k & 0xffff_ffff).collect();
    let mut want_low = low.clone();
    want_low.sort_unstable();
    let name = format!("sort u64 keys < 2^32 2^{l}, bits 0..32");
    let sort = Sort::ascending().bits(0..32);
    keys64_row(b, &name, &ctx.upload(&low)?, &sort, &want_low)?;

    crate::sort::pairs_row_on(
        b,
        ctx,
        &format!("sort_by_key u32 + u32 2^{l}"),
        &narrow,
        &Sort::ascending(),
    )?;
    let records: Vec<[u32; 4]> = (0..m as u32).map(|i| [i, !i, i ^ 0x5555, 7]).collect();
    let pristine_values = ctx.upload(&records)?;
    let mut keys = ctx.zeros::<u32>(m)?;
    let mut values = ctx.zeros::<[u32; 4]>(m)?;
    let copy_both = |k: &mut GpuVec<u32>, v: &mut GpuVec<[u32; 4]>| -> Result<()> {
        k.copy_from(&narrow)?;
        v.copy_from(&pristine_values)
    };
    let copy = b.time_on(ctx, || copy_both(&mut keys, &mut values))?;
    let both = b.time_on(ctx, || {
        copy_both(&mut keys, &mut values)?;
        ctx.sort_by_key(&mut keys, &mut values)
    })?;
    b.print_row(
        &format!("sort_by_key u32 + [u32; 4] 2^{l}"),
        40 * m,
        both - copy,
    );
    let (k, v) = (keys.to_vec()?, values.to_vec()?);
    let host_keys = &words[..m];
    let bad = (0..m).any(|i| {
        host_keys[v[i][0] as usize] != k[i]
            || records[v[i][0] as usize] != v[i]
            || (i > 0 && (k[i - 1] > k[i] || (k[i - 1] == k[i] && v[i - 1][0] > v[i][0])))
    });
    if bad {
        return Err(wrong("sort_by_key u32 + [u32; 4]"));
    }
    Ok(())
}

/// Times copy + sort by `sort` of fresh copies of `pristine`, less the copy, and checks
/// the result.
fn keys64_row<K: gpuprim::RadixKey + PartialEq>(
    b: &mut Bench,
    name: &str,
    pristine: &GpuVec<K>,
    sort: &Sort,
    want: &[K],
) -> Result<()> {
    let ctx = b.ctx;
    let mut work = ctx.zeros::<K>(pristine.len())?;
    work.copy_from(pristine)?;
    ctx.sort_with(&mut work, sort)?;
    let copy = b.time_on(ctx, || work.copy_from(pristine))?;
    let both = b.time_on(ctx, || {
        work.copy_from(pristine)?;
        ctx.sort_with(&mut work, sort)
    })?;
    b.print_row(name, 16 * pristine.len(), both - copy);
    if work.to_vec()? != want {
        return Err(wrong(name));
    }
    Ok(())
}
