//! atomic_sum (every strategy, u32 / i32 / f32) and histograms against CPU references,
//! at random and edge lengths, on the normal and the split-binding/folded-dispatch
//! context; every error by variant and message.

mod common;

use common::*;
use gpuprim::wgpu::Features;
use gpuprim::{AtomicElement, AtomicStrategy, Ctx, Error, GpuVec, MAX_BINS};
use proptest::prelude::*;

/// Every strategy the context can run; Subgroup only where the adapter has SUBGROUP
/// (its absence is tested for the error in `subgroup_unsupported`).
fn strategies(ctx: &Ctx) -> Vec<AtomicStrategy> {
    let mut s = vec![AtomicStrategy::PerElement, AtomicStrategy::Hybrid];
    if ctx.has_features(Features::SUBGROUP) {
        s.push(AtomicStrategy::Subgroup);
    }
    s
}

/// The sum through `atomic_sum_into` into a poisoned accumulator that is then
/// compensated (acc starts at POISON, so the result is POISON + sum), and through
/// `atomic_sum_with`.
fn gpu_sums<T: AtomicElement + TestElement>(ctx: &Ctx, v: &GpuVec<T>) -> Vec<(AtomicStrategy, T)> {
    strategies(ctx)
        .into_iter()
        .map(|s| (s, ctx.atomic_sum_with(v, s).unwrap()))
        .collect()
}

fn check_sum_u32(ctx: &Ctx, len: usize, seed: u64) {
    let host = random_vec::<u32>(len, seed);
    let cpu = host.iter().fold(0u32, |a, &x| a.wrapping_add(x));
    let v = ctx.upload(&host).unwrap();
    for (s, g) in gpu_sums(ctx, &v) {
        assert_eq!(g, cpu, "atomic_sum u32 {s:?}, len {len}");
    }
    // Into a poisoned accumulator: it must end at poison + sum, elements past 0 untouched.
    let mut acc = poisoned::<u32>(ctx, 3);
    ctx.atomic_sum_into(&v, AtomicStrategy::Hybrid, &mut acc)
        .unwrap();
    assert_eq!(
        acc.to_vec().unwrap(),
        vec![u32::POISON.wrapping_add(cpu), u32::POISON, u32::POISON]
    );
}

fn check_sum_i32(ctx: &Ctx, len: usize, seed: u64) {
    let host = random_vec::<i32>(len, seed);
    let cpu = host.iter().fold(0i32, |a, &x| a.wrapping_add(x));
    let v = ctx.upload(&host).unwrap();
    for (s, g) in gpu_sums(ctx, &v) {
        assert_eq!(g, cpu, "atomic_sum i32 {s:?}, len {len}");
    }
}

/// f32 with values in [-1000, 1000): the GPU adds in some order; whatever the order,
/// each of the at most n-1 additions rounds by at most eps/2 of a partial sum, and every
/// partial sum is at most sum|x|, so |err| <= (n-1) * eps/2 * sum|x| <= n * eps * sum|x|.
/// (A tree-shaped order does much better; this is the order-independent bound.)
fn check_sum_f32(ctx: &Ctx, len: usize, seed: u64, strategies: &[AtomicStrategy]) {
    let host = random_vec::<f32>(len, seed);
    let cpu: f64 = host.iter().map(|&x| f64::from(x)).sum();
    let abs: f64 = host.iter().map(|&x| f64::from(x).abs()).sum();
    let v = ctx.upload(&host).unwrap();
    for &s in strategies {
        let g = ctx.atomic_sum_with(&v, s).unwrap();
        let tol = len as f64 * f64::from(f32::EPSILON) * abs;
        let err = (f64::from(g) - cpu).abs();
        assert!(
            err <= tol,
            "atomic_sum f32 {s:?}, len {len}: GPU {g}, CPU (f64) {cpu}, |err| {err:e} > {tol:e}"
        );
    }
}

/// Small integers as f32: every partial sum is an integer below 2^24, so every order of
/// addition is exact and the f32 sum must equal the integer sum.
fn check_sum_f32_exact(ctx: &Ctx, len: usize, seed: u64) {
    let host: Vec<f32> = random_vec::<u32>(len, seed)
        .iter()
        .map(|&r| (r % 17) as f32 - 8.0)
        .collect();
    let cpu: i64 = host.iter().map(|&x| x as i64).sum();
    let v = ctx.upload(&host).unwrap();
    for (s, g) in gpu_sums(ctx, &v) {
        assert_eq!(
            g, cpu as f32,
            "atomic_sum f32 (small integers) {s:?}, len {len}"
        );
    }
}

