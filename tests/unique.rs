//! unique_with (sorted values, inverse, counts) and unique_by_key against the CPU: u32,
//! i32 and f32 keys, random over their whole range and over a few values (long runs),
//! f32 with -0.0, +0.0 and NaN among them (distinct by bits); lengths around vec4 units
//! and workgroups; split_ctx (4 KiB bindings: past one binding is `TooLarge`); the
//! errors. Every element of every output is compared.

mod common;

use std::collections::BTreeMap;

use common::*;
use gpuprim::{Ctx, Error, SortKey};

const LENGTHS: &[usize] = &[
    0, 1, 2, 3, 4, 5, 255, 256, 257, 1023, 1024, 1025, 4097, 100_003,
];

trait Key: SortKey + TestElement + std::fmt::Debug {
    /// The order the sorts give, on the bits (f32: `total_cmp`).
    fn order_bits(self) -> u64;
    fn from_small(x: u32) -> Self;
}
impl Key for u32 {
    fn order_bits(self) -> u64 {
        u64::from(self)
    }
    fn from_small(x: u32) -> u32 {
        x
    }
}
impl Key for i32 {
    fn order_bits(self) -> u64 {
        (self as i64 - i64::from(i32::MIN)) as u64
    }
    fn from_small(x: u32) -> i32 {
        x as i32 - 3
    }
}
impl Key for f32 {
    fn order_bits(self) -> u64 {
        let b = self.to_bits();
        u64::from(if b >> 31 == 1 { !b } else { b | 1 << 31 })
    }
    fn from_small(x: u32) -> f32 {
        [-0.0, 0.0, f32::NAN, -1.5, 2.25, f32::INFINITY, -7.0][x as usize % 7]
    }
}

fn bits<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

fn check<K: Key>(ctx: &Ctx, host: &[K], what: &str) {
    let v = ctx.upload(host).unwrap();
    let fits = host.len() * 4 <= ctx.info().max_binding_bytes as usize;
    let got = ctx.unique_with(&v);
    if !fits {
        assert!(
            matches!(got, Err(Error::TooLarge { .. })),
            "{what}: {got:?}"
        );
        return;
    }
    let (values, inverse, counts) = got.unwrap_or_else(|e| panic!("{what}: {e}"));
    // The CPU: distinct values by bits in sort order, with counts and ranks.
    let mut runs: BTreeMap<u64, (K, u32)> = BTreeMap::new();
    for &x in host {
        runs.entry(x.order_bits()).or_insert((x, 0)).1 += 1;
    }
    let want_values: Vec<K> = runs.values().map(|r| r.0).collect();
    let want_counts: Vec<u32> = runs.values().map(|r| r.1).collect();
    let rank: BTreeMap<u64, u32> = runs
        .keys()
        .enumerate()
        .map(|(i, &k)| (k, i as u32))
        .collect();
    let want_inverse: Vec<u32> = host.iter().map(|x| rank[&x.order_bits()]).collect();
    assert_eq!(
        bits(&values.to_vec().unwrap()),
        bits(&want_values),
        "{what}: values"
    );
    assert_eq!(counts.to_vec().unwrap(), want_counts, "{what}: counts");
    assert_eq!(inverse.to_vec().unwrap(), want_inverse, "{what}: inverse");

    // unique_by_key over the unsorted keys: the first of each run and its value.
    let vals: Vec<u32> = (0..host.len() as u32).map(|i| i ^ 0x5a5a).collect();
    let (k, first) = ctx.unique_by_key(&v, &ctx.upload(&vals).unwrap()).unwrap();
    let mut want_k = Vec::new();
    let mut want_v = Vec::new();
    for (i, &x) in host.iter().enumerate() {
        if i == 0 || x.order_bits() != host[i - 1].order_bits() {
            want_k.push(x);
            want_v.push(vals[i]);
        }
    }
    assert_eq!(
        bits(&k.to_vec().unwrap()),
        bits(&want_k),
        "{what}: unique_by_key keys"
    );
    assert_eq!(
        first.to_vec().unwrap(),
        want_v,
        "{what}: unique_by_key values"
    );
}

fn check_type<K: Key>(seed: u64) {
    for ctx in [ctx(), split_ctx()] {
        for &n in LENGTHS {
            let wide: Vec<K> = random_vec(n, seed ^ n as u64);
            check(ctx, &wide, &format!("{} unique of {n} random", K::WGSL));
            let few: Vec<K> = random_vec::<u32>(n, seed + n as u64)
                .iter()
                .map(|x| K::from_small(x % 7))
                .collect();
            check(ctx, &few, &format!("{} unique of {n} of 7 values", K::WGSL));
        }
    }
}

#[test]
fn u32_matches_cpu() {
    check_type::<u32>(0x61);
}

#[test]
fn i32_matches_cpu() {
    check_type::<i32>(0x62);
}

#[test]
fn f32_matches_cpu() {
    check_type::<f32>(0x63);
}

#[test]
fn errors() {
    let c = ctx();
    let keys = c.upload(&[1u32, 2, 2]).unwrap();
    let vals = c.upload(&[1.0f32, 2.0]).unwrap();
    assert!(matches!(
        c.unique_by_key(&keys, &vals),
        Err(Error::LengthMismatch { .. })
    ));
    let count = c.upload(&[2u32]).unwrap();
    let view = keys.prefix(&count).unwrap();
    assert!(matches!(
        c.unique_with(&view),
        Err(Error::InvalidArgument { .. })
    ));
    let other = split_ctx().upload(&[1u32]).unwrap();
    assert!(matches!(
        c.unique_with(&other),
        Err(Error::ContextMismatch { .. })
    ));
}
