//! argmax_rows / argmin_rows and segmented_argmax / segmented_argmin (and their `_into`
//! forms) against a CPU reference: every element type, random values, NaN, -0.0/+0.0,
//! ties, widths around the vec4 units and the group sizes (1 to a workgroup per row),
//! pitches, segments empty / of one element / long / mixed / out of order, the
//! split-binding context (values bound a window at a time), and the errors.
//!
//! Outputs start poisoned, and every element of both outputs is compared (floats by
//! their bits).

mod common;

use common::*;
use gpuprim::half::f16;
use gpuprim::{Ctx, Error, GpuVec, Grid2D};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Dir {
    Max,
    Min,
}

/// Element types and their order, computed here independently of the library.
trait Elem: TestElement + std::fmt::Debug {
    fn is_nan(self) -> bool;
    /// A total order key of the numbers (NaN aside): -0.0 equals +0.0.
    fn key(self) -> f64;
    fn bits(self) -> u64;
    fn lowest() -> Self;
    fn highest() -> Self;
    fn nan() -> Option<Self>;
    /// A few special values to plant.
    fn specials() -> Vec<Self>;
}

impl Elem for f32 {
    fn is_nan(self) -> bool {
        self.is_nan()
    }
    fn key(self) -> f64 {
        f64::from(self)
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn lowest() -> Self {
        f32::NEG_INFINITY
    }
    fn highest() -> Self {
        f32::INFINITY
    }
    fn nan() -> Option<Self> {
        Some(f32::NAN)
    }
    fn specials() -> Vec<Self> {
        vec![0.0, -0.0, 1000.0, -1000.0, f32::INFINITY, f32::NEG_INFINITY]
    }
}
impl Elem for f64 {
    fn is_nan(self) -> bool {
        self.is_nan()
    }
    fn key(self) -> f64 {
        self
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn lowest() -> Self {
        f64::NEG_INFINITY
    }
    fn highest() -> Self {
        f64::INFINITY
    }
    fn nan() -> Option<Self> {
        Some(f64::NAN)
    }
    fn specials() -> Vec<Self> {
        vec![0.0, -0.0, 1000.0, -1000.0]
    }
}
impl Elem for f16 {
    fn is_nan(self) -> bool {
        self.is_nan()
    }
    fn key(self) -> f64 {
        f64::from(self.to_f32())
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn lowest() -> Self {
        f16::NEG_INFINITY
    }
    fn highest() -> Self {
        f16::INFINITY
    }
    fn nan() -> Option<Self> {
        Some(f16::NAN)
    }
    fn specials() -> Vec<Self> {
        vec![f16::ZERO, f16::NEG_ZERO, f16::from_f32(64.0)]
    }
}
impl Elem for i32 {
    fn is_nan(self) -> bool {
        false
    }
    fn key(self) -> f64 {
        f64::from(self)
    }
    fn bits(self) -> u64 {
        u64::from(self as u32)
    }
    fn lowest() -> Self {
        i32::MIN
    }
    fn highest() -> Self {
        i32::MAX
    }
    fn nan() -> Option<Self> {
        None
    }
    fn specials() -> Vec<Self> {
        vec![i32::MIN, i32::MAX, 0, -1]
    }
}
impl Elem for u32 {
    fn is_nan(self) -> bool {
        false
    }
    fn key(self) -> f64 {
        f64::from(self)
    }
    fn bits(self) -> u64 {
        u64::from(self)
    }
    fn lowest() -> Self {
        0
    }
    fn highest() -> Self {
        u32::MAX
    }
    fn nan() -> Option<Self> {
        None
    }
    fn specials() -> Vec<Self> {
        vec![0, u32::MAX, 1]
    }
}

/// The CPU reference of one segment: the first NaN, else the first best value; the
/// empty segment's (worst, u32::MAX).
fn best<T: Elem>(seg: &[T], dir: Dir) -> (T, u32) {
    if let Some(i) = seg.iter().position(|x| x.is_nan()) {
        return (seg[i], i as u32);
    }
    let mut out = match dir {
        Dir::Max => (T::lowest(), u32::MAX),
        Dir::Min => (T::highest(), u32::MAX),
    };
    for (i, &x) in seg.iter().enumerate() {
        let better = match dir {
            Dir::Max => x.key() > out.0.key(),
            Dir::Min => x.key() < out.0.key(),
        };
        if better || (out.1 == u32::MAX && x.key() == out.0.key()) {
            out = (x, i as u32);
        }
    }
    out
}

/// Random values with runs of ties, specials and (for floats, when `nans`) a few NaNs.
fn values<T: Elem>(len: usize, seed: u64, nans: bool) -> Vec<T> {
    let mut v: Vec<T> = random_vec(len, seed);
    let specials = T::specials();
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for i in 0..len {
        match next() % 16 {
            0 => v[i] = specials[(next() % specials.len() as u64) as usize],
            1 if i > 0 => v[i] = v[i - 1],
            2 if nans && next() % 8 == 0 => {
                if let Some(nan) = T::nan() {
                    v[i] = nan;
                }
            }
            _ => {}
        }
    }
    v
}

fn check<T: Elem>(gpu: (&GpuVec<T>, &GpuVec<u32>), cpu: &[(T, u32)], what: &str) {
    let values = gpu.0.to_vec().expect("values");
    let indices = gpu.1.to_vec().expect("indices");
    assert_eq!(values.len(), cpu.len(), "{what}: lengths");
    assert_eq!(indices.len(), cpu.len(), "{what}: lengths");
    for (s, &(v, i)) in cpu.iter().enumerate() {
        assert!(
            indices[s] == i && values[s].bits() == v.bits(),
            "{what}: segment {s} of {}: GPU ({:?}, {}), CPU ({v:?}, {i})",
            cpu.len(),
            values[s],
            indices[s]
        );
    }
}

/// argmax/argmin_rows of a `width` x `height` grid in `pitch`, both directions, into
/// poisoned outputs, and the allocating form once.
fn rows_case<T: Elem>(ctx: &Ctx, width: u32, height: u32, pitch: u32, seed: u64, nans: bool) {
    let len = (pitch as usize) * (height as usize - 1) + width as usize;
    let host = values::<T>(len, seed, nans);
    let v = ctx.upload(&host).expect("upload");
    let grid = Grid2D::with_pitch(&v, width, height, pitch).expect("grid");
    for dir in [Dir::Max, Dir::Min] {
        let cpu: Vec<_> = (0..height as usize)
            .map(|y| best(&host[y * pitch as usize..][..width as usize], dir))
            .collect();
        let mut values = poisoned::<T>(ctx, height as usize);
        let mut indices = poisoned::<u32>(ctx, height as usize);
        match dir {
            Dir::Max => ctx.argmax_rows_into(&grid, &mut values, &mut indices),
            Dir::Min => ctx.argmin_rows_into(&grid, &mut values, &mut indices),
        }
        .expect("rows");
        let what = format!(
            "{dir:?} rows {} {width}x{height} pitch {pitch} seed {seed}",
            T::WGSL
        );
        check((&values, &indices), &cpu, &what);
        if seed.is_multiple_of(3) {
            let (values, indices) = match dir {
                Dir::Max => ctx.argmax_rows(&grid),
                Dir::Min => ctx.argmin_rows(&grid),
            }
            .expect("rows");
            check((&values, &indices), &cpu, &what);
        }
    }
}

/// segmented_argmax/argmin of `host` with `offsets` (any offsets: the reference clamps
/// them as the library documents).
fn segments_case<T: Elem>(ctx: &Ctx, host: &[T], offsets: &[u32], what: &str) {
    let v = ctx.upload(host).expect("upload");
    let o = ctx.upload(offsets).expect("upload");
    let n = host.len() as u32;
    let segments = offsets.len() - 1;
    for dir in [Dir::Max, Dir::Min] {
        let cpu: Vec<_> = (0..segments)
            .map(|s| {
                let a = offsets[s].min(n);
                let b = offsets[s + 1].clamp(a, n);
                best(&host[a as usize..b as usize], dir)
            })
            .collect();
        let mut values = poisoned::<T>(ctx, segments);
        let mut indices = poisoned::<u32>(ctx, segments);
        match dir {
            Dir::Max => ctx.segmented_argmax_into(&v, &o, &mut values, &mut indices),
            Dir::Min => ctx.segmented_argmin_into(&v, &o, &mut values, &mut indices),
        }
        .expect("segments");
        let what = format!("{dir:?} segments {} {what}", T::WGSL);
        check((&values, &indices), &cpu, &what);
        let (values, indices) = match dir {
            Dir::Max => ctx.segmented_argmax(&v, &o),
            Dir::Min => ctx.segmented_argmin(&v, &o),
        }
        .expect("segments");
        check((&values, &indices), &cpu, &what);
    }
}

/// Random ascending offsets over `n` values: `segments` segments of mean length
/// `n / segments`, with empty and one-element ones mixed in.
fn random_offsets(n: usize, segments: usize, seed: u64) -> Vec<u32> {
    let mut cuts: Vec<u32> = random_vec::<u32>(segments - 1, seed)
        .into_iter()
        .map(|x| x % (n as u32 + 1))
        .collect();
    cuts.sort_unstable();
    let mut offsets = vec![0u32];
    offsets.extend(cuts);
    offsets.push(n as u32);
    offsets
}

/// Widths around the vec4 units and the group sizes of a 256-invocation workgroup (a
/// group of 1, 4, 16, 64 and 256 invocations per row; 255..257 are WG - 1..WG + 1).
const WIDTHS: &[u32] = &[
    1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 4100,
];

fn rows_all<T: Elem>(ctx: &Ctx) {
    if !supports::<T>(ctx) {
        return;
    }
    for (k, &w) in WIDTHS.iter().enumerate() {
        let seed = k as u64 + 1;
        rows_case::<T>(ctx, w, 1, w, seed, true);
        let height = (20_000 / w).clamp(2, 300);
        rows_case::<T>(ctx, w, height, w, seed + 100, k % 2 == 0);
        rows_case::<T>(
            ctx,
            w,
            height.min(40),
            w + 1 + (k as u32 % 5),
            seed + 200,
            true,
        );
    }
    // Wide rows, few: each row cut into parts and a second pass.
    rows_case::<T>(ctx, 20_000, 1, 20_000, 5, true);
    rows_case::<T>(ctx, 70_001, 3, 70_004, 6, true);
    // Many rows: more row blocks than workgroups.
    rows_case::<T>(ctx, 3, 5000, 3, 7, true);
    rows_case::<T>(ctx, 32, 3000, 36, 8, true);
}

#[test]
fn rows_f32() {
    rows_all::<f32>(ctx());
}

#[test]
fn rows_i32_u32() {
    rows_all::<i32>(ctx());
    rows_all::<u32>(ctx());
}

#[test]
fn rows_f16_f64() {
    let ctx = ctx();
    for &w in &[1u32, 5, 64, 257, 1025] {
        if supports::<f16>(ctx) {
            rows_case::<f16>(ctx, w, 37, w + 3, u64::from(w), true);
        }
        if supports::<f64>(ctx) {
            rows_case::<f64>(ctx, w, 37, w, u64::from(w) + 9, true);
        }
    }
}

/// Every NaN, every tie, -0.0 against +0.0, infinities: the first of each wins.
#[test]
fn rows_specials() {
    let ctx = ctx();
    let w = 300usize;
    let nan = f32::NAN;
    let mut rows: Vec<Vec<f32>> = vec![
        vec![-0.0; w],
        vec![0.0; w],
        vec![nan; w],
        vec![f32::NEG_INFINITY; w],
        vec![f32::INFINITY; w],
        vec![7.0; w],
    ];
    let mut r = vec![1.0f32; w];
    r[5] = -0.0;
    r[9] = 0.0;
    r[200] = nan;
    r[299] = nan;
    rows.push(r);
    let mut r = vec![-0.0f32; w];
    r[0] = 0.0;
    r[150] = -0.0;
    rows.push(r);
    let mut r = vec![f32::NEG_INFINITY; w];
    r[299] = nan;
    rows.push(r);
    let host: Vec<f32> = rows.concat();
    let h = rows.len() as u32;
    let v = ctx.upload(&host).expect("upload");
    let grid = Grid2D::new(&v, w as u32, h).expect("grid");
    for dir in [Dir::Max, Dir::Min] {
        let cpu: Vec<_> = rows.iter().map(|r| best(r, dir)).collect();
        let (values, indices) = match dir {
            Dir::Max => ctx.argmax_rows(&grid),
            Dir::Min => ctx.argmin_rows(&grid),
        }
        .expect("rows");
        check((&values, &indices), &cpu, &format!("{dir:?} specials"));
    }
}

#[test]
fn segments_shapes() {
    let ctx = ctx();
    let host = values::<f32>(20_000, 3, true);
    // One segment of everything, one of one element, none, all empty.
    segments_case(ctx, &host, &[0, 20_000], "one long");
    segments_case(ctx, &host, &[3, 19_999, 20_000, 0], "two long, one empty");
    segments_case(ctx, &host, &[5, 6], "one element");
    segments_case(ctx, &host, &[0], "no segments");
    segments_case(ctx, &host, &[7, 7, 7, 7], "empty");
    segments_case(ctx, &host[..0], &[0, 0, 0], "empty values");
    // Mixed: means of 1, 5, 70, 2000 values.
    for (k, segments) in [20_000usize, 4000, 300, 10].into_iter().enumerate() {
        let offsets = random_offsets(host.len(), segments, k as u64 + 11);
        segments_case(ctx, &host, &offsets, &format!("{segments} random"));
    }
    // Short ones and one long one.
    let mut offsets: Vec<u32> = (0..=400).map(|s| s * 3).collect();
    offsets.push(19_000);
    offsets.push(19_001);
    segments_case(ctx, &host, &offsets, "short and long");
    // Offsets out of order and past the values: clamped, never out of bounds.
    let bad = [5u32, 2, 100, 90_000, 30, 40, u32::MAX, 7, 20_000, 19_999];
    segments_case(ctx, &host, &bad, "bad offsets");
    for (t, seed) in [(1u32, 1u64), (2, 2)] {
        let hi = values::<i32>(10_000, seed, false);
        let offsets = random_offsets(hi.len(), 500 * t as usize, seed);
        segments_case(ctx, &hi, &offsets, "i32 random");
        let hu = values::<u32>(10_000, seed + 5, false);
        segments_case(ctx, &hu, &offsets, "u32 random");
    }
    if supports::<f16>(ctx) {
        let h16 = values::<f16>(5000, 4, true);
        segments_case(ctx, &h16, &random_offsets(5000, 100, 4), "f16 random");
    }
    if supports::<f64>(ctx) {
        let h64 = values::<f64>(5000, 5, true);
        segments_case(ctx, &h64, &random_offsets(5000, 100, 5), "f64 random");
    }
}

/// A vector over an application buffer whose length is not a multiple of 4: the
/// scalar layout.
#[test]
fn borrowed_scalar_layout() {
    let ctx = ctx();
    let host = values::<f32>(1001, 21, true);
    let buffer = ctx.upload(&host).expect("upload");
    let raw = GpuVec::<f32>::from_buffer(ctx, buffer.buffer().clone(), 1001).expect("from_buffer");
    let grid = Grid2D::with_pitch(&raw, 31, 32, 31).expect("grid");
    let (values, indices) = ctx.argmax_rows(&grid).expect("rows");
    let cpu: Vec<_> = (0..32)
        .map(|y| best(&host[y * 31..][..31], Dir::Max))
        .collect();
    check((&values, &indices), &cpu, "borrowed rows");
    let offsets = random_offsets(1001, 40, 3);
    let o = ctx.upload(&offsets).expect("upload");
    let (values, indices) = ctx.segmented_argmin(&raw, &o).expect("segments");
    let cpu: Vec<_> = (0..40)
        .map(|s| {
            best(
                &host[offsets[s] as usize..offsets[s + 1] as usize],
                Dir::Min,
            )
        })
        .collect();
    check((&values, &indices), &cpu, "borrowed segments");
}

/// 4 KiB bindings (the values a window at a time; rows across windows) and folded grids.
#[test]
fn split_context() {
    let ctx = split_ctx();
    for (k, &(w, h, pitch)) in [
        (1u32, 3000u32, 1u32),
        (5, 700, 7),
        (300, 30, 300),
        (1500, 7, 1501),
        (5000, 2, 5003),
        (20_000, 1, 20_000),
        (9000, 2, 9001),
    ]
    .iter()
    .enumerate()
    {
        rows_case::<f32>(ctx, w, h, pitch, k as u64 + 3, true);
        rows_case::<u32>(ctx, w, h, pitch, k as u64 + 30, false);
    }
    let host = values::<f32>(9000, 8, true);
    segments_case(ctx, &host, &random_offsets(9000, 50, 8), "split 50");
    segments_case(ctx, &host, &random_offsets(9000, 3000, 9), "split 3000");
    segments_case(ctx, &host, &[0, 9000], "split one");
    segments_case(
        ctx,
        &host,
        &[100, 8000, 20, 9000, 50_000],
        "split bad offsets",
    );
}

#[test]
fn errors() {
    let ctx = ctx();
    let v = ctx.upload(&[1.0f32; 12]).expect("upload");
    let grid = Grid2D::new(&v, 4, 3).expect("grid");
    let mut values = ctx.zeros::<f32>(2).expect("zeros");
    let mut indices = ctx.zeros::<u32>(3).expect("zeros");
    let e = ctx
        .argmax_rows_into(&grid, &mut values, &mut indices)
        .unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
    let mut values = ctx.zeros::<f32>(3).expect("zeros");
    let mut indices = ctx.zeros::<u32>(4).expect("zeros");
    let e = ctx
        .argmin_rows_into(&grid, &mut values, &mut indices)
        .unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");

    let empty = ctx.upload::<u32>(&[]).expect("upload");
    let e = ctx.segmented_argmax(&v, &empty).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    assert!(e.to_string().contains("0 entries"), "{e}");
    let e = ctx.segmented_argmin(&v, &empty).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    let offsets = ctx.upload(&[0u32, 4, 12]).expect("upload");
    let mut values = ctx.zeros::<f32>(3).expect("zeros");
    let mut indices = ctx.zeros::<u32>(2).expect("zeros");
    let e = ctx
        .segmented_argmax_into(&v, &offsets, &mut values, &mut indices)
        .unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");

    // Vectors of another context.
    let other = split_ctx();
    let e = other.argmax_rows(&grid).unwrap_err();
    assert!(matches!(e, Error::ContextMismatch { .. }), "{e}");
    let e = other.segmented_argmax(&v, &offsets).unwrap_err();
    assert!(matches!(e, Error::ContextMismatch { .. }), "{e}");
    let other_offsets = other.upload(&[0u32, 4]).expect("upload");
    let e = ctx.segmented_argmin(&v, &other_offsets).unwrap_err();
    assert!(matches!(e, Error::ContextMismatch { .. }), "{e}");

    // Offsets and results past one binding of the split context work.
    let w = other.upload(&[1.0f32; 8]).expect("upload");
    let (values, indices) = other
        .segmented_argmax(&w, &other.upload(&vec![3u32; 2000]).expect("upload"))
        .expect("many empty segments");
    assert!(
        values
            .to_vec()
            .expect("values")
            .iter()
            .all(|x| *x == f32::NEG_INFINITY)
    );
    assert!(
        indices
            .to_vec()
            .expect("indices")
            .iter()
            .all(|&i| i == u32::MAX)
    );
}
