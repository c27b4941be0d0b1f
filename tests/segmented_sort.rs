//! segmented_sort, segmented_sort_by_key, segmented_argsort and the row sorts against a
//! stable CPU sort of each segment: every key type, random keys, many ties, f32 specials,
//! empty and one-element segments, segments across many tiles (the merges, with the
//! software adapter's 256-key tiles and with forced 16-key tiles), keys outside the
//! segments, descending and key bits, rows with a pitch through both ways (one workgroup
//! per rows, and forced through the tiles and merges), the split-binding context, and
//! the errors. Outputs start poisoned, and every element is compared (floats by bits).

mod common;

use common::*;
use gpuprim::{Ctx, Error, GpuVec, Grid2D, Grid2DMut, Sort, SortKey};

/// The word whose unsigned order is the sort order, computed here independently.
trait Key: SortKey + Copy + std::fmt::Debug + PartialEq + TestElement {
    fn word(self) -> u32;
    fn bits(self) -> u32;
}

impl Key for u32 {
    fn word(self) -> u32 {
        self
    }
    fn bits(self) -> u32 {
        self
    }
}

impl Key for i32 {
    fn word(self) -> u32 {
        (self as u32) ^ 0x8000_0000
    }
    fn bits(self) -> u32 {
        self as u32
    }
}

impl Key for f32 {
    fn word(self) -> u32 {
        let b = self.to_bits();
        if b >> 31 == 1 { !b } else { b | 0x8000_0000 }
    }
    fn bits(self) -> u32 {
        self.to_bits()
    }
}

/// The sort's comparison word of a key for these options.
fn cmp_word<K: Key>(k: K, descending: bool, bits: std::ops::Range<u32>) -> u32 {
    let w = if descending { !k.word() } else { k.word() };
    let width = bits.end - bits.start;
    if width == 0 {
        0
    } else {
        w & ((u32::MAX >> (32 - width)) << bits.start)
    }
}

/// For each position, the index within its segment of the key that goes there (`None`
/// outside every segment), by a stable sort of each segment.
fn reference<K: Key>(
    keys: &[K],
    bounds: &[(usize, usize)],
    sort: (bool, std::ops::Range<u32>),
) -> Vec<Option<u32>> {
    let mut out = vec![None; keys.len()];
    for &(s, e) in bounds {
        let mut order: Vec<u32> = (0..(e - s) as u32).collect();
        order.sort_by_key(|&i| cmp_word(keys[s + i as usize], sort.0, sort.1.clone()));
        for (j, i) in order.into_iter().enumerate() {
            out[s + j] = Some(i);
        }
    }
    out
}

fn offsets_bounds(offsets: &[u32]) -> Vec<(usize, usize)> {
    offsets
        .windows(2)
        .map(|w| (w[0] as usize, w[1] as usize))
        .collect()
}

/// Random keys: the full range, or few distinct values (many ties), with f32 specials.
fn keys_for<K: Key>(n: usize, seed: u64, ties: bool) -> Vec<K> {
    let mut v: Vec<K> = random_vec(n, seed);
    if ties {
        let few: Vec<K> = random_vec(7, seed ^ 99);
        for (i, x) in v.iter_mut().enumerate() {
            *x = few[((i * 2654435761usize) >> 7) % few.len()];
        }
    }
    v
}

/// Segment lengths from a seed: zeros, ones and a spread up to `max`.
fn lengths(count: usize, max: usize, seed: u64) -> Vec<usize> {
    let r: Vec<u32> = random_vec(count, seed);
    r.iter()
        .map(|&x| match x % 8 {
            0 => 0,
            1 => 1,
            2 => (x as usize >> 8) % 5,
            _ => (x as usize >> 8) % (max + 1),
        })
        .collect()
}

