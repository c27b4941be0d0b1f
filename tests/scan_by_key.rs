//! Scans by key (scan_by_key, scan_by_key_exclusive, scan_by_key_with and their `_into`
//! forms) against a CPU reference: keys in runs of random length (1..40, one run, every key
//! distinct, long runs across tiles), u32/i32/f32 keys (f32 by bits: -0.0 and +0.0,
//! NaNs), u32/i32/f32 values, Sum/Max/Min/Product and custom operators (one not
//! commutative), inclusive and exclusive; lengths 0, 1, around vec4 units, tiles and
//! binding windows; the split-binding, folded-dispatch and no-subgroup paths and
//! contexts of either scan algorithm, and the algorithms a `Scan` asks for; f32 error
//! bounds from the order of the additions, determinism, and the errors.
//!
//! Every output starts poisoned and every element is compared.

mod common;

use std::sync::OnceLock;

use common::*;
use gpuprim::wgpu;
use gpuprim::{Ctx, Error, GpuVec, Limit, Scan, ScanAlgorithm, ScanOp, SortKey};
use proptest::prelude::*;

/// Elements per tile on `ctx`'s adapter as the library chooses them (512 on the software
/// adapter, 8192 on a GPU).
fn tile_of(ctx: &Ctx) -> usize {
    gpuprim::internals::scan_by_key_tile(ctx)
}

/// Elements per tile on the default context's adapter.
fn tile() -> usize {
    tile_of(ctx())
}
/// The largest tile of any adapter's shape (256 x 8 vec4 units on a GPU).
const GPU_TILE: usize = 8192;

// ---- contexts ----

fn built(b: gpuprim::CtxBuilder) -> Ctx {
    b.build()
        .unwrap_or_else(|e| panic!("no GPU context for the tests: {e}"))
}

/// No subgroup operations: the shared-memory workgroup scan and the one-at-a-time
/// look-back, tiles numbered in the order workgroups start.
fn tree_ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| built(Ctx::builder().without_features(wgpu::Features::SUBGROUP)))
}

/// At most 3 workgroups per dimension: from 4 tiles on the dispatch folds into 2D and
/// 3D, with surplus workgroups that must do nothing (27 tiles at most).
fn fold_ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| built(Ctx::builder().max_workgroups_per_dimension(3)))
}

/// Contexts whose `Auto` scan is each of the two algorithms (scan by key runs its one
/// single pass on both).
fn algorithm_ctx(single: bool) -> &'static Ctx {
    static RTS: OnceLock<Ctx> = OnceLock::new();
    static SINGLE: OnceLock<Ctx> = OnceLock::new();
    if single {
        SINGLE.get_or_init(|| built(Ctx::builder().scan_algorithm(ScanAlgorithm::SinglePass)))
    } else {
        RTS.get_or_init(|| built(Ctx::builder().scan_algorithm(ScanAlgorithm::ReduceThenScan)))
    }
}

/// The split context without subgroups: windows and the one-at-a-time look-back across
/// them.
fn split_tree_ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| {
        built(
            Ctx::builder()
                .max_binding_bytes(4096)
                .max_workgroups_per_dimension(3)
                .without_features(wgpu::Features::SUBGROUP),
        )
    })
}

fn contexts() -> [&'static Ctx; 6] {
    [
        ctx(),
        split_ctx(),
        tree_ctx(),
        fold_ctx(),
        split_tree_ctx(),
        algorithm_ctx(true),
    ]
}

/// `len`, cut to the 27 tiles a folded dispatch covers on `fold_ctx`.
fn fit(ctx: &Ctx, len: usize) -> usize {
    if ctx.info().max_workgroups_per_dimension == 3 && ctx.info().max_binding_bytes > 4096 {
        len.min(27 * tile_of(ctx))
    } else {
        len
    }
}

// ---- inputs ----

