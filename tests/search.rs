//! lower_bound / upper_bound and their `_into` forms against `partition_point` on the
//! CPU: u32, i32 and f32 (in `f32::total_cmp`'s order, NaN and ±0.0 included); tables
//! with many duplicates and queries below, inside and above them; empty and one-element
//! tables and query vectors; lengths around vec4 units and workgroups; tables and
//! queries across binding windows (split_ctx: 1024 elements per binding, grids folded
//! at 3 per dimension); borrowed vectors of ragged lengths; unsorted tables (answers in
//! range); the errors.
//!
//! Each check runs the automatic choice and both of its paths: queries searched where
//! they stand, and queries grouped by table range first (bucketed; wherever the table
//! and the queries' pairs fit one binding).
//!
//! `_into` outputs start poisoned and every element is compared.

mod common;

use common::*;
use gpuprim::{Ctx, Error, GpuVec, SortKey, wgpu};

fn contexts() -> [&'static Ctx; 2] {
    [ctx(), split_ctx()]
}

/// Table lengths: empty, tiny, around vec4 units, the 256-invocation workgroup, the
/// pivot counts (powers of two) and split_ctx's 1024-element windows.
const TABLE_LENGTHS: &[usize] = &[
    0, 1, 2, 3, 4, 5, 7, 8, 9, 255, 256, 257, 1023, 1024, 1025, 4097, 5000, 20_011,
];

/// Query lengths: as above, and past split_ctx's query windows.
const QUERY_LENGTHS: &[usize] = &[0, 1, 3, 4, 5, 255, 256, 257, 1025, 3001];

fn cpu_bound<K: SortKey>(table: &[K], q: K, upper: bool) -> u32 {
    let q = q.ordered_bits();
    table.partition_point(|t| {
        let t = t.ordered_bits();
        if upper { t <= q } else { t < q }
    }) as u32
}

/// How a search meets its queries: as the call chooses, or forced one way.
#[derive(Clone, Copy, Debug)]
enum Order {
    Auto,
    Direct,
    Bucketed,
}

/// `lower_bound_into` / `upper_bound_into` in `order`. `None` where a bucketed search
/// does not fit the context's bindings (the call's error says so).
fn bound_into<K: SortKey>(
    ctx: &Ctx,
    table: &GpuVec<K>,
    queries: &GpuVec<K>,
    upper: bool,
    order: Order,
    out: &mut GpuVec<u32>,
) -> Option<()> {
    let result = match (order, upper) {
        (Order::Auto, false) => ctx.lower_bound_into(table, queries, out),
        (Order::Auto, true) => ctx.upper_bound_into(table, queries, out),
        (Order::Direct, _) => ctx.search_order_into(table, queries, upper, false, out),
        (Order::Bucketed, _) => ctx.search_order_into(table, queries, upper, true, out),
    };
    match result {
        Ok(()) => Some(()),
        Err(Error::InvalidArgument { message, .. })
            if matches!(order, Order::Bucketed)
                && (8 * queries.len() as u64 > ctx.info().max_binding_bytes
                    || 4 * table.len() as u64 > ctx.info().max_binding_bytes) =>
        {
            assert!(message.contains("bucketed"), "{message}");
            None
        }
        Err(e) => panic!("{order:?} search: {e}"),
    }
}

const ORDERS: [Order; 3] = [Order::Auto, Order::Direct, Order::Bucketed];

/// Both bounds of every query, blocking and `_into` (poisoned) on each path, against the
/// CPU.
fn check<K: SortKey + TestElement>(ctx: &Ctx, table: &[K], queries: &[K], what: &str) {
    let (t, q) = (ctx.upload(table).unwrap(), ctx.upload(queries).unwrap());
    for upper in [false, true] {
        let want: Vec<u32> = queries
            .iter()
            .map(|&x| cpu_bound(table, x, upper))
            .collect();
        let name = if upper { "upper_bound" } else { "lower_bound" };
        let what = format!(
            "{name} of {what}: {} queries, table of {}",
            queries.len(),
            table.len()
        );
        let blocking = if upper {
            ctx.upper_bound(&t, &q)
        } else {
            ctx.lower_bound(&t, &q)
        };
        assert_all_eq(&blocking.unwrap().to_vec().unwrap(), &want, &what);
        for order in ORDERS {
            let mut out = poisoned::<u32>(ctx, queries.len());
            if bound_into(ctx, &t, &q, upper, order, &mut out).is_some() {
                let what = format!("{what} (into, {order:?})");
                assert_all_eq(&out.to_vec().unwrap(), &want, &what);
            }
        }
    }
}

