//! Segmented reductions (segmented_reduce, reduce_rows, reduce_columns and their `_into`
//! forms) against CPU references on random values and random segment lengths: every
//! operator (custom ones too), the integer types exactly, f32 sums within a bound that
//! follows from the order of the additions, many empty segments, segments crossing tiles
//! and workgroup ranges, one huge segment, the split-binding and folded-dispatch path
//! (`split_ctx`), grids of every odd shape and pitch, bad offsets, and the errors.
//!
//! Every output starts poisoned and every element is compared.
//!
//! f32 tolerance: a segment of `m` values is summed through at most
//! `V + 2 log2(WG) + m / T + 40 + m / (R * WG)` additions in sequence (V values per
//! invocation, WG invocations, tiles of T values, workgroup ranges of R values; on the
//! software adapter V = 4, WG = 64, T = 256: at most `64 + m / 256`), so
//! |GPU - exact| <= (64 + m / 256) * eps * sum |x_i|, checked against an f64 CPU sum.
//! A column of `h` values: at most `h / 4 + 1 + 8 + 256` (four rows a step, the phases,
//! the row blocks), so `(h / 4 + 270) * eps * sum |x_i|`.

mod common;

use common::*;
use gpuprim::half::f16;
use gpuprim::wgpu;
use gpuprim::{Ctx, Error, GpuVec, Grid2D, Limit, Reduce};

// ---- inputs ----

/// An operator, its identity and its CPU twin.
type Case<T> = (Reduce<T>, T, fn(T, T) -> T);

/// Segment lengths from a seeded stream: `count` segments, most 0..300 with many empty
/// ones, a few of `long` values.
fn random_lengths(count: usize, long: usize, seed: u64) -> Vec<usize> {
    let bits: Vec<u32> = random_vec(count, seed);
    bits.iter()
        .map(|&b| match b % 16 {
            0..=4 => 0,
            5 => long,
            _ => (b >> 8) as usize % 300,
        })
        .collect()
}

/// Offsets for segment lengths, starting at `start`.
fn offsets_of(lengths: &[usize], start: usize) -> Vec<u32> {
    let mut o = vec![start as u32];
    for l in lengths {
        o.push(o.last().unwrap() + *l as u32);
    }
    o
}

thread_local! {
    /// The kernel `gpu_segmented` asks for: `None` the automatic choice, `Some(true)` the
    /// one for short segments, `Some(false)` the segmented (tiles) kernel.
    static PATH: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with `gpu_segmented` forcing a kernel (see `PATH`).
fn with_path(short: Option<bool>, f: impl FnOnce()) {
    PATH.with(|p| p.set(short));
    f();
    PATH.with(|p| p.set(None));
}

fn gpu_segmented<T: TestElement>(
    ctx: &Ctx,
    values: &GpuVec<T>,
    offsets: &GpuVec<u32>,
    op: Reduce<T>,
) -> Vec<T> {
    let mut out = poisoned::<T>(ctx, offsets.len() - 1);
    match PATH.with(|p| p.get()) {
        None => ctx.segmented_reduce_into(values, offsets, op, &mut out),
        Some(short) => ctx.segmented_path_into(values, offsets, op, short, &mut out),
    }
    .unwrap_or_else(|e| panic!("segmented_reduce_into: {e}"));
    out.to_vec().unwrap()
}

/// `fold` over each segment, from `identity`.
fn cpu_segmented<T: Copy>(
    values: &[T],
    offsets: &[u32],
    identity: T,
    fold: impl Fn(T, T) -> T,
) -> Vec<T> {
    offsets
        .windows(2)
        .map(|w| {
            values[w[0] as usize..w[1] as usize]
                .iter()
                .fold(identity, |a, &b| fold(a, b))
        })
        .collect()
}

/// Sums in f64 and the sums of absolute values, per segment.
fn f64_sums(values: &[f32], offsets: &[u32]) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let seg = |w: &[u32]| &values[w[0] as usize..w[1] as usize];
    (
        offsets
            .windows(2)
            .map(|w| seg(w).iter().map(|&x| f64::from(x)).sum())
            .collect(),
        offsets
            .windows(2)
            .map(|w| seg(w).iter().map(|&x| f64::from(x).abs()).sum())
            .collect(),
        offsets.windows(2).map(|w| seg(w).len()).collect(),
    )
}

