//! reduce, reduce_with and dot against CPU references: every operator and type, random
//! and edge lengths, the split-binding and folded-dispatch paths, with and without
//! subgroups; determinism, the accuracy bounds, and the errors.

mod common;

use std::sync::OnceLock;

use common::*;
use gpuprim::{Ctx, Element, Error, Reduce};
use proptest::prelude::*;

/// At most 3 workgroups per dimension: the first pass's workgroups fold into 3D, with
/// surplus groups that must not write partials.
fn fold_ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| {
        Ctx::builder()
            .max_workgroups_per_dimension(3)
            .build()
            .unwrap()
    })
}

/// No subgroup operations: the shared-memory tree path. Nor mappable storage buffers:
/// a blocking reduction copies its result into a staging buffer (the other contexts, on
/// adapters that have `MAPPABLE_PRIMARY_BUFFERS`, map the result buffer itself).
fn tree_ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| {
        Ctx::builder()
            .without_features(
                gpuprim::wgpu::Features::SUBGROUP
                    | gpuprim::wgpu::Features::MAPPABLE_PRIMARY_BUFFERS,
            )
            .build()
            .unwrap()
    })
}

fn contexts() -> [&'static Ctx; 4] {
    [ctx(), split_ctx(), fold_ctx(), tree_ctx()]
}

/// Runs `reduce_with_into` into a poisoned 3-element output; checks that only element 0
/// was written and returns it.
fn gpu_reduce<T: TestElement>(ctx: &Ctx, host: &[T], op: Reduce<T>) -> T {
    let v = ctx.upload(host).unwrap();
    let mut out = poisoned::<T>(ctx, 3);
    ctx.reduce_with_into(&v, op.clone(), &mut out).unwrap();
    let got = out.to_vec().unwrap();
    assert_eq!(
        bytemuck::cast_slice::<T, u8>(&got[1..]),
        bytemuck::cast_slice::<T, u8>(&[T::POISON; 2]),
        "elements after the result must keep their poison"
    );
    // The blocking form gives the same bits.
    if !(host.is_empty() && matches!(op, Reduce::Min | Reduce::Max)) {
        let blocking = ctx.reduce_with(&v, op).unwrap();
        assert_eq!(
            bytemuck::bytes_of(&blocking),
            bytemuck::bytes_of(&got[0]),
            "blocking {blocking:?} vs into {:?}",
            got[0]
        );
    }
    got[0]
}

fn check_int_ops<T: TestElement + Ord>(
    ctx: &Ctx,
    len: usize,
    seed: u64,
    wrapping_add: fn(T, T) -> T,
    wrapping_mul: fn(T, T) -> T,
) {
    let host = random_vec::<T>(len, seed);
    let sum = host.iter().fold(T::ZERO, |a, &b| wrapping_add(a, b));
    assert_eq!(gpu_reduce(ctx, &host, Reduce::Sum), sum, "sum of {len}");
    assert_eq!(
        gpu_reduce(ctx, &host, Reduce::SumCompensated),
        sum,
        "compensated sum of {len}"
    );
    let prod = host.iter().fold(T::ONE, |a, &b| wrapping_mul(a, b));
    assert_eq!(
        gpu_reduce(ctx, &host, Reduce::Product),
        prod,
        "product of {len}"
    );
    let min = host.iter().copied().min().unwrap_or(T::HIGHEST);
    let max = host.iter().copied().max().unwrap_or(T::LOWEST);
    assert_eq!(gpu_reduce(ctx, &host, Reduce::Min), min, "min of {len}");
    assert_eq!(gpu_reduce(ctx, &host, Reduce::Max), max, "max of {len}");
}

/// Bound on the error of the default f32 sum (see `Reduce`): each thread adds at most
/// 4 * ceil(n / (4 * 32 * 256)) values in sequence (the first pass has at least
/// min(32, needed) workgroups of 256), then about log2(32 * 256) + 2 levels combine.
fn sum_bound(n: usize, abs_sum: f64) -> f64 {
    let per_thread = (4 * n.div_ceil(4 * 32 * 256)) as f64;
    (per_thread + 16.0) * f32::EPSILON as f64 / 2.0 * abs_sum
}