/// A sorted table of `n` keys from `key(random)` (few distinct values: long runs of
/// duplicates) and queries from `key` too, so many equal a table element and some fall
/// below or above all of them.
fn case<K: SortKey + TestElement>(
    n: usize,
    m: usize,
    seed: u64,
    key: impl Fn(u32) -> K,
) -> (Vec<K>, Vec<K>) {
    let mut table: Vec<K> = random_vec::<u32>(n, seed).iter().map(|&r| key(r)).collect();
    table.sort_by_key(|k| k.ordered_bits());
    let queries = random_vec::<u32>(m, seed + 1)
        .iter()
        .map(|&r| key(r))
        .collect();
    (table, queries)
}

#[test]
fn u32_keys() {
    for ctx in contexts() {
        for (i, &n) in TABLE_LENGTHS.iter().enumerate() {
            for (j, &m) in QUERY_LENGTHS.iter().enumerate() {
                let seed = (i * 100 + j) as u64;
                // Table values 100..164 (step 2: queries between them), queries 90..180.
                let (table, _) = case::<u32>(n, 0, seed, |r| 100 + 2 * (r % 32));
                let (_, queries) = case::<u32>(0, m, seed, |r| 90 + r % 90);
                check(ctx, &table, &queries, "u32 with duplicates");
            }
        }
        // Full-range values, with the extremes as queries.
        let (table, mut queries) = case::<u32>(5000, 300, 7, |r| r);
        queries.extend([0, u32::MAX, table[0], table[4999], table[2500]]);
        check(ctx, &table, &queries, "u32 full range");
        check(ctx, &[u32::MAX; 5], &[0, u32::MAX - 1, u32::MAX], "u32 max");
        check(ctx, &[0; 5], &[0, 1, u32::MAX], "u32 zeros");
    }
}

#[test]
fn i32_keys() {
    for ctx in contexts() {
        for (i, &n) in [0usize, 1, 5, 257, 1025, 5000].iter().enumerate() {
            for &m in &[1usize, 5, 1025] {
                let (table, queries) = case::<i32>(n, m, 40 + i as u64, |r| (r % 41) as i32 - 20);
                check(ctx, &table, &queries, "i32 with duplicates");
            }
        }
        let (table, mut queries) = case::<i32>(3000, 200, 8, |r| r as i32);
        queries.extend([i32::MIN, i32::MAX, -1, 0, table[0], table[2999]]);
        check(ctx, &table, &queries, "i32 full range");
        check(
            ctx,
            &[i32::MIN, i32::MIN, 0, i32::MAX],
            &[i32::MIN, -1, 0, i32::MAX],
            "i32 extremes",
        );
    }
}

#[test]
fn f32_keys() {
    for ctx in contexts() {
        for (i, &n) in [0usize, 1, 5, 257, 1025, 5000].iter().enumerate() {
            for &m in &[1usize, 5, 1025] {
                let (table, queries) =
                    case::<f32>(n, m, 70 + i as u64, |r| (r % 41) as f32 * 0.5 - 10.0);
                check(ctx, &table, &queries, "f32 with duplicates");
            }
        }
        let (table, queries) = case::<f32>(3000, 500, 9, f32::from_bits);
        check(ctx, &table, &queries, "f32 from random bits (NaNs too)");
    }
}

