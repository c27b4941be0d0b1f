//! Sorts of 8-byte keys (`u64`, `i64`, `[u32; 2]`, `f64`) and of 8- and 16-byte values,
//! against stable CPU sorts: both algorithms where the adapter has them, edge and random
//! lengths, few distinct keys (equal high words, equal low words, equal keys), f64
//! specials, descending order, bit ranges within one word and across both, the
//! one-binding limit, and the errors.
//!
//! Values are the keys' original indices (alone, or inside wider records), so a sort that
//! is not stable fails on the first pair of equal keys it swaps. Argsort's output starts
//! poisoned, and every element of every output is compared (floats by their bits).

mod common;

use std::ops::Range;

use common::*;
use gpuprim::wgpu;
use gpuprim::{Ctx, Error, GpuVec, Limit, RadixKey, Sort, SortAlgorithm, SortPayload};

/// The key types under test: a key from 64 random bits, the CPU order, and the key's
/// bits as a `u64` with bit 0 the least significant of its low word (what `Sort::bits`
/// counts).
trait Key: RadixKey + Copy + std::fmt::Debug {
    fn from_bits(bits: u64) -> Self;
    /// The sortable 64-bit word: its unsigned order is the key order.
    fn ordered(self) -> u64;
    fn same(a: &Self, b: &Self) -> bool;
}

impl Key for u64 {
    fn from_bits(bits: u64) -> Self {
        bits
    }
    fn ordered(self) -> u64 {
        self
    }
    fn same(a: &Self, b: &Self) -> bool {
        a == b
    }
}

impl Key for i64 {
    fn from_bits(bits: u64) -> Self {
        bits as i64
    }
    fn ordered(self) -> u64 {
        self as u64 ^ (1 << 63)
    }
    fn same(a: &Self, b: &Self) -> bool {
        a == b
    }
}

impl Key for [u32; 2] {
    fn from_bits(bits: u64) -> Self {
        [(bits >> 32) as u32, bits as u32]
    }
    fn ordered(self) -> u64 {
        (u64::from(self[0]) << 32) | u64::from(self[1])
    }
    fn same(a: &Self, b: &Self) -> bool {
        a == b
    }
}

impl Key for f64 {
    /// Mostly finite values of every magnitude and both signs; one in 16 a special
    /// (NaNs of both signs and several payloads, infinities, zeros).
    fn from_bits(bits: u64) -> Self {
        if bits.is_multiple_of(16) {
            let specials = [
                f64::NAN,
                -f64::NAN,
                f64::from_bits(0x7ff0_0000_0000_0001),
                f64::from_bits(0xfff8_0000_dead_0000),
                f64::INFINITY,
                f64::NEG_INFINITY,
                0.0,
                -0.0,
                f64::MIN_POSITIVE,
                -f64::from_bits(1),
            ];
            return specials[(bits >> 8) as usize % specials.len()];
        }
        // Exponents near 1.0 and random ones, so low words decide many comparisons.
        let x = f64::from_bits(bits & 0x800f_ffff_ffff_ffff | 0x3ff0_0000_0000_0000);
        if bits & 0x10 == 0 {
            x
        } else {
            f64::from_bits(bits)
        }
    }
    fn ordered(self) -> u64 {
        let x = self.to_bits();
        if x >> 63 == 1 { !x } else { x ^ (1 << 63) }
    }
    fn same(a: &Self, b: &Self) -> bool {
        a.to_bits() == b.to_bits()
    }
}

impl Key for gpuprim::half::f16 {
    /// Every 16-bit pattern: NaNs, infinities, zeros and subnormals among them.
    fn from_bits(bits: u64) -> Self {
        gpuprim::half::f16::from_bits((bits ^ bits >> 32) as u16)
    }
    fn ordered(self) -> u64 {
        let x = self.to_bits();
        u64::from(if x >> 15 == 1 { !x } else { x ^ 0x8000 })
    }
    fn same(a: &Self, b: &Self) -> bool {
        a.to_bits() == b.to_bits()
    }
}

