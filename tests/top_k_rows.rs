//! top_k_rows and smallest_k_rows (and their `_into` forms) against a stable CPU sort of
//! each row: every key type, random values, many ties (values from a small range), f32
//! specials, widths from 1 to a few thousand (around the workgroup and the rows held in
//! registers), k = 0, 1, width, around the largest k of the workgroup path and above it
//! (the sorting path), pitch > width, the split-binding context, and the errors.
//!
//! Outputs start poisoned, and every element of both outputs is compared (floats by
//! their bits).

mod common;

use common::*;
use gpuprim::{Ctx, Error, GpuVec, Grid2D, SortKey};

trait Key: SortKey + TestElement + Copy + std::fmt::Debug + PartialEq {
    fn from_word(bits: u32) -> Self;
    /// The word whose unsigned order is the element order, computed here independently
    /// of the library.
    fn word(self) -> u32;
    fn bits(self) -> u32;
}

impl Key for u32 {
    fn from_word(bits: u32) -> Self {
        bits
    }
    fn word(self) -> u32 {
        self
    }
    fn bits(self) -> u32 {
        self
    }
}

impl Key for i32 {
    fn from_word(bits: u32) -> Self {
        bits as i32
    }
    fn word(self) -> u32 {
        (self as u32) ^ 0x8000_0000
    }
    fn bits(self) -> u32 {
        self as u32
    }
}

