//! Prefix scans (scan, scan_exclusive, scan_with and their `_into` forms) and stream
//! compaction (compact, compact_indices) against CPU references: every operator and
//! element type, both algorithms, inclusive and exclusive, random and edge lengths, the
//! split-binding, folded-dispatch and no-subgroup paths; f32 error bounds derived from
//! the order of the additions, determinism, and the errors.
//!
//! Every `_into` output starts poisoned and every element is compared.

mod common;

use std::sync::OnceLock;

use common::*;
use gpuprim::half::f16;
use gpuprim::internals::ScanTuning;
use gpuprim::wgpu;
use gpuprim::{Ctx, Error, GpuVec, Scan, ScanAlgorithm, ScanOp};
use proptest::prelude::*;

const RTS: ScanAlgorithm = ScanAlgorithm::ReduceThenScan;
const SINGLE: ScanAlgorithm = ScanAlgorithm::SinglePass;
const ALGORITHMS: [ScanAlgorithm; 2] = [RTS, SINGLE];

/// The scans' tuning on `ctx`'s adapter (workgroups, units per invocation, groups).
fn tuning(ctx: &Ctx) -> ScanTuning {
    ScanTuning::of(ctx.info())
}

/// Invocations per workgroup of the tile passes on `ctx` (every context here allows it).
fn wg(ctx: &Ctx) -> usize {
    tuning(ctx).workgroup as usize
}

/// Elements an invocation of `alg` holds for 32-bit types on `ctx`.
fn per_invocation(ctx: &Ctx, alg: ScanAlgorithm) -> usize {
    let t = tuning(ctx);
    4 * if alg == SINGLE {
        t.single_pass_units
    } else {
        t.units
    } as usize
}

/// Elements per tile of `alg` for 32-bit types on `ctx`'s adapter.
fn tile(ctx: &Ctx, alg: ScanAlgorithm) -> usize {
    wg(ctx) * per_invocation(ctx, alg)
}

/// Elements per tile of the single-pass scan of 32-bit types on `ctx`'s adapter.
fn single_pass_tile(ctx: &Ctx) -> usize {
    tile(ctx, SINGLE)
}

/// Elements per tile of reduce-then-scan for 64-bit types on `ctx`'s adapter.
fn wide_tile(ctx: &Ctx) -> usize {
    wg(ctx) * 4 * tuning(ctx).units_wide as usize
}

// ---- contexts ----

fn built(b: gpuprim::CtxBuilder) -> Ctx {
    b.build()
        .unwrap_or_else(|e| panic!("no GPU context for the tests: {e}"))
}

/// `Auto` picks the single pass for 32-bit types, so compaction runs single-pass too.
fn single_ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| built(Ctx::builder().scan_algorithm(SINGLE)))
}

/// `split_ctx` (4 KiB bindings, 3 workgroups per dimension) with the single pass as `Auto`.
fn split_single_ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| {
        built(
            Ctx::builder()
                .max_binding_bytes(4096)
                .max_workgroups_per_dimension(3)
                .scan_algorithm(SINGLE),
        )
    })
}

/// At most 3 workgroups per dimension: the single pass (one workgroup per tile) folds its
/// dispatch into 2D and 3D from 4 tiles on, with surplus workgroups that must do nothing.
fn fold_ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| built(Ctx::builder().max_workgroups_per_dimension(3)))
}

/// `fold_ctx` with the single pass as `Auto` (for compaction).
fn fold_single_ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| {
        built(
            Ctx::builder()
                .max_workgroups_per_dimension(3)
                .scan_algorithm(SINGLE),
        )
    })
}

/// No subgroup operations: the shared-memory (Hillis-Steele) workgroup scan.
fn tree_ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| built(Ctx::builder().without_features(wgpu::Features::SUBGROUP)))
}

/// The contexts the property tests draw from.
fn contexts() -> [&'static Ctx; 4] {
    [ctx(), split_ctx(), fold_ctx(), tree_ctx()]
}

/// Largest length the property tests use on `fold_ctx`: 27 tiles, the most a dispatch
/// of 3 x 3 x 3 workgroups covers. Past it the single pass is refused (`TooLarge`) and
/// reduce-then-scan computes wrong results (see the ignored
/// `fold_ctx_reduce_then_scan_past_27_workgroups`).
fn fold_max_len() -> usize {
    27 * single_pass_tile(fold_single_ctx())
}

/// `len`, or on `fold_ctx` at most 27 tiles of `tile` elements.
fn clamp_len(which: usize, len: usize, tile: usize) -> usize {
    if which == 2 {
        len % (27 * tile + 1)
    } else {
        len
    }
}

// ---- how the library lays out a scan (for the error bounds and the limits) ----