/// -NaN < -inf < -1 < -0.0 < +0.0 < 1 < inf < NaN: each special value as table element
/// (repeated) and as query.
#[test]
fn f32_total_order() {
    let neg_nan = f32::from_bits(0xffc0_0000);
    let specials = [
        neg_nan,
        f32::NEG_INFINITY,
        -1.0,
        -0.0,
        0.0,
        1.0,
        f32::INFINITY,
        f32::NAN,
    ];
    let mut table: Vec<f32> = specials.iter().flat_map(|&x| [x, x, x]).collect();
    table.sort_by_key(|k| k.ordered_bits());
    for ctx in contexts() {
        check(ctx, &table, &specials, "special f32 values");
        check(
            ctx,
            &table[3..21],
            &specials,
            "special f32 values without NaNs",
        );
        check(
            ctx,
            &[0.0f32; 1030],
            &[-0.0, 0.0, f32::MIN_POSITIVE],
            "zeros",
        );
    }
    let ctx = ctx();
    let t = ctx.upload(&[-0.0f32, 0.0]).unwrap();
    let q = ctx.upload(&[0.0f32, -0.0]).unwrap();
    assert_eq!(
        ctx.lower_bound(&t, &q).unwrap().to_vec().unwrap(),
        vec![1, 0]
    );
}

/// An unsorted table: answers are unspecified but in 0..=n, on every path.
#[test]
fn unsorted_tables_answer_in_range() {
    for ctx in contexts() {
        for n in [0usize, 1, 2, 7, 1000, 5000] {
            let table = random_vec::<u32>(n, n as u64 + 3);
            let queries = random_vec::<u32>(2000, 4);
            let (t, q) = (ctx.upload(&table).unwrap(), ctx.upload(&queries).unwrap());
            for (upper, order) in [false, true]
                .into_iter()
                .flat_map(|u| ORDERS.map(|o| (u, o)))
            {
                let mut out = poisoned::<u32>(ctx, queries.len());
                if bound_into(ctx, &t, &q, upper, order, &mut out).is_none() {
                    continue;
                }
                let got = out.to_vec().unwrap();
                if let Some(i) = got.iter().position(|&a| a as usize > n) {
                    panic!(
                        "table of {n}, {order:?}: answer {} for query {i} is past the table",
                        got[i]
                    );
                }
            }
        }
    }
}

/// The same call twice on a table of 2^16 and random queries: equal answers, and the
/// pipeline compiled once.
#[test]
fn larger_table_and_reuse() {
    let ctx = ctx();
    let (table, queries) = case::<u32>(1 << 16, 1 << 14, 12, |r| r >> 10);
    check(ctx, &table, &queries, "2^16 table");
    // Sorted queries, and all queries equal: each tile of bucketing meets one bucket.
    let mut sorted = queries.clone();
    sorted.sort();
    check(ctx, &table, &sorted, "2^16 table, sorted queries");
    check(
        ctx,
        &table,
        &vec![table[30_000]; 5000],
        "2^16 table, equal queries",
    );
    let compiled = ctx.pipelines_compiled();
    check(ctx, &table, &queries, "2^16 table again");
    assert_eq!(
        ctx.pipelines_compiled(),
        compiled,
        "a repeated call compiles nothing"
    );
}

/// Words per storage offset alignment (256 bytes on most devices).
fn align_words(ctx: &Ctx) -> usize {
    ctx.info().limits.min_storage_buffer_offset_alignment as usize / 4
}

/// A buffer of the application's holding `initial`.
fn app_buffer(ctx: &Ctx, initial: &[u32]) -> wgpu::Buffer {
    let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("application buffer"),
        size: 4 * initial.len() as u64,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: true,
    });
    buffer
        .slice(..)
        .get_mapped_range_mut()
        .unwrap()
        .copy_from_slice(bytemuck::cast_slice(initial));
    buffer.unmap();
    buffer
}