/// Runs one offsets case through all three calls and checks every element.
fn check_offsets<K: Key>(ctx: &Ctx, keys: &[K], offsets: &[u32], sort: &Sort, what: &str) {
    let (desc, bits) = (sort.is_descending(), sort.key_bits());
    let want = reference(keys, &offsets_bounds(offsets), (desc, bits));
    let want_keys: Vec<u32> = want
        .iter()
        .enumerate()
        .map(|(p, w)| match w {
            Some(i) => {
                let s = offsets.iter().rposition(|&o| o as usize <= p).unwrap();
                keys[offsets[s] as usize + *i as usize].bits()
            }
            None => keys[p].bits(),
        })
        .collect();
    let d_offsets = ctx.upload(offsets).unwrap();
    // Keys.
    let mut d_keys = ctx.upload(keys).unwrap();
    ctx.segmented_sort_with(&mut d_keys, &d_offsets, sort)
        .unwrap();
    let got: Vec<u32> = d_keys
        .to_vec()
        .unwrap()
        .iter()
        .map(|k: &K| k.bits())
        .collect();
    assert_eq!(got, want_keys, "{what}: keys");
    // Keys and values: the values are the positions, so they show the permutation.
    let mut d_keys = ctx.upload(keys).unwrap();
    let positions: Vec<u32> = (0..keys.len() as u32).map(|i| i ^ 0x5a5a_0000).collect();
    let mut d_values = ctx.upload(&positions).unwrap();
    ctx.segmented_sort_by_key_with(&mut d_keys, &mut d_values, &d_offsets, sort)
        .unwrap();
    let got: Vec<u32> = d_keys
        .to_vec()
        .unwrap()
        .iter()
        .map(|k: &K| k.bits())
        .collect();
    assert_eq!(got, want_keys, "{what}: keys of sort_by_key");
    let want_values: Vec<u32> = want
        .iter()
        .enumerate()
        .map(|(p, w)| match w {
            Some(i) => {
                let s = offsets.iter().rposition(|&o| o as usize <= p).unwrap();
                positions[offsets[s] as usize + *i as usize]
            }
            None => positions[p],
        })
        .collect();
    assert_eq!(d_values.to_vec().unwrap(), want_values, "{what}: values");
    // Indices, into a poisoned vector.
    let d_keys = ctx.upload(keys).unwrap();
    let mut out = poisoned::<u32>(ctx, keys.len());
    ctx.segmented_argsort_into(&d_keys, &d_offsets, sort, &mut out)
        .unwrap();
    let want_idx: Vec<u32> = want.iter().map(|w| w.unwrap_or(u32::MAX)).collect();
    assert_eq!(out.to_vec().unwrap(), want_idx, "{what}: indices");
    let got: Vec<u32> = d_keys
        .to_vec()
        .unwrap()
        .iter()
        .map(|k: &K| k.bits())
        .collect();
    let orig: Vec<u32> = keys.iter().map(|k| k.bits()).collect();
    assert_eq!(got, orig, "{what}: argsort left the keys as they were");
}

fn offsets_of(lengths: &[usize], first: u32) -> Vec<u32> {
    let mut o = vec![first];
    for l in lengths {
        o.push(o.last().unwrap() + *l as u32);
    }
    o
}

fn offsets_cases<K: Key>(ctx: &Ctx, seed: u64) {
    for (case, (count, max, first, tail)) in [
        (1usize, 0usize, 0u32, 0usize), // one empty segment
        (1, 1, 0, 0),
        (5, 9, 3, 4),     // keys outside the segments on both sides
        (40, 300, 0, 0),  // within and across 256-key tiles
        (6, 3000, 17, 9), // long segments: several merge levels
        (300, 40, 1, 0),  // many short segments in each tile
    ]
    .into_iter()
    .enumerate()
    {
        let mut lens = lengths(count, max, seed + case as u64);
        if case == 1 {
            lens = vec![1];
        }
        let offsets = offsets_of(&lens, first);
        let n = *offsets.last().unwrap() as usize + tail;
        for ties in [false, true] {
            let keys: Vec<K> = keys_for(n, seed * 31 + case as u64, ties);
            for sort in [Sort::ascending(), Sort::descending()] {
                let what = format!("{} case {case} ties {ties} {sort:?}", K::WGSL);
                check_offsets(ctx, &keys, &offsets, &sort, &what);
            }
        }
    }
}

#[test]
fn segmented_u32_i32_f32() {
    let ctx = ctx();
    offsets_cases::<u32>(ctx, 1);
    offsets_cases::<i32>(ctx, 2);
    offsets_cases::<f32>(ctx, 3);
}