/// The f32 bound of the module docs: (64 + m / 256) * eps * sum |x|.
fn assert_sums_close(gpu: &[f32], exact: &[f64], abs: &[f64], lens: &[usize], what: &str) {
    let terms: Vec<f64> = lens.iter().map(|&m| 64.0 + m as f64 / 256.0).collect();
    assert_close_terms(gpu, exact, abs, &terms, what);
}

/// |gpu - exact| <= terms * eps * abs, element by element.
fn assert_close_terms(gpu: &[f32], exact: &[f64], abs: &[f64], terms: &[f64], what: &str) {
    assert_eq!(gpu.len(), exact.len(), "{what}: lengths");
    for i in 0..gpu.len() {
        let tol = terms[i] * f64::from(f32::EPSILON) * abs[i];
        let err = (f64::from(gpu[i]) - exact[i]).abs();
        assert!(
            err <= tol,
            "{what}: segment {i} of {}: GPU {}, exact {}, |diff| {err:e} > {tol:e}",
            gpu.len(),
            gpu[i],
            exact[i]
        );
    }
}

// ---- segmented_reduce ----

/// Every built-in operator and a custom one on an integer type, exactly.
fn check_int_ops<T: TestElement + Ord>(
    ctx: &Ctx,
    values: &[T],
    offsets: &[u32],
    add: fn(T, T) -> T,
    mul: fn(T, T) -> T,
    xor: fn(T, T) -> T,
    what: &str,
) {
    let v = ctx.upload(values).unwrap();
    let o = ctx.upload(offsets).unwrap();
    let cases: [Case<T>; 7] = [
        (Reduce::Sum, T::ZERO, add),
        (Reduce::SumCompensated, T::ZERO, add),
        (Reduce::Product, T::ONE, mul),
        (Reduce::Min, T::HIGHEST, |a, b| a.min(b)),
        (Reduce::Max, T::LOWEST, |a, b| a.max(b)),
        (Reduce::custom("a ^ b", T::ZERO), T::ZERO, xor),
        (Reduce::custom("max(a, b)", T::LOWEST), T::LOWEST, |a, b| {
            a.max(b)
        }),
    ];
    for (op, identity, fold) in cases {
        let name = format!("{what} {} {op:?}", T::WGSL);
        let gpu = gpu_segmented(ctx, &v, &o, op);
        assert_all_eq(&gpu, &cpu_segmented(values, offsets, identity, fold), &name);
    }
}

fn check_all_int(ctx: &Ctx, lengths: &[usize], start: usize, trail: usize, seed: u64, what: &str) {
    let offsets = offsets_of(lengths, start);
    let n = *offsets.last().unwrap() as usize + trail;
    let i: Vec<i32> = random_vec(n, seed);
    check_int_ops(
        ctx,
        &i,
        &offsets,
        i32::wrapping_add,
        i32::wrapping_mul,
        |a, b| a ^ b,
        what,
    );
    let u: Vec<u32> = random_vec(n, seed + 1);
    check_int_ops(
        ctx,
        &u,
        &offsets,
        u32::wrapping_add,
        u32::wrapping_mul,
        |a, b| a ^ b,
        what,
    );
}

fn check_f32(ctx: &Ctx, lengths: &[usize], seed: u64, what: &str) {
    let offsets = offsets_of(lengths, 0);
    let n = *offsets.last().unwrap() as usize;
    let values: Vec<f32> = random_vec(n, seed);
    let v = ctx.upload(&values).unwrap();
    let o = ctx.upload(&offsets).unwrap();
    let (exact, abs, lens) = f64_sums(&values, &offsets);
    for op in [Reduce::Sum, Reduce::SumCompensated] {
        let gpu = gpu_segmented(ctx, &v, &o, op.clone());
        assert_sums_close(&gpu, &exact, &abs, &lens, &format!("{what} f32 {op:?}"));
    }
    // (The kernel for short segments shuffles 32-bit accumulators: forced, it refuses
    // SumWide's f64.)
    if ctx.has_features(wgpu::Features::SHADER_F64) && PATH.with(|p| p.get()) != Some(true) {
        // One rounding of the exact sum.
        let gpu = gpu_segmented(ctx, &v, &o, Reduce::SumWide);
        for i in 0..gpu.len() {
            assert!(
                (f64::from(gpu[i]) - exact[i]).abs()
                    <= f64::from(f32::EPSILON) * exact[i].abs() + 1e-30,
                "{what} SumWide segment {i}: GPU {}, exact {}",
                gpu[i],
                exact[i]
            );
        }
    }
    let min = gpu_segmented(ctx, &v, &o, Reduce::Min);
    assert_all_eq(
        &min,
        &cpu_segmented(&values, &offsets, f32::INFINITY, f32::min),
        &format!("{what} f32 min"),
    );
    let max = gpu_segmented(ctx, &v, &o, Reduce::Max);
    assert_all_eq(
        &max,
        &cpu_segmented(&values, &offsets, f32::NEG_INFINITY, f32::max),
        &format!("{what} f32 max"),
    );
    let custom = gpu_segmented(ctx, &v, &o, Reduce::custom("max(abs(a), abs(b))", 0.0));
    let cpu = cpu_segmented(&values, &offsets, 0.0f32, |a, b| a.abs().max(b.abs()));
    assert_all_eq(&custom, &cpu, &format!("{what} f32 custom"));
}