/// `n` keys from `seed`; with `few`, from a handful of high and low words, so equal high
/// words, equal low words and equal keys are all common.
fn keys<K: Key>(n: usize, seed: u64, few: bool) -> Vec<K> {
    let bits: Vec<u32> = random_vec(2 * n, seed);
    (0..n)
        .map(|i| {
            let (h, l) = (bits[2 * i], bits[2 * i + 1]);
            let (h, l) = if few {
                // Sign and top bits vary too, so signed and float keys mix signs.
                (
                    (h % 3).rotate_right(1) | (h % 3),
                    (l % 4).rotate_right(2) | (l % 2),
                )
            } else {
                (h, l)
            };
            K::from_bits((u64::from(h) << 32) | u64::from(l))
        })
        .collect()
}

/// The stable order of `keys` by bits `range` of their sortable words.
fn cpu_order<K: Key>(keys: &[K], descending: bool, range: &Range<u32>) -> Vec<u32> {
    let mask = |k: &K| {
        let w = k.ordered();
        let width = range.end - range.start;
        if width == 0 {
            0
        } else {
            (w >> range.start) & (u64::MAX >> (64 - width))
        }
    };
    let mut order: Vec<u32> = (0..keys.len() as u32).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (mask(&keys[a as usize]), mask(&keys[b as usize]));
        if descending { y.cmp(&x) } else { x.cmp(&y) }
    });
    order
}

fn check_keys<K: Key>(gpu: &[K], cpu: &[K], what: &str) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: length");
    for (i, (g, c)) in gpu.iter().zip(cpu).enumerate() {
        assert!(K::same(g, c), "{what}: key {i} is {g:?}, expected {c:?}");
    }
}

fn algorithms(ctx: &Ctx) -> Vec<SortAlgorithm> {
    if ctx.has_features(wgpu::Features::SUBGROUP) {
        vec![SortAlgorithm::OneSweep, SortAlgorithm::ReduceThenScan]
    } else {
        vec![SortAlgorithm::ReduceThenScan]
    }
}

/// Every call on `keys` with `sort` (which sorts by key bits `range`): sort, sort_by_key
/// with the indices as 4-, 8- and 16-byte values, argsort; each against the CPU's
/// stable order.
fn check_all<K: Key>(ctx: &Ctx, host: &[K], sort: &Sort, range: Range<u32>, what: &str) {
    let n = host.len();
    let order = cpu_order(host, sort.is_descending(), &range);
    let sorted: Vec<K> = order.iter().map(|&i| host[i as usize]).collect();
    let what = format!("{what} n={n} {sort:?}");

    let mut g = ctx.upload(host).unwrap();
    ctx.sort_with(&mut g, sort).unwrap();
    check_keys(&g.to_vec().unwrap(), &sorted, &format!("sort {what}"));

    let mut g = ctx.upload(host).unwrap();
    let mut idx = ctx.upload(&(0..n as u32).collect::<Vec<_>>()).unwrap();
    ctx.sort_by_key_with(&mut g, &mut idx, sort).unwrap();
    check_keys(
        &g.to_vec().unwrap(),
        &sorted,
        &format!("sort_by_key keys {what}"),
    );
    assert_eq!(
        idx.to_vec().unwrap(),
        order,
        "sort_by_key u32 values {what}"
    );

    let records: Vec<[u32; 4]> = (0..n as u32)
        .map(|i| [i, !i, i.wrapping_mul(0x9e37_79b9), 0x5eed])
        .collect();
    let want: Vec<[u32; 4]> = order.iter().map(|&i| records[i as usize]).collect();
    let mut g = ctx.upload(host).unwrap();
    let mut v = ctx.upload(&records).unwrap();
    ctx.sort_by_key_with(&mut g, &mut v, sort).unwrap();
    check_keys(
        &g.to_vec().unwrap(),
        &sorted,
        &format!("sort_by_key keys (16-byte values) {what}"),
    );
    assert_eq!(
        v.to_vec().unwrap(),
        want,
        "sort_by_key [u32; 4] values {what}"
    );

    let wide: Vec<u64> = (0..n as u64).map(|i| i << 33 | 0xa5).collect();
    let want: Vec<u64> = order.iter().map(|&i| wide[i as usize]).collect();
    let mut g = ctx.upload(host).unwrap();
    let mut v = ctx.upload(&wide).unwrap();
    ctx.sort_by_key_with(&mut g, &mut v, sort).unwrap();
    assert_eq!(v.to_vec().unwrap(), want, "sort_by_key u64 values {what}");

    let g = ctx.upload(host).unwrap();
    let mut out = poisoned::<u32>(ctx, n);
    ctx.argsort_into(&g, sort, &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), order, "argsort {what}");
    check_keys(
        &g.to_vec().unwrap(),
        host,
        &format!("argsort leaves its keys {what}"),
    );
}

