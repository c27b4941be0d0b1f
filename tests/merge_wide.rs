//! merge, merge_into and merge_by_key of keys that are not one 32-bit word (`u64`,
//! `i64`, `[u32; 2]`, `f64`, `f16`), against a stable CPU sort of `a` then `b`.
//!
//! Keys come from a handful of high and low words, so equal keys across `a` and `b`
//! (where stability shows: the values are each key's origin and index) and keys equal in
//! one word only are common; f64 and f16 keys include zeros of both signs, NaNs and
//! infinities. Every element of every output is compared by its bits, `merge_into`'s
//! output starting poisoned.

mod common;

use common::wide::{WideKey as Key, same_bits as same, wide_keys};
use common::*;
use gpuprim::{Ctx, Error};

/// `n` sorted keys; with `few`, from a handful of high and low words.
fn sorted<K: Key>(n: usize, seed: u64, few: bool) -> Vec<K> {
    let mut keys: Vec<K> = wide_keys(n, seed, few);
    keys.sort_by_key(|k| k.ordered());
    keys
}

fn check<K: Key>(ctx: &Ctx, m: usize, n: usize, few: bool, name: &str) {
    let a: Vec<K> = sorted(m, 3 * m as u64 + few as u64, few);
    let b: Vec<K> = sorted(n, 5 * n as u64 + 1, few);
    let what = format!("{name} merge of {m} and {n} (few {few})");
    let av: Vec<u32> = (0..m as u32).collect();
    let bv: Vec<u32> = (0..n as u32).map(|j| 1 << 31 | j).collect();
    let mut want: Vec<(K, u32)> = a.iter().copied().zip(av.iter().copied()).collect();
    want.extend(b.iter().copied().zip(bv.iter().copied()));
    want.sort_by_key(|p| p.0.ordered()); // stable: a's first among equals
    let want_k: Vec<K> = want.iter().map(|p| p.0).collect();
    let want_v: Vec<u32> = want.iter().map(|p| p.1).collect();

    let (ga, gb) = (ctx.upload(&a).unwrap(), ctx.upload(&b).unwrap());
    let got = ctx
        .merge(&ga, &gb)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(same(&got.to_vec().unwrap(), &want_k), "{what}");
    let mut into = ctx.upload(&vec![K::POISON; m + n]).unwrap();
    ctx.merge_into(&ga, &gb, &mut into).unwrap();
    let into = into.to_vec().unwrap();
    if let Some(i) = (0..m + n).find(|&i| !same(&into[i..=i], &want_k[i..=i])) {
        panic!(
            "{what} (into): element {i} is {:?}, want {:?}",
            into[i], want_k[i]
        );
    }
    let (gav, gbv) = (ctx.upload(&av).unwrap(), ctx.upload(&bv).unwrap());
    let (k, v) = ctx.merge_by_key(&ga, &gav, &gb, &gbv).unwrap();
    assert!(same(&k.to_vec().unwrap(), &want_k), "{what} by key: keys");
    assert_all_eq(
        &v.to_vec().unwrap(),
        &want_v,
        &format!("{what} by key: values"),
    );
}

const LENGTHS: &[usize] = &[0, 1, 2, 3, 255, 1024, 1025, 9_001];

fn every_shape<K: Key>(ctx: &Ctx, name: &str) {
    for &m in LENGTHS {
        for &n in LENGTHS {
            check::<K>(ctx, m, n, true, name);
        }
    }
    check::<K>(ctx, 20_000, 7_001, false, name);
}

every_wide_key!(every_shape);

/// The result must fit one binding: 512 u64 keys fit 4 KiB, 513 do not.
#[test]
fn past_one_binding() {
    let ctx = split_ctx();
    check::<u64>(ctx, 300, 212, true, "u64 in a 4 KiB binding");
    let a = ctx.upload(&vec![1u64; 300]).unwrap();
    let b = ctx.upload(&vec![2u64; 213]).unwrap();
    match ctx.merge(&a, &b) {
        Err(Error::TooLarge {
            requested, limit, ..
        }) => assert_eq!((requested, limit), (513 * 8, 4096)),
        other => panic!("a merge past one binding: {other:?}"),
    }
}
