//! Random fills: bit-exact against the CPU twins, statistics, reproducibility, the
//! stateful generator, the split context, errors, and the library inside `map`.

mod common;

use common::*;
use gpuprim::ops::random::cpu::{self, Xorshift128};
use gpuprim::{Ctx, Error, GpuVec, RandomElement, Rng};
use proptest::prelude::*;

const SIZES: &[usize] = &[0, 1, 3, 4, 5, 1023, 1025, 4097, 70001];

fn generators(seed: u32) -> [Rng; 3] {
    [
        Rng::WangHash { seed },
        Rng::Xorshift32 { seed },
        Rng::Pcg32 { seed },
    ]
}

/// The articles' initialisation, written independently of the crate: HLSL
/// `wang_hash(id * 1847483629)` with u32 wrapping arithmetic.
fn article_wang_hash(mut seed: u32) -> u32 {
    seed = (seed ^ 61) ^ (seed >> 16);
    seed = seed.wrapping_mul(9);
    seed ^= seed >> 4;
    seed = seed.wrapping_mul(0x27d4eb2d);
    seed ^= seed >> 15;
    seed
}

fn fill<T: TestElement + RandomElement>(ctx: &Ctx, n: usize, rng: Rng) -> Vec<T> {
    let mut v: GpuVec<T> = poisoned(ctx, n);
    ctx.fill_random(&mut v, rng).unwrap();
    v.to_vec().unwrap()
}

fn check_exact<T: TestElement + RandomElement>(ctx: &Ctx, n: usize, rng: Rng) {
    let gpu = fill::<T>(ctx, n, rng);
    let cpu: Vec<T> = (0..n as u32).map(|i| rng.value_at::<T>(i)).collect();
    assert_all_eq(&gpu, &cpu, &format!("{rng:?} {} n={n}", T::WGSL));
}

#[test]
fn every_generator_bit_exact_at_edge_sizes() {
    let ctx = ctx();
    for &n in SIZES {
        for rng in generators(0).into_iter().chain(generators(0xdead_1234)) {
            check_exact::<u32>(ctx, n, rng);
            check_exact::<i32>(ctx, n, rng);
            check_exact::<f32>(ctx, n, rng);
        }
    }
}

#[test]
fn wang_hash_seed_0_is_the_articles_stream() {
    let n = 70001;
    let gpu = fill::<u32>(ctx(), n, Rng::WangHash { seed: 0 });
    let article: Vec<u32> = (0..n as u32)
        .map(|id| article_wang_hash(id.wrapping_mul(1847483629)))
        .collect();
    assert_all_eq(
        &gpu,
        &article,
        "WangHash seed 0 vs wang_hash(id * 1847483629)",
    );
    // and the crate's CPU twin of the primitive agrees with the independent one
    assert_eq!(cpu::wang_hash(12345), article_wang_hash(12345));
    // the known first values: wang_hash(0) = 0xc5e6... is computed, not assumed
    assert_eq!(gpu[0], article_wang_hash(0));
}

#[test]
fn uniform_range_matches_cpu_and_stays_in_range() {
    let ctx = ctx();
    for &(lo, hi) in &[(-2.0f32, 3.0f32), (0.0, 1.0), (100.0, 100.5), (-1e-3, 1e-3)] {
        for rng in generators(11) {
            for &n in &[1usize, 5, 4097] {
                let mut v: GpuVec<f32> = poisoned(ctx, n);
                ctx.fill_uniform(&mut v, rng, lo, hi).unwrap();
                let gpu = v.to_vec().unwrap();
                let cpu: Vec<f32> = (0..n as u32).map(|i| rng.uniform_at(i, lo, hi)).collect();
                // An adapter may fuse lo + (hi - lo) * u, skipping the product's rounding:
                // within 2 ulps of the largest term.
                let scale = vec![lo.abs().max(hi.abs()).max(hi - lo); n];
                assert_all_close_f32(&gpu, &cpu, &scale, 2.0, &format!("{rng:?} [{lo},{hi})"));
                assert!(
                    gpu.iter().all(|x| (lo..hi).contains(x)),
                    "{rng:?} out of range"
                );
            }
        }
    }
    // the top of the range cannot be reached: u = 1 - 2^-24 with a wide range
    assert!(cpu::uniform_in(1.0 - 1.0 / 16_777_216.0, 0.0, 1e-30) < 1e-30);
}