fn cpu_histogram(keys: &[u32], bins: u32) -> Vec<u32> {
    let mut h = vec![0u32; bins as usize];
    for &k in keys {
        if k < bins {
            h[k as usize] += 1;
        }
    }
    h
}

/// Keys mostly in range, about 1 in 9 past the last bin; or all in one bin (worst-case
/// contention) when `skewed`.
fn keys(len: usize, bins: u32, seed: u64, skewed: bool) -> Vec<u32> {
    let hot = (seed % u64::from(bins)) as u32;
    random_vec::<u32>(len, seed)
        .iter()
        .map(|&r| {
            if skewed {
                hot
            } else {
                r % (bins + bins / 8 + 1)
            }
        })
        .collect()
}

fn check_histogram(ctx: &Ctx, len: usize, bins: u32, seed: u64, skewed: bool) {
    let host = keys(len, bins, seed, skewed);
    let cpu = cpu_histogram(&host, bins);
    let k = ctx.upload(&host).unwrap();
    assert_eq!(
        ctx.histogram(&k, bins).unwrap(),
        cpu,
        "histogram len {len}, bins {bins}, skewed {skewed}"
    );
    // Into a vector that starts from known non-zero counts.
    let start: Vec<u32> = (0..bins).map(|b| b.wrapping_mul(2654435761) >> 8).collect();
    let mut counts = ctx.upload(&start).unwrap();
    ctx.histogram_into(&k, bins, &mut counts).unwrap();
    let want: Vec<u32> = start.iter().zip(&cpu).map(|(s, c)| s + c).collect();
    assert_all_eq(&counts.to_vec().unwrap(), &want, "histogram_into");
}

const BINS: &[u32] = &[1, 7, 256, 1000, 65536];

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    #[test]
    fn sum_u32(len in lengths(), seed: u64) { check_sum_u32(ctx(), len, seed) }
    #[test]
    fn sum_i32(len in lengths(), seed: u64) { check_sum_i32(ctx(), len, seed) }
    #[test]
    fn sum_f32_hybrid_subgroup(len in lengths(), seed: u64) {
        let mut s = vec![AtomicStrategy::Hybrid];
        if ctx().has_features(Features::SUBGROUP) {
            s.push(AtomicStrategy::Subgroup);
        }
        check_sum_f32(ctx(), len, seed, &s)
    }
    // One compare-exchange per element: keep it to moderate lengths.
    #[test]
    fn sum_f32_per_element(len in 0usize..20_000, seed: u64) {
        check_sum_f32(ctx(), len, seed, &[AtomicStrategy::PerElement])
    }
    #[test]
    fn sum_f32_small_integers_exact(len in lengths(), seed: u64) { check_sum_f32_exact(ctx(), len, seed) }
    #[test]
    fn histogram(
        len in lengths(),
        bins in proptest::sample::select(BINS),
        seed: u64,
        skewed in proptest::bool::weighted(0.25),
    ) {
        check_histogram(ctx(), len, bins, seed, skewed)
    }

    // The split-binding context: 4 KiB bindings (1024 elements or bins per window) and
    // at most 3 workgroups per dimension.
    #[test]
    fn split_sum_u32(len in 0usize..40_000, seed: u64) { check_sum_u32(split_ctx(), len, seed) }
    #[test]
    fn split_sum_i32(len in 0usize..40_000, seed: u64) { check_sum_i32(split_ctx(), len, seed) }
    #[test]
    fn split_sum_f32(len in 0usize..40_000, seed: u64) {
        check_sum_f32(split_ctx(), len, seed, &strategies(split_ctx()));
        check_sum_f32_exact(split_ctx(), len, seed);
    }
    #[test]
    fn split_histogram(
        len in 0usize..20_000,
        bins in proptest::sample::select(&[1u32, 7, 256, 1000, 3000][..]),
        seed: u64,
        skewed: bool,
    ) {
        check_histogram(split_ctx(), len, bins, seed, skewed)
    }
}

#[test]
fn edge_lengths_every_type_and_strategy() {
    for (k, &len) in EDGE_LENGTHS.iter().enumerate() {
        let seed = k as u64 + 1;
        check_sum_u32(ctx(), len, seed);
        check_sum_i32(ctx(), len, seed);
        check_sum_f32_exact(ctx(), len, seed);
    }
}