/// `len` u32 keys in runs of 1..=max_run (uniform), each run's key 1..=3 above the last's
/// (so runs never merge), from `seed`.
fn run_keys(len: usize, max_run: usize, seed: u64) -> Vec<u32> {
    let r = random_vec::<u32>(2 * len + 2, seed);
    let mut keys = Vec::with_capacity(len);
    let (mut key, mut j) = (r[0], 1);
    while keys.len() < len {
        let run = 1 + r[j] as usize % max_run;
        key = key.wrapping_add(1 + r[j + 1] % 3);
        j += 2;
        keys.extend(std::iter::repeat_n(key, run.min(len - keys.len())));
    }
    keys
}

/// The CPU reference: a left fold from `identity` that restarts where the key bits
/// change.
fn cpu_scan_by_key<T: Copy>(
    keys: &[u32],
    values: &[T],
    identity: T,
    op: impl Fn(T, T) -> T,
    exclusive: bool,
) -> Vec<T> {
    let mut acc = identity;
    (0..values.len())
        .map(|i| {
            if i == 0 || keys[i] != keys[i - 1] {
                acc = identity;
            }
            let before = acc;
            acc = op(acc, values[i]);
            if exclusive { before } else { acc }
        })
        .collect()
}

/// The GPU scan by key into a poisoned output.
fn gpu_scan_by_key<K: SortKey, T: TestElement>(
    ctx: &Ctx,
    keys: &GpuVec<K>,
    values: &GpuVec<T>,
    op: &ScanOp<T>,
    exclusive: bool,
) -> Vec<T> {
    let mut out = poisoned::<T>(ctx, values.len());
    let scan = if exclusive {
        Scan::exclusive(op.clone())
    } else {
        Scan::inclusive(op.clone())
    };
    let result = ctx.scan_by_key_with_into(keys, values, &scan, &mut out);
    result.unwrap_or_else(|e| panic!("{op:?} of {} elements: {e}", values.len()));
    out.to_vec().unwrap()
}

/// One operator, inclusive and exclusive, against the CPU fold, element by element.
fn check_exact<K: SortKey, T: TestElement>(
    ctx: &Ctx,
    keys: &[K],
    values: &[T],
    op: ScanOp<T>,
    identity: T,
    f: impl Fn(T, T) -> T + Copy,
) {
    let bits: Vec<u32> = keys.iter().map(|&k| key_bits(k)).collect();
    let (kv, vv) = (ctx.upload(keys).unwrap(), ctx.upload(values).unwrap());
    for exclusive in [false, true] {
        let want = cpu_scan_by_key(&bits, values, identity, f, exclusive);
        let got = gpu_scan_by_key(ctx, &kv, &vv, &op, exclusive);
        let what = format!(
            "{op:?} exclusive {exclusive} of {} {} by {} keys on {}",
            values.len(),
            T::WGSL,
            K::WGSL,
            ctx.info().name
        );
        assert_all_eq(&got, &want, &what);
    }
}

/// A key's bits.
fn key_bits<K: SortKey>(k: K) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(bytemuck::bytes_of(&k));
    u32::from_ne_bytes(b)
}

/// "The later non-zero value": associative, identity 0, not commutative.
const LAST_NONZERO: &str = "select(b, a, b == 0u)";

fn last_nonzero(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { b }
}

/// Rounding depth bound of element `i` of a run whose prefix through `i` has `m`
/// elements: a sum of m terms through any tree rounds at most m - 1 times on any
/// path; the kernel's tree is shallower: within a tile at most 3 (a unit) + 7 (a
/// subgroup of up to 128) + V + WG (the rows, subgroups or Hillis-Steele steps) for
/// the element's tile and the same for the tile totals it folds, plus one per tile
/// folded by the look-back and 2 to join them; WG <= 256, V <= 8 on every adapter.
fn depth(m: usize) -> f64 {
    m.min(2 * (3 + 7 + 8 + 256) + m / tile() + 2) as f64
}

