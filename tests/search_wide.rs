//! lower_bound and upper_bound with keys that are not one 32-bit word (`u64`, `i64`,
//! `[u32; 2]`, `f64`, `f16`), against `partition_point` on the CPU in the sorts' order.
//!
//! Tables are sorted on the CPU with many duplicates and keys that share one of their
//! words, so comparisons that look at one word only give wrong answers; queries are
//! table keys, their neighbours and random keys; answers start poisoned. On an unsorted
//! table each answer must lie in `0..=n`.

mod common;

use common::wide::{WideKey as Key, wide_keys as keys};
use common::*;
use gpuprim::{Ctx, Error};

fn check<K: Key>(ctx: &Ctx, n: usize, seed: u64, few: bool, what: &str) {
    let mut table: Vec<K> = keys(n, seed, few);
    table.sort_by_key(|k| k.ordered());
    let mut queries: Vec<K> = keys(n / 2 + 3, seed ^ 0x55, few);
    queries.extend(table.iter().step_by(3).copied());
    let t = ctx.upload(&table).unwrap();
    let q = ctx.upload(&queries).unwrap();
    let ordered: Vec<u64> = table.iter().map(|k| k.ordered()).collect();
    let lower: Vec<u32> = queries
        .iter()
        .map(|x| ordered.partition_point(|&t| t < x.ordered()) as u32)
        .collect();
    let upper: Vec<u32> = queries
        .iter()
        .map(|x| ordered.partition_point(|&t| t <= x.ordered()) as u32)
        .collect();
    let mut out = poisoned::<u32>(ctx, queries.len());
    ctx.lower_bound_into(&t, &q, &mut out).unwrap();
    assert_all_eq(
        &out.to_vec().unwrap(),
        &lower,
        &format!("lower_bound {what} n={n}"),
    );
    let mut out = poisoned::<u32>(ctx, queries.len());
    ctx.upper_bound_into(&t, &q, &mut out).unwrap();
    assert_all_eq(
        &out.to_vec().unwrap(),
        &upper,
        &format!("upper_bound {what} n={n}"),
    );
    assert_all_eq(
        &ctx.lower_bound(&t, &q).unwrap().to_vec().unwrap(),
        &lower,
        &format!("lower_bound (new vector) {what} n={n}"),
    );
}

fn every_shape<K: Key>(ctx: &Ctx, what: &str) {
    for (s, &n) in [0usize, 1, 2, 3, 7, 255, 1000, 4097, 30_001]
        .iter()
        .enumerate()
    {
        for few in [false, true] {
            check::<K>(ctx, n, 31 * s as u64 + few as u64, few, what);
        }
    }
    // Unsorted: answers stay in the table.
    let table: Vec<K> = keys(999, 3, false);
    let queries: Vec<K> = keys(500, 4, false);
    let t = ctx.upload(&table).unwrap();
    let q = ctx.upload(&queries).unwrap();
    for answer in ctx.upper_bound(&t, &q).unwrap().to_vec().unwrap() {
        assert!(
            answer <= 999,
            "{what}: {answer} past an unsorted table of 999"
        );
    }
}

every_wide_key!(every_shape);

/// A table past one binding is an error that names the most keys per call; queries
/// past one binding too.
#[test]
fn past_one_binding() {
    let ctx = split_ctx();
    check::<u64>(ctx, 512, 1, true, "u64 in a 4 KiB binding");
    let big = ctx.upload(&vec![7u64; 513]).unwrap();
    let small = ctx.upload(&[7u64]).unwrap();
    for (t, q) in [(&big, &small), (&small, &big)] {
        match ctx.lower_bound(t, q) {
            Err(Error::TooLarge {
                requested,
                limit,
                what,
                ..
            }) => {
                assert_eq!((requested, limit), (513 * 8, 4096));
                assert!(what.contains("at most 512"), "{what}");
            }
            other => panic!("a search past one binding: {other:?}"),
        }
    }
}