#[test]
fn random_lengths_with_many_empty_segments() {
    let ctx = ctx();
    for (count, long, seed) in [
        (1usize, 0usize, 1u64),
        (7, 1000, 2),
        (300, 3000, 3),
        (2000, 20_000, 4),
    ] {
        let lengths = random_lengths(count, long, seed);
        check_all_int(ctx, &lengths, 0, 0, seed, &format!("{count} segments"));
        check_f32(ctx, &lengths, seed, &format!("{count} segments"));
    }
}

/// Both kernels for segments read from offsets, forced, on short segments (the kernel
/// for them takes the whole call), on short ones with a few long ones (it hands the call
/// to the segmented kernel), and on lengths around the longest it takes itself, with
/// segments starting anywhere in a vec4 unit. Without subgroups the short kernel is
/// refused with `InvalidArgument`.
#[test]
fn short_and_tiles_kernels() {
    let ctx = ctx();
    let short_ok = ctx.has_features(wgpu::Features::SUBGROUP);
    let mut layouts: Vec<(String, Vec<usize>, usize, usize)> = Vec::new();
    let bits: Vec<u32> = random_vec(3000, 41);
    let short: Vec<usize> = bits.iter().map(|&b| (b % 41) as usize).collect();
    layouts.push(("short 0..40".into(), short.clone(), 3, 5));
    let mut with_long = short.clone();
    for k in [7usize, 1500, 2999] {
        with_long[k] = 5000 + k;
    }
    layouts.push(("short with 3 long".into(), with_long, 1, 2));
    layouts.push((
        "random_lengths".into(),
        random_lengths(2000, 20_000, 9),
        0,
        0,
    ));
    // Segments of 8 with every tenth of 128 (a mean of 20): the kernel for short
    // segments takes one invocation per segment and at most 32 vec4 units each. A
    // segment of 128 from a whole unit is 32 units (taken); one of 129 is 33 (handed
    // over); starting 2 values into a unit, lengths 125..131 are 32 or 33 units.
    let edge = |long: usize| -> Vec<usize> {
        (0..400)
            .map(|k| if k % 10 == 9 { long } else { 8 })
            .collect()
    };
    layouts.push(("8s and 128s".into(), edge(128), 0, 0));
    let mut one_over = edge(128);
    one_over[199] = 129;
    layouts.push(("8s, 128s and one 129".into(), one_over, 0, 0));
    let around: Vec<usize> = (0..400)
        .map(|k| if k % 10 == 9 { 125 + (k / 10) % 7 } else { 8 })
        .collect();
    layouts.push(("8s and 125..131s".into(), around, 2, 3));
    layouts.push(("lengths of 16".into(), vec![16; 1000], 0, 0));
    for (what, lengths, start, trail) in &layouts {
        for forced in [false, true] {
            let what = format!("{what}, short kernel {forced}");
            if forced && !short_ok {
                let v = ctx.upload(&[1.0f32; 8]).unwrap();
                let o = ctx.upload(&[0u32, 4, 8]).unwrap();
                let mut out = ctx.zeros::<f32>(2).unwrap();
                let e = ctx
                    .segmented_path_into(&v, &o, Reduce::Sum, true, &mut out)
                    .unwrap_err();
                assert!(matches!(e, Error::InvalidArgument { .. }), "{what}: {e}");
                continue;
            }
            with_path(Some(forced), || {
                check_all_int(ctx, lengths, *start, *trail, 77, &what);
                check_f32(ctx, lengths, 78, &what);
            });
        }
    }
}

