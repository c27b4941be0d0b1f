//! The runs family (unique, run_length_encode, reduce_by_key, unique_with,
//! unique_by_key, and scan_by_key, whose runs are the same) with keys of every `RadixKey` form (8-byte keys, `f16` two to a word,
//! and `u32` beside them), and reduce_by_key with values of every `RunValue` type and
//! every operator, against CPU references.
//!
//! Keys come in runs of 1 to 6 copies of keys drawn from a random pool whose keys often
//! share their high or their low word, so equal high words, equal low words and equal
//! keys all occur next to each other; -0.0 and
//! +0.0, and NaNs of several payloads, are among the float keys (runs compare bits).
//! Outputs start poisoned, every element up to the count is compared, and the elements
//! past the count must keep their poison. Float values are small integers (or, for
//! products, powers of two), so every sum and product of a run is exact whatever the
//! grouping of the adapter's tiles: the GPU's and the CPU's results must be the same bits.

mod common;

use common::wide::WideKey as Key;
use common::*;
use gpuprim::half::f16;
use gpuprim::{Ctx, Error, GpuVec, Reduce, RunValue};

fn same<K: bytemuck::Pod>(a: &K, b: &K) -> bool {
    bytemuck::bytes_of(a) == bytemuck::bytes_of(b)
}

/// `n` keys in runs of 1 to 6 copies of keys from a pool of `pool` random ones.
fn run_keys<K: Key>(n: usize, pool: usize, seed: u64) -> Vec<K> {
    let bits: Vec<u32> = random_vec(2 * n + 2 * pool + 2, seed);
    // Every other pool key takes its high word, or its low word, from one of three, so
    // keys that differ in one word only sit side by side.
    let pool: Vec<K> = (0..pool.max(1))
        .map(|i| {
            let (mut h, mut l) = (bits[2 * i], bits[2 * i + 1]);
            match i % 4 {
                1 => h = bits[h as usize % 3],
                3 => l = bits[l as usize % 3 + 1],
                _ => {}
            }
            K::from_bits((u64::from(h) << 32) | u64::from(l))
        })
        .collect();
    let mut out = Vec::with_capacity(n);
    let mut r = 0;
    while out.len() < n {
        let draw = bits[2 * pool.len() + r % (2 * n + 2)];
        r += 1;
        let key = pool[draw as usize % pool.len()];
        for _ in 0..(1 + (draw >> 16) % 6) {
            if out.len() < n {
                out.push(key);
            }
        }
    }
    out
}

/// Runs of equal bits: (first index, length) each.
fn cpu_runs<K: bytemuck::Pod>(host: &[K]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for i in 0..host.len() {
        if i > 0 && same(&host[i], &host[i - 1]) {
            runs.last_mut().expect("a run").1 += 1;
        } else {
            runs.push((i, 1));
        }
    }
    runs
}

fn assert_same<T: bytemuck::Pod + std::fmt::Debug>(gpu: &[T], cpu: &[T], what: &str) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: lengths");
    for (i, (g, c)) in gpu.iter().zip(cpu).enumerate() {
        assert!(same(g, c), "{what}: element {i} is {g:?}, want {c:?}");
    }
}

/// The front of `out` is `want`, the rest `poison`.
fn assert_front<T: bytemuck::Pod + std::fmt::Debug>(out: &[T], want: &[T], poison: T, what: &str) {
    assert_same(&out[..want.len()], want, what);
    for (i, x) in out.iter().enumerate().skip(want.len()) {
        assert!(
            same(x, &poison),
            "{what}: element {i} past the runs was written: {x:?}"
        );
    }
}

