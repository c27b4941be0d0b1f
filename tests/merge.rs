//! merge and merge_by_key against the CPU's stable merge: u32, i32 and f32 keys (f32 in
//! total_cmp order, -0.0 before +0.0, NaNs at the ends), random sorted inputs with many
//! ties between and within them; every pair of lengths from 0, 1, 3, 4, 5, 255, 257,
//! 1000 and one long one; the values say which input and index each element came from,
//! so a tie resolved the wrong way fails; split_ctx (4 KiB bindings: the inputs and the
//! searches across windows, a result past one binding `TooLarge`); the errors.

mod common;

use common::*;
use gpuprim::{Error, SortKey};

const LENGTHS: &[usize] = &[0, 1, 3, 4, 5, 255, 257, 1000, 70_001];

trait Key: SortKey + TestElement + std::fmt::Debug {
    fn from_small(x: u32) -> Self;
    fn order(self) -> u64;
}
impl Key for u32 {
    fn from_small(x: u32) -> u32 {
        x
    }
    fn order(self) -> u64 {
        u64::from(self)
    }
}
impl Key for i32 {
    fn from_small(x: u32) -> i32 {
        x as i32 - 500
    }
    fn order(self) -> u64 {
        (i64::from(self) - i64::from(i32::MIN)) as u64
    }
}
impl Key for f32 {
    fn from_small(x: u32) -> f32 {
        match x % 50 {
            0 => -0.0,
            1 => 0.0,
            2 => f32::NAN,
            3 => f32::NEG_INFINITY,
            _ => x as f32 / 4.0 - 100.0,
        }
    }
    fn order(self) -> u64 {
        let b = self.to_bits();
        u64::from(if b >> 31 == 1 { !b } else { b | 1 << 31 })
    }
}

fn sorted<K: Key>(n: usize, seed: u64) -> Vec<K> {
    let mut v: Vec<K> = random_vec::<u32>(n, seed)
        .iter()
        .map(|x| K::from_small(x % 1000))
        .collect();
    v.sort_by_key(|x| x.order());
    v
}

fn bits<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

fn check_type<K: Key>(seed: u64) {
    for ctx in [ctx(), split_ctx()] {
        for &m in LENGTHS {
            for &n in LENGTHS {
                let a: Vec<K> = sorted(m, seed ^ m as u64);
                let b: Vec<K> = sorted(n, seed + 1 + n as u64);
                let what = format!("{} merge of {m} and {n}", K::WGSL);
                // Values: index in a, or 1 << 31 | index in b.
                let av: Vec<u32> = (0..m as u32).collect();
                let bv: Vec<u32> = (0..n as u32).map(|j| 1 << 31 | j).collect();
                let mut want: Vec<(K, u32)> = a.iter().copied().zip(av.iter().copied()).collect();
                want.extend(b.iter().copied().zip(bv.iter().copied()));
                // A stable sort of a then b by key is their stable merge.
                want.sort_by_key(|p| p.0.order());
                let want_k: Vec<K> = want.iter().map(|p| p.0).collect();
                let want_v: Vec<u32> = want.iter().map(|p| p.1).collect();

                let (ga, gb) = (ctx.upload(&a).unwrap(), ctx.upload(&b).unwrap());
                let fits = (m + n) * 4 <= ctx.info().max_binding_bytes as usize;
                let got = ctx.merge(&ga, &gb);
                if !fits {
                    assert!(
                        matches!(got, Err(Error::TooLarge { .. })),
                        "{what}: {got:?}"
                    );
                    continue;
                }
                let got = got.unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(bits(&got.to_vec().unwrap()), bits(&want_k), "{what}");
                let mut into = poisoned::<K>(ctx, m + n);
                ctx.merge_into(&ga, &gb, &mut into).unwrap();
                assert_eq!(
                    bits(&into.to_vec().unwrap()),
                    bits(&want_k),
                    "{what} (into)"
                );
                let (gav, gbv) = (ctx.upload(&av).unwrap(), ctx.upload(&bv).unwrap());
                let (k, v) = ctx.merge_by_key(&ga, &gav, &gb, &gbv).unwrap();
                assert_eq!(
                    bits(&k.to_vec().unwrap()),
                    bits(&want_k),
                    "{what} by key: keys"
                );
                assert_eq!(v.to_vec().unwrap(), want_v, "{what} by key: values");
            }
        }
    }
}

#[test]
fn u32_matches_cpu() {
    check_type::<u32>(0x71);
}

#[test]
fn i32_matches_cpu() {
    check_type::<i32>(0x72);
}

#[test]
fn f32_matches_cpu() {
    check_type::<f32>(0x73);
}

#[test]
fn errors() {
    let c = ctx();
    let a = c.upload(&[1u32, 2]).unwrap();
    let av = c.upload(&[1.0f32]).unwrap();
    let b = c.upload(&[3u32]).unwrap();
    let bv = c.upload(&[2.0f32]).unwrap();
    assert!(matches!(
        c.merge_by_key(&a, &av, &b, &bv),
        Err(Error::LengthMismatch { .. })
    ));
    let count = c.upload(&[1u32]).unwrap();
    assert!(matches!(
        c.merge(&a.prefix(&count).unwrap(), &b),
        Err(Error::InvalidArgument { .. })
    ));
    let mut short = c.zeros::<u32>(2).unwrap();
    assert!(matches!(
        c.merge_into(&a, &b, &mut short),
        Err(Error::LengthMismatch { .. })
    ));
    let other = split_ctx().upload(&[1u32]).unwrap();
    assert!(matches!(
        c.merge(&a, &other),
        Err(Error::ContextMismatch { .. })
    ));
    // Unsorted inputs: some order, every write inside the result.
    let x = c.upload(&[9u32, 1, 5]).unwrap();
    let y = c.upload(&[7u32, 2]).unwrap();
    assert_eq!(c.merge(&x, &y).unwrap().len(), 5);
}