/// Checks an f32 sum by key (built-in or custom) against the exact sums (an f64 fold of
/// the inputs: multiples of 2^-24 * 2000 below 1000, exact in f64 for these lengths)
/// within gamma(D) * sum |x_j| over the run's prefix, D from `depth`, gamma(D) = D u /
/// (1 - D u), u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 2nd
/// ed., eq. 4.3, for any order of summation). Also: the same bits on a second run.
fn check_f32_sum(ctx: &Ctx, keys: &[u32], values: &[f32], op: ScanOp<f32>) {
    let (kv, vv) = (ctx.upload(keys).unwrap(), ctx.upload(values).unwrap());
    let u = f32::EPSILON as f64 / 2.0;
    for exclusive in [false, true] {
        let got = gpu_scan_by_key(ctx, &kv, &vv, &op, exclusive);
        let again = gpu_scan_by_key(ctx, &kv, &vv, &op, exclusive);
        let same = got
            .iter()
            .zip(&again)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "{op:?} of {}: two runs differ", values.len());
        let (mut exact, mut abs, mut m) = (0.0f64, 0.0f64, 0usize);
        for i in 0..values.len() {
            if i == 0 || keys[i] != keys[i - 1] {
                (exact, abs, m) = (0.0, 0.0, 0);
            }
            if !exclusive {
                exact += values[i] as f64;
                abs += (values[i] as f64).abs();
                m += 1;
            }
            let d = depth(m);
            let bound = d * u / (1.0 - d * u) * abs;
            let err = (got[i] as f64 - exact).abs();
            assert!(
                err <= bound,
                "{op:?} exclusive {exclusive} of {} on {}: element {i}: GPU {}, exact {exact}, \
                 |error| {err:e} > bound {bound:e} (run prefix {m}, sum |x| {abs})",
                values.len(),
                ctx.info().name,
                got[i]
            );
            if exclusive {
                exact += values[i] as f64;
                abs += (values[i] as f64).abs();
                m += 1;
            }
        }
    }
}

/// Every operator and value type over one set of keys.
fn check_all(ctx: &Ctx, keys: &[u32], seed: u64) {
    let len = keys.len();
    let u = random_vec::<u32>(len, seed ^ 1);
    let i = random_vec::<i32>(len, seed ^ 2);
    let f = random_vec::<f32>(len, seed ^ 3);
    check_exact(ctx, keys, &u, ScanOp::Sum, 0, u32::wrapping_add);
    check_exact(ctx, keys, &i, ScanOp::Sum, 0, i32::wrapping_add);
    check_exact(ctx, keys, &i, ScanOp::Max, i32::MIN, i32::max);
    check_exact(ctx, keys, &u, ScanOp::Min, u32::MAX, u32::min);
    check_exact(ctx, keys, &f, ScanOp::Max, f32::NEG_INFINITY, f32::max);
    check_exact(ctx, keys, &f, ScanOp::Min, f32::INFINITY, f32::min);
    // Mostly zeros, so the order matters: a wrong order keeps an earlier value.
    let sparse: Vec<u32> = u.iter().map(|&x| if x % 5 == 0 { x } else { 0 }).collect();
    let custom = ScanOp::custom(LAST_NONZERO, 0);
    check_exact(ctx, keys, &sparse, custom, 0, last_nonzero);
    check_f32_sum(ctx, keys, &f, ScanOp::Sum);
}

// ---- tests ----

/// Lengths at the edges of vec4 units, tiles (this adapter's and a GPU's) and windows of
/// split_ctx (1024 elements).
fn edges() -> Vec<usize> {
    let tile = tile();
    vec![
        0,
        1,
        2,
        3,
        4,
        5,
        7,
        8,
        tile - 1,
        tile,
        tile + 1,
        1023,
        1024,
        1025,
        3 * tile + 5,
        GPU_TILE - 1,
        GPU_TILE + 1,
    ]
}