const LENGTHS: &[usize] = &[0, 1, 2, 5, 255, 1024, 1025, 4097, 70_001];

fn every_shape<K: Key>(ctx: &Ctx, name: &str) {
    for (k, &n) in LENGTHS.iter().enumerate() {
        for few in [false, true] {
            let host: Vec<K> = keys(n, 17 + k as u64 * 31 + few as u64, few);
            for algorithm in algorithms(ctx) {
                for descending in [false, true] {
                    let sort = if descending {
                        Sort::descending()
                    } else {
                        Sort::ascending()
                    };
                    let sort = sort.algorithm(algorithm);
                    if n > 5000 && (descending || few) {
                        continue; // few keys and descending at 9000 below
                    }
                    check_all(ctx, &host, &sort, 0..64, &format!("{name} few={few}"));
                }
            }
        }
    }
    let host: Vec<K> = keys(9000, 5, true);
    check_all(
        ctx,
        &host,
        &Sort::descending(),
        0..64,
        &format!("{name} descending"),
    );
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
    use gpuprim::half::f16;
    let ctx = ctx();
    if !supports::<f16>(ctx) {
        return;
    }
    every_shape::<f16>(ctx, "f16");
    let host: Vec<f16> = keys(5000, 77, false);
    for range in [0..16, 0..8, 8..16, 3..11, 15..16, 4..4] {
        for sort in [Sort::ascending(), Sort::descending()] {
            let sort = sort.bits(range.clone());
            check_all(ctx, &host, &sort, range.clone(), "f16 bits");
        }
    }
    let mut g = ctx.upload(&host).unwrap();
    assert!(matches!(
        ctx.sort_with(&mut g, &Sort::ascending().bits(0..17)),
        Err(Error::InvalidArgument { .. })
    ));
    // The CPU's order of specials, for the record.
    let specials = [
        f16::NAN,
        -f16::NAN,
        f16::INFINITY,
        f16::NEG_INFINITY,
        f16::ZERO,
        f16::NEG_ZERO,
        f16::ONE,
    ];
    let mut g = ctx.upload(&specials).unwrap();
    ctx.sort(&mut g).unwrap();
    let mut want = specials.to_vec();
    want.sort_by(|a, b| a.total_cmp(b));
    check_keys(&g.to_vec().unwrap(), &want, "f16 specials");
}

/// Bit ranges: in the low word only (one word sorted), the high word only, across both,
/// one bit, none; for every key type.
#[test]
fn bit_ranges() {
    fn each<K: Key>(ctx: &Ctx, name: &str) {
        let host: Vec<K> = keys(2000, 99, false);
        let few: Vec<K> = keys(2000, 98, true);
        for (k, range) in [0..32, 32..64, 8..40, 60..64, 31..33, 5..5]
            .into_iter()
            .enumerate()
        {
            // Few distinct keys where the range splits words, random keys elsewhere.
            for h in [&host, &few].into_iter().skip(usize::from(k % 2 == 0)) {
                for sort in [Sort::ascending(), Sort::descending()] {
                    let sort = sort.bits(range.clone());
                    check_all(ctx, h, &sort, range.clone(), &format!("{name} bits"));
                }
            }
        }
    }
    let ctx = ctx();
    each::<u64>(ctx, "u64");
    each::<i64>(ctx, "i64");
    each::<[u32; 2]>(ctx, "[u32; 2]");
    if supports::<f64>(ctx) {
        each::<f64>(ctx, "f64");
    }
}