#[test]
fn split_edge_lengths() {
    for (k, &len) in EDGE_LENGTHS.iter().take_while(|&&l| l <= 65537).enumerate() {
        check_sum_u32(split_ctx(), len, k as u64 + 7);
        check_sum_f32_exact(split_ctx(), len, k as u64 + 7);
        check_histogram(split_ctx(), len, 300, k as u64, false);
    }
    // 65536 bins on 4 KiB bindings: 64 windows of 1024 bins.
    check_histogram(split_ctx(), 5000, 65536, 3, false);
    check_histogram(split_ctx(), 5000, 65536, 4, true);
}

/// The articles' sample: the sum of 0..N-1 by one InterlockedAdd per thread.
/// N = 65536: N(N-1)/2 = 2147450880 fits in u32 (and, below 2^31, in i32 too).
#[test]
fn articles_sample_sum_of_indices() {
    let n = 65536u32;
    let want = n as u64 * (n as u64 - 1) / 2;
    assert!(want < 1 << 31);
    let v = ctx().upload(&(0..n).collect::<Vec<u32>>()).unwrap();
    let vi = ctx().upload(&(0..n as i32).collect::<Vec<i32>>()).unwrap();
    for s in strategies(ctx()) {
        assert_eq!(
            u64::from(ctx().atomic_sum_with(&v, s).unwrap()),
            want,
            "{s:?}"
        );
        assert_eq!(ctx().atomic_sum_with(&vi, s).unwrap() as u64, want, "{s:?}");
    }
    // And past 2^32: 0..2^17-1 sums to 2^33 - 2^16, which wraps to 2^32 - 2^16.
    let v = ctx()
        .upload(&(0..1u32 << 17).collect::<Vec<u32>>())
        .unwrap();
    for s in strategies(ctx()) {
        assert_eq!(
            ctx().atomic_sum_with(&v, s).unwrap(),
            0u32.wrapping_sub(1 << 16),
            "{s:?}"
        );
    }
}

#[test]
fn default_strategy_is_hybrid() {
    assert_eq!(AtomicStrategy::default(), AtomicStrategy::Hybrid);
    let v = ctx().upload(&[1u32, 2, 3]).unwrap();
    assert_eq!(ctx().atomic_sum(&v).unwrap(), 6);
}

#[test]
fn sum_into_accumulates_across_calls() {
    let ctx = ctx();
    for s in strategies(ctx) {
        let a = ctx.upload(&random_vec::<i32>(3000, 1)).unwrap();
        let b = ctx.upload(&random_vec::<i32>(777, 2)).unwrap();
        let want = a
            .to_vec()
            .unwrap()
            .iter()
            .chain(&b.to_vec().unwrap())
            .fold(-5i32, |x, &y| x.wrapping_add(y));
        let mut acc = ctx.upload(&[-5i32, 42]).unwrap();
        ctx.atomic_sum_into(&a, s, &mut acc).unwrap();
        ctx.atomic_sum_into(&b, s, &mut acc).unwrap();
        assert_eq!(acc.to_vec().unwrap(), vec![want, 42], "{s:?}");

        let f = ctx.upload(&[0.5f32, 0.25]).unwrap();
        let mut facc = ctx.upload(&[1.0f32]).unwrap();
        ctx.atomic_sum_into(&f, s, &mut facc).unwrap();
        ctx.atomic_sum_into(&f, s, &mut facc).unwrap();
        assert_eq!(facc.to_vec().unwrap(), vec![2.5], "{s:?}");
    }
}

#[test]
fn padding_is_never_summed() {
    // map writes f(padding) into the padding of its output; sums must not see it.
    let ctx = ctx();
    for len in [1usize, 2, 3, 5, 1023] {
        let v = ctx.upload(&vec![0u32; len]).unwrap();
        let w = ctx.map(&v, "x + 1000u").unwrap();
        let f = ctx
            .map(&ctx.upload(&vec![0.0f32; len]).unwrap(), "x + 0.5")
            .unwrap();
        for s in strategies(ctx) {
            assert_eq!(
                ctx.atomic_sum_with(&w, s).unwrap(),
                1000 * len as u32,
                "{s:?}"
            );
            assert_eq!(
                ctx.atomic_sum_with(&f, s).unwrap(),
                0.5 * len as f32,
                "{s:?}"
            );
        }
        assert_eq!(ctx.histogram(&w, 1001).unwrap()[1000], len as u32);
    }
}

