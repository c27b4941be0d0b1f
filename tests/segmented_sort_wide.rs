//! segmented_sort, segmented_sort_by_key and segmented_argsort (and their `_with` /
//! `_into` forms) of keys that are not one 32-bit word (`u64`, `i64`, `[u32; 2]`, `f64`,
//! `f16`), against stable CPU sorts of each segment.
//!
//! Offsets with empty segments, one-key segments, and keys before the first offset and
//! after the last (which must stay where they are, with index `u32::MAX`); keys from a
//! handful of words so ties (kept in order: the values are the keys' positions) and keys
//! equal in one word only are common. Ascending, descending and a bit range. Argsort's
//! output starts poisoned; every element is compared by its bits.

mod common;

use std::ops::Range;

use common::wide::{WideKey as Key, same_bits, wide_keys};
use common::*;
use gpuprim::{Ctx, Error, Sort};

/// Ascending offsets from `start` to `end` in `n`, segments of 0 to `most` keys.
fn offsets(start: usize, end: usize, most: usize, seed: u64) -> Vec<u32> {
    let r: Vec<u32> = random_vec(end + 2, seed);
    let mut out = vec![start as u32];
    let mut at = start;
    let mut k = 0;
    while at < end {
        let len = (r[k] as usize % (most + 1)).min(end - at);
        k += 1;
        at += len;
        out.push(at as u32);
    }
    out
}

fn check<K: Key>(ctx: &Ctx, host: &[K], offs: &[u32], sort: &Sort, bits: Range<u32>, what: &str) {
    let n = host.len();
    let key = |k: &K| {
        let o = k.ordered();
        let w = bits.end - bits.start;
        let v = if w == 0 {
            0
        } else {
            (o >> bits.start) & (u64::MAX >> (64 - w))
        };
        if sort.is_descending() {
            u64::MAX - v
        } else {
            v
        }
    };
    let mut order: Vec<usize> = (0..n).collect();
    let mut index = vec![u32::MAX; n];
    for s in offs.windows(2) {
        let (a, b) = (s[0] as usize, s[1] as usize);
        order[a..b].sort_by_key(|&i| key(&host[i])); // stable
        for i in a..b {
            index[i] = (order[i] - a) as u32;
        }
    }
    let want: Vec<K> = order.iter().map(|&i| host[i]).collect();
    let want_values: Vec<u32> = order.iter().map(|&i| i as u32).collect();
    let g_offsets = ctx.upload(offs).unwrap();

    let mut g = ctx.upload(host).unwrap();
    ctx.segmented_sort_with(&mut g, &g_offsets, sort).unwrap();
    let got = g.to_vec().unwrap();
    if let Some(i) = (0..n).find(|&i| !same_bits(&got[i..=i], &want[i..=i])) {
        panic!(
            "segmented_sort {what}: element {i} is {:?}, want {:?}",
            got[i], want[i]
        );
    }
    let mut g = ctx.upload(host).unwrap();
    let mut values = ctx.upload(&(0..n as u32).collect::<Vec<_>>()).unwrap();
    ctx.segmented_sort_by_key_with(&mut g, &mut values, &g_offsets, sort)
        .unwrap();
    assert!(same_bits(&g.to_vec().unwrap(), &want), "by_key keys {what}");
    assert_all_eq(
        &values.to_vec().unwrap(),
        &want_values,
        &format!("by_key values {what}"),
    );
    let g = ctx.upload(host).unwrap();
    let mut at = poisoned::<u32>(ctx, n);
    ctx.segmented_argsort_into(&g, &g_offsets, sort, &mut at)
        .unwrap();
    assert_all_eq(&at.to_vec().unwrap(), &index, &format!("argsort {what}"));
    assert!(
        same_bits(&g.to_vec().unwrap(), host),
        "argsort changed its keys {what}"
    );
}

fn every_shape<K: Key>(ctx: &Ctx, name: &str) {
    // A range within one word of the 8-byte keys, or across the two bytes of an f16.
    let bit_range = if size_of::<K>() == 2 { 3..11 } else { 20..40 };
    for (s, &n) in [0usize, 1, 2, 3, 300, 5000].iter().enumerate() {
        let host: Vec<K> = wide_keys(n, 13 * s as u64, true);
        let shapes = [
            vec![0, n as u32],
            offsets(0, n, 9, s as u64),
            offsets(n / 5, n - n / 7, 400, s as u64 + 1),
        ];
        for offs in shapes {
            let bits = 0..(8 * size_of::<K>() as u32);
            check(
                ctx,
                &host,
                &offs,
                &Sort::ascending(),
                bits.clone(),
                &format!("{name} n={n}"),
            );
            check(
                ctx,
                &host,
                &offs,
                &Sort::descending(),
                bits,
                &format!("{name} n={n} desc"),
            );
            let sort = Sort::ascending().bits(bit_range.clone());
            check(
                ctx,
                &host,
                &offs,
                &sort,
                bit_range.clone(),
                &format!("{name} n={n} bits"),
            );
        }
    }
    // Only an offsets entry: no segment, nothing moves.
    let host: Vec<K> = wide_keys(50, 1, false);
    check(
        ctx,
        &host,
        &[7],
        &Sort::ascending(),
        0..64,
        &format!("{name}, no segments"),
    );
}

every_wide_key!(every_shape);

#[test]
fn errors() {
    let ctx = ctx();
    let mut keys = ctx.upload(&[3u64, 1]).unwrap();
    let empty = ctx.upload::<u32>(&[]).unwrap();
    assert!(matches!(
        ctx.segmented_sort(&mut keys, &empty),
        Err(Error::InvalidArgument { .. })
    ));
    let offsets = ctx.upload(&[0u32, 2]).unwrap();
    assert!(matches!(
        ctx.segmented_sort_with(&mut keys, &offsets, &Sort::ascending().bits(0..65)),
        Err(Error::InvalidArgument { .. })
    ));
    let big = split_ctx().upload(&vec![1u64; 513]).unwrap();
    let offsets = split_ctx().upload(&[0u32, 513]).unwrap();
    assert!(matches!(
        split_ctx().segmented_argsort(&big, &offsets),
        Err(Error::TooLarge {
            requested: 4104,
            ..
        })
    ));
}