#[test]
fn edge_lengths_every_context() {
    for ctx in contexts() {
        for (k, &len) in edges().iter().enumerate() {
            let len = fit(ctx, len);
            let keys = run_keys(len, 40, 11 + k as u64);
            check_all(ctx, &keys, 100 + k as u64);
        }
    }
}

#[test]
fn one_run_across_every_tile() {
    let len = 5 * tile() + 77;
    let keys = vec![42u32; len];
    for ctx in contexts() {
        check_all(ctx, &keys[..fit(ctx, len)], 7);
    }
}

#[test]
fn every_key_distinct() {
    let len = 3 * tile() + 3;
    let keys: Vec<u32> = (0..len as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    for ctx in [ctx(), split_ctx(), tree_ctx()] {
        check_all(ctx, &keys, 8);
    }
}

/// Runs of 300..1000 elements, so most cross a tile boundary, and one run from the
/// start of a window to the next.
#[test]
fn long_runs_cross_tiles_and_windows() {
    let len = 6000;
    let mut keys = run_keys(len, 700, 21);
    let mut k = 0;
    for (i, key) in keys.iter_mut().enumerate() {
        if i % 650 == 0 {
            k += 1;
        }
        *key = k;
    }
    for ctx in contexts() {
        check_all(ctx, &keys[..fit(ctx, len)], 9);
    }
}

#[test]
fn contexts_of_either_scan_algorithm() {
    for single in [false, true] {
        let ctx = algorithm_ctx(single);
        for len in [1, 333, 4 * tile() + 1] {
            check_all(ctx, &run_keys(len, 40, len as u64), 5);
        }
    }
}

/// The algorithm a `Scan` asks for: `Auto` and `SinglePass` run the one single pass (the
/// same bits, on contexts whose scans take either algorithm); `ReduceThenScan`, which a
/// scan by key does not have, is refused at every length, empty too, naming the call and
/// leaving the output as it was.
#[test]
fn scan_algorithms_asked_for() {
    fn form<T>(exclusive: bool, algorithm: ScanAlgorithm) -> Scan<T> {
        let scan = if exclusive {
            Scan::exclusive(ScanOp::Sum)
        } else {
            Scan::inclusive(ScanOp::Sum)
        };
        scan.algorithm(algorithm)
    }
    for ctx in [ctx(), algorithm_ctx(false), algorithm_ctx(true), tree_ctx()] {
        let len = 3 * tile_of(ctx) + 7;
        let keys = run_keys(len, 40, 81);
        let kv = ctx.upload(&keys).unwrap();
        let fv = ctx.upload(&random_vec::<f32>(len, 82)).unwrap();
        let uv = ctx.upload(&random_vec::<u32>(len, 83)).unwrap();
        for exclusive in [false, true] {
            let bits = |algorithm| -> Vec<u32> {
                let scan = form(exclusive, algorithm);
                let got = ctx.scan_by_key_with(&kv, &fv, &scan).unwrap();
                got.to_vec().unwrap().iter().map(|x| x.to_bits()).collect()
            };
            let default = gpu_scan_by_key(ctx, &kv, &fv, &ScanOp::Sum, exclusive);
            let default: Vec<u32> = default.iter().map(|x| x.to_bits()).collect();
            let what = format!("exclusive {exclusive} on {}", ctx.info().name);
            assert_all_eq(
                &bits(ScanAlgorithm::Auto),
                &default,
                &format!("Auto, {what}"),
            );
            assert_all_eq(
                &bits(ScanAlgorithm::SinglePass),
                &default,
                &format!("SinglePass, {what}"),
            );
            let want = cpu_scan_by_key(
                &keys,
                &uv.to_vec().unwrap(),
                0,
                u32::wrapping_add,
                exclusive,
            );
            let mut out = poisoned::<u32>(ctx, len);
            let single = form(exclusive, ScanAlgorithm::SinglePass);
            ctx.scan_by_key_with_into(&kv, &uv, &single, &mut out)
                .unwrap();
            assert_all_eq(
                &out.to_vec().unwrap(),
                &want,
                &format!("u32 SinglePass, {what}"),
            );
            let mut out = poisoned::<u32>(ctx, len);
            let three = form(exclusive, ScanAlgorithm::ReduceThenScan);
            match ctx.scan_by_key_with_into(&kv, &uv, &three, &mut out) {
                Err(Error::InvalidArgument { op, message }) => {
                    let call = if exclusive {
                        "scan_by_key_exclusive"
                    } else {
                        "scan_by_key"
                    };
                    assert_eq!(op, call);
                    assert!(message.contains("ReduceThenScan"), "{message}");
                    assert!(message.contains("Auto"), "{message}");
                }
                other => panic!("expected InvalidArgument, {what}: got {other:?}"),
            }
            assert_all_eq(
                &out.to_vec().unwrap(),
                &vec![u32::POISON; len],
                &format!("the output of a refused call, {what}"),
            );
        }
        let (e, ev) = (
            ctx.upload::<u32>(&[]).unwrap(),
            ctx.upload::<f32>(&[]).unwrap(),
        );
        assert!(
            ctx.scan_by_key_with(&e, &ev, &form(false, ScanAlgorithm::SinglePass))
                .unwrap()
                .is_empty()
        );
        assert!(matches!(
            ctx.scan_by_key_with(&e, &ev, &form(true, ScanAlgorithm::ReduceThenScan)),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

#[test]
fn i32_and_f32_keys_by_bits() {
    let base = run_keys(3000, 40, 31);
    let ikeys: Vec<i32> = base.iter().map(|&k| k as i32).collect();
    let values = random_vec::<i32>(3000, 32);
    // Keys chosen so bit equality differs from ==: -0.0 vs +0.0 (== but different
    // bits), NaNs (never == but equal bits) and a NaN of other bits.
    let special = [0.0f32, -0.0, f32::NAN, f32::from_bits(0x7fc0_0001), 1.5];
    let r = random_vec::<u32>(3000, 33);
    let mut fkeys = Vec::new();
    let mut j = 0;
    while fkeys.len() < 3000 {
        let key = special[r[j] as usize % special.len()];
        let run = 1 + r[j + 1] as usize % 6;
        fkeys.extend(std::iter::repeat_n(key, run.min(3000 - fkeys.len())));
        j += 2;
    }
    for ctx in [ctx(), split_ctx(), tree_ctx()] {
        check_exact(ctx, &ikeys, &values, ScanOp::Sum, 0, i32::wrapping_add);
        check_exact(ctx, &fkeys, &values, ScanOp::Sum, 0, i32::wrapping_add);
    }
    // -0.0 then +0.0 are two runs; two equal NaNs are one.
    let c = ctx();
    let keys = c.upload(&[0.0f32, -0.0, f32::NAN, f32::NAN, 2.0]).unwrap();
    let values = c.upload(&[1u32, 1, 1, 1, 1]).unwrap();
    assert_eq!(
        c.scan_by_key(&keys, &values).unwrap().to_vec().unwrap(),
        vec![1, 1, 1, 2, 1]
    );
}

#[test]
fn f32_products_and_custom_sums() {
    let len = 2 * tile() + 9;
    let keys = run_keys(len, 40, 41);
    let f = random_vec::<f32>(len, 42);
    for ctx in [ctx(), tree_ctx()] {
        check_f32_sum(ctx, &keys, &f, ScanOp::custom("a + b", 0.0));
        // Factors in [0.999, 1.001]: each multiplication rounds once, i of them for the
        // i + 1 factors of a run's prefix, so the relative error is at most gamma(i)
        // whatever the tree (the f64 reference adds its own).
        let factors: Vec<f32> = f.iter().map(|x| 1.0 + x * 1e-6).collect();
        let (kv, vv) = (ctx.upload(&keys).unwrap(), ctx.upload(&factors).unwrap());
        let got = gpu_scan_by_key(ctx, &kv, &vv, &ScanOp::Product, false);
        let gamma = |k: f64, u: f64| k * u / (1.0 - k * u);
        let (mut exact, mut i0) = (1.0f64, 0);
        for i in 0..len {
            if i == 0 || keys[i] != keys[i - 1] {
                (exact, i0) = (1.0, i);
            }
            exact *= factors[i] as f64;
            let k = (i - i0) as f64;
            let bound =
                (gamma(k, f32::EPSILON as f64 / 2.0) + gamma(k, f64::EPSILON / 2.0)) * exact.abs();
            assert!(
                (got[i] as f64 - exact).abs() <= bound,
                "product element {i}: GPU {}, exact {exact}",
                got[i]
            );
        }
    }
}

#[test]
fn convenience_forms_match_the_with_forms() {
    let c = ctx();
    let keys = c.upload(&run_keys(700, 9, 51)).unwrap();
    let values = c.upload(&random_vec::<u32>(700, 52)).unwrap();
    let sum = ScanOp::Sum;
    let inclusive = gpu_scan_by_key(c, &keys, &values, &sum, false);
    let exclusive = gpu_scan_by_key(c, &keys, &values, &sum, true);
    assert_eq!(
        c.scan_by_key(&keys, &values).unwrap().to_vec().unwrap(),
        inclusive
    );
    assert_eq!(
        c.scan_by_key_exclusive(&keys, &values)
            .unwrap()
            .to_vec()
            .unwrap(),
        exclusive
    );
    assert_eq!(
        c.scan_by_key_with(&keys, &values, &Scan::inclusive(sum.clone()))
            .unwrap()
            .to_vec()
            .unwrap(),
        inclusive
    );
    assert_eq!(
        c.scan_by_key_with(&keys, &values, &Scan::exclusive(sum))
            .unwrap()
            .to_vec()
            .unwrap(),
        exclusive
    );
    let mut out = poisoned::<u32>(c, 700);
    c.scan_by_key_into(&keys, &values, &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), inclusive);
    let mut out = poisoned::<u32>(c, 700);
    c.scan_by_key_exclusive_into(&keys, &values, &mut out)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), exclusive);
}

#[test]
fn vectors_over_buffers_of_odd_lengths() {
    // Borrowed vectors whose length is not a multiple of 4 take the scalar layout.
    let c = ctx();
    for len in [1usize, 5, 3 * tile() + 3] {
        let keys = run_keys(len, 40, len as u64);
        let values = random_vec::<i32>(len, 61);
        let buffer = |bytes: &[u8]| {
            use wgpu::util::DeviceExt;
            c.device()
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: None,
                    contents: bytes,
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_SRC
                        | wgpu::BufferUsages::COPY_DST,
                })
        };
        let kv = GpuVec::<u32>::from_buffer(c, buffer(bytemuck::cast_slice(&keys)), len).unwrap();
        let vv = GpuVec::<i32>::from_buffer(c, buffer(bytemuck::cast_slice(&values)), len).unwrap();
        let poison = vec![i32::POISON; len];
        let mut out =
            GpuVec::<i32>::from_buffer(c, buffer(bytemuck::cast_slice(&poison)), len).unwrap();
        c.scan_by_key_into(&kv, &vv, &mut out).unwrap();
        let want = cpu_scan_by_key(&keys, &values, 0, i32::wrapping_add, false);
        assert_all_eq(&out.to_vec().unwrap(), &want, "borrowed vectors");
    }
}