#[test]
fn segments_at_tile_and_range_edges() {
    // Tiles of 256 values on the software adapter (4096 on a GPU); lengths around them.
    let ctx = ctx();
    for len in [1usize, 3, 4, 5, 63, 64, 65, 255, 256, 257, 4095, 4096, 4097] {
        let lengths: Vec<usize> = (0..40)
            .map(|k| if k % 5 == 4 { 0 } else { len + k % 3 })
            .collect();
        check_all_int(ctx, &lengths, 0, 0, len as u64, &format!("lengths ~{len}"));
    }
}

#[test]
fn one_segment_of_every_edge_length() {
    let ctx = ctx();
    for &n in &[
        0usize, 1, 2, 3, 4, 5, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097, 65537, 262145,
    ] {
        check_all_int(
            ctx,
            &[n],
            0,
            0,
            n as u64 + 9,
            &format!("one segment of {n}"),
        );
        let values: Vec<f32> = random_vec(n, 5);
        let v = ctx.upload(&values).unwrap();
        let o = ctx.upload(&[0u32, n as u32]).unwrap();
        let gpu = gpu_segmented(ctx, &v, &o, Reduce::Sum);
        let (exact, abs, lens) = f64_sums(&values, &[0, n as u32]);
        assert_sums_close(
            &gpu,
            &exact,
            &abs,
            &lens,
            &format!("one f32 segment of {n}"),
        );
    }
}

#[test]
fn one_huge_segment_matches_reduce() {
    let ctx = ctx();
    let n = 1 << 20;
    let values: Vec<f32> = random_vec(n, 11);
    let v = ctx.upload(&values).unwrap();
    let o = ctx.upload(&[0u32, n as u32]).unwrap();
    let gpu = gpu_segmented(ctx, &v, &o, Reduce::Sum);
    let (exact, abs, lens) = f64_sums(&values, &[0, n as u32]);
    assert_sums_close(&gpu, &exact, &abs, &lens, "2^20 values");
    let all = ctx.reduce(&v).unwrap();
    let tol = 2.0 * (64.0 + n as f64 / 256.0) * f64::from(f32::EPSILON) * abs[0];
    assert!(
        (f64::from(gpu[0]) - f64::from(all)).abs() <= tol,
        "{} vs reduce {all}",
        gpu[0]
    );
}

#[test]
fn gaps_before_after_and_empty_segments_at_the_ends() {
    let ctx = ctx();
    // Values before offsets[0] and after the last offset belong to no segment; empty
    // segments at 0, at n and in a row in the middle.
    let lengths = [0usize, 0, 5, 0, 0, 0, 700, 1, 0, 300, 0, 0];
    check_all_int(ctx, &lengths, 37, 501, 21, "gaps");
    check_all_int(ctx, &lengths, 0, 0, 22, "empty ends");
    // Every segment empty, with and without values.
    check_all_int(ctx, &[0; 50], 0, 0, 23, "all empty, no values");
    check_all_int(ctx, &[0; 50], 100, 100, 24, "all empty, values around");
}