/// Table and queries as vectors over one buffer of the application's, the output over
/// another, at aligned offsets, of lengths that are not multiples of 4 (the scalar
/// layout): the answers, and no word outside the output changed.
#[test]
fn borrowed_vectors_of_ragged_lengths() {
    for ctx in contexts() {
        for (n, m) in [(7usize, 5usize), (1030, 1027), (5001, 2050)] {
            let a = align_words(ctx);
            let (t_at, q_at) = (a, a * (2 + n / a));
            let (table, queries) = case::<u32>(n, m, n as u64, |r| r % 500);
            let mut inputs = random_vec::<u32>(q_at + m + a, 98);
            inputs[t_at..t_at + n].copy_from_slice(&table);
            inputs[q_at..q_at + m].copy_from_slice(&queries);
            let inputs = app_buffer(ctx, &inputs);
            let initial = random_vec::<u32>(a + m + a, 99);
            let output = app_buffer(ctx, &initial);
            let view = |buffer: &wgpu::Buffer, at: usize, len: usize| {
                GpuVec::<u32>::from_buffer_at(ctx, buffer.clone(), 4 * at as u64, len).unwrap()
            };
            let (t, q) = (view(&inputs, t_at, n), view(&inputs, q_at, m));
            let mut out = view(&output, a, m);
            for (upper, order) in [false, true]
                .into_iter()
                .flat_map(|u| ORDERS.map(|o| (u, o)))
            {
                // Poison the output again: each order must write every answer itself.
                let poison = random_vec::<u32>(m, 100 + upper as u64);
                ctx.queue()
                    .write_buffer(&output, 4 * a as u64, bytemuck::cast_slice(&poison));
                if bound_into(ctx, &t, &q, upper, order, &mut out).is_none() {
                    continue;
                }
                let got = read_words_as_application(ctx, &output);
                let want: Vec<u32> = queries
                    .iter()
                    .map(|&x| cpu_bound(&table, x, upper))
                    .collect();
                assert_all_eq(
                    &got[a..a + m],
                    &want,
                    &format!("borrowed {n}/{m}, {order:?}"),
                );
                for (i, (&w, &g)) in got.iter().zip(&initial).enumerate() {
                    if !(a..a + m).contains(&i) {
                        assert_eq!(
                            w, g,
                            "borrowed {n}/{m}, {order:?}: word {i} outside the output changed"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn errors() {
    let ctx = ctx();
    let t = ctx.upload(&[1u32, 2, 3]).unwrap();
    let q = ctx.upload(&[2u32, 5]).unwrap();
    let mut short = ctx.zeros::<u32>(1).unwrap();
    match ctx.lower_bound_into(&t, &q, &mut short) {
        Err(Error::LengthMismatch { left, right, .. }) => assert_eq!((left, right), (1, 2)),
        other => panic!("expected LengthMismatch, got {other:?}"),
    }
    let count = ctx.upload(&[1u32]).unwrap();
    for result in [
        ctx.upper_bound(&t.prefix(&count).unwrap(), &q),
        ctx.upper_bound(&t, &q.prefix(&count).unwrap()),
    ] {
        assert!(
            matches!(result, Err(Error::InvalidArgument { .. })),
            "{result:?}"
        );
    }
    let other = split_ctx().upload(&[1u32]).unwrap();
    assert!(matches!(
        ctx.lower_bound(&other, &q),
        Err(Error::ContextMismatch { .. })
    ));
    // The output over the queries' buffer: refused, not a wgpu panic.
    let mut over_queries = GpuVec::<u32>::from_buffer(ctx, q.buffer().clone(), 2).unwrap();
    assert!(matches!(
        ctx.lower_bound_into(&t, &q, &mut over_queries),
        Err(Error::InvalidArgument { .. })
    ));
    // Empty queries: an empty answer; still usable afterwards.
    let none = ctx.zeros::<u32>(0).unwrap();
    assert!(
        ctx.lower_bound(&t, &none)
            .unwrap()
            .to_vec()
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        ctx.upper_bound(&t, &q).unwrap().to_vec().unwrap(),
        vec![2, 3]
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 12, ..Default::default() })]

    /// Random table and query lengths and value ranges (a small range: long runs of
    /// duplicates; a large one: nearly distinct), on each context.
    #[test]
    fn random_lengths(n in lengths(), m in 0usize..5000, range in 1u32..100_000, seed: u64, which in 0usize..2) {
        let (table, queries) = case::<u32>(n, m, seed, |r| r % range);
        check(contexts()[which], &table, &queries, "proptest u32");
        let (table, queries) = case::<f32>(n.min(20_000), m, seed, |r| (r % range) as f32 - range as f32 / 2.0);
        check(contexts()[which], &table, &queries, "proptest f32");
    }
}