impl Key for f32 {
    fn from_word(bits: u32) -> Self {
        f32::from_bits(bits)
    }
    fn word(self) -> u32 {
        let b = self.to_bits();
        if b >> 31 == 1 { !b } else { b | 0x8000_0000 }
    }
    fn bits(self) -> u32 {
        self.to_bits()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum End {
    Largest,
    Smallest,
}

/// A grid's shape: width, height, pitch.
type Shape = (u32, u32, u32);

/// The CPU reference: per row, the first k of a stable sort by value (descending for
/// Largest), so equal values keep column order.
fn reference<K: Key>(host: &[K], (w, h, pitch): Shape, k: usize, end: End) -> (Vec<u32>, Vec<u32>) {
    let (mut values, mut indices) = (Vec::new(), Vec::new());
    for r in 0..h as usize {
        let row = &host[r * pitch as usize..][..w as usize];
        let mut order: Vec<u32> = (0..w).collect();
        match end {
            End::Largest => order.sort_by_key(|&i| std::cmp::Reverse(row[i as usize].word())),
            End::Smallest => order.sort_by_key(|&i| row[i as usize].word()),
        }
        order.truncate(k);
        values.extend(order.iter().map(|&i| row[i as usize].bits()));
        indices.extend(order);
    }
    (values, indices)
}

/// Elements a grid of `shape` needs.
fn span((w, h, pitch): Shape) -> usize {
    pitch as usize * (h as usize - 1) + w as usize
}

/// Runs the `_into` form on poisoned outputs and compares every element with the CPU.
fn check<K: Key>(ctx: &Ctx, host: &[K], shape: Shape, k: usize, end: End, what: &str) {
    let (w, h, pitch) = shape;
    let m = ctx.upload(host).unwrap();
    let grid = Grid2D::with_pitch(&m, w, h, pitch).unwrap();
    let mut values: GpuVec<K> = poisoned(ctx, k * h as usize);
    let mut indices: GpuVec<u32> = poisoned(ctx, k * h as usize);
    match end {
        End::Largest => ctx.top_k_rows_into(&grid, &mut values, &mut indices),
        End::Smallest => ctx.smallest_k_rows_into(&grid, &mut values, &mut indices),
    }
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    let (want_values, want_indices) = reference(host, shape, k, end);
    let what = format!("{what}, {w} x {h} pitch {pitch} k {k} {end:?}");
    let got: Vec<u32> = values.to_vec().unwrap().iter().map(|x| x.bits()).collect();
    assert_all_eq(
        &indices.to_vec().unwrap(),
        &want_indices,
        &format!("{what}: indices"),
    );
    assert_all_eq(&got, &want_values, &format!("{what}: values"));
}

fn random_keys<K: Key>(n: usize, seed: u64) -> Vec<K> {
    random_vec::<u32>(n, seed)
        .into_iter()
        .map(K::from_word)
        .collect()
}

/// Values from `distinct` possibilities around 0 (as words): many ties at every k.
fn tied_keys<K: Key>(n: usize, distinct: u32, seed: u64) -> Vec<K> {
    random_vec::<u32>(n, seed)
        .into_iter()
        .map(|x| K::from_word((x % distinct).wrapping_sub(distinct / 2)))
        .collect()
}

fn ks(w: u32) -> Vec<usize> {
    let w = w as usize;
    let mut ks = vec![0, 1, 2, 16, 100, w / 2, w.saturating_sub(1), w];
    ks.retain(|&k| k <= w);
    ks.sort();
    ks.dedup();
    ks
}

/// Widths around vec4 units, the workgroup (256 invocations of vec4 units: 1024), the
/// rows held in registers (4 and 16 units per invocation) and past them.
const WIDTHS: &[u32] = &[1, 2, 3, 5, 17, 255, 256, 257, 1023, 1024, 1025, 4097, 16385];

fn random_all_types(ctx: &Ctx) {
    for (i, &w) in WIDTHS.iter().enumerate() {
        let h = (20_000 / w).clamp(1, 9);
        let shape = (w, h, w);
        let seed = 11 + i as u64;
        let f = random_keys::<f32>(span(shape), seed);
        let u = random_keys::<u32>(span(shape), seed);
        let s = random_keys::<i32>(span(shape), seed);
        for k in ks(w) {
            check(ctx, &f, shape, k, End::Largest, "random f32");
            check(ctx, &f, shape, k, End::Smallest, "random f32");
        }
        for k in [1, (w as usize).min(16), w as usize] {
            check(ctx, &u, shape, k, End::Largest, "random u32");
            check(ctx, &s, shape, k, End::Smallest, "random i32");
        }
    }
}

#[test]
fn random_values_every_width() {
    random_all_types(ctx());
}

#[test]
fn many_ties() {
    let ctx = ctx();
    for &w in &[7u32, 300, 1024, 3000, 17000] {
        let h = (30_000 / w).clamp(2, 6);
        let shape = (w, h, w);
        for distinct in [1u32, 3, 50] {
            let f = tied_keys::<f32>(span(shape), distinct, u64::from(w + distinct));
            let s = tied_keys::<i32>(span(shape), distinct, u64::from(w * distinct));
            for k in ks(w) {
                check(ctx, &f, shape, k, End::Largest, "tied f32");
                check(ctx, &s, shape, k, End::Smallest, "tied i32");
            }
        }
    }
}

#[test]
fn float_specials() {
    let ctx = ctx();
    let specials = [
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7fc0_0001),
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::MAX,
        f32::MIN,
        1.5,
        -1.5,
    ];
    for &w in &[14u32, 1000, 2500] {
        let shape = (w, 4, w);
        let host: Vec<f32> = random_vec::<u32>(span(shape), u64::from(w))
            .into_iter()
            .map(|x| specials[x as usize % specials.len()])
            .collect();
        for k in ks(w) {
            check(ctx, &host, shape, k, End::Largest, "specials");
            check(ctx, &host, shape, k, End::Smallest, "specials");
        }
    }
}

/// k around the largest of the workgroup path, and past it (the sorting path).
#[test]
fn around_the_largest_k() {
    let ctx = ctx();
    let max = ctx.top_k_rows_max_k();
    assert!(max >= 1000, "the workgroup path takes k = {max} at most");
    let w = max as u32 + 300;
    for pitch in [w, w + 3] {
        let shape = (w, 3, pitch);
        let host = random_keys::<f32>(span(shape), 5);
        let tied = tied_keys::<u32>(span(shape), 9, 6);
        for k in [max - 1, max, max + 1, w as usize] {
            check(ctx, &host, shape, k, End::Largest, "near max k");
            check(ctx, &tied, shape, k, End::Smallest, "near max k, tied");
        }
    }
}

#[test]
fn pitch_past_width() {
    let ctx = ctx();
    for (w, h, pitch) in [
        (3u32, 5u32, 4u32),
        (5, 7, 9),
        (256, 3, 260),
        (1000, 4, 1001),
        (5000, 2, 5004),
    ] {
        let shape = (w, h, pitch);
        // The elements between rows are the largest, so reading them shows.
        let mut host = random_keys::<u32>(span(shape), u64::from(pitch));
        for r in 0..h as usize - 1 {
            for c in w as usize..pitch as usize {
                host[r * pitch as usize + c] = u32::MAX;
            }
        }
        for k in [1, (w as usize).min(100), w as usize] {
            check(ctx, &host, shape, k, End::Largest, "pitch");
            let f: Vec<f32> = host.iter().map(|&x| f32::from_bits(x >> 1)).collect();
            check(ctx, &f, shape, k, End::Smallest, "pitch f32");
        }
    }
}

/// Many rows: the rows grid-strided over the workgroups, and 2D dispatches.
#[test]
fn many_rows() {
    let ctx = ctx();
    let shape = (64, 5000, 64);
    let host = random_keys::<f32>(span(shape), 3);
    check(ctx, &host, shape, 16, End::Largest, "many rows");
    let shape = (1, 70_000, 1);
    let host = random_keys::<i32>(span(shape), 4);
    check(ctx, &host, shape, 1, End::Smallest, "one column");
}

/// 4 KiB bindings and 3 workgroups per dimension: rows split over windows, and rows
/// wider than a binding (the sorting path).
#[test]
fn split_bindings() {
    let ctx = split_ctx();
    for (w, h, pitch) in [
        (100u32, 50u32, 100u32),
        (7, 600, 9),
        (900, 6, 903),
        (1000, 4, 1000),
        (1500, 2, 1501),
        (2000, 2, 2000),
    ] {
        let shape = (w, h, pitch);
        let host = random_keys::<f32>(span(shape), u64::from(w));
        let tied = tied_keys::<u32>(span(shape), 5, u64::from(h));
        for k in [1, 3, (w as usize).min(40), w as usize] {
            check(ctx, &host, shape, k, End::Largest, "split");
            check(ctx, &tied, shape, k, End::Smallest, "split, tied");
        }
    }
}

#[test]
fn new_forms_and_deterministic() {
    let ctx = ctx();
    let shape = (3000, 4, 3000);
    let host = tied_keys::<f32>(span(shape), 40, 9);
    let m = ctx.upload(&host).unwrap();
    let grid = Grid2D::new(&m, 3000, 4).unwrap();
    let (want_v, want_i) = reference(&host, shape, 100, End::Largest);
    for _ in 0..3 {
        let (v, i) = ctx.top_k_rows(&grid, 100).unwrap();
        let v: Vec<u32> = v.to_vec().unwrap().iter().map(|x| x.to_bits()).collect();
        assert_all_eq(&v, &want_v, "top_k_rows values");
        assert_all_eq(&i.to_vec().unwrap(), &want_i, "top_k_rows indices");
    }
    let (want_v, want_i) = reference(&host, shape, 7, End::Smallest);
    let (v, i) = ctx.smallest_k_rows(&grid, 7).unwrap();
    let v: Vec<u32> = v.to_vec().unwrap().iter().map(|x| x.to_bits()).collect();
    assert_all_eq(&v, &want_v, "smallest_k_rows values");
    assert_all_eq(&i.to_vec().unwrap(), &want_i, "smallest_k_rows indices");
    let (v, i) = ctx.top_k_rows(&grid, 0).unwrap();
    assert_eq!((v.len(), i.len()), (0, 0));
}

#[test]
fn errors() {
    let ctx = ctx();
    let m = ctx.upload(&[1.0f32; 12]).unwrap();
    let grid = Grid2D::new(&m, 4, 3).unwrap();
    match ctx.top_k_rows(&grid, 5) {
        Err(Error::InvalidArgument { op, message }) => {
            assert_eq!(op, "top_k_rows");
            assert!(
                message.contains("k = 5") && message.contains('4'),
                "{message}"
            );
        }
        other => panic!("k past the width: {other:?}"),
    }
    assert!(matches!(
        ctx.smallest_k_rows(&grid, 5),
        Err(Error::InvalidArgument { .. })
    ));
    let mut v = ctx.zeros::<f32>(7).unwrap();
    let mut i = ctx.zeros::<u32>(7).unwrap();
    match ctx.top_k_rows_into(&grid, &mut v, &mut i) {
        Err(Error::InvalidArgument { message, .. }) => {
            assert!(message.contains('7') && message.contains('3'), "{message}")
        }
        other => panic!("length not a multiple of the rows: {other:?}"),
    }
    let mut v = ctx.zeros::<f32>(15).unwrap();
    let mut i = ctx.zeros::<u32>(15).unwrap();
    match ctx.top_k_rows_into(&grid, &mut v, &mut i) {
        Err(Error::InvalidArgument { message, .. }) => {
            assert!(message.contains("k = 5"), "{message}")
        }
        other => panic!("k = 15 / 3 past the width: {other:?}"),
    }
    let mut i = ctx.zeros::<u32>(6).unwrap();
    let mut v = ctx.zeros::<f32>(3).unwrap();
    assert!(matches!(
        ctx.top_k_rows_into(&grid, &mut v, &mut i),
        Err(Error::LengthMismatch { .. })
    ));
    let other = split_ctx();
    let mut v = other.zeros::<f32>(3).unwrap();
    let mut i = other.zeros::<u32>(3).unwrap();
    assert!(matches!(
        other.top_k_rows_into(&grid, &mut v, &mut i),
        Err(Error::ContextMismatch { .. })
    ));
}