#[test]
fn zero_segments_and_empty_offsets() {
    let ctx = ctx();
    let v = ctx.upload(&[1.0f32, 2.0]).unwrap();
    let one = ctx.upload(&[0u32]).unwrap();
    assert!(
        ctx.segmented_reduce(&v, &one, Reduce::Sum)
            .unwrap()
            .to_vec()
            .unwrap()
            .is_empty()
    );
    let none = ctx.upload::<u32>(&[]).unwrap();
    assert!(matches!(
        ctx.segmented_reduce(&v, &none, Reduce::Sum),
        Err(Error::InvalidArgument { .. })
    ));
    let mut out = ctx.zeros::<f32>(0).unwrap();
    assert!(matches!(
        ctx.segmented_reduce_into(&v, &none, Reduce::Sum, &mut out),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn split_bindings_and_folded_dispatches() {
    // 4 KiB bindings (1024 f32) and 3 workgroups per dimension: 30000 values take 30
    // windows, and the fix-up's ranges fold into 3D and stride.
    let ctx = split_ctx();
    let lengths = random_lengths(400, 5000, 31);
    check_all_int(ctx, &lengths, 0, 0, 31, "split");
    check_f32(ctx, &lengths, 32, "split");
    // Ranges of one window (1024 values): a segment over 98 ranges is combined by the
    // fix-up's whole workgroup (more than 32 partials), shorter ones by one invocation.
    check_all_int(ctx, &[100_000], 0, 0, 33, "split, one segment");
    check_all_int(
        ctx,
        &[5, 40_000, 0, 3, 20_000, 1],
        3,
        7,
        34,
        "split, long segments",
    );
    // Offsets past one binding are refused, with the numbers.
    let v = ctx.upload(&[0u32; 8]).unwrap();
    let o = ctx.upload(&vec![0u32; 2000]).unwrap();
    match ctx.segmented_reduce(&v, &o, Reduce::Sum) {
        Err(Error::TooLarge {
            kind: Limit::BindingBytes,
            requested,
            limit,
            ..
        }) => assert_eq!((requested, limit), (8000, 4096)),
        other => panic!("expected TooLarge, got {other:?}"),
    }
}

#[test]
fn f64_and_f16_where_supported() {
    let ctx = ctx();
    let lengths = random_lengths(200, 2000, 41);
    let offsets = offsets_of(&lengths, 0);
    let n = *offsets.last().unwrap() as usize;
    let o = ctx.upload(&offsets).unwrap();
    if supports::<f64>(ctx) {
        let values: Vec<f64> = random_vec(n, 42);
        let v = ctx.upload(&values).unwrap();
        let max = gpu_segmented(ctx, &v, &o, Reduce::Max);
        assert_all_eq(
            &max,
            &cpu_segmented(&values, &offsets, f64::NEG_INFINITY, f64::max),
            "f64 max",
        );
        let sum = gpu_segmented(ctx, &v, &o, Reduce::Sum);
        let cpu = cpu_segmented(&values, &offsets, 0.0, |a, b| a + b);
        for i in 0..sum.len() {
            assert!(
                (sum[i] - cpu[i]).abs() <= 1e-9 * (1.0 + cpu[i].abs()),
                "f64 sum {i}"
            );
        }
    }
    if supports::<f16>(ctx) {
        // Multiples of 1/8 in [-64, 64): min and max are exact.
        let values: Vec<f16> = random_vec(n, 43);
        let v = ctx.upload(&values).unwrap();
        let min = gpu_segmented(ctx, &v, &o, Reduce::Min);
        assert_all_eq(
            &min,
            &cpu_segmented(&values, &offsets, f16::INFINITY, f16::min),
            "f16 min",
        );
    }
}

#[test]
fn float_results_are_deterministic() {
    let ctx = ctx();
    let lengths = random_lengths(500, 50_000, 51);
    let offsets = offsets_of(&lengths, 0);
    let values: Vec<f32> = random_vec(*offsets.last().unwrap() as usize, 52);
    let v = ctx.upload(&values).unwrap();
    let o = ctx.upload(&offsets).unwrap();
    let a = gpu_segmented(ctx, &v, &o, Reduce::Sum);
    for _ in 0..3 {
        let b = gpu_segmented(ctx, &v, &o, Reduce::Sum);
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
    }
}

#[test]
fn bad_offsets_give_values_never_faults() {
    // Unspecified values, but no panic, no error, and the next call is right.
    let ctx = ctx();
    let values: Vec<u32> = random_vec(1000, 61);
    let v = ctx.upload(&values).unwrap();
    for bad in [
        vec![0u32, 500, 100, 1000],
        vec![0, 5000, 6000],
        vec![900, 10, 0],
        vec![u32::MAX, 0, u32::MAX],
        vec![0, 1000, 999_999, 3],
    ] {
        let o = ctx.upload(&bad).unwrap();
        let out = ctx.segmented_reduce(&v, &o, Reduce::Sum).unwrap();
        assert_eq!(out.to_vec().unwrap().len(), bad.len() - 1);
    }
    let o = ctx.upload(&[0u32, 400, 1000]).unwrap();
    let good = gpu_segmented(ctx, &v, &o, Reduce::Sum);
    assert_all_eq(
        &good,
        &cpu_segmented(&values, &[0, 400, 1000], 0, u32::wrapping_add),
        "after bad",
    );
}

#[test]
fn errors() {
    let ctx = ctx();
    let v = ctx.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let o = ctx.upload(&[0u32, 1, 3]).unwrap();
    let mut short = ctx.zeros::<f32>(1).unwrap();
    assert!(matches!(
        ctx.segmented_reduce_into(&v, &o, Reduce::Sum, &mut short),
        Err(Error::LengthMismatch {
            left: 1,
            right: 2,
            ..
        })
    ));
    assert!(matches!(
        ctx.segmented_reduce(&v, &o, Reduce::custom("a + b; }", 0.0)),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        ctx.segmented_reduce(&v, &o, Reduce::custom("a + undefined_name", 0.0)),
        Err(Error::Compile { .. })
    ));
    let other = split_ctx();
    let ov = other.upload(&[1.0f32]).unwrap();
    assert!(matches!(
        ctx.segmented_reduce(&ov, &o, Reduce::Sum),
        Err(Error::ContextMismatch { .. })
    ));
    if !ctx.has_features(wgpu::Features::SHADER_F64) {
        assert!(matches!(
            ctx.segmented_reduce(&v, &o, Reduce::SumWide),
            Err(Error::Unsupported { .. })
        ));
    }
    // A length on the device is refused (the segments need it on the host).
    let count = ctx.upload(&[2u32]).unwrap();
    let prefix = v.prefix(&count).unwrap();
    assert!(matches!(
        ctx.segmented_reduce(&prefix, &o, Reduce::Sum),
        Err(Error::InvalidArgument { .. })
    ));
    let prefix_offsets = o.prefix(&count).unwrap();
    assert!(matches!(
        ctx.segmented_reduce(&v, &prefix_offsets, Reduce::Sum),
        Err(Error::InvalidArgument { .. })
    ));
    let g = Grid2D::new(&v, 3, 1).unwrap();
    let mut wrong = ctx.zeros::<f32>(2).unwrap();
    assert!(matches!(
        ctx.reduce_rows_into(&g, Reduce::Sum, &mut wrong),
        Err(Error::LengthMismatch {
            left: 2,
            right: 1,
            ..
        })
    ));
    assert!(matches!(
        ctx.reduce_columns_into(&g, Reduce::Sum, &mut wrong),
        Err(Error::LengthMismatch {
            left: 2,
            right: 3,
            ..
        })
    ));
}

// ---- rows and columns ----

/// Every operator over the rows and columns of a `width` x `height` grid with `pitch`.
fn check_grid(ctx: &Ctx, width: u32, height: u32, pitch: u32, seed: u64) {
    let (w, h, p) = (width as usize, height as usize, pitch as usize);
    let n = p * (h - 1) + w;
    let what = format!("{width} x {height} pitch {pitch}");
    let at = |x: usize, y: usize| y * p + x;
    let rows_of = |v: &[i32], id: i32, f: fn(i32, i32) -> i32| -> Vec<i32> {
        (0..h)
            .map(|y| (0..w).fold(id, |a, x| f(a, v[at(x, y)])))
            .collect()
    };
    let cols_of = |v: &[i32], id: i32, f: fn(i32, i32) -> i32| -> Vec<i32> {
        (0..w)
            .map(|x| (0..h).fold(id, |a, y| f(a, v[at(x, y)])))
            .collect()
    };
    let values: Vec<i32> = random_vec(n, seed);
    let v = ctx.upload(&values).unwrap();
    let grid = Grid2D::with_pitch(&v, width, height, pitch).unwrap();
    let cases: [Case<i32>; 5] = [
        (Reduce::Sum, 0, i32::wrapping_add),
        (Reduce::Product, 1, i32::wrapping_mul),
        (Reduce::Min, i32::MAX, i32::min),
        (Reduce::Max, i32::MIN, i32::max),
        (Reduce::custom("a ^ b", 0), 0, |a, b| a ^ b),
    ];
    for (op, id, f) in cases {
        let mut rows = poisoned::<i32>(ctx, h);
        ctx.reduce_rows_into(&grid, op.clone(), &mut rows).unwrap();
        assert_all_eq(
            &rows.to_vec().unwrap(),
            &rows_of(&values, id, f),
            &format!("{what} rows {op:?}"),
        );
        let mut cols = poisoned::<i32>(ctx, w);
        ctx.reduce_columns_into(&grid, op.clone(), &mut cols)
            .unwrap();
        assert_all_eq(
            &cols.to_vec().unwrap(),
            &cols_of(&values, id, f),
            &format!("{what} columns {op:?}"),
        );
    }
    // f32 sums within the bound of the module docs.
    let fv: Vec<f32> = random_vec(n, seed + 1);
    let f = ctx.upload(&fv).unwrap();
    let grid = Grid2D::with_pitch(&f, width, height, pitch).unwrap();
    let mut sums = vec![Reduce::Sum, Reduce::SumCompensated];
    if ctx.has_features(wgpu::Features::SHADER_F64) {
        sums.push(Reduce::SumWide);
    }
    for op in sums {
        let rows = ctx
            .reduce_rows(&grid, op.clone())
            .unwrap()
            .to_vec()
            .unwrap();
        let row_offsets: Vec<u32> = (0..h)
            .flat_map(|y| [at(0, y) as u32, at(w, y) as u32])
            .collect();
        for y in 0..h {
            let (e, a, l) = f64_sums(&fv, &row_offsets[2 * y..2 * y + 2]);
            assert_sums_close(
                &rows[y..y + 1],
                &e,
                &a,
                &l,
                &format!("{what} f32 row {y} {op:?}"),
            );
        }
        let cols = ctx
            .reduce_columns(&grid, op.clone())
            .unwrap()
            .to_vec()
            .unwrap();
        for x in 0..w {
            let column: Vec<f32> = (0..h).map(|y| fv[at(x, y)]).collect();
            let (e, a, _) = f64_sums(&column, &[0, h as u32]);
            let terms = [h as f64 / 4.0 + 270.0];
            assert_close_terms(
                &cols[x..x + 1],
                &e,
                &a,
                &terms,
                &format!("{what} f32 column {x} {op:?}"),
            );
        }
    }
}

/// No subgroup operations: short rows take the segmented kernel's tiles (and its
/// workgroup-memory scan) instead of the short-rows kernel.
fn tree_ctx() -> &'static Ctx {
    static CTX: std::sync::OnceLock<Ctx> = std::sync::OnceLock::new();
    CTX.get_or_init(|| {
        Ctx::builder()
            .without_features(wgpu::Features::SUBGROUP)
            .build()
            .unwrap_or_else(|e| panic!("no GPU context for the tests: {e}"))
    })
}

/// Every odd shape on the context (short rows: the short-rows kernel where the adapter
/// has subgroups) and on one without subgroups (the segmented kernel for every row).
#[test]
fn rows_and_columns_of_odd_shapes() {
    for ctx in [ctx(), tree_ctx()] {
        odd_shapes(ctx);
    }
}

fn odd_shapes(ctx: &Ctx) {
    for (i, &(w, h, p)) in [
        (1u32, 1u32, 1u32),
        (1, 1, 5),
        (1000, 1, 1000),
        (1, 1000, 1),
        (1, 700, 3),
        (3, 5, 7),
        (63, 65, 64),
        (64, 64, 64),
        (65, 3, 100),
        (257, 300, 257),
        (100, 2000, 131),
        (5000, 7, 5003),
        // Rows far apart: most workgroup ranges hold only padding.
        (2, 3, 50_001),
    ]
    .iter()
    .enumerate()
    {
        check_grid(ctx, w, h, p, 70 + i as u64);
    }
}

#[test]
fn grids_over_a_borrowed_buffer_of_ragged_length() {
    // 7 x 5 in a pitch of 8 over exactly 39 elements of a buffer of the application's:
    // the scalar layout (no vec4 loads past the vector).
    let ctx = ctx();
    let values: Vec<u32> = random_vec(39, 99);
    let own = ctx.upload(&values).unwrap();
    let v = GpuVec::<u32>::from_buffer(ctx, own.into_buffer(), 39).unwrap();
    let grid = Grid2D::with_pitch(&v, 7, 5, 8).unwrap();
    let rows: Vec<u32> = (0..5)
        .map(|y| {
            values[8 * y..8 * y + 7]
                .iter()
                .fold(0u32, |a, &b| a.wrapping_add(b))
        })
        .collect();
    let cols: Vec<u32> = (0..7)
        .map(|x| (0..5).fold(0u32, |a, y| a.wrapping_add(values[8 * y + x])))
        .collect();
    let mut out = poisoned::<u32>(ctx, 5);
    ctx.reduce_rows_into(&grid, Reduce::Sum, &mut out).unwrap();
    assert_all_eq(&out.to_vec().unwrap(), &rows, "borrowed rows");
    let mut out = poisoned::<u32>(ctx, 7);
    ctx.reduce_columns_into(&grid, Reduce::Sum, &mut out)
        .unwrap();
    assert_all_eq(&out.to_vec().unwrap(), &cols, "borrowed columns");
}

#[test]
fn tall_grids_split_their_rows() {
    // Few columns and many rows: the column reduction takes several row blocks and a
    // second pass; the rows are 16 values each (many per tile).
    check_grid(ctx(), 16, 20_000, 16, 81);
    check_grid(ctx(), 130, 3000, 133, 82);
}

#[test]
fn rows_past_one_binding_and_columns_refused() {
    let ctx = split_ctx();
    // 200 x 100 f32 = 80 KB, 20 bindings of 4 KiB: rows work, columns need one binding.
    check_grid_rows_only(ctx, 200, 100, 203, 91);
    let v = ctx.upload(&vec![1.0f32; 20_000]).unwrap();
    let g = Grid2D::new(&v, 200, 100).unwrap();
    assert!(matches!(
        ctx.reduce_columns(&g, Reduce::Sum),
        Err(Error::TooLarge { .. })
    ));
    // A small grid's columns work there, with folded dispatches.
    check_grid(ctx, 30, 30, 31, 92);
}

fn check_grid_rows_only(ctx: &Ctx, width: u32, height: u32, pitch: u32, seed: u64) {
    let (w, h, p) = (width as usize, height as usize, pitch as usize);
    let values: Vec<u32> = random_vec(p * (h - 1) + w, seed);
    let v = ctx.upload(&values).unwrap();
    let grid = Grid2D::with_pitch(&v, width, height, pitch).unwrap();
    let mut rows = poisoned::<u32>(ctx, h);
    ctx.reduce_rows_into(&grid, Reduce::Max, &mut rows).unwrap();
    let cpu: Vec<u32> = (0..h)
        .map(|y| *values[y * p..y * p + w].iter().max().unwrap())
        .collect();
    let what = format!("{width} x {height} pitch {pitch}: rows max");
    assert_all_eq(&rows.to_vec().unwrap(), &cpu, &what);
}

#[test]
fn many_wide_rows() {
    // 8192 rows: a subgroup per row however wide (here past the 32 pieces per
    // invocation that fewer rows allow), vec4 and scalar pieces; the same grids
    // without subgroups take the segmented kernel.
    for ctx in [ctx(), tree_ctx()] {
        check_grid_rows_only(ctx, 1030, 8192, 1032, 95);
        check_grid_rows_only(ctx, 1030, 8192, 1031, 96);
        let values: Vec<f32> = random_vec(1100 * 8192, 97);
        let v = ctx.upload(&values).unwrap();
        let grid = Grid2D::new(&v, 1100, 8192).unwrap();
        let sums = ctx
            .reduce_rows(&grid, Reduce::Sum)
            .unwrap()
            .to_vec()
            .unwrap();
        let offsets: Vec<u32> = (0..=8192u32).map(|y| y * 1100).collect();
        let (exact, abs, lens) = f64_sums(&values, &offsets);
        assert_sums_close(&sums, &exact, &abs, &lens, "8192 rows of 1100, f32 sum");
    }
}

#[test]
fn many_small_random_layouts() {
    // Short segments with runs of empty ones, gaps before and after: boundaries land on
    // every position of invocations and tiles.
    // (At most 1000 segments on the split context: offsets within its 4 KiB bindings.)
    for (ctx, seeds, most) in [(ctx(), 0..40u64, 2000), (split_ctx(), 100..110, 1000)] {
        for seed in seeds {
            // The stream's first words from a small seed are small: skip them.
            let bits: Vec<u32> = random_vec::<u32>(8, seed * 7919 + 12345)[5..].to_vec();
            let count = 1 + bits[0] as usize % most;
            let lengths: Vec<usize> = random_vec::<u32>(count, seed + 1000)
                .iter()
                .map(|&b| if b % 5 < 2 { 0 } else { (b >> 8) as usize % 13 })
                .collect();
            let (start, trail) = (bits[1] as usize % 9, bits[2] as usize % 9);
            let offsets = offsets_of(&lengths, start);
            let values: Vec<u32> = random_vec(*offsets.last().unwrap() as usize + trail, seed);
            let v = ctx.upload(&values).unwrap();
            let o = ctx.upload(&offsets).unwrap();
            let sum = gpu_segmented(ctx, &v, &o, Reduce::Sum);
            let cpu = cpu_segmented(&values, &offsets, 0, u32::wrapping_add);
            assert_all_eq(&sum, &cpu, &format!("seed {seed} sum"));
            let max = gpu_segmented(ctx, &v, &o, Reduce::Max);
            let cpu = cpu_segmented(&values, &offsets, 0, u32::max);
            assert_all_eq(&max, &cpu, &format!("seed {seed} max"));
        }
    }
}
