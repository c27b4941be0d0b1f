//! map and zip against CPU references, for every element type, at random and edge
//! lengths, on the normal and on the split-binding/folded-dispatch context.

mod common;

use common::*;
use gpuprim::Ctx;
use gpuprim::half::f16;
use proptest::prelude::*;

/// Runs `ctx.map_into(expr)` over random data into a poisoned output; returns (input, output).
fn gpu_map<T: TestElement>(ctx: &Ctx, len: usize, seed: u64, expr: &str) -> (Vec<T>, Vec<T>) {
    let host = random_vec::<T>(len, seed);
    let src = ctx.upload(&host).unwrap();
    let mut dst = poisoned::<T>(ctx, len);
    ctx.map_into(&src, expr, &mut dst).unwrap();
    (host, dst.to_vec().unwrap())
}

fn gpu_zip<T: TestElement>(
    ctx: &Ctx,
    len: usize,
    seed: u64,
    expr: &str,
) -> (Vec<T>, Vec<T>, Vec<T>) {
    let ha = random_vec::<T>(len, seed);
    let hb = random_vec::<T>(len, seed ^ 0x9e37_79b9_7f4a_7c15);
    let a = ctx.upload(&ha).unwrap();
    let b = ctx.upload(&hb).unwrap();
    let mut dst = poisoned::<T>(ctx, len);
    ctx.zip_into(&a, &b, expr, &mut dst).unwrap();
    (ha, hb, dst.to_vec().unwrap())
}

fn check_map_u32(ctx: &Ctx, len: usize, seed: u64) {
    let (x, g) = gpu_map::<u32>(ctx, len, seed, "x * 2654435761u + (x >> 7u)");
    let c: Vec<u32> = x
        .iter()
        .map(|&x| x.wrapping_mul(2654435761).wrapping_add(x >> 7))
        .collect();
    assert_all_eq(&g, &c, "map u32");
}

fn check_map_i32(ctx: &Ctx, len: usize, seed: u64) {
    let (x, g) = gpu_map::<i32>(ctx, len, seed, "x * -3 + 7");
    let c: Vec<i32> = x
        .iter()
        .map(|&x| x.wrapping_mul(-3).wrapping_add(7))
        .collect();
    assert_all_eq(&g, &c, "map i32");
}

fn check_map_f32(ctx: &Ctx, len: usize, seed: u64) {
    let (x, g) = gpu_map::<f32>(ctx, len, seed, "x * 0.75 - abs(x) + 1.0");
    let c: Vec<f32> = x.iter().map(|&x| x * 0.75 - x.abs() + 1.0).collect();
    // Three roundings, each within half an ulp of the largest term (|x| or 1).
    let scale: Vec<f32> = x.iter().map(|x| x.abs().max(1.0)).collect();
    assert_all_close_f32(&g, &c, &scale, 2.0, "map f32");
}

fn check_zip_u32(ctx: &Ctx, len: usize, seed: u64) {
    let (a, b, g) = gpu_zip::<u32>(ctx, len, seed, "a * b + (a ^ b)");
    let c: Vec<u32> = a
        .iter()
        .zip(&b)
        .map(|(&a, &b)| a.wrapping_mul(b).wrapping_add(a ^ b))
        .collect();
    assert_all_eq(&g, &c, "zip u32");
}

fn check_zip_i32(ctx: &Ctx, len: usize, seed: u64) {
    let (a, b, g) = gpu_zip::<i32>(ctx, len, seed, "a - b * 5");
    let c: Vec<i32> = a
        .iter()
        .zip(&b)
        .map(|(&a, &b)| a.wrapping_sub(b.wrapping_mul(5)))
        .collect();
    assert_all_eq(&g, &c, "zip i32");
}

fn check_zip_f32(ctx: &Ctx, len: usize, seed: u64) {
    let (a, b, g) = gpu_zip::<f32>(ctx, len, seed, "max(a, b) - a * 0.5");
    let c: Vec<f32> = a
        .iter()
        .zip(&b)
        .map(|(&a, &b)| a.max(b) - a * 0.5)
        .collect();
    let scale: Vec<f32> = a
        .iter()
        .zip(&b)
        .map(|(a, b)| a.abs().max(b.abs()))
        .collect();
    assert_all_close_f32(&g, &c, &scale, 1.0, "zip f32");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn map_u32(len in lengths(), seed: u64) { check_map_u32(ctx(), len, seed) }
    #[test]
    fn map_i32(len in lengths(), seed: u64) { check_map_i32(ctx(), len, seed) }
    #[test]
    fn map_f32(len in lengths(), seed: u64) { check_map_f32(ctx(), len, seed) }
    #[test]
    fn zip_u32(len in lengths(), seed: u64) { check_zip_u32(ctx(), len, seed) }
    #[test]
    fn zip_i32(len in lengths(), seed: u64) { check_zip_i32(ctx(), len, seed) }
    #[test]
    fn zip_f32(len in lengths(), seed: u64) { check_zip_f32(ctx(), len, seed) }

    // The split-binding context: every vector past 4 KiB spans several bindings, and
    // dispatches of more than 3 workgroups fold into 2D and 3D.
    #[test]
    fn split_map_u32(len in 0usize..40_000, seed: u64) { check_map_u32(split_ctx(), len, seed) }
    #[test]
    fn split_map_f32(len in 0usize..40_000, seed: u64) { check_map_f32(split_ctx(), len, seed) }
    #[test]
    fn split_zip_i32(len in 0usize..40_000, seed: u64) { check_zip_i32(split_ctx(), len, seed) }
}