/// unique, run_length_encode, reduce_by_key (sum of u32 values), unique_with and
/// unique_by_key of `host` against the CPU.
fn check_keys<K: Key>(ctx: &Ctx, host: &[K], what: &str) {
    let n = host.len();
    let runs = cpu_runs(host);
    let firsts: Vec<K> = runs.iter().map(|&(i, _)| host[i]).collect();
    let lengths: Vec<u32> = runs.iter().map(|&(_, l)| l as u32).collect();
    let v = ctx.upload(host).unwrap();
    let what = format!("{what} ({n} keys, {} runs)", runs.len());

    assert_same(
        &ctx.unique(&v).unwrap().to_vec().unwrap(),
        &firsts,
        &format!("unique {what}"),
    );
    let mut out = ctx.upload(&vec![K::POISON; n]).unwrap();
    let mut count = poisoned::<u32>(ctx, 1);
    ctx.unique_into(&v, &mut out, &mut count).unwrap();
    assert_eq!(
        count.to_vec().unwrap(),
        vec![runs.len() as u32],
        "unique_into count {what}"
    );
    assert_front(
        &out.to_vec().unwrap(),
        &firsts,
        K::POISON,
        &format!("unique_into {what}"),
    );

    let mut keys_out = ctx.upload(&vec![K::POISON; n]).unwrap();
    let mut lengths_out = poisoned::<u32>(ctx, n);
    let mut count = poisoned::<u32>(ctx, 1);
    ctx.run_length_encode_into(&v, &mut keys_out, &mut lengths_out, &mut count)
        .unwrap();
    assert_eq!(
        count.to_vec().unwrap(),
        vec![runs.len() as u32],
        "rle count {what}"
    );
    assert_front(
        &keys_out.to_vec().unwrap(),
        &firsts,
        K::POISON,
        &format!("rle keys {what}"),
    );
    assert_front(
        &lengths_out.to_vec().unwrap(),
        &lengths,
        0xdead_beef,
        &format!("rle lengths {what}"),
    );

    let values: Vec<u32> = random_vec(n, 5);
    let sums: Vec<u32> = runs
        .iter()
        .map(|&(i, l)| {
            values[i..i + l]
                .iter()
                .fold(0u32, |a, &b| a.wrapping_add(b))
        })
        .collect();
    let (k, s) = ctx
        .reduce_by_key(&v, &ctx.upload(&values).unwrap(), Reduce::Sum)
        .unwrap();
    assert_same(
        &k.to_vec().unwrap(),
        &firsts,
        &format!("reduce_by_key keys {what}"),
    );
    assert_same(
        &s.to_vec().unwrap(),
        &sums,
        &format!("reduce_by_key sums {what}"),
    );

    let (mut inclusive, mut exclusive) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for &(i, l) in &runs {
        let mut acc = 0u32;
        for &x in &values[i..i + l] {
            exclusive.push(acc);
            acc = acc.wrapping_add(x);
            inclusive.push(acc);
        }
    }
    let gv = ctx.upload(&values).unwrap();
    let mut out = poisoned::<u32>(ctx, n);
    ctx.scan_by_key_into(&v, &gv, &mut out).unwrap();
    assert_same(
        &out.to_vec().unwrap(),
        &inclusive,
        &format!("scan_by_key {what}"),
    );
    let mut out = poisoned::<u32>(ctx, n);
    ctx.scan_by_key_exclusive_into(&v, &gv, &mut out).unwrap();
    assert_same(
        &out.to_vec().unwrap(),
        &exclusive,
        &format!("scan_by_key_exclusive {what}"),
    );

    let (k, first_values) = ctx
        .unique_by_key(&v, &ctx.upload(&values).unwrap())
        .unwrap();
    let want: Vec<u32> = runs.iter().map(|&(i, _)| values[i]).collect();
    assert_same(
        &k.to_vec().unwrap(),
        &firsts,
        &format!("unique_by_key keys {what}"),
    );
    assert_same(
        &first_values.to_vec().unwrap(),
        &want,
        &format!("unique_by_key values {what}"),
    );

    // unique_with: sorted distinct keys (in the sort's order), inverse, counts.
    let mut sorted_keys = ctx.upload(host).unwrap();
    ctx.sort(&mut sorted_keys).unwrap();
    let sorted = sorted_keys.to_vec().unwrap();
    let distinct_runs = cpu_runs(&sorted);
    let distinct: Vec<K> = distinct_runs.iter().map(|&(i, _)| sorted[i]).collect();
    let counts: Vec<u32> = distinct_runs.iter().map(|&(_, l)| l as u32).collect();
    let inverse: Vec<u32> = host
        .iter()
        .map(|x| distinct.iter().position(|d| same(d, x)).expect("a key") as u32)
        .collect();
    let (values, inv, cnt) = ctx.unique_with(&v).unwrap();
    assert_same(
        &values.to_vec().unwrap(),
        &distinct,
        &format!("unique_with values {what}"),
    );
    assert_same(
        &inv.to_vec().unwrap(),
        &inverse,
        &format!("unique_with inverse {what}"),
    );
    assert_same(
        &cnt.to_vec().unwrap(),
        &counts,
        &format!("unique_with counts {what}"),
    );
}