/// One-word keys with wider values: the keys sort as ever, the values follow.
#[test]
fn word_keys_with_wide_values() {
    fn each<V: SortPayload + Copy + PartialEq + std::fmt::Debug>(
        ctx: &Ctx,
        make: impl Fn(u32) -> V,
        name: &str,
    ) {
        for &n in &[0usize, 1, 3, 1025, 4097] {
            for few in [false, true] {
                let mut host: Vec<u32> = random_vec(n, n as u64 + 3);
                if few {
                    host.iter_mut().for_each(|k| *k %= 5);
                }
                let values: Vec<V> = (0..n as u32).map(&make).collect();
                for algorithm in algorithms(ctx) {
                    for sort in [Sort::ascending(), Sort::descending()] {
                        let sort = sort.algorithm(algorithm);
                        let mut order: Vec<usize> = (0..n).collect();
                        if sort.is_descending() {
                            order.sort_by(|&a, &b| host[b].cmp(&host[a]));
                        } else {
                            order.sort_by_key(|&a| host[a]);
                        }
                        let mut k = ctx.upload(&host).unwrap();
                        let mut v = ctx.upload(&values).unwrap();
                        ctx.sort_by_key_with(&mut k, &mut v, &sort).unwrap();
                        let want_k: Vec<u32> = order.iter().map(|&i| host[i]).collect();
                        let want_v: Vec<V> = order.iter().map(|&i| values[i]).collect();
                        let what = format!("{name} n={n} few={few} {sort:?}");
                        assert_eq!(k.to_vec().unwrap(), want_k, "keys {what}");
                        assert_eq!(v.to_vec().unwrap(), want_v, "values {what}");
                    }
                }
            }
        }
    }
    let ctx = ctx();
    each(ctx, |i| [i, i ^ 0xffff], "[u32; 2]");
    each(ctx, |i| [i as f32 * 0.5, -(i as f32)], "[f32; 2]");
    each(ctx, |i| [i as i32, -(i as i32)], "[i32; 2]");
    each(ctx, |i| u64::from(i) << 32 | 7, "u64");
    each(ctx, |i| -(i64::from(i) << 31), "i64");
    each(ctx, |i| [i, 1, 2, !i], "[u32; 4]");
    each(ctx, |i| [i as f32, 2.5, -0.0, 1.5], "[f32; 4]");
    each(ctx, |i| [i as i32, -1, 0, 3], "[i32; 4]");
    if supports::<f64>(ctx) {
        each(ctx, |i| f64::from(i) * -0.25, "f64");
    }
}

/// f32 NaN payloads in values come back bit for bit (values are moved, not loaded as
/// floats).
#[test]
fn values_keep_their_bits() {
    let ctx = ctx();
    let n = 1000;
    let host: Vec<u32> = random_vec(n, 4);
    let values: Vec<[u32; 4]> = (0..n as u32)
        .map(|i| [0x7fc0_0000 | i, 0xff80_0001, 0x8000_0000, i])
        .collect();
    let mut k = ctx.upload(&host).unwrap();
    let mut v: GpuVec<[f32; 4]> = ctx
        .upload(
            &values
                .iter()
                .map(|r| r.map(f32::from_bits))
                .collect::<Vec<_>>(),
        )
        .unwrap();
    ctx.sort_by_key(&mut k, &mut v).unwrap();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&a| host[a]);
    let got: Vec<[u32; 4]> = v
        .to_vec()
        .unwrap()
        .iter()
        .map(|r| r.map(f32::to_bits))
        .collect();
    let want: Vec<[u32; 4]> = order.iter().map(|&i| values[i]).collect();
    assert_eq!(got, want);
}