/// The tuning hook's tiles (`scan_by_key_tile_into`): other shapes, the same results;
/// shapes the adapter cannot run are refused.
#[test]
fn other_tile_shapes() {
    let len = 5000;
    let keys = run_keys(len, 40, 71);
    let values = random_vec::<u32>(len, 72);
    let want = cpu_scan_by_key(&keys, &values, 0, u32::wrapping_add, false);
    for ctx in [ctx(), tree_ctx(), split_ctx()] {
        let (kv, vv) = (ctx.upload(&keys).unwrap(), ctx.upload(&values).unwrap());
        for (wg, units) in [(8, 4), (32, 3), (128, 8), (256, 4)] {
            let mut out = poisoned::<u32>(ctx, len);
            ctx.scan_by_key_tile_into(&kv, &vv, &mut out, wg, units)
                .unwrap();
            let what = format!("tile {wg} x {units} on {}", ctx.info().name);
            assert_all_eq(&out.to_vec().unwrap(), &want, &what);
        }
        let mut out = poisoned::<u32>(ctx, len);
        for (wg, units) in [(96, 2), (64, 0), (64, 9), (1 << 20, 2)] {
            assert!(matches!(
                ctx.scan_by_key_tile_into(&kv, &vv, &mut out, wg, units),
                Err(Error::InvalidArgument { .. })
            ));
        }
    }
}