/// Lengths around one word of f16 keys, the runs' tiles, and a few thousand keys.
const LENGTHS: &[usize] = &[
    0, 1, 2, 3, 4, 5, 255, 256, 257, 1023, 1024, 1025, 4097, 20_001,
];

fn every_length<K: Key>(ctx: &Ctx, name: &str) {
    for (k, &n) in LENGTHS.iter().enumerate() {
        for pool in [3, n / 3 + 1] {
            let host: Vec<K> = run_keys(n, pool, 17 * k as u64 + pool as u64);
            check_keys(ctx, &host, &format!("{name} pool {pool}"));
        }
    }
}

#[test]
fn u32_keys() {
    every_length::<u32>(ctx(), "u32");
}

#[test]
fn u64_keys() {
    every_length::<u64>(ctx(), "u64");
}

#[test]
fn i64_keys() {
    every_length::<i64>(ctx(), "i64");
}

#[test]
fn pair_keys() {
    every_length::<[u32; 2]>(ctx(), "[u32; 2]");
}

#[test]
fn f64_keys() {
    if supports::<f64>(ctx()) {
        every_length::<f64>(ctx(), "f64");
    }
}

#[test]
fn f16_keys() {
    if supports::<f16>(ctx()) {
        every_length::<f16>(ctx(), "f16");
    }
}

/// The split context (4 KiB bindings): a call past one binding is an error naming it.
#[test]
fn past_one_binding() {
    let ctx = split_ctx();
    let keys: Vec<u64> = run_keys(512, 30, 3);
    check_keys(ctx, &keys, "u64 in one 4 KiB binding");
    let v = ctx.upload(&run_keys::<u64>(513, 30, 4)).unwrap();
    match ctx.unique(&v) {
        Err(Error::TooLarge {
            requested, limit, ..
        }) => {
            assert_eq!((requested, limit), (513 * 8, 4096));
        }
        other => panic!("unique past one binding: {other:?}"),
    }
    let keys = ctx.upload(&vec![1u32; 300]).unwrap();
    let values = ctx.upload(&vec![[1.0f32; 4]; 300]).unwrap();
    assert!(matches!(
        ctx.reduce_by_key(&keys, &values, Reduce::Sum),
        Err(Error::TooLarge {
            requested: 4800,
            ..
        })
    ));
}

// ---- reduce_by_key values ----

/// A value type under test: a value from random bits, and the CPU's operators.
trait Value: RunValue + Copy + std::fmt::Debug {
    /// `small`: values whose sums (and, `for_product`, products) stay exact.
    fn from_bits(bits: u64, for_product: bool) -> Self;
    fn sum(a: Self, b: Self) -> Self;
    fn product(a: Self, b: Self) -> Self;
    fn min(a: Self, b: Self) -> Self;
    fn max(a: Self, b: Self) -> Self;
    const POISON: Self;
}

/// A float from random bits: a small integer, or for products a power of two of
/// either sign near 1.
fn small_float(bits: u64, for_product: bool) -> f64 {
    if for_product {
        let sign = if bits & 1 == 0 { 1.0 } else { -1.0 };
        sign * [0.5, 1.0, 2.0][(bits >> 1) as usize % 3]
    } else {
        ((bits >> 8) % 201) as f64 - 100.0
    }
}