#[test]
fn f32_specials_sort_in_total_order() {
    let ctx = ctx();
    let specials = [
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
    ];
    let keys: Vec<f32> = (0..700)
        .map(|i| specials[(i * 7 + i / 13) % specials.len()])
        .collect();
    let offsets = vec![0u32, 11, 11, 300, 699, 700];
    for sort in [Sort::ascending(), Sort::descending()] {
        check_offsets(ctx, &keys, &offsets, &sort, "f32 specials");
    }
}

#[test]
fn key_bits_and_small_tiles() {
    let ctx = ctx();
    let lens = lengths(30, 200, 5);
    let offsets = offsets_of(&lens, 2);
    let n = *offsets.last().unwrap() as usize + 3;
    let keys: Vec<u32> = keys_for(n, 6, false);
    for sort in [
        Sort::ascending().bits(8..16),
        Sort::descending().bits(0..4),
        Sort::ascending().bits(5..5),
        // Tiles of 16 keys: every segment longer than that is merged, up to 5 levels.
        Sort::ascending().segment_tile(16),
        Sort::descending().bits(3..19).segment_tile(2),
        // 16 slots an invocation (the GPU's chunk), and 8.
        Sort::ascending().segment_tile(1024),
        Sort::descending().segment_tile(512),
    ] {
        check_offsets(ctx, &keys, &offsets, &sort, &format!("{sort:?}"));
    }
}

#[test]
fn one_segment_of_everything_and_the_split_context() {
    let ctx = ctx();
    let keys: Vec<f32> = keys_for(5000, 8, false);
    check_offsets(ctx, &keys, &[0, 5000], &Sort::ascending(), "one segment");
    // 4 KiB bindings (1024 keys) and 3 workgroups per dimension: folded grids.
    let split = split_ctx();
    let lens = lengths(20, 90, 9);
    let offsets = offsets_of(&lens, 0);
    let keys: Vec<i32> = keys_for(*offsets.last().unwrap() as usize, 10, true);
    check_offsets(
        split,
        &keys,
        &offsets,
        &Sort::ascending().segment_tile(16),
        "split",
    );
    check_offsets(
        split,
        &keys,
        &offsets,
        &Sort::descending(),
        "split, default tile",
    );
    let big = split.upload(&vec![1u32; 1025]).unwrap();
    let mut big = big;
    let offsets = split.upload(&[0u32, 1025]).unwrap();
    assert!(matches!(
        split.segmented_sort(&mut big, &offsets),
        Err(Error::TooLarge { .. })
    ));
}

/// Rows of `keys` (a `width x height` grid in a pitch) sorted on the CPU: each row's
/// indices.
fn rows_reference<K: Key>(keys: &[K], (w, h, p): (u32, u32, u32), sort: &Sort) -> Vec<Vec<u32>> {
    (0..h as usize)
        .map(|r| {
            let row = &keys[r * p as usize..r * p as usize + w as usize];
            let mut order: Vec<u32> = (0..w).collect();
            order
                .sort_by_key(|&i| cmp_word(row[i as usize], sort.is_descending(), sort.key_bits()));
            order
        })
        .collect()
}