#[test]
fn empty_inputs() {
    let ctx = ctx();
    let e = ctx.zeros::<u32>(0).unwrap();
    for s in strategies(ctx) {
        assert_eq!(ctx.atomic_sum_with(&e, s).unwrap(), 0);
        assert_eq!(
            ctx.atomic_sum_with(&ctx.zeros::<f32>(0).unwrap(), s)
                .unwrap(),
            0.0
        );
    }
    assert_eq!(ctx.histogram(&e, 5).unwrap(), vec![0; 5]);
    let f = ctx.zeros::<f32>(0).unwrap();
    assert_eq!(ctx.histogram_range(&f, 3, 0.0, 1.0).unwrap(), vec![0; 3]);
}

#[test]
fn histogram_keys_out_of_range_ignored() {
    let ctx = ctx();
    let k = ctx
        .upload(&[0u32, 3, 4, 5, u32::MAX, 1 << 31, 2, 3, 256, 255])
        .unwrap();
    assert_eq!(ctx.histogram(&k, 4).unwrap(), vec![1, 0, 1, 2]);
    let h = ctx.histogram(&k, 256).unwrap();
    assert_eq!((h[0], h[3], h[255], h.iter().sum::<u32>()), (1, 2, 1, 7));
}

#[test]
fn histogram_global_fallback_and_max_shared() {
    // Bin counts around the shared-memory capacity (8192 bins on a 32 KiB device).
    let cap = ctx().info().limits.max_compute_workgroup_storage_size / 4;
    for bins in [cap - 1, cap, cap + 1, 1 << 20] {
        check_histogram(ctx(), 100_000, bins, u64::from(bins), false);
        check_histogram(ctx(), 10_000, bins, u64::from(bins), true);
    }
}

/// Values placed at the middle of their bins (far from the edges), plus the special
/// cases: lo (first bin), hi (last bin), just outside, infinities, NaN.
#[test]
fn histogram_range_matches_cpu() {
    let ctx = ctx();
    for (bins, lo, hi) in [
        (1u32, 0.0f32, 1.0f32),
        (10, -5.0, 5.0),
        (256, -1.0, 3.0),
        (1000, 0.0, 7.0),
        (65536, 100.0, 200.0),
    ] {
        let width = (f64::from(hi) - f64::from(lo)) / f64::from(bins);
        let r = random_vec::<u32>(50_000, u64::from(bins));
        let mut host: Vec<f32> = r
            .iter()
            .map(|&r| {
                let b = r % bins;
                let frac = 0.25 + 0.5 * f64::from(r >> 16 & 0xff) / 255.0;
                (f64::from(lo) + (f64::from(b) + frac) * width) as f32
            })
            .collect();
        let mut cpu = vec![0u32; bins as usize];
        for &x in &host {
            cpu[((f64::from(x) - f64::from(lo)) / width) as usize] += 1;
        }
        host.extend([
            lo,
            hi,
            hi,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            lo - 1.0,
            hi + 1.0,
        ]);
        cpu[0] += 1;
        cpu[bins as usize - 1] += 2;
        let v = ctx.upload(&host).unwrap();
        assert_eq!(
            ctx.histogram_range(&v, bins, lo, hi).unwrap(),
            cpu,
            "bins {bins}"
        );
        let sv = split_ctx().upload(&host[..5000.min(host.len())]).unwrap();
        let h = split_ctx()
            .histogram_range(&sv, bins.min(3000), lo, hi)
            .unwrap();
        assert_eq!(
            h.iter().map(|&c| u64::from(c)).sum::<u64>(),
            5000,
            "split, bins {bins}"
        );
    }
}

#[test]
fn histogram_range_into_adds() {
    let ctx = ctx();
    let v = ctx.upload(&[0.1f32, 0.6, 0.7, 2.0]).unwrap();
    let mut counts = ctx.upload(&[7u32, 9]).unwrap();
    ctx.histogram_range_into(&v, 2, 0.0, 1.0, &mut counts)
        .unwrap();
    assert_eq!(counts.to_vec().unwrap(), vec![8, 11]);
}

#[test]
fn pipelines_are_cached() {
    let ctx = Ctx::new().unwrap();
    let v = ctx.upload(&[1u32; 100]).unwrap();
    ctx.atomic_sum(&v).unwrap();
    ctx.histogram(&v, 16).unwrap();
    let compiled = ctx.pipelines_compiled();
    ctx.atomic_sum(&v).unwrap();
    ctx.histogram(&v, 16).unwrap();
    ctx.histogram(&v, 17).unwrap(); // same shared-bin size, same kernel
    assert_eq!(ctx.pipelines_compiled(), compiled);
}

