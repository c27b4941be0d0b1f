//! top_k and smallest_k (and their `_into` forms) of keys that are not one 32-bit word
//! (`u64`, `i64`, `[u32; 2]`, `f64`, `f16`), against a stable CPU sort of (key, index).
//!
//! Keys from a handful of words, so ties (which must come in index order, lower first)
//! and keys equal in one word only are common; f64 and f16 specials among them. Outputs
//! of the `_into` forms start poisoned and every element is compared by its bits.

mod common;

use common::wide::{WideKey as Key, same_bits, wide_keys};
use common::*;
use gpuprim::Ctx;

fn check<K: Key>(ctx: &Ctx, n: usize, few: bool, name: &str) {
    let host: Vec<K> = wide_keys(n, n as u64 * 7 + few as u64, few);
    let v = ctx.upload(&host).unwrap();
    let mut ks = vec![0, 1.min(n), 5.min(n), n / 2, n];
    ks.dedup();
    for k in ks {
        for largest in [true, false] {
            let mut order: Vec<usize> = (0..n).collect();
            // Stable: equal keys keep the lower index first either way.
            if largest {
                order.sort_by_key(|&i| std::cmp::Reverse(host[i].ordered()));
            } else {
                order.sort_by_key(|&i| host[i].ordered());
            }
            let want_v: Vec<K> = order[..k].iter().map(|&i| host[i]).collect();
            let want_i: Vec<u32> = order[..k].iter().map(|&i| i as u32).collect();
            let what = format!("{name} n={n} k={k} largest={largest} few={few}");
            let (values, indices) = if largest {
                ctx.top_k(&v, k)
            } else {
                ctx.smallest_k(&v, k)
            }
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(
                same_bits(&values.to_vec().unwrap(), &want_v),
                "{what}: values"
            );
            assert_all_eq(
                &indices.to_vec().unwrap(),
                &want_i,
                &format!("{what}: indices"),
            );
            let mut values = ctx.upload(&vec![K::POISON; k]).unwrap();
            let mut indices = poisoned::<u32>(ctx, k);
            if largest {
                ctx.top_k_into(&v, &mut values, &mut indices).unwrap();
            } else {
                ctx.smallest_k_into(&v, &mut values, &mut indices).unwrap();
            }
            assert!(
                same_bits(&values.to_vec().unwrap(), &want_v),
                "{what}: into values"
            );
            assert_all_eq(
                &indices.to_vec().unwrap(),
                &want_i,
                &format!("{what}: into"),
            );
        }
    }
}

fn every_shape<K: Key>(ctx: &Ctx, name: &str) {
    for n in [0, 1, 2, 3, 257, 4097] {
        for few in [false, true] {
            check::<K>(ctx, n, few, name);
        }
    }
}

every_wide_key!(every_shape);

/// `k` past the length is an error, as for one-word keys.
#[test]
fn k_past_the_length() {
    let v = ctx().upload(&[1u64, 2, 3]).unwrap();
    assert!(matches!(
        ctx().top_k(&v, 4),
        Err(gpuprim::Error::InvalidArgument { .. })
    ));
}
