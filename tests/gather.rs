//! gather, gather_into and scatter against the CPU: every element type the adapter has;
//! random sources and random indices with about one in nine out of range (u32::MAX among
//! them); empty and one-element sources and index vectors; lengths around vec4 units and
//! workgroups; indices and the vector that follows them across binding windows
//! (split_ctx: 4 KiB per binding, grids folded at 3 per dimension); the
//! errors.
//!
//! Outputs start poisoned (or random, for a scatter's destination) and every element is
//! compared bit for bit: an element an out-of-range index must leave alone keeps its
//! poison.

mod common;

use common::*;
use gpuprim::{Ctx, Error};

fn contexts() -> [&'static Ctx; 2] {
    [ctx(), split_ctx()]
}

/// Source lengths: on split_ctx (4 KiB bindings) from 1025 f32 (513 f64, 2049 f16) on
/// the freely indexed vector spans several binding windows, each a pass of its own.
fn src_lengths<T: TestElement>(_ctx: &Ctx) -> impl Iterator<Item = usize> {
    [0, 1, 3, 4, 5, 255, 256, 257, 1000, 1024, 1025, 2049, 4097].into_iter()
}
/// Index lengths: past split_ctx's windows too.
const INDEX_LENGTHS: &[usize] = &[0, 1, 3, 4, 5, 255, 256, 257, 1023, 1025, 4097];

fn bits<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

fn check_gather<T: TestElement>(ctx: &Ctx, seed: u64) {
    if !supports::<T>(ctx) {
        return;
    }
    for len in src_lengths::<T>(ctx) {
        for &n in INDEX_LENGTHS {
            let seed = seed ^ (len as u64) << 20 ^ n as u64;
            let src_h: Vec<T> = random_vec(len, seed);
            let idx_h = random_indices(n, len, seed + 1);
            let src = ctx.upload(&src_h).unwrap();
            let idx = ctx.upload(&idx_h).unwrap();
            let what = format!("{} gather of {len} by {n}", T::WGSL);

            let mut out = poisoned::<T>(ctx, n);
            ctx.gather_into(&src, &idx, &mut out).unwrap();
            let want: Vec<T> = idx_h
                .iter()
                .map(|&i| src_h.get(i as usize).copied().unwrap_or(T::POISON))
                .collect();
            assert_eq!(bits(&out.to_vec().unwrap()), bits(&want), "{what}_into");

            // The counted form: the same elements, and the skipped indices added to 5.
            let skipped_want = 5 + idx_h.iter().filter(|&&i| i as usize >= len).count() as u32;
            let mut out = poisoned::<T>(ctx, n);
            let mut skipped = ctx.upload(&[5u32, 9]).unwrap();
            ctx.gather_into_counted(&src, &idx, &mut out, &mut skipped)
                .unwrap();
            assert_eq!(
                bits(&out.to_vec().unwrap()),
                bits(&want),
                "{what}_into_counted"
            );
            assert_eq!(
                skipped.to_vec().unwrap(),
                [skipped_want, 9],
                "{what}: skipped"
            );

            let fresh = ctx.gather(&src, &idx).unwrap();
            let want: Vec<T> = idx_h
                .iter()
                .map(|&i| {
                    src_h
                        .get(i as usize)
                        .copied()
                        .unwrap_or(<T as bytemuck::Zeroable>::zeroed())
                })
                .collect();
            assert_eq!(bits(&fresh.to_vec().unwrap()), bits(&want), "{what}");
        }
    }
}