#[test]
fn error_bins() {
    let ctx = ctx();
    let k = ctx.upload(&[1u32]).unwrap();
    let err = ctx.histogram(&k, 0).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidArgument {
                op: "histogram",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("bins is 0"), "{err}");

    let err = ctx.histogram(&k, MAX_BINS + 1).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidArgument {
                op: "histogram",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("16777217 bins is more than the maximum of 16777216"),
        "{err}"
    );

    let mut counts = ctx.zeros::<u32>(0).unwrap();
    let err = ctx.histogram_into(&k, 0, &mut counts).unwrap_err();
    assert!(err.to_string().contains("bins is 0"), "{err}");

    let mut counts = ctx.zeros::<u32>(10).unwrap();
    let err = ctx.histogram_into(&k, 11, &mut counts).unwrap_err();
    assert_eq!(
        err,
        Error::LengthMismatch {
            op: "histogram_into",
            left_name: "counts".into(),
            left: 10,
            right_name: "bins".into(),
            right: 11
        }
    );
    assert!(
        err.to_string()
            .contains("counts has 10 elements but bins has 11"),
        "{err}"
    );

    let f = ctx.upload(&[1.0f32]).unwrap();
    let err = ctx.histogram_range(&f, 0, 0.0, 1.0).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidArgument {
                op: "histogram_range",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn error_range() {
    let ctx = ctx();
    let f = ctx.upload(&[1.0f32]).unwrap();
    for (lo, hi) in [
        (1.0f32, 1.0f32),
        (2.0, 1.0),
        (f32::NAN, 1.0),
        (0.0, f32::INFINITY),
    ] {
        let err = ctx.histogram_range(&f, 4, lo, hi).unwrap_err();
        assert!(
            matches!(
                err,
                Error::InvalidArgument {
                    op: "histogram_range",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .contains(&format!("[lo, hi] = [{lo}, {hi}] must have finite lo < hi")),
            "{err}"
        );
        let mut counts = ctx.zeros::<u32>(4).unwrap();
        let err = ctx
            .histogram_range_into(&f, 4, lo, hi, &mut counts)
            .unwrap_err();
        assert!(
            matches!(
                err,
                Error::InvalidArgument {
                    op: "histogram_range_into",
                    ..
                }
            ),
            "{err:?}"
        );
    }
}

#[test]
fn error_empty_accumulator() {
    let ctx = ctx();
    let v = ctx.upload(&[1u32, 2]).unwrap();
    let mut acc = ctx.zeros::<u32>(0).unwrap();
    let err = ctx
        .atomic_sum_into(&v, AtomicStrategy::Hybrid, &mut acc)
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidArgument {
                op: "atomic_sum_into",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("acc has 0 elements"), "{err}");
}

#[test]
fn subgroup_unsupported() {
    let ctx = Ctx::builder()
        .without_features(Features::SUBGROUP)
        .build()
        .unwrap();
    let v = ctx.upload(&[1u32, 2]).unwrap();
    let err = ctx
        .atomic_sum_with(&v, AtomicStrategy::Subgroup)
        .unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("atomic_sum with AtomicStrategy::Subgroup"),
        "{msg}"
    );
    assert!(msg.contains("SUBGROUP"), "{msg}");
    // The other strategies still work there.
    assert_eq!(ctx.atomic_sum_with(&v, AtomicStrategy::Hybrid).unwrap(), 3);
    assert_eq!(
        ctx.atomic_sum_with(&v, AtomicStrategy::PerElement).unwrap(),
        3
    );
}

#[test]
fn vectors_of_another_context() {
    let other = Ctx::new().unwrap();
    let v = other.upload(&[1u32]).unwrap();
    let err = ctx().atomic_sum(&v).unwrap_err();
    assert_eq!(err, Error::ContextMismatch { op: "atomic_sum" });
    let err = ctx().histogram(&v, 4).unwrap_err();
    assert_eq!(err, Error::ContextMismatch { op: "histogram" });
    let f = other.upload(&[1.0f32]).unwrap();
    let err = ctx().histogram_range(&f, 4, 0.0, 1.0).unwrap_err();
    assert_eq!(
        err,
        Error::ContextMismatch {
            op: "histogram_range"
        }
    );
    let mut acc = ctx().zeros::<u32>(1).unwrap();
    let err = ctx()
        .atomic_sum_into(&v, AtomicStrategy::Hybrid, &mut acc)
        .unwrap_err();
    assert_eq!(err, Error::ContextMismatch { op: "atomic_sum" });
}