#[test]
fn errors() {
    let c = ctx();
    let keys = c.upload(&[1u32, 2, 3]).unwrap();
    let values = c.upload(&[1.0f32, 2.0]).unwrap();
    match c.scan_by_key(&keys, &values) {
        Err(Error::LengthMismatch { left, right, .. }) => assert_eq!((left, right), (3, 2)),
        other => panic!("expected LengthMismatch, got {other:?}"),
    }
    let values = c.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let mut out = c.zeros::<f32>(4).unwrap();
    assert!(matches!(
        c.scan_by_key_into(&keys, &values, &mut out),
        Err(Error::LengthMismatch { .. })
    ));
    // Not one expression, and not valid WGSL of the value type.
    let bad = Scan::inclusive(ScanOp::custom("a + b; }", 0.0));
    assert!(matches!(
        c.scan_by_key_with(&keys, &values, &bad),
        Err(Error::InvalidArgument { .. })
    ));
    let bad = Scan::inclusive(ScanOp::custom("a + true", 0.0));
    assert!(matches!(
        c.scan_by_key_with(&keys, &values, &bad),
        Err(Error::Compile { .. })
    ));
    // Empty vectors: an empty result, and still the errors of any length.
    let e = c.upload::<u32>(&[]).unwrap();
    let ev = c.upload::<f32>(&[]).unwrap();
    assert!(c.scan_by_key(&e, &ev).unwrap().is_empty());
    assert!(matches!(
        c.scan_by_key_with(&e, &ev, &bad),
        Err(Error::Compile { .. })
    ));
    // 64-bit values: refused (or the feature is missing).
    if c.has_features(wgpu::Features::SHADER_F64) {
        let d = c.upload(&[1.0f64, 2.0, 3.0]).unwrap();
        match c.scan_by_key(&keys, &d) {
            Err(Error::InvalidArgument { message, .. }) => {
                assert!(message.contains("f64"), "{message}")
            }
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }
    // Past the 27 tiles a dispatch of 3 x 3 x 3 workgroups covers: refused, no panic.
    let f = fold_ctx();
    let tile = tile_of(f);
    let long = f.upload(&vec![1u32; 28 * tile]).unwrap();
    match f.scan_by_key(&long, &long) {
        Err(Error::TooLarge {
            kind: Limit::Workgroups,
            requested,
            limit,
            ..
        }) => assert_eq!((requested, limit), (28, 27)),
        other => panic!("expected TooLarge, got {other:?}"),
    }
    // Vectors of another context.
    let other = split_ctx().upload(&[1.0f32, 2.0, 3.0]).unwrap();
    assert!(matches!(
        c.scan_by_key(&keys, &other),
        Err(Error::ContextMismatch { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn random_runs(len in 0usize..6000, max_run in 1usize..40, seed: u64, which in 0usize..6) {
        let ctx = contexts()[which];
        let keys = run_keys(fit(ctx, len), max_run, seed);
        check_all(ctx, &keys, seed);
    }
}
