//! Rows for the segmented and per-row sorts (issue 45's shapes): `sort_rows_by_key` of
//! f32 rows with their column indices as values (what `torch.sort(dim=-1)` returns: values
//! and indices) for rows of 4096 to 16, by the tuning's way and by each way forced,
//! `argsort_rows`, and `segmented_sort` of u32 keys in segments of random lengths 1..2^16
//! next to `sort` of the same keys.
//!
//! The calls work in place, so each timed call sorts fresh copies: a row's time is
//! (copies + sort) minus the copies alone, as the sort rows do. Bytes: 12 per key for rows
//! with indices (read the keys, write keys and indices, as peers_next.py counts torch),
//! 8 per key for keys alone.

use gpuprim::{GpuVec, Grid2D, Grid2DMut, Result, Sort};

use gpuprim_lab::timing::Bench;

pub fn rows(b: &mut Bench) -> Result<()> {
    let ctx = b.ctx;
    let n = b.n;
    // The rows' shapes at 2^24 keys (2^20 on a CPU adapter's default n).
    let m = n.min(1 << 24);
    // (the rows' `n` in --csv / --json is their size)
    b.n = m;
    let pristine = b.random_f32(41)?;
    for width in [4096usize, 2048, 1024, 512, 256, 16] {
        let height = m / width;
        let (w, h) = (width as u32, height as u32);
        let columns: Vec<u32> = (0..m as u32).map(|i| i % w).collect();
        let columns = ctx.upload(&columns)?;
        let mut k = ctx.zeros::<f32>(m)?;
        let mut v = ctx.zeros::<u32>(m)?;
        let copies = b.time_on(ctx, || {
            k.copy_from(&pristine)?;
            v.copy_from(&columns)
        })?;
        // The tuning's way, then each way forced (rows by the network, by the radix sort).
        for (way, sort) in [
            ("", Sort::ascending()),
            (" (network)", Sort::ascending().rows_by_network()),
            (" (radix)", Sort::ascending().rows_by_radix()),
        ] {
            let both = b.time_on(ctx, || {
                k.copy_from(&pristine)?;
                v.copy_from(&columns)?;
                ctx.sort_rows_by_key_with(
                    &mut Grid2DMut::new(&mut k, w, h)?,
                    &mut Grid2DMut::new(&mut v, w, h)?,
                    &sort,
                )
            })?;
            b.print_row(
                &format!("sort_rows f32 + indices {height} x {width}{way}"),
                12 * m,
                both - copies,
            );
            check_rows(&pristine, &k, &v, width);
        }
        let mut order = ctx.zeros::<u32>(m)?;
        b.row(
            &format!("argsort_rows f32 {height} x {width}"),
            8 * m,
            || {
                ctx.argsort_rows_into(
                    &Grid2D::new(&pristine, w, h)?,
                    &Sort::ascending(),
                    &mut order,
                )
            },
        )?;
    }
    drop(pristine);
    // Segments of random lengths 1..2^16 over 2^26 keys (n on a CPU adapter).
    let m = n.min(1 << 26);
    b.n = m;
    let keys = b.random_u32(42)?;
    let mut offsets = vec![0u32];
    let mut s = 0x2545_f491_4f6c_dd1du64;
    while (*offsets.last().unwrap() as usize) < m {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let len = 1 + (s >> 48) as u32; // 1..=2^16
        offsets.push((offsets.last().unwrap() + len).min(m as u32));
    }
    let segments = offsets.len() - 1;
    let offsets = ctx.upload(&offsets)?;
    let mut work = ctx.zeros::<u32>(m)?;
    let copy = b.time_on(ctx, || work.copy_from(&keys))?;
    let seg = b.time_on(ctx, || {
        work.copy_from(&keys)?;
        ctx.segmented_sort(&mut work, &offsets)
    })?;
    b.print_row(
        &format!(
            "segmented_sort u32 2^{} keys, {segments} segments 1..2^16",
            m.trailing_zeros()
        ),
        8 * m,
        seg - copy,
    );
    let whole = b.time_on(ctx, || {
        work.copy_from(&keys)?;
        ctx.sort(&mut work)
    })?;
    b.print_row(
        &format!("sort u32 2^{} keys (the same keys)", m.trailing_zeros()),
        8 * m,
        whole - copy,
    );
    println!(
        "  (segmented_sort / sort of the same keys: {:.2}x the time)",
        (seg - copy) / (whole - copy)
    );
    b.n = n;
    Ok(())
}

/// That each row of `k` is the sorted row of `pristine` and `v` its columns (on the host).
fn check_rows(pristine: &GpuVec<f32>, k: &GpuVec<f32>, v: &GpuVec<u32>, width: usize) {
    let (Ok(p), Ok(k), Ok(v)) = (pristine.to_vec(), k.to_vec(), v.to_vec()) else {
        return;
    };
    let ok = p
        .chunks(width)
        .zip(k.chunks(width))
        .zip(v.chunks(width))
        .all(|((p, k), v)| {
            k.windows(2).all(|w| w[0].total_cmp(&w[1]).is_le())
                && v.iter()
                    .zip(k)
                    .all(|(&i, &x)| p[i as usize].to_bits() == x.to_bits())
        });
    let verdict = if ok { "are" } else { "are NOT" };
    println!("  (rows of {width}: the results {verdict} the sorted rows and their columns)");
}