fn check_rows<K: Key>(ctx: &Ctx, (w, h, p): (u32, u32, u32), vp: u32, sort: &Sort, seed: u64) {
    let what = format!("{} rows {w}x{h} pitch {p} {sort:?}", K::WGSL);
    let span = (p * (h - 1) + w) as usize + 2;
    let keys: Vec<K> = keys_for(span, seed, seed.is_multiple_of(2));
    let want = rows_reference(&keys, (w, h, p), sort);
    // sort_rows: each row sorted, the padding untouched.
    let mut d = ctx.upload(&keys).unwrap();
    ctx.sort_rows_with(&mut Grid2DMut::with_pitch(&mut d, w, h, p).unwrap(), sort)
        .unwrap();
    let got: Vec<u32> = d.to_vec().unwrap().iter().map(|k: &K| k.bits()).collect();
    let mut expect: Vec<u32> = keys.iter().map(|k| k.bits()).collect();
    for (r, order) in want.iter().enumerate() {
        for (j, &i) in order.iter().enumerate() {
            expect[r * p as usize + j] = keys[r * p as usize + i as usize].bits();
        }
    }
    assert_eq!(got, expect, "{what}: keys");
    // sort_rows_by_key with values in their own pitch.
    let vspan = (vp * (h - 1) + w) as usize + 1;
    let values: Vec<u32> = (0..vspan as u32)
        .map(|i| i.wrapping_mul(2654435761))
        .collect();
    let mut dk = ctx.upload(&keys).unwrap();
    let mut dv = ctx.upload(&values).unwrap();
    ctx.sort_rows_by_key_with(
        &mut Grid2DMut::with_pitch(&mut dk, w, h, p).unwrap(),
        &mut Grid2DMut::with_pitch(&mut dv, w, h, vp).unwrap(),
        sort,
    )
    .unwrap();
    let got: Vec<u32> = dk.to_vec().unwrap().iter().map(|k: &K| k.bits()).collect();
    assert_eq!(got, expect, "{what}: keys of sort_rows_by_key");
    let mut expect_v = values.clone();
    for (r, order) in want.iter().enumerate() {
        for (j, &i) in order.iter().enumerate() {
            expect_v[r * vp as usize + j] = values[r * vp as usize + i as usize];
        }
    }
    assert_eq!(dv.to_vec().unwrap(), expect_v, "{what}: values");
    // argsort_rows into a poisoned vector.
    let dk = ctx.upload(&keys).unwrap();
    let mut out = poisoned::<u32>(ctx, (w * h) as usize);
    ctx.argsort_rows_into(&Grid2D::with_pitch(&dk, w, h, p).unwrap(), sort, &mut out)
        .unwrap();
    let expect_i: Vec<u32> = want.concat();
    assert_eq!(out.to_vec().unwrap(), expect_i, "{what}: indices");
}

#[test]
fn rows_of_every_width_both_ways() {
    let ctx = ctx();
    let mut seed = 20;
    for (w, h, p) in [
        (1u32, 5u32, 1u32),
        (2, 7, 3),
        (3, 40, 3),
        (5, 9, 8),
        (16, 33, 16),
        (63, 10, 64),
        (128, 3, 130),
        (255, 4, 255),
        (256, 5, 256),
        (257, 3, 260),
        (1000, 2, 1001),
        (3000, 1, 3000),
    ] {
        // Both ways of the rows that fit a tile, whatever the tuning picks by length
        // (rows shorter than 16 keys keep the network).
        let forced = if seed % 2 == 0 {
            Sort::descending().bits(3..19).rows_by_radix()
        } else {
            Sort::ascending().rows_by_network()
        };
        for sort in [
            Sort::ascending(),
            Sort::descending(),
            Sort::ascending().rows_by_tiles(),
            forced,
        ] {
            seed += 1;
            check_rows::<f32>(ctx, (w, h, p), w + 1, &sort, seed);
        }
    }
    check_rows::<u32>(ctx, (100, 20, 101), 100, &Sort::ascending(), 3);
    check_rows::<i32>(
        ctx,
        (300, 6, 300),
        310,
        &Sort::descending().rows_by_tiles(),
        4,
    );
    check_rows::<i32>(
        ctx,
        (77, 6, 80),
        77,
        &Sort::ascending().segment_tile(8).rows_by_tiles(),
        5,
    );
    // 16 and 8 slots an invocation, as on GPUs (rows of 1000 by the tuning's way, which
    // is the radix sort at this tile; rows of 16 and, forced, of 300 by the network).
    check_rows::<f32>(
        ctx,
        (1000, 3, 1003),
        1000,
        &Sort::ascending().segment_tile(1024),
        8,
    );
    check_rows::<f32>(
        ctx,
        (16, 100, 16),
        16,
        &Sort::descending().segment_tile(1024),
        9,
    );
    check_rows::<i32>(
        ctx,
        (300, 9, 300),
        301,
        &Sort::ascending().segment_tile(512).rows_by_network(),
        10,
    );
    // The radix sort in a tile of 1024 slots (64 invocations of 16, as on GPUs) and its
    // blocks of 16, and the network where a GPU's tuning takes the radix sort.
    let tile = 1024;
    check_rows::<f32>(
        ctx,
        (tile - 96, 3, tile - 95),
        tile - 96,
        &Sort::ascending().segment_tile(tile).rows_by_radix(),
        11,
    );
    check_rows::<u32>(
        ctx,
        (16, 300, 17),
        16,
        &Sort::descending().segment_tile(tile).rows_by_radix(),
        12,
    );
    check_rows::<f32>(
        ctx,
        (1000, 3, 1003),
        1000,
        &Sort::descending().segment_tile(tile).rows_by_network(),
        13,
    );
    check_rows::<u32>(split_ctx(), (30, 20, 31), 30, &Sort::ascending(), 6);
    check_rows::<u32>(
        split_ctx(),
        (300, 3, 300),
        300,
        &Sort::ascending().segment_tile(32),
        7,
    );
}

