//! merge, merge_into and merge_by_key of keys that are not one 32-bit word (`u64`,
//! `i64`, `[u32; 2]`, `f64`, `f16`), against a stable CPU sort of `a` then `b`.
//!
//! Keys come from a handful of high and low words, so equal keys across `a` and `b`
//! (where stability shows: the values are each key's origin and index) and keys equal in
//! one word only are common; f64 and f16 keys include zeros of both signs, NaNs and
//! infinities. Every element of every output is compared by its bits, `merge_into`'s
//! output starting poisoned.

mod common;

use common::*;
use gpuprim::half::f16;
use gpuprim::{Ctx, Error, RadixKey};

trait Key: RadixKey + Copy + std::fmt::Debug {
    fn from_bits(bits: u64) -> Self;
    /// The sortable 64-bit word: its unsigned order is the key order.
    fn ordered(self) -> u64;
    const POISON: Self;
}

impl Key for u64 {
    fn from_bits(bits: u64) -> Self {
        bits
    }
    fn ordered(self) -> u64 {
        self
    }
    const POISON: Self = 0xdead_beef_dead_beef;
}
impl Key for i64 {
    fn from_bits(bits: u64) -> Self {
        bits as i64
    }
    fn ordered(self) -> u64 {
        self as u64 ^ (1 << 63)
    }
    const POISON: Self = 0x5eed_dead_5eed_dead;
}
impl Key for [u32; 2] {
    fn from_bits(bits: u64) -> Self {
        [(bits >> 32) as u32, bits as u32]
    }
    fn ordered(self) -> u64 {
        (u64::from(self[0]) << 32) | u64::from(self[1])
    }
    const POISON: Self = [0xdead_beef, 0x5eed_dead];
}
impl Key for f64 {
    fn from_bits(bits: u64) -> Self {
        let specials = [
            0.0,
            -0.0,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        if bits.is_multiple_of(8) {
            return specials[(bits >> 8) as usize % specials.len()];
        }
        f64::from_bits(bits)
    }
    fn ordered(self) -> u64 {
        let x = self.to_bits();
        if x >> 63 == 1 { !x } else { x ^ (1 << 63) }
    }
    const POISON: Self = -1.25e300;
}
impl Key for f16 {
    fn from_bits(bits: u64) -> Self {
        f16::from_bits((bits ^ (bits >> 32)) as u16)
    }
    fn ordered(self) -> u64 {
        let x = self.to_bits();
        u64::from(if x >> 15 == 1 { !x } else { x ^ 0x8000 })
    }
    const POISON: Self = f16::from_bits(0x5eed);
}

fn same<T: bytemuck::Pod>(a: &[T], b: &[T]) -> bool {
    bytemuck::cast_slice::<T, u8>(a) == bytemuck::cast_slice::<T, u8>(b)
}

/// `n` sorted keys; with `few`, from a handful of high and low words.
fn sorted<K: Key>(n: usize, seed: u64, few: bool) -> Vec<K> {
    let bits: Vec<u32> = random_vec(2 * n, seed);
    let mut keys: Vec<K> = (0..n)
        .map(|i| {
            let (h, l) = (bits[2 * i], bits[2 * i + 1]);
            let (h, l) = if few {
                (
                    (h % 3).rotate_right(1) | (h % 3),
                    (l % 4).rotate_right(2) | (l % 2),
                )
            } else {
                (h, l)
            };
            K::from_bits((u64::from(h) << 32) | u64::from(l))
        })
        .collect();
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

#[test]
fn u64_keys() {
    every_shape::<u64>(ctx(), "u64");
}

#[test]
fn i64_keys() {
    every_shape::<i64>(ctx(), "i64");
}

#[test]
fn pair_keys() {
    every_shape::<[u32; 2]>(ctx(), "[u32; 2]");
}

#[test]
fn f64_keys() {
    if supports::<f64>(ctx()) {
        every_shape::<f64>(ctx(), "f64");
    }
}

#[test]
fn f16_keys() {
    if supports::<f16>(ctx()) {
        every_shape::<f16>(ctx(), "f16");
    }
}

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