/// Elements of `elem_bytes` in one binding window, as `units_within` cuts them: vec4
/// units, rounded down to keep every window start aligned.
fn window_elems(ctx: &Ctx, elem_bytes: usize) -> usize {
    let unit = 4 * elem_bytes as u64;
    let align = u64::from(ctx.info().limits.min_storage_buffer_offset_alignment).max(1);
    let step = align / gcd(align, unit);
    let units = (ctx.info().max_binding_bytes / unit / step * step).max(step);
    units as usize * 4
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Whether the single pass must refuse `n` 32-bit elements with `TooLarge`: its tile
/// status (4 words per tile after one counter per window, rounded to 4) does not fit a
/// binding, or one window's tiles do not fit a dispatch.
fn single_pass_refused(ctx: &Ctx, n: usize) -> bool {
    let w = window_elems(ctx, 4);
    let windows = n.div_ceil(w);
    let tile = single_pass_tile(ctx);
    let tiles: usize = (0..windows)
        .map(|k| (n - k * w).min(w).div_ceil(tile))
        .sum();
    let status_bytes = 4 * (windows.next_multiple_of(4) + 4 * tiles) as u64;
    let per_dim = ctx.info().max_workgroups_per_dimension as usize;
    let most_tiles = n.min(w).div_ceil(tile);
    status_bytes > ctx.info().max_binding_bytes || most_tiles > per_dim.pow(3)
}

// ---- running a scan ----

fn scan_of<T>(op: ScanOp<T>, exclusive: bool, algorithm: ScanAlgorithm) -> Scan<T> {
    let s = if exclusive {
        Scan::exclusive(op)
    } else {
        Scan::inclusive(op)
    };
    s.algorithm(algorithm)
}

/// `scan_with_into` into a poisoned output; `None` where the single pass is (rightly)
/// refused for this length on this context.
fn gpu_scan<T: TestElement>(
    ctx: &Ctx,
    v: &GpuVec<T>,
    scan: &Scan<T>,
    single: bool,
) -> Option<Vec<T>> {
    let mut out = poisoned::<T>(ctx, v.len());
    match ctx.scan_with_into(v, scan, &mut out) {
        Ok(()) => Some(out.to_vec().unwrap()),
        Err(Error::TooLarge { .. }) if single && single_pass_refused(ctx, v.len()) => None,
        Err(e) => panic!("{scan:?} of {} elements: {e}", v.len()),
    }
}

/// The CPU scan: a left fold from `identity`.
fn cpu_scan<T: Copy>(host: &[T], identity: T, op: impl Fn(T, T) -> T, exclusive: bool) -> Vec<T> {
    let mut acc = identity;
    host.iter()
        .map(|&x| {
            let before = acc;
            acc = op(acc, x);
            if exclusive { before } else { acc }
        })
        .collect()
}

/// Checks one operator inclusive and exclusive, by every `algorithms`, against the CPU
/// fold, element by element.
fn check_exact<T: TestElement>(
    ctx: &Ctx,
    host: &[T],
    op: ScanOp<T>,
    identity: T,
    f: impl Fn(T, T) -> T + Copy,
    algorithms: &[ScanAlgorithm],
) {
    let v = ctx.upload(host).unwrap();
    for exclusive in [false, true] {
        let want = cpu_scan(host, identity, f, exclusive);
        for &alg in algorithms {
            let scan = scan_of(op.clone(), exclusive, alg);
            if let Some(got) = gpu_scan(ctx, &v, &scan, alg == SINGLE) {
                assert_all_eq(
                    &got,
                    &want,
                    &format!("{scan:?} of {} {}", host.len(), T::WGSL),
                );
            }
        }
    }
}

// ---- operators ----

/// "The later non-zero value": associative, identity 0, not commutative (a scan that
/// combined in the wrong order would keep the earlier value).
const LAST_NONZERO: &str = "select(b, a, b == 0u)";

fn last_nonzero(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { b }
}

/// 2 x 2 matrices over Z/256 packed into a u32 (byte 2r + c is entry (r, c)); their
/// product is associative and not commutative, identity 0x0100_0001.
fn matrix_product_wgsl() -> String {
    let e = |m: &str, r: usize, c: usize| format!("(({m} >> {}u) & 255u)", 8 * (2 * r + c));
    let entry = |r: usize, c: usize| {
        format!(
            "((({} * {} + {} * {}) & 255u) << {}u)",
            e("a", r, 0),
            e("b", 0, c),
            e("a", r, 1),
            e("b", 1, c),
            8 * (2 * r + c)
        )
    };
    format!(
        "{} | {} | {} | {}",
        entry(0, 0),
        entry(0, 1),
        entry(1, 0),
        entry(1, 1)
    )
}

const MATRIX_IDENTITY: u32 = 0x0100_0001;

fn matrix_product(a: u32, b: u32) -> u32 {
    let e = |m: u32, r: u32, c: u32| (m >> (8 * (2 * r + c))) & 255;
    let mut out = 0;
    for r in 0..2 {
        for c in 0..2 {
            let v = (e(a, r, 0) * e(b, 0, c) + e(a, r, 1) * e(b, 1, c)) & 255;
            out |= v << (8 * (2 * r + c));
        }
    }
    out
}

/// Random matrices of determinant 1 ([[1 + xy, x], [y, 1]]): their products never
/// collapse to zero, so every element depends on all before it.
fn unimodular(bits: u32) -> u32 {
    let (x, y) = (bits & 255, (bits >> 8) & 255);
    ((1 + x * y) & 255) | (x << 8) | (y << 16) | (1 << 24)
}

/// Mostly zeros: one element in `every` (on average) is a random non-zero value.
fn sparse(host: &[u32], every: u32) -> Vec<u32> {
    host.iter()
        .map(|&x| if (x >> 8) % every == 0 { x | 1 } else { 0 })
        .collect()
}

// ---- integer checks ----

fn check_u32(ctx: &Ctx, len: usize, seed: u64) {
    let host = random_vec::<u32>(len, seed);
    let all = &ALGORITHMS;
    check_exact(ctx, &host, ScanOp::Sum, 0, u32::wrapping_add, all);
    let odd: Vec<u32> = host.iter().map(|x| x | 1).collect();
    check_exact(ctx, &odd, ScanOp::Product, 1, u32::wrapping_mul, all);
    check_exact(ctx, &host, ScanOp::Min, u32::MAX, u32::min, all);
    check_exact(ctx, &host, ScanOp::Max, 0, u32::max, all);
    let bits: Vec<u32> = host
        .iter()
        .map(|x| (x & 0x0101_0101) << (x >> 29))
        .collect();
    check_exact(
        ctx,
        &sparse(&bits, 8),
        ScanOp::custom("a | b", 0),
        0,
        |a, b| a | b,
        all,
    );
    check_order_sensitive(ctx, &host, [1, 16, 5000][(seed % 3) as usize], all);
}

/// The two operators that are associative but not commutative, on values from `host`:
/// "last nonzero wins" (`host` thinned to every `every`-th value: dense or very sparse,
/// the later value must win across threads, subgroups and tiles) and 2 x 2 matrix
/// products.
fn check_order_sensitive(ctx: &Ctx, host: &[u32], every: u32, all: &[ScanAlgorithm]) {
    check_exact(
        ctx,
        &sparse(host, every),
        ScanOp::custom(LAST_NONZERO, 0),
        0,
        last_nonzero,
        all,
    );
    let mats: Vec<u32> = host.iter().map(|&x| unimodular(x)).collect();
    check_exact(
        ctx,
        &mats,
        ScanOp::custom(matrix_product_wgsl(), MATRIX_IDENTITY),
        MATRIX_IDENTITY,
        matrix_product,
        all,
    );
}

fn check_i32(ctx: &Ctx, len: usize, seed: u64) {
    let host = random_vec::<i32>(len, seed);
    let all = &ALGORITHMS;
    check_exact(ctx, &host, ScanOp::Sum, 0, i32::wrapping_add, all);
    let odd: Vec<i32> = host.iter().map(|x| x | 1).collect();
    check_exact(ctx, &odd, ScanOp::Product, 1, i32::wrapping_mul, all);
    check_exact(ctx, &host, ScanOp::Min, i32::MAX, i32::min, all);
    check_exact(ctx, &host, ScanOp::Max, i32::MIN, i32::max, all);
    check_exact(ctx, &host, ScanOp::custom("a ^ b", 0), 0, |a, b| a ^ b, all);
    // The later non-zero value (associative, identity 0, not commutative) on sparse data.
    let sparse_i: Vec<i32> = host
        .iter()
        .map(|&x| if x % 64 == 0 { x | 1 } else { 0 })
        .collect();
    check_exact(
        ctx,
        &sparse_i,
        ScanOp::custom("select(b, a, b == 0i)", 0),
        0,
        |a, b| if b == 0 { a } else { b },
        all,
    );
}

// ---- f32: error bounds from the order of the additions ----

/// Rounding depth of one tile's values: how many additions, at most, lie between an input
/// element and (a) the tile's aggregate or (b) an invocation's exclusive prefix.
///
/// An invocation folds its e elements left to right (e - 1 additions; e is 16 for both
/// algorithms on a CPU adapter). With subgroups of size s, a subgroup scan is some tree
/// over s values (depth <= s - 1, whatever the hardware does), and the wg / s subgroup
/// totals are folded left to right (<= wg/s - 1 additions, the first onto the identity,
/// which is exact), plus one addition of the subgroup's own exclusive part:
/// <= e - 1 + s + wg/s - 1. Without subgroups the Hillis-Steele scan has log2(256) = 8
/// levels. Rounded up by 2.
fn tile_depth(ctx: &Ctx, alg: ScanAlgorithm) -> usize {
    let info = ctx.info();
    let per_thread = per_invocation(ctx, alg);
    let wg = wg(ctx);
    if ctx.has_features(wgpu::Features::SUBGROUP) && info.subgroup_max_size as usize <= wg {
        // s + 256/s is convex: its largest value over [min, max] is at an end.
        let wg_depth = [info.subgroup_min_size, info.subgroup_max_size]
            .iter()
            .map(|&s| {
                let s = (s as usize).max(1);
                s + wg / s
            })
            .max()
            .unwrap();
        per_thread + wg_depth
    } else {
        per_thread + 8 + 2
    }
}

/// Workgroups of a reduce-then-scan pass per window (`ScanTuning::pass_groups`); each
/// walks a contiguous range of tiles.
fn rts_groups_cap(ctx: &Ctx) -> usize {
    tuning(ctx).pass_groups as usize
}

/// An upper bound on the number of additions between any input element and output
/// element `i` of an f32 sum scan of `n` elements (the rounding depth).
///
/// Single pass: a tile's prefix is the left fold of the aggregates of all tiles before it
/// (tile j's inclusive prefix is tile j-1's plus aggregate j, so look-back preserves the
/// order): <= g - 1 additions for the g tiles before element i, each aggregate of depth
/// <= `tile_depth`; then + the invocation's exclusive prefix, + its own running value:
/// `tile_depth + g + 2`. With windows smaller than a tile (split bindings), every window is
/// a tile: g <= i / min(tile, window) + i / window covers both cases.
///
/// Reduce-then-scan: a workgroup's partial folds its <= p = ceil(tiles / groups cap)
/// tile aggregates (depth <= tile_depth + p - 1); the spine scans the partials in tiles
/// of its own (<= tile_depth more, + 1 per further tile: a spine tile holds at least
/// 1024 partials, so + 1 per further 256 is an upper bound); the downsweep adds the tiles of the
/// workgroup one by one to its offset (<= p), then the invocation's prefix and its own
/// value (2): `2 tile_depth + 2 p + ceil(groups / 256) + 2`.
fn sum_depth(ctx: &Ctx, n: usize, i: usize, alg: ScanAlgorithm) -> usize {
    let td = tile_depth(ctx, alg);
    let w = window_elems(ctx, 4);
    let tile = tile(ctx, alg);
    if alg == SINGLE {
        td + i / tile.min(w) + i / w + 2
    } else {
        let tiles_per_window = n.min(w).div_ceil(tile);
        let cap = rts_groups_cap(ctx);
        let per_group = tiles_per_window.div_ceil(cap);
        let groups = n.div_ceil(w) * tiles_per_window.min(cap);
        2 * td + 2 * per_group + groups.div_ceil(wg(ctx)) + 2
    }
}

/// Checks an f32 sum scan (a built-in or custom "a + b") element by element against the
/// exact prefix sums (an f64 fold: the inputs are multiples of 2^-16 below 2^10, so f64
/// sums of up to 2^27 of them are exact), within gamma(D) * sum |x_j| for the rounding
/// depth D of `sum_depth`, gamma(D) = D u / (1 - D u), u = 2^-24 (Higham, Accuracy and
/// Stability of Numerical Algorithms, 2nd ed., eq. 4.3 for any order of summation).
/// Returns the largest |error| / bound seen.
fn check_f32_sum(
    ctx: &Ctx,
    host: &[f32],
    op: ScanOp<f32>,
    exclusive: bool,
    alg: ScanAlgorithm,
) -> f64 {
    let v = ctx.upload(host).unwrap();
    let scan = scan_of(op, exclusive, alg);
    let Some(got) = gpu_scan(ctx, &v, &scan, alg == SINGLE) else {
        return 0.0;
    };
    assert_eq!(got.len(), host.len());
    let u = f32::EPSILON as f64 / 2.0;
    let (mut exact, mut abs) = (0.0f64, 0.0f64);
    let mut worst = 0.0f64;
    for (i, &x) in host.iter().enumerate() {
        if !exclusive {
            exact += x as f64;
            abs += (x as f64).abs();
        }
        let d = sum_depth(ctx, host.len(), i, alg) as f64;
        let bound = d * u / (1.0 - d * u) * abs;
        let err = (got[i] as f64 - exact).abs();
        assert!(
            err <= bound,
            "{scan:?} of {}: element {i}: GPU {}, exact {exact}, |error| {err:e} > bound {bound:e} \
             (depth {d}, sum |x| {abs})",
            host.len(),
            got[i]
        );
        if bound > 0.0 {
            worst = worst.max(err / bound);
        }
        if exclusive {
            exact += x as f64;
            abs += (x as f64).abs();
        }
    }
    worst
}

/// Prefix products of factors in [0.999, 1.001]: every output is a product of its
/// inputs through some tree; each multiplication (by anything but the exact identity
/// 1.0) rounds once, and there are i of them for i + 1 factors, so the relative error is
/// at most gamma(i) whatever the tree (the f64 reference adds its own gamma(i) in f64).
fn check_f32_product(ctx: &Ctx, len: usize, seed: u64, exclusive: bool, alg: ScanAlgorithm) {
    let host: Vec<f32> = random_vec::<f32>(len, seed)
        .iter()
        .map(|x| 1.0 + x * 1e-6)
        .collect();
    let v = ctx.upload(&host).unwrap();
    let scan = scan_of(ScanOp::Product, exclusive, alg);
    let Some(got) = gpu_scan(ctx, &v, &scan, alg == SINGLE) else {
        return;
    };
    let gamma = |k: f64, u: f64| k * u / (1.0 - k * u);
    let mut exact = 1.0f64;
    for (i, &x) in host.iter().enumerate() {
        if !exclusive {
            exact *= x as f64;
        }
        let k = i as f64;
        let bound =
            (gamma(k, f32::EPSILON as f64 / 2.0) + gamma(k, f64::EPSILON / 2.0)) * exact.abs();
        let err = (got[i] as f64 - exact).abs();
        assert!(
            err <= bound,
            "{scan:?} of {len}: element {i}: GPU {}, exact {exact}, |error| {err:e} > {bound:e}",
            got[i]
        );
        if exclusive {
            exact *= x as f64;
        }
    }
}

fn check_f32(ctx: &Ctx, len: usize, seed: u64) {
    let host = random_vec::<f32>(len, seed);
    for alg in ALGORITHMS {
        for exclusive in [false, true] {
            check_f32_sum(ctx, &host, ScanOp::Sum, exclusive, alg);
            // No subgroup built-in for a custom operator: the shuffle scan.
            check_f32_sum(ctx, &host, ScanOp::custom("a + b", 0.0), exclusive, alg);
        }
    }
    let all = &ALGORITHMS;
    check_exact(ctx, &host, ScanOp::Min, f32::INFINITY, f32::min, all);
    check_exact(ctx, &host, ScanOp::Max, f32::NEG_INFINITY, f32::max, all);
    let custom = ScanOp::custom("min(a, b)", f32::INFINITY);
    check_exact(ctx, &host, custom, f32::INFINITY, f32::min, all);
}

// ---- f64 and f16 (reduce-then-scan only) ----

/// Forcing the single pass on a 16- or 64-bit type is an `InvalidArgument`, not a panic.
fn check_single_pass_refused<T: TestElement>(ctx: &Ctx, v: &GpuVec<T>) {
    let mut out = poisoned::<T>(ctx, v.len());
    let err = ctx
        .scan_with_into(v, &Scan::inclusive(ScanOp::Sum).algorithm(SINGLE), &mut out)
        .unwrap_err();
    assert!(
        matches!(err, Error::InvalidArgument { op: "scan", .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains(T::WGSL), "{err}");
}

fn check_f64(ctx: &Ctx, len: usize, seed: u64) {
    if !supports::<f64>(ctx) {
        return;
    }
    let algs = &[RTS, ScanAlgorithm::Auto];
    // Integers below 2^20: every partial sum (at most 2^40) is exact, whatever the order.
    let ints: Vec<f64> = random_vec::<i32>(len, seed)
        .iter()
        .map(|&x| (x >> 12) as f64)
        .collect();
    check_exact(ctx, &ints, ScanOp::Sum, 0.0, |a, b| a + b, algs);
    let host = random_vec::<f64>(len, seed + 1);
    check_exact(ctx, &host, ScanOp::Min, f64::INFINITY, f64::min, algs);
    check_exact(ctx, &host, ScanOp::Max, f64::NEG_INFINITY, f64::max, algs);
    let custom = ScanOp::custom("max(a, b)", f64::NEG_INFINITY);
    check_exact(ctx, &host, custom, f64::NEG_INFINITY, f64::max, algs);
    // Products of factors in [0.999, 1.001]: relative error <= 2 gamma(i) (GPU and CPU).
    let factors: Vec<f64> = host.iter().map(|x| 1.0 + x * 1e-6).collect();
    let v = ctx.upload(&factors).unwrap();
    let got = gpu_scan(ctx, &v, &Scan::inclusive(ScanOp::Product), false).unwrap();
    let mut exact = 1.0f64;
    for (i, &x) in factors.iter().enumerate() {
        exact *= x;
        let k = i as f64 * f64::EPSILON / 2.0;
        let bound = 2.0 * k / (1.0 - k) * exact;
        assert!(
            (got[i] - exact).abs() <= bound,
            "f64 product of {len}: element {i}: {} vs {exact}",
            got[i]
        );
    }
    if len > 0 {
        // (An empty input is accepted: see `errors_do_not_depend_on_the_length`.)
        check_single_pass_refused(ctx, &v);
    }
}

/// f16 sums on integer steps in [-4, 4] chosen so that every prefix stays in
/// [-1000, 1000]: every partial sum the kernels form (a sum of a contiguous range, the
/// difference of two prefixes) is an integer of magnitude <= 2000 < 2048, exact in f16.
fn bounded_walk_f16(len: usize, seed: u64) -> Vec<f16> {
    let mut p = 0i32;
    random_vec::<u32>(len, seed)
        .iter()
        .map(|&r| {
            let mut step = (r % 9) as i32 - 4;
            if (p + step).abs() > 1000 {
                step = -step;
            }
            p += step;
            f16::from_f32(step as f32)
        })
        .collect()
}

fn check_f16(ctx: &Ctx, len: usize, seed: u64) {
    if !supports::<f16>(ctx) {
        return;
    }
    let algs = &[RTS, ScanAlgorithm::Auto];
    let walk = bounded_walk_f16(len, seed);
    check_exact(ctx, &walk, ScanOp::Sum, f16::ZERO, |a, b| a + b, algs);
    let host = random_vec::<f16>(len, seed + 1);
    let min = |a: f16, b: f16| if b < a { b } else { a };
    let max = |a: f16, b: f16| if b > a { b } else { a };
    check_exact(ctx, &host, ScanOp::Min, f16::INFINITY, min, algs);
    check_exact(ctx, &host, ScanOp::Max, f16::NEG_INFINITY, max, algs);
    let v = ctx.upload(&host).unwrap();
    if len > 0 {
        // (An empty input is accepted: see `errors_do_not_depend_on_the_length`.)
        check_single_pass_refused(ctx, &v);
    }
}

// ---- compaction ----

/// `compact` against `Iterator::filter` and `compact_indices` against
/// `enumerate().filter()`: the length and every element.
fn check_compact<T: TestElement>(ctx: &Ctx, host: &[T], predicate: &str, keep: impl Fn(T) -> bool) {
    let v = ctx.upload(host).unwrap();
    let what = format!("compact {} of {} by {predicate:?}", T::WGSL, host.len());
    let want: Vec<T> = host.iter().copied().filter(|&x| keep(x)).collect();
    let got = ctx
        .compact(&v, predicate)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(got.len(), want.len(), "{what}: kept");
    assert_all_eq(&got.to_vec().unwrap(), &want, &what);
    let want: Vec<u32> = host
        .iter()
        .enumerate()
        .filter(|&(_, &x)| keep(x))
        .map(|(i, _)| i as u32)
        .collect();
    let got = ctx
        .compact_indices(&v, predicate)
        .unwrap_or_else(|e| panic!("{what} (indices): {e}"));
    assert_eq!(got.len(), want.len(), "{what}: indices kept");
    assert_all_eq(&got.to_vec().unwrap(), &want, &format!("{what} (indices)"));
    check_partition(ctx, &v, host, predicate, &keep);
}

/// `partition` and `partition_into` against a stable partition on the CPU (kept, then
/// the rest), and `select_flagged` with the predicate's flags against `filter`.
fn check_partition<T: TestElement>(
    ctx: &Ctx,
    v: &GpuVec<T>,
    host: &[T],
    predicate: &str,
    keep: &impl Fn(T) -> bool,
) {
    let what = format!("partition {} of {} by {predicate:?}", T::WGSL, host.len());
    let kept: Vec<T> = host.iter().copied().filter(|&x| keep(x)).collect();
    let mut want = kept.clone();
    want.extend(host.iter().copied().filter(|&x| !keep(x)));
    let (got, count) = ctx
        .partition(v, predicate)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(count, kept.len(), "{what}: kept");
    assert_all_eq(&got.to_vec().unwrap(), &want, &what);
    // The `_into` form within one binding: three poisoned elements past `v`'s length
    // stay poisoned, and the count lands at element 0.
    let room = host.len() + 3;
    if room.next_multiple_of(4) * size_of::<T>() <= ctx.info().max_binding_bytes as usize {
        let mut out = poisoned::<T>(ctx, room);
        let mut n = ctx.upload(&[u32::MAX, 7]).unwrap();
        ctx.partition_into(v, predicate, &mut out, &mut n)
            .unwrap_or_else(|e| panic!("{what} (into): {e}"));
        assert_eq!(
            n.to_vec().unwrap(),
            [kept.len() as u32, 7],
            "{what} (into): count"
        );
        let mut want = want.clone();
        want.extend([T::POISON; 3]);
        let got = out.to_vec().unwrap();
        let same = bytemuck::cast_slice::<T, u8>(&got) == bytemuck::cast_slice::<T, u8>(&want);
        assert!(same, "{what} (into): {got:?}");
    }
    if std::mem::size_of_val(host) <= ctx.info().max_binding_bytes as usize {
        let flags: Vec<u32> = host.iter().map(|&x| u32::from(keep(x)) * 3).collect();
        let flags = ctx.upload(&flags).unwrap();
        let got = ctx
            .select_flagged(v, &flags)
            .unwrap_or_else(|e| panic!("{what} (select_flagged): {e}"));
        assert_all_eq(
            &got.to_vec().unwrap(),
            &kept,
            &format!("{what} (select_flagged)"),
        );
    }
}

/// The checks of [`check_compactions`]: selectivities 0%, ~1%, ~50% and 100% for f32,
/// ~50% and ~7% for i32, ~50% and ~0% for u32.
const COMPACTION_CHECKS: usize = 8;

/// Selectivities 0%, ~1%, ~50% and 100% for each type: all of [`COMPACTION_CHECKS`].
fn check_compactions(ctx: &Ctx, len: usize, seed: u64) {
    check_compactions_of(ctx, len, seed, 0..COMPACTION_CHECKS);
}

/// Three of the [`COMPACTION_CHECKS`], chosen by `k` so that consecutive `k` (one per
/// edge length) go through all of them: for tables of edge lengths, where every
/// selectivity at every length would be some 40 calls a length (each check runs five
/// calls) on each of several contexts.
fn check_some_compactions(ctx: &Ctx, len: usize, seed: u64, k: usize) {
    let picks = [k, k + 3, k + 5].map(|i| i % COMPACTION_CHECKS);
    check_compactions_of(ctx, len, seed, picks);
}

fn check_compactions_of(ctx: &Ctx, len: usize, seed: u64, which: impl IntoIterator<Item = usize>) {
    let f = random_vec::<f32>(len, seed);
    let i = random_vec::<i32>(len, seed + 1);
    let u = random_vec::<u32>(len, seed + 2);
    for check in which {
        match check {
            0 => check_compact(ctx, &f, "x != x", |_| false),
            1 => check_compact(ctx, &f, "x > 980.0", |x| x > 980.0),
            2 => check_compact(ctx, &f, "x > 0.0", |x| x > 0.0),
            3 => check_compact(ctx, &f, "x == x", |_| true),
            4 => check_compact(ctx, &i, "x < 0", |x| x < 0),
            5 => check_compact(ctx, &i, "x > 2000000000", |x| x > 2_000_000_000),
            6 => check_compact(ctx, &u, "x >= 2147483648u", |x| x >= 1 << 31),
            7 => check_compact(ctx, &u, "(x & 1u) == 0u && x < 100u", |x| {
                x & 1 == 0 && x < 100
            }),
            _ => unreachable!("{check} is not one of the {COMPACTION_CHECKS} checks"),
        }
    }
}

// ---- property tests ----

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn u32_scans(len in lengths(), seed: u64, which in 0usize..4) {
        check_u32(contexts()[which], clamp_len(which, len, single_pass_tile(contexts()[which])), seed)
    }
    #[test]
    fn i32_scans(len in lengths(), seed: u64, which in 0usize..4) {
        check_i32(contexts()[which], clamp_len(which, len, single_pass_tile(contexts()[which])), seed)
    }
    #[test]
    fn f32_scans(len in lengths(), seed: u64, which in 0usize..4) {
        check_f32(contexts()[which], clamp_len(which, len, single_pass_tile(contexts()[which])), seed)
    }
    #[test]
    fn f32_products(len in 0usize..200_000, seed: u64, which in 0usize..4, exclusive: bool) {
        for alg in ALGORITHMS {
            let len = clamp_len(which, len, single_pass_tile(contexts()[which]));
            check_f32_product(contexts()[which], len, seed, exclusive, alg);
        }
    }
    #[test]
    fn f64_scans(len in lengths(), seed: u64, which in 0usize..4) {
        check_f64(contexts()[which], clamp_len(which, len, wide_tile(contexts()[which])), seed)
    }
    #[test]
        fn f16_scans(len in lengths(), seed: u64, which in 0usize..4) {
        check_f16(contexts()[which], clamp_len(which, len, single_pass_tile(contexts()[which])), seed)
    }
    #[test]
    fn compaction(len in lengths(), seed: u64, which in 0usize..2) {
        check_compactions([ctx(), single_ctx()][which], len, seed)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// The multi-window compaction path (see `compaction_split_bindings`).
    #[test]
        fn compaction_split_bindings_random(len in lengths(), seed: u64) {
        check_compactions(split_ctx(), len, seed)
    }
}

// ---- edge lengths on every path ----

/// Tile edges, 32 workgroups x 1 tile and one more, more tiles than 32 workgroups
/// (each walks several), and ~1M.
const EDGES: &[usize] = &[
    0,
    1,
    2,
    3,
    4,
    5,
    255,
    256,
    1023,
    1024,
    1025,
    4095,
    4096,
    4097,
    8191,
    8193,
    32 * 4096,
    32 * 4096 + 1,
    33 * 4096 + 5,
    (1 << 20) + 3,
];

fn check_edges(ctx: &Ctx, lengths: &[usize]) {
    for (k, &len) in lengths.iter().enumerate() {
        let seed = 1000 + k as u64;
        let host = random_vec::<u32>(len, seed);
        let all = &ALGORITHMS;
        check_exact(ctx, &host, ScanOp::Sum, 0, u32::wrapping_add, all);
        check_order_sensitive(ctx, &host, [1, 16, 5000][k % 3], all);
        let f = random_vec::<f32>(len, seed);
        for alg in ALGORITHMS {
            for exclusive in [false, true] {
                check_f32_sum(ctx, &f, ScanOp::Sum, exclusive, alg);
            }
        }
        check_exact(ctx, &f, ScanOp::Max, f32::NEG_INFINITY, f32::max, all);
    }
}

#[test]
fn edge_lengths() {
    check_edges(ctx(), EDGES);
}

#[test]
fn edge_lengths_without_subgroups() {
    check_edges(tree_ctx(), EDGES);
}

#[test]
fn spine_of_several_tiles() {
    // One partial per 4 KiB window: 1101 windows give the spine more partials than one
    // of its tiles holds on a CPU adapter (1024), so its tiles chain their carries.
    let len = 1100 * window_elems(split_ctx(), 4) + 3;
    check_edges(split_ctx(), &[len]);
}

#[test]
fn edge_lengths_split_bindings() {
    // 1024 f32 per 4 KiB window (less than a tile): 147 windows for 150_000 elements,
    // within the single pass's tile status limit (about 200 windows); 300_001 elements
    // (293 windows) exceed it, so the single pass is refused there and reduce-then-scan
    // crosses 293 windows.
    let w = window_elems(split_ctx(), 4);
    assert!(
        w < single_pass_tile(split_ctx()),
        "a window of {w} elements"
    );
    assert!(!single_pass_refused(split_ctx(), 150_000));
    assert!(single_pass_refused(split_ctx(), 300_001));
    let lengths = [
        0,
        1,
        3,
        4,
        5,
        w - 1,
        w,
        w + 1,
        2 * w + 3,
        4095,
        4097,
        33 * w + 5,
        150_000,
        300_001,
    ];
    check_edges(split_ctx(), &lengths);
    // The refusal is an error that says so, and Auto on a single-pass context falls back.
    let host = random_vec::<u32>(300_001, 9);
    let v = split_single_ctx().upload(&host).unwrap();
    let err = split_single_ctx()
        .scan_with(&v, &Scan::inclusive(ScanOp::Sum).algorithm(SINGLE))
        .unwrap_err();
    assert!(matches!(err, Error::TooLarge { .. }), "{err:?}");
    let got = split_single_ctx().scan(&v).unwrap().to_vec().unwrap();
    assert_all_eq(
        &got,
        &cpu_scan(&host, 0, u32::wrapping_add, false),
        "Auto past the status limit",
    );
}

#[test]
fn edge_lengths_folded_dispatch() {
    // One workgroup per tile in the single pass: 4..27 tiles fold into 2D and 3D grids
    // (10 tiles: 3 x 3 x 2 workgroups, 8 of them surplus).
    let t = single_pass_tile(fold_ctx());
    let lengths = [
        0,
        1,
        4095,
        4097,
        3 * t,
        3 * t + 1,
        10 * t - 7,
        26 * t + 5,
        27 * t,
    ];
    check_edges(fold_ctx(), &lengths);
    // Past 27 tiles the single pass cannot be dispatched: an error, not a wrong result.
    let past = 27 * single_pass_tile(fold_ctx()) + 1;
    assert!(single_pass_refused(fold_ctx(), past));
    let v = fold_ctx().upload(&random_vec::<u32>(past, 3)).unwrap();
    let err = fold_ctx()
        .scan_with(&v, &Scan::inclusive(ScanOp::Sum).algorithm(SINGLE))
        .unwrap_err();
    assert!(matches!(err, Error::TooLarge { .. }), "{err:?}");
}

#[test]
fn fold_ctx_reduce_then_scan_past_27_workgroups() {
    // 28 tiles: 28 workgroups of one tile; 1M: 256 tiles, 32 workgroups of 8.
    let t = tile(fold_ctx(), RTS);
    check_edges(fold_ctx(), &[27 * t + 1, 28 * t, 32 * t, (1 << 20) + 3]);
}

// ---- wrap-around, f64/f16 edges, the convenience forms ----

#[test]
fn u32_and_i32_sums_wrap() {
    for c in [ctx(), tree_ctx()] {
        for &len in &[4097usize, 33 * 4096 + 5] {
            // Values within 2^20 of u32::MAX: the running sum wraps at almost every step.
            let host: Vec<u32> = random_vec::<u32>(len, 21)
                .iter()
                .map(|x| u32::MAX - (x >> 12))
                .collect();
            check_exact(c, &host, ScanOp::Sum, 0, u32::wrapping_add, &ALGORITHMS);
            check_exact(c, &host, ScanOp::Product, 1, u32::wrapping_mul, &ALGORITHMS);
            let near: Vec<i32> = random_vec::<i32>(len, 22)
                .iter()
                .map(|x| {
                    if x & 1 == 0 {
                        i32::MAX - (x >> 12).abs()
                    } else {
                        i32::MIN + (x >> 12).abs()
                    }
                })
                .collect();
            check_exact(c, &near, ScanOp::Sum, 0, i32::wrapping_add, &ALGORITHMS);
        }
    }
    let v = ctx().upload(&[u32::MAX, 1, u32::MAX, 2]).unwrap();
    assert_eq!(
        ctx().scan(&v).unwrap().to_vec().unwrap(),
        vec![u32::MAX, 0, u32::MAX, 1]
    );
}

/// Lengths around the tiles of 256 x 2 vec4 = 2048 elements of 64-bit types (f16 tiles
/// are 4096 like 32-bit ones).
const WIDE_EDGES: &[usize] = &[0, 1, 2047, 2048, 2049, 4095, 4097, 33 * 2048 + 5, 150_001];

#[test]
fn f64_edge_lengths() {
    for c in [ctx(), split_ctx(), fold_ctx(), tree_ctx()] {
        for (k, &len) in WIDE_EDGES.iter().enumerate() {
            check_f64(c, len, 50 + k as u64);
        }
    }
}

#[test]
fn f16_edge_lengths() {
    for c in [ctx(), split_ctx(), fold_ctx(), tree_ctx()] {
        for (k, &len) in WIDE_EDGES.iter().enumerate() {
            check_f16(c, len, 60 + k as u64);
        }
    }
}

#[test]
fn f16_scan_of_three() {
    let c = ctx();
    if !supports::<f16>(c) {
        return;
    }
    let v = c
        .upload(&[f16::ONE, f16::from_f32(2.0), f16::from_f32(3.0)])
        .unwrap();
    let got = c.scan(&v).unwrap().to_vec().unwrap();
    assert_eq!(got, [1.0, 3.0, 6.0].map(f16::from_f32));
}

#[test]
fn convenience_forms_match_scan_with() {
    for c in [ctx(), single_ctx(), split_ctx()] {
        for &len in &[0usize, 1, 5, 4097, 70_001] {
            let host = random_vec::<i32>(len, len as u64);
            let v = c.upload(&host).unwrap();
            let incl = cpu_scan(&host, 0, i32::wrapping_add, false);
            let excl = cpu_scan(&host, 0, i32::wrapping_add, true);
            assert_all_eq(&c.scan(&v).unwrap().to_vec().unwrap(), &incl, "scan");
            assert_all_eq(
                &c.scan_exclusive(&v).unwrap().to_vec().unwrap(),
                &excl,
                "scan_exclusive",
            );
            let mut out = poisoned::<i32>(c, len);
            c.scan_into(&v, &mut out).unwrap();
            assert_all_eq(&out.to_vec().unwrap(), &incl, "scan_into");
            let mut out = poisoned::<i32>(c, len);
            c.scan_exclusive_into(&v, &mut out).unwrap();
            assert_all_eq(&out.to_vec().unwrap(), &excl, "scan_exclusive_into");
            let s = Scan::exclusive(ScanOp::Max);
            let want = cpu_scan(&host, i32::MIN, i32::max, true);
            assert_all_eq(
                &c.scan_with(&v, &s).unwrap().to_vec().unwrap(),
                &want,
                "scan_with",
            );
        }
    }
}

// ---- the Scan docs ----

#[test]
fn exclusive_scans_start_with_the_identity() {
    for c in [ctx(), single_ctx(), tree_ctx()] {
        for alg in [ScanAlgorithm::Auto, RTS, SINGLE] {
            let v = c.upload(&[7u32, 0, 9, 5]).unwrap();
            let m = Scan::exclusive(ScanOp::custom(matrix_product_wgsl(), MATRIX_IDENTITY))
                .algorithm(alg);
            let got = c.scan_with(&v, &m).unwrap().to_vec().unwrap();
            assert_eq!(got[0], MATRIX_IDENTITY, "{m:?}");
            let s = Scan::exclusive(ScanOp::custom(LAST_NONZERO, 0)).algorithm(alg);
            assert_eq!(
                c.scan_with(&v, &s).unwrap().to_vec().unwrap(),
                vec![0, 7, 7, 9]
            );
            let v = c.upload(&[3i32, -1, 4]).unwrap();
            let s = Scan::exclusive(ScanOp::custom("max(a, b)", i32::MIN)).algorithm(alg);
            assert_eq!(
                c.scan_with(&v, &s).unwrap().to_vec().unwrap(),
                vec![i32::MIN, 3, 3]
            );
            let v = c.upload(&[2.0f32, 0.5, 3.0]).unwrap();
            let s = Scan::exclusive(ScanOp::Product).algorithm(alg);
            assert_eq!(
                c.scan_with(&v, &s).unwrap().to_vec().unwrap(),
                vec![1.0, 2.0, 1.0]
            );
            let s = Scan::exclusive(ScanOp::Min).algorithm(alg);
            assert_eq!(
                c.scan_with(&v, &s).unwrap().to_vec().unwrap(),
                vec![f32::INFINITY, 2.0, 0.5]
            );
            // One element: the identity alone.
            let v = c.upload(&[42u32]).unwrap();
            let s = Scan::exclusive(ScanOp::custom(LAST_NONZERO, 0)).algorithm(alg);
            assert_eq!(c.scan_with(&v, &s).unwrap().to_vec().unwrap(), vec![0]);
        }
    }
}

#[test]
fn the_doc_examples() {
    let c = ctx();
    let v = c.upload(&[3i32, -1, 4, -1, 5]).unwrap();
    let running_max = c.scan_with(&v, &Scan::inclusive(ScanOp::Max)).unwrap();
    assert_eq!(running_max.to_vec().unwrap(), vec![3, 3, 4, 4, 5]);
    let before = Scan::exclusive(ScanOp::Sum).algorithm(RTS);
    assert_eq!(
        c.scan_with(&v, &before).unwrap().to_vec().unwrap(),
        vec![0, 3, 2, 6, 5]
    );
    let v = c.upload(&[0.9f32, 0.1, 0.7, 0.3, 0.6]).unwrap();
    assert_eq!(
        c.compact(&v, "x > 0.5").unwrap().to_vec().unwrap(),
        vec![0.9, 0.7, 0.6]
    );
    assert_eq!(
        c.compact_indices(&v, "x > 0.5").unwrap().to_vec().unwrap(),
        vec![0, 2, 4]
    );
}

// ---- determinism ----

#[test]
fn single_pass_is_deterministic() {
    // Many runs of ~1M elements (256 tiles): the look-back must give the same bits
    // whichever tiles are late (a race shows up as a changed bit or a wrong integer).
    let c = single_ctx();
    let n = (1 << 20) + 3;
    let host = random_vec::<f32>(n, 5);
    let v = c.upload(&host).unwrap();
    let ints = random_vec::<u32>(n, 6);
    let vi = c.upload(&ints).unwrap();
    let want = cpu_scan(&ints, 0, u32::wrapping_add, false);
    let scan = Scan::inclusive(ScanOp::Sum).algorithm(SINGLE);
    let mut out = poisoned::<f32>(c, n);
    c.scan_with_into(&v, &scan, &mut out).unwrap();
    let first = out.to_vec().unwrap();
    check_f32_sum(c, &host, ScanOp::Sum, false, SINGLE);
    for run in 0..50 {
        let mut out = poisoned::<f32>(c, n);
        c.scan_with_into(&v, &scan, &mut out).unwrap();
        let again = out.to_vec().unwrap();
        if let Some(i) = (0..n).find(|&i| again[i].to_bits() != first[i].to_bits()) {
            panic!(
                "run {run}: element {i} is {} (first run: {})",
                again[i], first[i]
            );
        }
        let mut outi = poisoned::<u32>(c, n);
        c.scan_into(&vi, &mut outi).unwrap();
        assert_all_eq(&outi.to_vec().unwrap(), &want, &format!("u32 run {run}"));
    }
    // Auto on a single-pass context is the same kernel: the same bits as a forced single
    // pass on the default context.
    let v0 = ctx().upload(&host).unwrap();
    let forced = ctx().scan_with(&v0, &scan).unwrap().to_vec().unwrap();
    assert!(
        forced
            .iter()
            .zip(&first)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "forced single pass on the default context differs"
    );
}

#[test]
fn reduce_then_scan_is_deterministic() {
    for c in [ctx(), split_ctx()] {
        let n = 300_001;
        let host = random_vec::<f32>(n, 7);
        let v = c.upload(&host).unwrap();
        let scan = Scan::exclusive(ScanOp::Sum).algorithm(RTS);
        let first = c.scan_with(&v, &scan).unwrap().to_vec().unwrap();
        for _ in 0..5 {
            let again = c.scan_with(&v, &scan).unwrap().to_vec().unwrap();
            assert!(
                again
                    .iter()
                    .zip(&first)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            );
        }
    }
}

#[test]
fn f32_error_stays_within_the_bound() {
    // All-positive values: the error grows with the running sum, the worst case for a
    // bound in sum |x|. Prints how much of the bound was used.
    for alg in ALGORITHMS {
        for c in [ctx(), tree_ctx()] {
            let host: Vec<f32> = random_vec::<f32>((1 << 20) + 3, 8)
                .iter()
                .map(|x| x.abs() + 0.1)
                .collect();
            let worst = check_f32_sum(c, &host, ScanOp::Sum, false, alg);
            println!("{alg:?}: largest |error| / bound = {worst:.4}");
        }
    }
}

// ---- compaction edges ----

/// Lengths for compaction; on `split_ctx` those up to 1024 fit one 4 KiB window.
const COMPACT_LENGTHS: &[usize] = &[
    0,
    1,
    3,
    4,
    5,
    1023,
    1024,
    1025,
    4095,
    4096,
    4097,
    33 * 4096 + 5,
    100_003,
];

#[test]
fn compaction_edge_lengths() {
    // Three of the eight selectivity checks at each length, all eight across the lengths.
    let contexts = [ctx(), single_ctx(), fold_single_ctx(), tree_ctx()];
    for (k, c) in contexts.into_iter().enumerate() {
        for (j, &len) in COMPACT_LENGTHS.iter().enumerate() {
            if std::ptr::eq(c, fold_single_ctx()) && len > fold_max_len() {
                continue;
            }
            check_some_compactions(c, len, 300 + k as u64, j + k);
        }
    }
    // One binding window on the split contexts (the multi-window path is
    // `compaction_split_bindings`).
    for (k, c) in [split_ctx(), split_single_ctx()].into_iter().enumerate() {
        for (j, &len) in COMPACT_LENGTHS
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n <= 1024)
        {
            check_some_compactions(c, len, 400 + len as u64, j + k);
        }
    }
    // f64 input (32-byte vec4 units: other window cuts) and f16 input.
    for c in [ctx(), single_ctx()] {
        for &len in &[0usize, 1, 2049, 100_003] {
            check_compactions_f64(c, len);
            if supports::<f16>(c) {
                let h = random_vec::<f16>(len, 10);
                check_compact(c, &h, "x < 0.0h", |x| x < f16::ZERO);
                check_compact(c, &h, "x == x", |_| true);
            }
        }
    }
}

fn check_compactions_f64(c: &Ctx, len: usize) {
    if !supports::<f64>(c) {
        return;
    }
    let f = random_vec::<f64>(len, 9);
    check_compact(c, &f, "x < 0.0", |x| x < 0.0);
    check_compact(c, &f, "x == x", |_| true);
    check_compact(c, &f, "x != x", |_| false);
}

/// Long runs of kept and dropped elements across tiles and windows, and only the first
/// and last element kept.
fn check_runs(c: &Ctx) {
    let host: Vec<u32> = (0..200_000u32).map(|i| (i / 3000) % 2).collect();
    check_compact(c, &host, "x == 1u", |x| x == 1);
    let host: Vec<u32> = (0..200_000u32)
        .map(|i| u32::from(i == 199_999 || i == 0))
        .collect();
    check_compact(c, &host, "x != 0u", |x| x != 0);
}

#[test]
fn compaction_of_runs() {
    for c in [ctx(), single_ctx(), tree_ctx()] {
        check_runs(c);
    }
}

#[test]
fn compaction_split_bindings() {
    // Minimal case: windows of 1016 elements on split_ctx; all kept.
    let c = split_ctx();
    let ones = vec![1.0f32; 1025];
    check_compact(c, &ones, "x > 0.0", |x| x > 0.0);
    for (k, &len) in COMPACT_LENGTHS.iter().enumerate() {
        check_some_compactions(c, len, 500 + k as u64, k);
        check_some_compactions(split_single_ctx(), len, 600 + k as u64, k + 4);
    }
    check_compactions_f64(c, 2049);
    check_compactions_f64(c, 100_003);
    check_runs(c);
}

// ---- errors ----

#[test]
fn errors() {
    let c = ctx();
    let v = c.upload(&[1.0f32; 10]).unwrap();
    let mut short = c.zeros::<f32>(9).unwrap();
    let mismatch = Error::LengthMismatch {
        op: "scan",
        left_name: "out".into(),
        left: 9,
        right_name: "v".into(),
        right: 10,
    };
    assert_eq!(c.scan_into(&v, &mut short).unwrap_err(), mismatch);
    assert_eq!(c.scan_exclusive_into(&v, &mut short).unwrap_err(), mismatch);
    for alg in ALGORITHMS {
        let s = Scan::inclusive(ScanOp::Max).algorithm(alg);
        assert_eq!(c.scan_with_into(&v, &s, &mut short).unwrap_err(), mismatch);
    }

    // A custom operator that is not WGSL, or not of the element type.
    for alg in [ScanAlgorithm::Auto, RTS, SINGLE] {
        for bad in ["a +* b", "a + c", "a + 1u"] {
            let err = c
                .scan_with(
                    &v,
                    &Scan::inclusive(ScanOp::custom(bad, 0.0)).algorithm(alg),
                )
                .unwrap_err();
            assert!(
                matches!(&err, Error::Compile { op: "scan", code, .. } if code.contains(bad)),
                "{err:?}"
            );
        }
    }
    // Predicates that are not WGSL, or not bool.
    for bad in ["x >* 0.5", "y > 0.5", "x + 1.0", "1u"] {
        for cc in [ctx(), single_ctx(), split_ctx()] {
            let v = cc.upload(&random_vec::<f32>(5000, 1)).unwrap();
            let err = cc.compact(&v, bad).unwrap_err();
            assert!(
                matches!(err, Error::Compile { op: "compact", .. }),
                "{bad:?}: {err:?}"
            );
            assert!(err.to_string().contains(bad), "{err}");
            let err = cc.compact_indices(&v, bad).unwrap_err();
            assert!(
                matches!(
                    err,
                    Error::Compile {
                        op: "compact_indices",
                        ..
                    }
                ),
                "{bad:?}: {err:?}"
            );
        }
    }

    // Vectors of another context.
    let other = Ctx::new().unwrap();
    let theirs = other.upload(&[1.0f32; 10]).unwrap();
    let mut out = c.zeros::<f32>(10).unwrap();
    let err = c.scan_into(&theirs, &mut out).unwrap_err();
    assert_eq!(err, Error::ContextMismatch { op: "scan" });
    let mut their_out = other.zeros::<f32>(10).unwrap();
    assert_eq!(
        c.scan_into(&v, &mut their_out).unwrap_err(),
        Error::ContextMismatch { op: "scan" }
    );
    assert_eq!(
        c.scan(&theirs).unwrap_err(),
        Error::ContextMismatch { op: "scan" }
    );
    assert_eq!(
        c.compact(&theirs, "x > 0.0").unwrap_err(),
        Error::ContextMismatch { op: "compact" }
    );
    assert_eq!(
        c.compact_indices(&theirs, "x > 0.0").unwrap_err(),
        Error::ContextMismatch {
            op: "compact_indices"
        }
    );

    // The single pass on 64- and 16-bit elements.
    if supports::<f64>(c) {
        check_single_pass_refused(c, &c.upload(&[1.0f64, 2.0]).unwrap());
    }
    if supports::<f16>(c) {
        check_single_pass_refused(c, &c.upload(&[f16::ONE; 3]).unwrap());
    }

    // Nothing was left broken.
    assert_eq!(c.scan(&v).unwrap().to_vec().unwrap()[9], 10.0);
}

#[test]
fn errors_do_not_depend_on_the_length() {
    let c = ctx();
    let e = c.zeros::<f32>(0).unwrap();
    let err = c
        .scan_with(&e, &Scan::inclusive(ScanOp::custom("a +* b", 0.0)))
        .unwrap_err();
    assert!(matches!(err, Error::Compile { op: "scan", .. }), "{err:?}");
    let err = c.compact(&e, "x >* 0.5").unwrap_err();
    assert!(
        matches!(err, Error::Compile { op: "compact", .. }),
        "{err:?}"
    );
    let err = c.compact_indices(&e, "x + 1.0").unwrap_err();
    assert!(matches!(err, Error::Compile { .. }), "{err:?}");
    if supports::<f64>(c) {
        check_single_pass_refused(c, &c.zeros::<f64>(0).unwrap());
    }
}