#[test]
fn offsets_that_are_not_ascending_stay_in_bounds() {
    let ctx = ctx();
    let keys: Vec<u32> = keys_for(500, 30, false);
    for offsets in [
        vec![0u32, 400, 100, 500],
        vec![300, 200, 100, 0],
        vec![0, 9000, 20, u32::MAX, 7],
    ] {
        let o = ctx.upload(&offsets).unwrap();
        let mut k = ctx.upload(&keys).unwrap();
        ctx.segmented_sort(&mut k, &o).unwrap();
        let mut v = ctx.upload(&keys).unwrap();
        ctx.segmented_sort_by_key(&mut k, &mut v, &o).unwrap();
        let idx = ctx.segmented_argsort(&k, &o).unwrap();
        assert_eq!(idx.to_vec().unwrap().len(), 500);
    }
    // The context still works.
    check_offsets(ctx, &keys, &[0, 250, 500], &Sort::ascending(), "after");
}

#[test]
fn errors_name_the_problem() {
    let ctx = ctx();
    let mut keys = ctx.upload(&[3u32, 1, 2]).unwrap();
    let empty = ctx.upload::<u32>(&[]).unwrap();
    let e = ctx.segmented_sort(&mut keys, &empty).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("offsets"),
        "{e}"
    );
    let offsets = ctx.upload(&[0u32, 3]).unwrap();
    let mut values = ctx.upload(&[1u32, 2]).unwrap();
    let e = ctx
        .segmented_sort_by_key(&mut keys, &mut values, &offsets)
        .unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
    let e = ctx
        .segmented_sort_with(&mut keys, &offsets, &Sort::ascending().bits(4..40))
        .unwrap_err();
    assert!(e.to_string().contains("40"), "{e}");
    let mut out = ctx.zeros::<u32>(2).unwrap();
    let e = ctx
        .segmented_argsort_into(&keys, &offsets, &Sort::ascending(), &mut out)
        .unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
    let e = ctx
        .segmented_sort_with(&mut keys, &offsets, &Sort::ascending().segment_tile(3))
        .unwrap_err();
    assert!(e.to_string().contains("power of two"), "{e}");
    // Rows: shapes that differ.
    let mut k: GpuVec<u32> = ctx.upload(&[1, 2, 3, 4]).unwrap();
    let mut v: GpuVec<u32> = ctx.upload(&[1, 2, 3, 4, 5, 6]).unwrap();
    let e = ctx
        .sort_rows_by_key(
            &mut Grid2DMut::new(&mut k, 2, 2).unwrap(),
            &mut Grid2DMut::new(&mut v, 3, 2).unwrap(),
        )
        .unwrap_err();
    assert!(
        e.to_string().contains("2 x 2") && e.to_string().contains("3 x 2"),
        "{e}"
    );
    // An empty keys vector with one empty segment is fine.
    let mut none = ctx.upload::<u32>(&[]).unwrap();
    let zero = ctx.upload(&[0u32]).unwrap();
    ctx.segmented_sort(&mut none, &zero).unwrap();
    assert!(
        ctx.segmented_argsort(&none, &zero)
            .unwrap()
            .to_vec()
            .unwrap()
            .is_empty()
    );
}