fn check_f32_ops(ctx: &Ctx, len: usize, seed: u64) {
    let host = random_vec::<f32>(len, seed);
    let exact: f64 = host.iter().map(|&x| x as f64).sum();
    let abs: f64 = host.iter().map(|&x| (x as f64).abs()).sum();
    let got = gpu_reduce(ctx, &host, Reduce::Sum) as f64;
    assert!(
        (got - exact).abs() <= sum_bound(len, abs),
        "sum of {len}: {got} vs {exact}"
    );
    let got = gpu_reduce(ctx, &host, Reduce::SumCompensated) as f64;
    // Two-sum accumulation: about 2 roundings of the result plus n u^2 S.
    let u = f32::EPSILON as f64 / 2.0;
    assert!(
        (got - exact).abs() <= 2.0 * u * exact.abs() + len as f64 * u * u * abs + 1e-30,
        "compensated sum of {len}: {got} vs {exact}"
    );
    let min = host.iter().copied().fold(f32::INFINITY, f32::min);
    let max = host.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    assert_eq!(gpu_reduce(ctx, &host, Reduce::Min), min);
    assert_eq!(gpu_reduce(ctx, &host, Reduce::Max), max);
    let got = gpu_reduce(ctx, &host, Reduce::custom("max(abs(a), abs(b))", 0.0));
    assert_eq!(got, host.iter().fold(0.0f32, |a, b| a.max(b.abs())));
}

fn check_product_f32(ctx: &Ctx, len: usize, seed: u64) {
    // Factors in [0.999, 1.001) keep the product finite; each multiplication rounds once
    // (relative u), so the product is within (1 + u)^n - 1 ~ n u relative.
    let host: Vec<f32> = random_vec::<f32>(len, seed)
        .iter()
        .map(|x| 1.0 + x * 1e-6)
        .collect();
    let exact: f64 = host.iter().map(|&x| x as f64).product();
    let got = gpu_reduce(ctx, &host, Reduce::Product) as f64;
    let u = f32::EPSILON as f64 / 2.0;
    assert!(
        (got - exact).abs() <= (len as f64 + 2.0) * u * exact.abs(),
        "product of {len}: {got} vs {exact}"
    );
}

fn check_dot(ctx: &Ctx, len: usize, seed: u64) {
    let ha = random_vec::<u32>(len, seed);
    let hb = random_vec::<u32>(len, seed + 1);
    let (a, b) = (ctx.upload(&ha).unwrap(), ctx.upload(&hb).unwrap());
    let want = ha
        .iter()
        .zip(&hb)
        .fold(0u32, |s, (&x, &y)| s.wrapping_add(x.wrapping_mul(y)));
    assert_eq!(ctx.dot(&a, &b).unwrap(), want, "dot u32 of {len}");
    let ha = random_vec::<i32>(len, seed + 2);
    let hb = random_vec::<i32>(len, seed + 3);
    let (a, b) = (ctx.upload(&ha).unwrap(), ctx.upload(&hb).unwrap());
    let want = ha
        .iter()
        .zip(&hb)
        .fold(0i32, |s, (&x, &y)| s.wrapping_add(x.wrapping_mul(y)));
    let mut out = poisoned::<i32>(ctx, 2);
    ctx.dot_into(&a, &b, &mut out).unwrap();
    assert_eq!(
        out.to_vec().unwrap(),
        vec![want, i32::POISON],
        "dot_into i32 of {len}"
    );
    let ha = random_vec::<f32>(len, seed + 4);
    let hb = random_vec::<f32>(len, seed + 5);
    let (a, b) = (ctx.upload(&ha).unwrap(), ctx.upload(&hb).unwrap());
    let exact: f64 = ha.iter().zip(&hb).map(|(&x, &y)| x as f64 * y as f64).sum();
    let abs: f64 = ha
        .iter()
        .zip(&hb)
        .map(|(&x, &y)| (x as f64 * y as f64).abs())
        .sum();
    let got = ctx.dot(&a, &b).unwrap() as f64;
    // One more rounding per term (the product) than the sum.
    assert!(
        (got - exact).abs() <= sum_bound(len, abs) + f32::EPSILON as f64 * abs,
        "dot f32 of {len}: {got} vs {exact}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn u32_ops(len in lengths(), seed: u64, which in 0usize..4) {
        check_int_ops::<u32>(contexts()[which], len, seed, u32::wrapping_add, u32::wrapping_mul)
    }
    #[test]
    fn i32_ops(len in lengths(), seed: u64, which in 0usize..4) {
        check_int_ops::<i32>(contexts()[which], len, seed, i32::wrapping_add, i32::wrapping_mul)
    }
    #[test]
    fn f32_ops(len in lengths(), seed: u64, which in 0usize..4) {
        check_f32_ops(contexts()[which], len, seed)
    }
    #[test]
    fn f32_product(len in 0usize..100_000, seed: u64) {
        check_product_f32(ctx(), len, seed)
    }
    #[test]
    fn dot(len in lengths(), seed: u64, which in 0usize..4) {
        check_dot(contexts()[which], len, seed)
    }
}