#[test]
fn every_edge_length_every_type() {
    for (k, &len) in EDGE_LENGTHS.iter().enumerate() {
        let seed = k as u64 + 1;
        check_map_u32(ctx(), len, seed);
        check_map_i32(ctx(), len, seed);
        check_map_f32(ctx(), len, seed);
        check_zip_u32(ctx(), len, seed);
        check_zip_i32(ctx(), len, seed);
        check_zip_f32(ctx(), len, seed);
    }
}

#[test]
fn split_path_at_edge_lengths() {
    // 4 KiB bindings hold 1024 f32: lengths around one and many bindings.
    for &len in &[
        1023,
        1024,
        1025,
        2047,
        2048,
        2049,
        3 * 1024 * 9 + 1,
        100_000,
    ] {
        check_map_u32(split_ctx(), len, len as u64);
        check_zip_f32(split_ctx(), len, len as u64);
    }
}

/// 65535 workgroups of 256 threads, 4 elements each, plus one element: more than 65535
/// workgroups in one dimension's worth of work (and, on a 128 MiB binding limit, more
/// than one binding), in a buffer within WebGPU's 256 MiB.
#[test]
fn more_than_65535_workgroups() {
    let len = 65535 * 256 * 4 + 1;
    check_map_u32(ctx(), len, 42);
}

fn check_exact<T: TestElement>(expr: &str, cpu: impl Fn(T) -> T) {
    let ctx = ctx();
    if !ctx.has_features(T::FEATURES) {
        // Not a skip: the error for the missing feature is what this adapter must give.
        let err = ctx.upload(&[T::ZERO]).unwrap_err();
        assert!(matches!(err, gpuprim::Error::Unsupported { .. }), "{err}");
        return;
    }
    for &len in &[0usize, 1, 5, 1025, 70_001] {
        let (x, g) = gpu_map::<T>(ctx, len, len as u64 + 3, expr);
        let c: Vec<T> = x.iter().map(|&x| cpu(x)).collect();
        assert_all_eq(&g, &c, &format!("map {}", T::WGSL));
    }
}

#[test]
fn map_f64_where_supported() {
    // x * 2 is exact, so the one rounding of + 1 matches with or without fusion.
    check_exact::<f64>("x * 2.0 + 1.0", |x| x * 2.0 + 1.0);
}

#[test]
fn map_f16_where_supported() {
    // Inputs are multiples of 1/8 in [-64, 64): x * 2 + 1 is exact in f16.
    check_exact::<f16>("x * 2.0 + 1.0", |x| f16::from_f32(x.to_f32() * 2.0 + 1.0));
}

#[test]
fn element_literals_round_trip() {
    // Every type's WGSL literal must denote exactly its value (used for identities).
    fn check<T: TestElement>(values: &[T]) {
        let ctx = ctx();
        if !supports::<T>(ctx) {
            return; // (after checking the type is refused as Unsupported)
        }
        for &v in values {
            let src = ctx.upload(&[T::ZERO; 3]).unwrap();
            let out = ctx
                .map(&src, &format!("x + {}", v.wgsl_literal()))
                .unwrap()
                .to_vec()
                .unwrap();
            assert_all_eq(&out, &[v; 3], &format!("literal {v:?}"));
        }
    }
    check::<f32>(&[1.5, -0.1, f32::MAX, f32::MIN_POSITIVE, f32::NEG_INFINITY]);
    check::<i32>(&[i32::MIN, -1, 0, i32::MAX]);
    check::<u32>(&[0, 1, u32::MAX]);
    check::<f64>(&[0.1, -1e300, f64::MAX, 1e-310, f64::INFINITY]);
    check::<f16>(&[
        f16::from_f32(0.1),
        f16::MAX,
        f16::from_f32(-2.5),
        f16::NEG_INFINITY,
    ]);
}

#[test]
fn copy_and_clone() {
    let ctx = ctx();
    let host = random_vec::<u32>(3001, 9);
    let a = ctx.upload(&host).unwrap();
    let mut b = poisoned::<u32>(ctx, host.len());
    b.copy_from(&a).unwrap();
    assert_all_eq(&b.to_vec().unwrap(), &host, "copy_from");
    let c = a.try_clone().unwrap();
    assert_all_eq(&c.to_vec().unwrap(), &host, "try_clone");
    assert_eq!(
        ctx.zeros::<f32>(0).unwrap().to_vec().unwrap(),
        Vec::<f32>::new()
    );
}

#[test]
fn async_read_back() {
    let ctx = ctx();
    let host = random_vec::<i32>(10_000, 5);
    let a = ctx.upload(&host).unwrap();
    let b = ctx.map(&a, "x + 1").unwrap();
    let got = pollster::block_on(b.to_vec_async()).unwrap();
    let want: Vec<i32> = host.iter().map(|x| x.wrapping_add(1)).collect();
    assert_all_eq(&got, &want, "to_vec_async");
}