#[test]
fn normal_matches_cpu_within_stated_tolerance() {
    // Box-Muller uses the adapter's log, cos and sqrt, which are not exact: the GPU value
    // must be within 1e-4 * std_dev (plus one f32 rounding of the result) of the CPU's
    // f64 value computed from the same bits. |z| <= 5.77 by construction.
    let ctx = ctx();
    for &(mean, std) in &[(0.0f32, 1.0f32), (10.0, 2.0), (-3.0, 0.0)] {
        for rng in generators(5) {
            let n = 70001;
            let mut v: GpuVec<f32> = poisoned(ctx, n);
            ctx.fill_normal(&mut v, rng, mean, std).unwrap();
            let gpu = v.to_vec().unwrap();
            for (i, &g) in gpu.iter().enumerate() {
                let c = rng.normal_at(i as u32, mean, std);
                let tol = 1e-4 * std + f32::EPSILON * c.abs();
                assert!(
                    (g - c).abs() <= tol && (g - mean).abs() <= 5.78 * std,
                    "{rng:?} N({mean},{std}) element {i}: GPU {g}, CPU {c}, tolerance {tol}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]
    #[test]
    fn random_sizes_and_seeds_bit_exact(n in 0usize..100_000, seed in any::<u32>(), g in 0usize..3) {
        let rng = generators(seed)[g];
        check_exact::<u32>(ctx(), n, rng);
        check_exact::<f32>(ctx(), n, rng);
    }
}

// ---------------------------------------------------------------------------------------
// Statistics on 2^20 values. Every threshold is 5 standard deviations of the statistic
// under the hypothesis of independent uniform values (false-failure rate ~6e-7 per check),
// except the chi-square, whose critical value 347 for 255 degrees of freedom has p ~ 1e-4.
// The streams are deterministic, so a pass is a pass forever for these seeds.

const STAT_N: usize = 1 << 20;

fn check_uniform_stats(what: &str, bits: &[u32], unit: &[f32]) {
    let n = unit.len() as f64;
    let u: Vec<f64> = unit.iter().map(|&x| f64::from(x)).collect();
    assert!(unit.iter().all(|x| (0.0..1.0).contains(x)), "{what}: range");
    // mean: variance of U(0,1) is 1/12
    let mean = u.iter().sum::<f64>() / n;
    let sigma_mean = (1.0 / 12.0 / n).sqrt();
    assert!((mean - 0.5).abs() < 5.0 * sigma_mean, "{what}: mean {mean}");
    // variance: the sample variance has standard deviation sqrt((mu4 - sigma^4) / n),
    // mu4 = 1/80 and sigma^4 = 1/144 for U(0,1), so sqrt(1/180/n)
    let var = u.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    assert!(
        (var - 1.0 / 12.0).abs() < 5.0 * (1.0 / 180.0 / n).sqrt(),
        "{what}: variance {var}"
    );
    // chi-square over 256 equal bins of the top 8 bits
    let mut bins = [0u64; 256];
    for &x in unit {
        bins[(x * 256.0) as usize] += 1;
    }
    let expect = n / 256.0;
    let chi2: f64 = bins
        .iter()
        .map(|&c| (c as f64 - expect).powi(2) / expect)
        .sum();
    assert!(
        chi2 < 347.0,
        "{what}: chi-square {chi2} (255 dof, p=1e-4 critical 347)"
    );
    // lag-1 autocorrelation: standard deviation 1/sqrt(n)
    let cov = u
        .windows(2)
        .map(|w| (w[0] - mean) * (w[1] - mean))
        .sum::<f64>()
        / (n - 1.0);
    let r = cov / var;
    assert!(r.abs() < 5.0 / n.sqrt(), "{what}: lag-1 correlation {r}");
    // bit balance: ones at each bit position ~ Binomial(n, 1/2), sd sqrt(n)/2
    for b in 0..32 {
        let ones = bits.iter().filter(|&&x| x >> b & 1 == 1).count() as f64;
        assert!(
            (ones - n / 2.0).abs() < 5.0 * n.sqrt() / 2.0,
            "{what}: bit {b} set {ones} times of {n}"
        );
    }
}

#[test]
fn statistics_of_every_generator() {
    let ctx = ctx();
    for rng in generators(2024) {
        let bits = fill::<u32>(ctx, STAT_N, rng);
        let unit = fill::<f32>(ctx, STAT_N, rng);
        check_uniform_stats(&format!("{rng:?}"), &bits, &unit);
    }
    // the articles' stream itself
    let rng = Rng::WangHash { seed: 0 };
    check_uniform_stats(
        "WangHash seed 0",
        &fill::<u32>(ctx, STAT_N, rng),
        &fill::<f32>(ctx, STAT_N, rng),
    );
    // stateful xorshift128: the second fill (one step further) of the same state
    let mut state = ctx.xorshift128_state(STAT_N, 2024).unwrap();
    let mut bits = ctx.zeros::<u32>(STAT_N).unwrap();
    let mut unit = ctx.zeros::<f32>(STAT_N).unwrap();
    ctx.fill_random_stateful(&mut bits, &mut state).unwrap();
    ctx.fill_random_stateful(&mut unit, &mut state).unwrap();
    check_uniform_stats(
        "Xorshift128 state",
        &bits.to_vec().unwrap(),
        &unit.to_vec().unwrap(),
    );
}

fn check_normal_stats(what: &str, z: &[f32]) {
    let n = z.len() as f64;
    let mean = z.iter().map(|&x| f64::from(x)).sum::<f64>() / n;
    // N(0,1): sd of the mean 1/sqrt(n); of the sample variance sqrt(2/n)
    assert!(mean.abs() < 5.0 / n.sqrt(), "{what}: mean {mean}");
    let var = z
        .iter()
        .map(|&x| (f64::from(x) - mean).powi(2))
        .sum::<f64>()
        / n;
    assert!(
        (var - 1.0).abs() < 5.0 * (2.0 / n).sqrt(),
        "{what}: variance {var}"
    );
    // tails: P(|z| > 2) = 0.0455, binomial sd sqrt(p(1-p)/n)
    let p = 0.045_500_263_9;
    let tail = z.iter().filter(|x| x.abs() > 2.0).count() as f64 / n;
    assert!(
        (tail - p).abs() < 5.0 * (p * (1.0 - p) / n).sqrt(),
        "{what}: P(|z|>2) = {tail}"
    );
    assert!(
        z.iter().all(|x| x.abs() < 5.78),
        "{what}: |z| beyond Box-Muller's bound"
    );
}

#[test]
fn statistics_of_normals() {
    let ctx = ctx();
    for rng in generators(99) {
        let mut v = ctx.zeros::<f32>(STAT_N).unwrap();
        ctx.fill_normal(&mut v, rng, 0.0, 1.0).unwrap();
        check_normal_stats(&format!("{rng:?}"), &v.to_vec().unwrap());
    }
    let mut state = ctx.xorshift128_state(STAT_N, 99).unwrap();
    let mut v = ctx.zeros::<f32>(STAT_N).unwrap();
    ctx.fill_normal_stateful(&mut v, &mut state, 0.0, 1.0)
        .unwrap();
    check_normal_stats("Xorshift128 state", &v.to_vec().unwrap());
}

#[test]
fn reproducible_and_seeds_differ() {
    let ctx = ctx();
    let n = 4097;
    for (a, b) in generators(1).into_iter().zip(generators(2)) {
        let first = fill::<u32>(ctx, n, a);
        assert_eq!(first, fill::<u32>(ctx, n, a), "{a:?} twice");
        let other = fill::<u32>(ctx, n, b);
        let same = first.iter().zip(&other).filter(|(x, y)| x == y).count();
        // independent streams agree on ~n / 2^32 elements
        assert!(same <= 1, "{a:?} vs {b:?}: {same} equal elements of {n}");
    }
    // the generators differ from each other for one seed
    let [w, x, p] = generators(3).map(|r| fill::<u32>(ctx, n, r));
    assert_ne!(w, x);
    assert_ne!(x, p);
    assert_ne!(w, p);
}

#[test]
fn split_context_gives_the_same_streams() {
    // 4 KiB bindings: 70001 elements take 69 binding windows, each with its own offset.
    let (a, b) = (ctx(), split_ctx());
    for &n in &[5usize, 1025, 70001] {
        for rng in generators(77) {
            assert_eq!(
                fill::<u32>(a, n, rng),
                fill::<u32>(b, n, rng),
                "{rng:?} n={n}"
            );
            check_exact::<f32>(b, n, rng);
        }
        let mut va: GpuVec<f32> = poisoned(a, n);
        let mut vb: GpuVec<f32> = poisoned(b, n);
        a.fill_normal(&mut va, Rng::Pcg32 { seed: 1 }, 0.0, 1.0)
            .unwrap();
        b.fill_normal(&mut vb, Rng::Pcg32 { seed: 1 }, 0.0, 1.0)
            .unwrap();
        assert_eq!(va.to_vec().unwrap(), vb.to_vec().unwrap(), "normals n={n}");
        // stateful: state made and advanced in windows of 64 elements
        let mut sa = a.xorshift128_state(n, 3).unwrap();
        let mut sb = b.xorshift128_state(n, 3).unwrap();
        assert_eq!(sa.to_vec().unwrap(), sb.to_vec().unwrap(), "state n={n}");
        for _ in 0..2 {
            let mut ua: GpuVec<u32> = poisoned(a, n);
            let mut ub: GpuVec<u32> = poisoned(b, n);
            a.fill_random_stateful(&mut ua, &mut sa).unwrap();
            b.fill_random_stateful(&mut ub, &mut sb).unwrap();
            assert_eq!(ua.to_vec().unwrap(), ub.to_vec().unwrap(), "stateful n={n}");
        }
    }
}

#[test]
fn stateful_fills_advance_and_match_the_cpu_stream() {
    let ctx = ctx();
    for &n in SIZES {
        let seed = 0x5eed;
        let mut state = ctx.xorshift128_state(n, seed).unwrap();
        let mut cpu: Vec<Xorshift128> = (0..n as u32)
            .map(|i| Xorshift128::seeded(seed, i))
            .collect();
        let init = state.to_vec().unwrap();
        assert_eq!(init.len(), n);
        for (i, s) in init.iter().enumerate() {
            assert_eq!(*s, cpu[i].state(), "initial state of element {i}");
            assert_ne!(*s, [0; 4], "all-zero state at {i}");
        }
        let mut previous: Option<Vec<u32>> = None;
        for round in 0..3 {
            let gpu = {
                let mut v: GpuVec<u32> = poisoned(ctx, n);
                ctx.fill_random_stateful(&mut v, &mut state).unwrap();
                v.to_vec().unwrap()
            };
            let want: Vec<u32> = cpu.iter_mut().map(|g| g.next_u32()).collect();
            assert_all_eq(&gpu, &want, &format!("stateful u32 n={n} round {round}"));
            if let (Some(p), true) = (&previous, n > 1) {
                assert_ne!(p, &gpu, "round {round} repeats the previous fill");
            }
            previous = Some(gpu);
        }
        // i32 and f32 conversions, one step each
        let mut vi: GpuVec<i32> = poisoned(ctx, n);
        ctx.fill_random_stateful(&mut vi, &mut state).unwrap();
        let want: Vec<i32> = cpu.iter_mut().map(|g| g.next_value::<i32>()).collect();
        assert_all_eq(&vi.to_vec().unwrap(), &want, "stateful i32");
        let mut vf: GpuVec<f32> = poisoned(ctx, n);
        ctx.fill_random_stateful(&mut vf, &mut state).unwrap();
        let want: Vec<f32> = cpu.iter_mut().map(|g| g.next_value::<f32>()).collect();
        assert_all_eq(&vf.to_vec().unwrap(), &want, "stateful f32");
        // uniform (one step) and normal (two steps) keep the streams in step
        ctx.fill_uniform_stateful(&mut vf, &mut state, -1.0, 1.0)
            .unwrap();
        let want: Vec<f32> = cpu.iter_mut().map(|g| g.next_uniform(-1.0, 1.0)).collect();
        assert_all_close_f32(
            &vf.to_vec().unwrap(),
            &want,
            &vec![2.0; n],
            2.0,
            "stateful uniform",
        );
        ctx.fill_normal_stateful(&mut vf, &mut state, 0.0, 1.0)
            .unwrap();
        let want: Vec<f32> = cpu.iter_mut().map(|g| g.next_normal(0.0, 1.0)).collect();
        for (i, (g, c)) in vf.to_vec().unwrap().iter().zip(&want).enumerate() {
            assert!(
                (g - c).abs() <= 1e-4,
                "stateful normal {i}: GPU {g}, CPU {c}"
            );
        }
        let after: Vec<[u32; 4]> = state.to_vec().unwrap();
        let want: Vec<[u32; 4]> = cpu.iter().map(|g| g.state()).collect();
        assert_eq!(after, want, "state after all fills n={n}");
    }
}

#[test]
fn random_library_in_map_and_zip_expressions() {
    let ctx = ctx();
    let n = 4097u32;
    let ids = ctx.upload(&(0..n).collect::<Vec<u32>>()).unwrap();
    let r = ctx.map(&ids, "wang_hash(x * 1847483629u)").unwrap();
    let want: Vec<u32> = (0..n)
        .map(|i| article_wang_hash(i.wrapping_mul(1847483629)))
        .collect();
    assert_all_eq(&r.to_vec().unwrap(), &want, "map wang_hash");
    let seeds = ctx.upload(&vec![9u32; n as usize]).unwrap();
    let z = ctx
        .zip(&ids, &seeds, "rng_pcg32(a, b) ^ xorshift32(a + 1u)")
        .unwrap();
    let want: Vec<u32> = (0..n)
        .map(|i| Rng::Pcg32 { seed: 9 }.u32_at(i) ^ cpu::xorshift32(i + 1))
        .collect();
    assert_all_eq(&z.to_vec().unwrap(), &want, "zip pcg");
    // f32 expressions: bits of x through the hash, to a unit float
    let xs = ctx.upload(&[0.5f32, -1.0, 3.25, 1e9]).unwrap();
    let u = ctx
        .map(&xs, "u32_to_unit_f32(pcg_hash(bitcast<u32>(x)))")
        .unwrap();
    let want: Vec<f32> = [0.5f32, -1.0, 3.25, 1e9]
        .iter()
        .map(|x| cpu::u32_to_unit_f32(cpu::pcg_hash(x.to_bits())))
        .collect();
    assert_all_eq(&u.to_vec().unwrap(), &want, "map f32 pcg_hash");
    let f = ctx.map(&xs, "f32(wang_hash(bitcast<u32>(x)))").unwrap();
    let want: Vec<f32> = [0.5f32, -1.0, 3.25, 1e9]
        .iter()
        .map(|x| article_wang_hash(x.to_bits()) as f32)
        .collect();
    assert_all_eq(&f.to_vec().unwrap(), &want, "map f32(wang_hash)");
}

#[test]
fn new_seeds_and_bounds_do_not_recompile() {
    // A context of its own: other tests compile on the shared one at the same time.
    let ctx = &Ctx::new().unwrap();
    let mut v = ctx.zeros::<f32>(64).unwrap();
    ctx.fill_uniform(&mut v, Rng::Pcg32 { seed: 1 }, 0.0, 1.0)
        .unwrap();
    let compiled = ctx.pipelines_compiled();
    for s in 2..6 {
        ctx.fill_uniform(&mut v, Rng::Pcg32 { seed: s }, -(s as f32), s as f32)
            .unwrap();
    }
    assert_eq!(ctx.pipelines_compiled(), compiled);
}

#[test]
fn errors_name_the_numbers() {
    let ctx = ctx();
    let mut v = ctx.zeros::<f32>(10).unwrap();
    let rng = Rng::Pcg32 { seed: 1 };
    for (lo, hi) in [
        (1.0f32, 1.0f32),
        (2.0, 1.0),
        (f32::NAN, 1.0),
        (0.0, f32::INFINITY),
        (-f32::MAX, f32::MAX),
    ] {
        let err = ctx.fill_uniform(&mut v, rng, lo, hi).unwrap_err();
        assert!(
            matches!(
                err,
                Error::InvalidArgument {
                    op: "fill_uniform",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains(&format!("{lo}")), "{err}");
    }
    for (mean, std) in [(0.0f32, -1.0f32), (f32::NAN, 1.0), (0.0, f32::INFINITY)] {
        let err = ctx.fill_normal(&mut v, rng, mean, std).unwrap_err();
        assert!(
            matches!(
                err,
                Error::InvalidArgument {
                    op: "fill_normal",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains(&format!("{std}")), "{err}");
    }
    // state of another length
    let mut state = ctx.xorshift128_state(11, 1).unwrap();
    let err = ctx.fill_random_stateful(&mut v, &mut state).unwrap_err();
    assert_eq!(
        err,
        Error::LengthMismatch {
            op: "fill_random_stateful",
            left_name: "v".into(),
            left: 10,
            right_name: "state".into(),
            right: 11
        }
    );
    assert!(
        err.to_string()
            .contains("v has 10 elements but state has 11"),
        "{err}"
    );
    let err = ctx
        .fill_normal_stateful(&mut v, &mut state, 0.0, 1.0)
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::LengthMismatch {
                left: 10,
                right: 11,
                ..
            }
        ),
        "{err:?}"
    );
    // vectors and states of another context
    let mut other = split_ctx().zeros::<u32>(4).unwrap();
    let err = ctx.fill_random(&mut other, rng).unwrap_err();
    assert_eq!(err, Error::ContextMismatch { op: "fill_random" });
    let mut other_state = split_ctx().xorshift128_state(10, 1).unwrap();
    let err = ctx
        .fill_random_stateful(&mut v, &mut other_state)
        .unwrap_err();
    assert_eq!(
        err,
        Error::ContextMismatch {
            op: "fill_random_stateful"
        }
    );
    // too large is refused before any allocation
    let err = ctx.xorshift128_state(usize::MAX, 1).unwrap_err();
    assert!(matches!(err, Error::TooLarge { .. }), "{err:?}");
    // empty works, and the context still works after all of it
    let mut empty = ctx.zeros::<u32>(0).unwrap();
    ctx.fill_random(&mut empty, rng).unwrap();
    let mut empty_state = ctx.xorshift128_state(0, 1).unwrap();
    assert!(empty_state.is_empty());
    ctx.fill_random_stateful(&mut empty, &mut empty_state)
        .unwrap();
    ctx.fill_random(&mut v, rng).unwrap();
    assert_eq!(v.to_vec().unwrap()[3], rng.value_at::<f32>(3));
}

/// random_permutation: every length gives a permutation of 0..n (checked by sorting on
/// the CPU), the same for the same seed, another for another seed; all 24 orders of 4
/// elements come up about equally often over 2400 seeds; on split_ctx too (keys and
/// values across binding windows).
#[test]
fn random_permutation_is_a_uniform_permutation() {
    for c in [ctx(), split_ctx()] {
        for n in [
            0usize, 1, 2, 3, 4, 5, 255, 256, 257, 1023, 1025, 3001, 70_001,
        ] {
            if n > 3001 && std::ptr::eq(c, split_ctx()) {
                continue; // past what one sort takes in 4 KiB bindings
            }
            let p = c.random_permutation(n, 11).unwrap().to_vec().unwrap();
            let mut sorted = p.clone();
            sorted.sort_unstable();
            assert_eq!(
                sorted,
                (0..n as u32).collect::<Vec<_>>(),
                "random_permutation({n})"
            );
            assert_eq!(
                p,
                c.random_permutation(n, 11).unwrap().to_vec().unwrap(),
                "n = {n}"
            );
            if n >= 5 {
                let q = c.random_permutation(n, 12).unwrap().to_vec().unwrap();
                assert_ne!(p, q, "seeds 11 and 12 give one permutation of {n}");
            }
        }
    }
    let c = ctx();
    let mut counts = std::collections::HashMap::new();
    for seed in 0..2400 {
        let p = c.random_permutation(4, seed).unwrap().to_vec().unwrap();
        *counts.entry(p).or_insert(0u32) += 1;
    }
    assert_eq!(counts.len(), 24, "orders of 4 seen: {counts:?}");
    // Each order is Binomial(2400, 1/24): mean 100, sd 9.8; 55..145 is past 4.5 sd.
    for (p, &k) in &counts {
        assert!(
            (55..=145).contains(&k),
            "order {p:?} came {k} times of 2400"
        );
    }
}