#[test]
fn edge_lengths_on_every_path() {
    for c in contexts() {
        for (k, &len) in EDGE_LENGTHS.iter().enumerate() {
            let seed = 100 + k as u64;
            check_int_ops::<u32>(c, len, seed, u32::wrapping_add, u32::wrapping_mul);
            check_int_ops::<i32>(c, len, seed, i32::wrapping_add, i32::wrapping_mul);
            check_f32_ops(c, len, seed);
            check_dot(c, len, seed);
        }
    }
}

#[test]
fn more_than_one_binding_window_at_full_size() {
    // On a 128 MiB binding limit, 2^25 + 3 u32 span two windows plus a partial vec4.
    let len = (1 << 25) + 3;
    let host = random_vec::<u32>(len, 77);
    let want = host.iter().fold(0u32, |a, &b| a.wrapping_add(b));
    assert_eq!(ctx().reduce(&ctx().upload(&host).unwrap()).unwrap(), want);
}

#[test]
fn the_articles_sum_of_0_to_n() {
    let n = 1u32 << 16; // n (n - 1) / 2 = 2147450880 fits in u32
    let v = ctx().upload(&(0..n).collect::<Vec<_>>()).unwrap();
    assert_eq!(ctx().reduce(&v).unwrap(), n * (n - 1) / 2);
}

#[test]
fn f64_and_f16_where_supported() {
    let c = ctx();
    if c.has_features(f64::FEATURES) {
        let host = random_vec::<f64>(100_003, 5);
        let got = c.reduce(&c.upload(&host).unwrap()).unwrap();
        let want: f64 = host.iter().sum();
        let abs: f64 = host.iter().map(|x| x.abs()).sum();
        assert!((got - want).abs() <= 1e-12 * abs, "{got} vs {want}");
        assert_eq!(
            c.reduce_with(&c.upload(&host).unwrap(), Reduce::Max)
                .unwrap(),
            host.iter().copied().fold(f64::MIN, f64::max)
        );
    }
    if c.has_features(gpuprim::half::f16::FEATURES) {
        use gpuprim::half::f16;
        let host = random_vec::<f16>(4097, 6);
        let v = c.upload(&host).unwrap();
        assert_eq!(
            c.reduce_with(&v, Reduce::Min).unwrap(),
            host.iter().copied().fold(f16::INFINITY, f16::min)
        );
    }
}

#[test]
fn float_sums_are_deterministic() {
    for c in contexts() {
        let host = random_vec::<f32>(1_234_567, 3);
        let v = c.upload(&host).unwrap();
        let first = c.reduce(&v).unwrap().to_bits();
        for _ in 0..3 {
            assert_eq!(c.reduce(&v).unwrap().to_bits(), first);
        }
        let b = c.upload(&random_vec::<f32>(1_234_567, 4)).unwrap();
        let d = c.dot(&v, &b).unwrap().to_bits();
        assert_eq!(c.dot(&v, &b).unwrap().to_bits(), d);
    }
}

#[test]
fn accuracy_of_3_million_values_in_0_1() {
    let c = ctx();
    let n = 3_000_000;
    let host: Vec<f32> = random_vec::<f32>(n, 11)
        .iter()
        .map(|x| (x + 1000.0) / 2000.0)
        .collect();
    let exact: f64 = host.iter().map(|&x| x as f64).sum();
    let v = c.upload(&host).unwrap();
    let rel = |got: f32| ((got as f64 - exact) / exact).abs();
    let plain = rel(c.reduce(&v).unwrap());
    assert!(plain <= 1e-5, "plain sum relative error {plain:e}");
    // Compensated: within a couple of roundings of the exact sum.
    let compensated = rel(c.reduce_with(&v, Reduce::SumCompensated).unwrap());
    assert!(
        compensated <= 2.0 * f32::EPSILON as f64,
        "compensated relative error {compensated:e}"
    );
    if c.has_features(f64::FEATURES) {
        // f64 accumulation, one final rounding to f32: half an ulp.
        let wide = rel(c.reduce_with(&v, Reduce::SumWide).unwrap());
        assert!(
            wide <= f32::EPSILON as f64 / 2.0,
            "wide relative error {wide:e}"
        );
    }
    println!("relative errors: plain {plain:e}, compensated {compensated:e}");
}

#[test]
fn pi_from_the_basel_sum() {
    // The articles' check: v[i] = 1/(i+1), sqrt(6 * dot(v, v)) against f64.
    let n = 1 << 18;
    let host: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    let v = ctx().upload(&host).unwrap();
    let gpu = (6.0 * ctx().dot(&v, &v).unwrap() as f64).sqrt();
    let cpu = (6.0 * host.iter().map(|&x| x as f64 * x as f64).sum::<f64>()).sqrt();
    assert!(
        (gpu - cpu).abs() <= 2e-6,
        "GPU {gpu} vs f64 reference {cpu}"
    );
}

