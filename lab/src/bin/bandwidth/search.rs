//! Rows for lower_bound and upper_bound: m = min(n, 2^24) random queries in a sorted
//! table of m elements (the size torch.searchsorted is compared at), then sorted
//! queries (neighbours take the same path), then a table of n elements. Bytes count the
//! queries read and the answers written once (8 m); the table's reads are the search's
//! own cost. Each row's answers are checked against the host at a sample of queries.
//!
//! `order_rows` (section `search_order`, only when named): random and sorted queries,
//! searched where they stand and bucketed (grouped by table range first), over table
//! and query sizes, to place the automatic choice between the two.

use gpuprim::{GpuVec, Result, SortKey};

use gpuprim_lab::timing::{Bench, stream_u32 as stream};

/// A sorted u32 table spread over the whole range: element i is i * 2^32 / len plus a
/// random step below the spacing (no host sort needed at 2^28).
fn sorted_u32(len: usize, seed: u64) -> Vec<u32> {
    let spacing = ((1u64 << 32) / len as u64).max(1);
    stream(len, seed)
        .enumerate()
        .map(|(i, r)| (i as u64 * spacing + u64::from(r) % spacing) as u32)
        .collect()
}

fn log2(m: usize) -> u32 {
    m.trailing_zeros()
}

pub fn rows(b: &mut Bench) -> Result<()> {
    let (ctx, n) = (b.ctx, b.n);
    let m = n.min(1 << 24);
    b.n = m;
    let table_host = sorted_u32(m, 51);
    let table = ctx.upload(&table_host)?;
    let mut queries_host: Vec<u32> = stream(m, 52).collect();
    let queries = ctx.upload(&queries_host)?;
    let mut out = ctx.zeros::<u32>(m)?;
    let l = log2(m);
    row(
        b,
        &format!("lower_bound u32, 2^{l} random queries, table 2^{l}"),
        (&table, &table_host),
        (&queries, &queries_host),
        &mut out,
        false,
    )?;
    row(
        b,
        &format!("upper_bound u32, 2^{l} random queries, table 2^{l}"),
        (&table, &table_host),
        (&queries, &queries_host),
        &mut out,
        true,
    )?;

    let f_table_host: Vec<f32> = table_host.iter().map(|&x| x as f32 / 4e6 - 500.0).collect();
    let f_queries_host: Vec<f32> = queries_host
        .iter()
        .map(|&x| x as f32 / 4e6 - 500.0)
        .collect();
    let (f_table, f_queries) = (ctx.upload(&f_table_host)?, ctx.upload(&f_queries_host)?);
    row(
        b,
        &format!("lower_bound f32, 2^{l} random queries, table 2^{l}"),
        (&f_table, &f_table_host),
        (&f_queries, &f_queries_host),
        &mut out,
        false,
    )?;
    drop((f_table, f_queries, f_table_host, f_queries_host));

    queries_host.sort_unstable();
    let sorted_queries = ctx.upload(&queries_host)?;
    row(
        b,
        &format!("lower_bound u32, 2^{l} sorted queries, table 2^{l}"),
        (&table, &table_host),
        (&sorted_queries, &queries_host),
        &mut out,
        false,
    )?;
    drop((table, table_host, sorted_queries));

    if n > m {
        let big_host = sorted_u32(n, 53);
        let big = ctx.upload(&big_host)?;
        let queries_host: Vec<u32> = stream(m, 54).collect();
        let queries = ctx.upload(&queries_host)?;
        row(
            b,
            &format!("lower_bound u32, 2^{l} random queries, table 2^{}", log2(n)),
            (&big, &big_host),
            (&queries, &queries_host),
            &mut out,
            false,
        )?;
    }
    b.n = n;
    Ok(())
}

/// Random and sorted queries, searched where they stand and bucketed, for table and
/// query sizes up to 2^24 (and a table of n where n is larger).
pub fn order_rows(b: &mut Bench) -> Result<()> {
    let n = b.n;
    let biggest = log2(n.min(1 << 24));
    let mut shapes: Vec<(u32, u32)> = [
        (24, 24),
        (24, 20),
        (24, 18),
        (24, 16),
        (22, 24),
        (20, 24),
        (20, 20),
        (18, 24),
        (16, 24),
    ]
    .into_iter()
    .filter(|&(t, q)| t <= biggest && q <= biggest)
    .collect();
    if n > 1 << 24 {
        shapes.push((log2(n), 24));
    }
    for (t, q) in shapes {
        let (tn, qn) = (1usize << t, 1usize << q);
        b.n = qn;
        let table_host = sorted_u32(tn, 61);
        let table = b.ctx.upload(&table_host)?;
        let mut queries_host: Vec<u32> = stream(qn, 62).collect();
        let mut out = b.ctx.zeros::<u32>(qn)?;
        for sorted in [false, true] {
            if sorted {
                queries_host.sort_unstable();
            }
            let queries = b.ctx.upload(&queries_host)?;
            let kind = if sorted { "sorted" } else { "random" };
            for (order, how) in [
                (None, "auto"),
                (Some(false), "direct"),
                (Some(true), "bucketed"),
            ] {
                row_in(
                    b,
                    &format!("lower_bound u32, 2^{q} {kind} queries, table 2^{t}, {how}"),
                    (&table, &table_host),
                    (&queries, &queries_host),
                    &mut out,
                    false,
                    order,
                )?;
            }
        }
    }
    b.n = n;
    Ok(())
}

/// Times `lower_bound_into` (or `upper_bound_into`) and checks every 4099th answer.
fn row<K: SortKey>(
    b: &mut Bench,
    name: &str,
    tables: (&GpuVec<K>, &[K]),
    queries: (&GpuVec<K>, &[K]),
    out: &mut GpuVec<u32>,
    upper: bool,
) -> Result<()> {
    row_in(b, name, tables, queries, out, upper, None)
}

/// [`row`] with the queries met as `order` says: `None` as the call chooses, `Some(true)`
/// bucketed, `Some(false)` where they stand.
fn row_in<K: SortKey>(
    b: &mut Bench,
    name: &str,
    (table, table_host): (&GpuVec<K>, &[K]),
    (queries, queries_host): (&GpuVec<K>, &[K]),
    out: &mut GpuVec<u32>,
    upper: bool,
    order: Option<bool>,
) -> Result<()> {
    let ctx = b.ctx;
    let call = |out: &mut GpuVec<u32>| match order {
        Some(bucketed) => ctx.search_order_into(table, queries, upper, bucketed, out),
        None if upper => ctx.upper_bound_into(table, queries, out),
        None => ctx.lower_bound_into(table, queries, out),
    };
    call(out)?;
    let got = out.to_vec()?;
    for i in (0..queries_host.len()).step_by(4099) {
        let q = queries_host[i].ordered_bits();
        let want = table_host.partition_point(|t| {
            let t = t.ordered_bits();
            if upper { t <= q } else { t < q }
        });
        assert_eq!(got[i] as usize, want, "{name}: query {i}");
    }
    b.row(name, 8 * queries_host.len(), || call(out))?;
    Ok(())
}