macro_rules! int_value {
    ($t:ty, $poison:expr) => {
        impl Value for $t {
            fn from_bits(bits: u64, _: bool) -> Self {
                bits as $t
            }
            fn sum(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            fn product(a: Self, b: Self) -> Self {
                a.wrapping_mul(b)
            }
            fn min(a: Self, b: Self) -> Self {
                Ord::min(a, b)
            }
            fn max(a: Self, b: Self) -> Self {
                Ord::max(a, b)
            }
            const POISON: Self = $poison;
        }
    };
}
int_value!(u32, 0xdead_beef);
int_value!(i32, 0x5eed_dead);
int_value!(u64, 0xdead_beef_dead_beef);
int_value!(i64, -0x5eed_dead_5eed_dead);

macro_rules! float_value {
    ($t:ty, $poison:expr, $from:expr) => {
        impl Value for $t {
            fn from_bits(bits: u64, for_product: bool) -> Self {
                $from(small_float(bits, for_product))
            }
            fn sum(a: Self, b: Self) -> Self {
                a + b
            }
            fn product(a: Self, b: Self) -> Self {
                a * b
            }
            fn min(a: Self, b: Self) -> Self {
                if b < a { b } else { a }
            }
            fn max(a: Self, b: Self) -> Self {
                if b > a { b } else { a }
            }
            const POISON: Self = $poison;
        }
    };
}
float_value!(f32, f32::NAN, |x: f64| x as f32);
float_value!(f64, f64::NAN, |x: f64| x);
float_value!(f16, f16::NAN, f16::from_f64);

impl<T: Value, const N: usize> Value for [T; N]
where
    [T; N]: RunValue,
{
    fn from_bits(bits: u64, for_product: bool) -> Self {
        std::array::from_fn(|c| T::from_bits(bits.rotate_left(13 * c as u32), for_product))
    }
    fn sum(a: Self, b: Self) -> Self {
        std::array::from_fn(|c| T::sum(a[c], b[c]))
    }
    fn product(a: Self, b: Self) -> Self {
        std::array::from_fn(|c| T::product(a[c], b[c]))
    }
    fn min(a: Self, b: Self) -> Self {
        std::array::from_fn(|c| T::min(a[c], b[c]))
    }
    fn max(a: Self, b: Self) -> Self {
        std::array::from_fn(|c| T::max(a[c], b[c]))
    }
    const POISON: Self = [T::POISON; N];
}

/// A CPU operator.
type Op<V> = fn(V, V) -> V;

/// Every operator of reduce_by_key on values `V` by the u32 keys `keys`, against the CPU;
/// `custom`: a WGSL operator with its identity and the CPU's twin.
fn check_values<V: Value>(ctx: &Ctx, keys: &[u32], custom: (&str, V, Op<V>), name: &str) {
    let n = keys.len();
    let runs = cpu_runs(keys);
    let k = ctx.upload(keys).unwrap();
    let bits: Vec<u32> = random_vec(2 * n, 11);
    let value = |i: usize, product: bool| {
        V::from_bits(
            (u64::from(bits[2 * i]) << 32) | u64::from(bits[2 * i + 1]),
            product,
        )
    };
    let plain: Vec<V> = (0..n).map(|i| value(i, false)).collect();
    let near_one: Vec<V> = (0..n).map(|i| value(i, true)).collect();
    let ops: [(Reduce<V>, Op<V>, &Vec<V>); 5] = [
        (Reduce::Sum, V::sum, &plain),
        (Reduce::Product, V::product, &near_one),
        (Reduce::Min, V::min, &plain),
        (Reduce::Max, V::max, &plain),
        (Reduce::custom(custom.0, custom.1), custom.2, &plain),
    ];
    for (op, f, values) in ops {
        let want: Vec<V> = runs
            .iter()
            .map(|&(i, l)| values[i + 1..i + l].iter().fold(values[i], |a, &b| f(a, b)))
            .collect();
        let what = format!("reduce_by_key {op:?} of {name} ({n} values)");
        let v = ctx.upload(values).unwrap();
        let mut keys_out = poisoned::<u32>(ctx, n);
        let mut out = ctx.upload(&vec![V::POISON; n]).unwrap();
        let mut count = poisoned::<u32>(ctx, 1);
        ctx.reduce_by_key_into(&k, &v, op, &mut keys_out, &mut out, &mut count)
            .unwrap();
        assert_eq!(
            count.to_vec().unwrap(),
            vec![runs.len() as u32],
            "{what}: count"
        );
        assert_front(&out.to_vec().unwrap(), &want, V::POISON, &what);
    }
}

fn every_value_length<V: Value>(custom: (&str, V, Op<V>), name: &str) {
    for &n in &[0, 1, 2, 257, 1025, 20_001] {
        let keys: Vec<u32> = run_keys(n, n / 4 + 1, n as u64);
        check_values::<V>(ctx(), &keys, custom, name);
    }
}

#[test]
fn scalar_values() {
    every_value_length::<u32>(("a ^ b", 0, |a, b| a ^ b), "u32");
    every_value_length::<i32>(("a - a + b", 0, |_, b| b), "i32");
    every_value_length::<f32>(("a + b", 0.0, |a, b| a + b), "f32");
    if supports::<f64>(ctx()) {
        every_value_length::<f64>(("max(a, b)", f64::NEG_INFINITY, f64::max), "f64");
    }
    if supports::<f16>(ctx()) {
        every_value_length::<f16>(("a + b", f16::ZERO, |a, b| a + b), "f16");
    }
}

#[test]
fn int64_values() {
    every_value_length::<u64>(("add64(a, b)", 0, u64::wrapping_add), "u64");
    // The later value where its high word is odd: associative, not commutative.
    every_value_length::<i64>(
        ("select(a, b, (b.y & 1u) == 1u)", 0, |a, b| {
            if (b >> 32) & 1 == 1 { b } else { a }
        }),
        "i64",
    );
}

#[test]
fn record_values() {
    every_value_length::<[u32; 2]>(
        ("a ^ b", [0; 2], |a, b| [a[0] ^ b[0], a[1] ^ b[1]]),
        "[u32; 2]",
    );
    every_value_length::<[i32; 2]>(("a + b", [0; 2], <[i32; 2]>::sum), "[i32; 2]");
    every_value_length::<[f32; 2]>(("a + b", [0.0; 2], <[f32; 2]>::sum), "[f32; 2]");
    every_value_length::<[u32; 4]>(
        ("a | b", [0; 4], |a, b| std::array::from_fn(|c| a[c] | b[c])),
        "[u32; 4]",
    );
    every_value_length::<[i32; 4]>(
        ("max(a, b)", [i32::MIN; 4], <[i32; 4] as Value>::max),
        "[i32; 4]",
    );
    every_value_length::<[f32; 4]>(("a + b", [0.0; 4], <[f32; 4]>::sum), "[f32; 4]");
}

/// 8-byte keys with 16-byte values; the sums that runs refuse for floats.
#[test]
fn wide_keys_with_records_and_refusals() {
    let ctx = ctx();
    let keys: Vec<u64> = run_keys(3000, 200, 9);
    let runs = cpu_runs(&keys);
    let values: Vec<[f32; 4]> = (0..keys.len())
        .map(|i| <[f32; 4]>::from_bits((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15), false))
        .collect();
    let want: Vec<[f32; 4]> = runs
        .iter()
        .map(|&(i, l)| {
            values[i + 1..i + l]
                .iter()
                .fold(values[i], |a, &b| <[f32; 4]>::sum(a, b))
        })
        .collect();
    let g = ctx.upload(&keys).unwrap();
    let gv = ctx.upload(&values).unwrap();
    let (_, sums) = ctx.reduce_by_key(&g, &gv, Reduce::Sum).unwrap();
    assert_same(&sums.to_vec().unwrap(), &want, "u64 keys, [f32; 4] sums");
    for op in [Reduce::SumCompensated, Reduce::SumWide] {
        match ctx.reduce_by_key(&g, &gv, op) {
            Err(Error::InvalidArgument { message, .. }) => {
                assert!(message.contains("vec4<f32>"), "{message}");
            }
            other => panic!("a compensated sum of [f32; 4] runs: {other:?}"),
        }
    }
    // For integers the compensated and wide sums are the exact sum.
    let ints = ctx.upload(&vec![u64::MAX; keys.len()]).unwrap();
    let (_, a) = ctx.reduce_by_key(&g, &ints, Reduce::Sum).unwrap();
    let (_, b) = ctx.reduce_by_key(&g, &ints, Reduce::SumWide).unwrap();
    assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap());
    let want: Vec<u64> = runs
        .iter()
        .map(|&(_, l)| (l as u64).wrapping_neg())
        .collect();
    assert_eq!(a.to_vec().unwrap(), want, "u64::MAX summed per run");
}

/// An empty `count` and short outputs are errors for every key form.
#[test]
fn errors() {
    let ctx = ctx();
    let keys = ctx.upload(&[1u64, 1, 2]).unwrap();
    let mut out: GpuVec<u64> = ctx.zeros(2).unwrap();
    let mut count = ctx.zeros::<u32>(1).unwrap();
    assert!(matches!(
        ctx.unique_into(&keys, &mut out, &mut count),
        Err(Error::InvalidArgument { .. })
    ));
    let mut out: GpuVec<u64> = ctx.zeros(3).unwrap();
    let mut empty = ctx.zeros::<u32>(0).unwrap();
    assert!(matches!(
        ctx.unique_into(&keys, &mut out, &mut empty),
        Err(Error::InvalidArgument { .. })
    ));
}