#[test]
fn empty_inputs() {
    let c = ctx();
    let e = c.zeros::<f32>(0).unwrap();
    assert_eq!(c.reduce(&e).unwrap(), 0.0);
    assert_eq!(c.reduce_with(&e, Reduce::Product).unwrap(), 1.0);
    let custom = Reduce::custom("max(a, b)", f32::NEG_INFINITY);
    assert_eq!(c.reduce_with(&e, custom).unwrap(), f32::NEG_INFINITY);
    assert_eq!(c.dot(&e, &e).unwrap(), 0.0);
    let err = c.reduce_with(&e, Reduce::Min).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
    assert!(err.to_string().contains("empty"), "{err}");
    let eu = c.zeros::<u32>(0).unwrap();
    assert_eq!(gpu_reduce::<u32>(c, &[], Reduce::Min), u32::MAX);
    assert_eq!(gpu_reduce::<i32>(c, &[], Reduce::Max), i32::MIN);
    assert_eq!(c.reduce(&eu).unwrap(), 0);
}

#[test]
fn async_twins() {
    let c = ctx();
    let host = random_vec::<i32>(50_000, 8);
    let v = c.upload(&host).unwrap();
    let want = host.iter().fold(0i32, |a, &b| a.wrapping_add(b));
    assert_eq!(pollster::block_on(c.reduce_async(&v)).unwrap(), want);
    assert_eq!(
        pollster::block_on(c.reduce_with_async(&v, Reduce::Max)).unwrap(),
        *host.iter().max().unwrap()
    );
    let d = host
        .iter()
        .fold(0i32, |a, &b| a.wrapping_add(b.wrapping_mul(b)));
    assert_eq!(pollster::block_on(c.dot_async(&v, &v)).unwrap(), d);
}

#[test]
fn errors() {
    let c = ctx();
    let a = c.upload(&[1.0f32; 10]).unwrap();
    let b = c.upload(&[1.0f32; 12]).unwrap();
    let err = c.dot(&a, &b).unwrap_err();
    assert_eq!(
        err,
        Error::LengthMismatch {
            op: "dot",
            left_name: "a".into(),
            left: 10,
            right_name: "b".into(),
            right: 12
        }
    );
    let err = c
        .reduce_with(&a, Reduce::custom("a +* b", 0.0))
        .unwrap_err();
    assert!(matches!(err, Error::Compile { .. }), "{err:?}");
    assert!(err.to_string().contains("a +* b"), "{err}");
    let mut empty = c.zeros::<f32>(0).unwrap();
    let err = c.reduce_into(&a, &mut empty).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
    assert!(err.to_string().contains("0 elements"), "{err}");
    let no_f64 = Ctx::builder()
        .without_features(gpuprim::wgpu::Features::SHADER_F64)
        .build()
        .unwrap();
    let v = no_f64.upload(&[1.0f32]).unwrap();
    let err = no_f64.reduce_with(&v, Reduce::SumWide).unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
    assert!(err.to_string().contains("SHADER_F64"), "{err}");
    // Still works afterwards.
    assert_eq!(c.reduce(&a).unwrap(), 10.0);
}

#[test]
fn compensation_survives_the_shader_compiler() {
    // 1 followed by 2^20 values of 1e-8: a plain f32 sum loses most of the small terms
    // (each is below half an ulp of the running sum), a working two-sum keeps them.
    // A compiler that folds (a + b) - a into b would make the two equal.
    for c in contexts() {
        let mut host = vec![1.0f32];
        host.extend(std::iter::repeat_n(1e-8f32, 1 << 20));
        let exact: f64 = host.iter().map(|&x| x as f64).sum();
        let v = c.upload(&host).unwrap();
        let got = c.reduce_with(&v, Reduce::SumCompensated).unwrap() as f64;
        assert!(
            (got - exact).abs() <= f32::EPSILON as f64 * exact,
            "compensated {got} vs exact {exact}: compensation lost"
        );
    }
}

#[test]
fn more_partials_than_finishing_invocations() {
    // One workgroup per 4 KiB window: 1100 windows give 1100 partials, more than the
    // finishing pass has invocations (at most 1024), so some combine several.
    let len = 1100 * 1024 - 5;
    check_int_ops::<u32>(split_ctx(), len, 91, u32::wrapping_add, u32::wrapping_mul);
    check_f32_ops(split_ctx(), len, 92);
    check_dot(split_ctx(), len, 93);
}