fn check_scatter<T: TestElement>(ctx: &Ctx, seed: u64) {
    if !supports::<T>(ctx) {
        return;
    }
    for len in src_lengths::<T>(ctx) {
        for &n in INDEX_LENGTHS {
            let seed = seed ^ (len as u64) << 20 ^ n as u64;
            let src_h: Vec<T> = random_vec(n, seed);
            let dst_h: Vec<T> = random_vec(len, seed + 2);
            // Distinct in-range indices (a shuffled prefix of 0..len), so the result is
            // defined; the rest past the end.
            let mut order: Vec<u32> = (0..len as u32).collect();
            let keys: Vec<u32> = random_vec(len, seed + 3);
            order.sort_by_key(|&i| keys[i as usize]);
            let idx_h: Vec<u32> = random_indices(n, len, seed + 1)
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    if (x as usize) < len && i < order.len() {
                        order[i]
                    } else {
                        len as u32 + (x & 0xff)
                    }
                })
                .collect();
            let mut want = dst_h.clone();
            for (i, &j) in idx_h.iter().enumerate() {
                if let Some(d) = want.get_mut(j as usize) {
                    *d = src_h[i];
                }
            }
            let src = ctx.upload(&src_h).unwrap();
            let idx = ctx.upload(&idx_h).unwrap();
            let mut dst = ctx.upload(&dst_h).unwrap();
            ctx.scatter(&src, &idx, &mut dst).unwrap();
            let what = format!("{} scatter of {n} into {len}", T::WGSL);
            assert_eq!(bits(&dst.to_vec().unwrap()), bits(&want), "{what}");

            let skipped_want = idx_h.iter().filter(|&&i| i as usize >= len).count() as u32;
            let mut dst = ctx.upload(&dst_h).unwrap();
            let mut skipped = ctx.zeros::<u32>(1).unwrap();
            ctx.scatter_counted(&src, &idx, &mut dst, &mut skipped)
                .unwrap();
            assert_eq!(
                bits(&dst.to_vec().unwrap()),
                bits(&want),
                "{what} (counted)"
            );
            assert_eq!(skipped.to_vec().unwrap(), [skipped_want], "{what}: skipped");
        }
    }
}

#[test]
fn gather_every_type() {
    for ctx in contexts() {
        check_gather::<f32>(ctx, 1);
        check_gather::<i32>(ctx, 2);
        check_gather::<u32>(ctx, 3);
        check_gather::<f64>(ctx, 4);
        check_gather::<gpuprim::half::f16>(ctx, 5);
    }
}

#[test]
fn scatter_every_type() {
    for ctx in contexts() {
        check_scatter::<f32>(ctx, 11);
        check_scatter::<i32>(ctx, 12);
        check_scatter::<u32>(ctx, 13);
        check_scatter::<f64>(ctx, 14);
        check_scatter::<gpuprim::half::f16>(ctx, 15);
    }
}

#[test]
fn scatter_with_repeated_indices_lands_one_of_them() {
    let ctx = ctx();
    let n = 5000;
    let src_h: Vec<u32> = (0..n as u32).collect();
    let idx_h: Vec<u32> = random_vec::<u32>(n, 7).iter().map(|x| x % 37).collect();
    let src = ctx.upload(&src_h).unwrap();
    let idx = ctx.upload(&idx_h).unwrap();
    let mut dst = poisoned::<u32>(ctx, 40);
    ctx.scatter(&src, &idx, &mut dst).unwrap();
    let got = dst.to_vec().unwrap();
    for (j, &g) in got.iter().enumerate() {
        let candidates: Vec<u32> = (0..n as u32)
            .filter(|&i| idx_h[i as usize] == j as u32)
            .collect();
        if candidates.is_empty() {
            assert_eq!(g, u32::POISON, "dst[{j}] has no index");
        } else {
            assert!(
                candidates.contains(&g),
                "dst[{j}] = {g}, not one of its sources"
            );
        }
    }
}

#[test]
fn errors() {
    let ctx = ctx();
    let src = ctx.upload(&[1.0f32, 2.0]).unwrap();
    let idx = ctx.upload(&[0u32, 1, 0]).unwrap();
    let mut out = ctx.zeros::<f32>(2).unwrap();
    assert!(matches!(
        ctx.gather_into(&src, &idx, &mut out),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        ctx.scatter(&src, &idx, &mut out),
        Err(Error::LengthMismatch { .. })
    ));
    let split = split_ctx();
    let big = split
        .upload(&(0..1025).map(|i| i as f32).collect::<Vec<_>>())
        .unwrap();
    let idx = split.upload(&[0u32, 1024]).unwrap();
    // Past one binding (4100 bytes in split_ctx's 4096): two windows, one pass each.
    let got = split.gather(&big, &idx).unwrap().to_vec().unwrap();
    assert_eq!(got, [0.0, 1024.0]);
    let two = split.upload(&[3.0f32, 4.0]).unwrap();
    let mut big = big;
    split.scatter(&two, &idx, &mut big).unwrap();
    let host = big.to_vec().unwrap();
    assert_eq!((host[0], host[1024], host[1]), (3.0, 4.0, 1.0));
    // Vectors of another context.
    let other = split.upload(&[0u32]).unwrap();
    assert!(matches!(
        ctx.gather(&src, &other),
        Err(Error::ContextMismatch { .. })
    ));
}