/// 8-byte keys and wide values are bound whole: on a context whose bindings hold 4096
/// bytes, 512 keys sort (and their words take the engine's binding windows), 513 are a
/// `TooLarge` naming the limit.
#[test]
fn one_binding() {
    let ctx = split_ctx();
    let host: Vec<u64> = keys(512, 8, true);
    check_all_small(ctx, &host);
    let mut g = ctx.upload(&keys::<u64>(513, 8, false)).unwrap();
    match ctx.sort(&mut g) {
        Err(Error::TooLarge {
            kind: Limit::BindingBytes,
            requested: 4104,
            limit: 4096,
            what,
        }) => assert!(what.contains("sort at most 512"), "{what}"),
        other => panic!("expected TooLarge, got {other:?}"),
    }
    let mut k = ctx.upload(&vec![1u32; 300]).unwrap();
    let mut v = ctx.upload(&vec![[0u32; 4]; 300]).unwrap();
    assert!(matches!(
        ctx.sort_by_key(&mut k, &mut v),
        Err(Error::TooLarge {
            requested: 4800,
            ..
        })
    ));
}

fn check_all_small(ctx: &Ctx, host: &[u64]) {
    let order = cpu_order(host, false, &(0..64));
    let mut g = ctx.upload(host).unwrap();
    ctx.sort(&mut g).unwrap();
    let sorted: Vec<u64> = order.iter().map(|&i| host[i as usize]).collect();
    assert_eq!(g.to_vec().unwrap(), sorted);
    let g = ctx.upload(host).unwrap();
    let mut out = poisoned::<u32>(ctx, host.len());
    ctx.argsort_into(&g, &Sort::ascending(), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), order);
}

#[test]
fn errors() {
    let ctx = ctx();
    let mut g = ctx.upload(&[3u64, 1, 2]).unwrap();
    match ctx.sort_with(&mut g, &Sort::ascending().bits(0..65)) {
        Err(Error::InvalidArgument { message, .. }) => {
            assert!(
                message.contains("0..65") && message.contains("64"),
                "{message}"
            )
        }
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    let mut g = ctx.upload(&[3u64, 1, 2]).unwrap();
    assert!(
        ctx.sort_with(
            &mut g,
            &Sort::ascending().bits(Range { start: 40, end: 33 })
        )
        .is_err()
    );
    let mut v = ctx.upload(&[[0u32; 4]; 2]).unwrap();
    assert!(matches!(
        ctx.sort_by_key(&mut g, &mut v),
        Err(Error::LengthMismatch { .. })
    ));
    let mut k = ctx.upload(&[1u32, 2, 3]).unwrap();
    let mut v = ctx.upload(&[[0f32; 2]; 4]).unwrap();
    assert!(matches!(
        ctx.sort_by_key(&mut k, &mut v),
        Err(Error::LengthMismatch { .. })
    ));
    // Nothing was sorted by the refused calls.
    assert_eq!(g.to_vec().unwrap(), vec![3, 1, 2]);
}

/// Threads sorting on one context at once: each call holds scratch across several
/// submissions (split, the word sorts, the final gather), which other threads' calls
/// must not be handed before this call's work is queued.
#[test]
fn threads_share_a_context() {
    let ctx = ctx();
    std::thread::scope(|s| {
        for t in 0..4u64 {
            s.spawn(move || {
                for r in 0..60u64 {
                    let host: Vec<u64> = keys(8 + t as usize * 100, t * 1000 + r, r % 2 == 0);
                    let mut want = host.clone();
                    want.sort();
                    let mut g = ctx.upload(&host).unwrap();
                    let order = ctx.argsort(&g).unwrap().to_vec().unwrap();
                    let by_order: Vec<u64> = order.iter().map(|&i| host[i as usize]).collect();
                    assert_eq!(by_order, want, "argsort, thread {t} round {r}");
                    ctx.sort(&mut g).unwrap();
                    assert_eq!(g.to_vec().unwrap(), want, "sort, thread {t} round {r}");
                }
            });
        }
    });
}
