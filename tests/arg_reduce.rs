//! argmax / argmin and their `_into` forms against a CPU reference: every element type,
//! random values with and without many ties, lengths around vec4 lanes, workgroups and
//! the split-binding path (and the folded grids of `split_ctx`), with and without
//! subgroups; NaN (the first NaN wins, as in NumPy), ±0.0 and infinities; the errors.
//!
//! `_into` outputs start poisoned: element 0 of each must be written, the others kept.

mod common;

use std::sync::OnceLock;

use common::*;
use gpuprim::half::f16;
use gpuprim::{Ctx, Error, GpuElement, GpuVec, wgpu};

/// No subgroup operations: the workgroup-memory tree. Nor mappable storage buffers: a
/// blocking call copies its result into a staging buffer.
fn tree_ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| {
        Ctx::builder()
            .without_features(wgpu::Features::SUBGROUP | wgpu::Features::MAPPABLE_PRIMARY_BUFFERS)
            .build()
            .unwrap()
    })
}

fn contexts() -> [&'static Ctx; 3] {
    [ctx(), split_ctx(), tree_ctx()]
}

/// Lengths around vec4 units, the 256-invocation workgroup (256 units = 1024 elements)
/// and split_ctx's 1024-element binding windows.
const LENGTHS: &[usize] = &[
    1, 2, 3, 4, 5, 7, 8, 255, 256, 257, 1023, 1024, 1025, 1027, 4095, 4096, 4097, 10_001,
];

fn is_nan<T: PartialOrd>(x: T) -> bool {
    x.partial_cmp(&x).is_none()
}

/// NumPy's argmax/argmin: the first NaN if there is one, else the first best value
/// (-0.0 == +0.0 as numbers compare).
fn cpu_arg<T: GpuElement>(v: &[T], max: bool) -> (T, u32) {
    let mut best = 0;
    for i in 0..v.len() {
        if is_nan(v[i]) {
            return (v[i], i as u32);
        }
        let better = if max { v[i] > v[best] } else { v[i] < v[best] };
        if better {
            best = i;
        }
    }
    (v[best], best as u32)
}

fn bits<T: GpuElement>(x: T) -> Vec<u8> {
    bytemuck::bytes_of(&x).to_vec()
}

/// argmax and argmin of `host` on `ctx`, blocking and `_into` (into poisoned 3-element
/// outputs), all against the CPU, bit for bit.
fn check<T: TestElement>(ctx: &Ctx, host: &[T], what: &str) {
    let v = ctx.upload(host).unwrap();
    for max in [true, false] {
        let want = cpu_arg(host, max);
        let name = if max { "argmax" } else { "argmin" };
        let got = if max {
            ctx.argmax(&v).unwrap()
        } else {
            ctx.argmin(&v).unwrap()
        };
        assert_eq!(
            (bits(got.0), got.1),
            (bits(want.0), want.1),
            "{name} of {what} ({} elements): GPU {got:?}, CPU {want:?}",
            host.len()
        );
        let mut value = poisoned::<T>(ctx, 3);
        let mut index = poisoned::<u32>(ctx, 3);
        if max {
            ctx.argmax_into(&v, &mut value, &mut index).unwrap();
        } else {
            ctx.argmin_into(&v, &mut value, &mut index).unwrap();
        }
        let (value, index) = (value.to_vec().unwrap(), index.to_vec().unwrap());
        assert_eq!(
            (bits(value[0]), index[0]),
            (bits(want.0), want.1),
            "{name}_into of {what} ({} elements)",
            host.len()
        );
        assert_eq!(
            (bytemuck::cast_slice::<T, u8>(&value[1..]), &index[1..]),
            (
                bytemuck::cast_slice::<T, u8>(&[T::POISON; 2]),
                &[u32::POISON; 2][..]
            ),
            "{name}_into of {what}: elements after 0 must keep their poison"
        );
    }
}

/// Random values, then the same with few distinct values (ties everywhere, so the
/// lowest index must win).
fn check_random<T: TestElement>(ctx: &Ctx, ties: impl Fn(T) -> T) {
    if !supports::<T>(ctx) {
        return;
    }
    for (k, &len) in LENGTHS.iter().enumerate() {
        let host = random_vec::<T>(len, 11 + k as u64);
        check(ctx, &host, &format!("random {}", T::WGSL));
        let tied: Vec<T> = host.iter().map(|&x| ties(x)).collect();
        check(ctx, &tied, &format!("random {} with ties", T::WGSL));
    }
}

#[test]
fn random_f32() {
    for ctx in contexts() {
        check_random::<f32>(ctx, |x| (x / 300.0).round());
    }
}

#[test]
fn random_i32() {
    for ctx in contexts() {
        check_random::<i32>(ctx, |x| x % 5);
    }
}

#[test]
fn random_u32() {
    for ctx in contexts() {
        check_random::<u32>(ctx, |x| x % 3);
    }
}

#[test]
fn random_f16_and_f64() {
    for ctx in contexts() {
        check_random::<f16>(ctx, |x| f16::from_f32((x.to_f32() / 16.0).round()));
        check_random::<f64>(ctx, |x| (x / 300.0).round());
    }
}

/// The best value only at the end, only at the start, and tied between binding windows
/// (split_ctx: 1024 elements per window): the earlier window's index wins.
#[test]
fn best_across_binding_windows() {
    for ctx in contexts() {
        for len in [1025usize, 3000, 10_001] {
            let base = random_vec::<f32>(len, len as u64);
            for at in [
                vec![0],
                vec![len - 1],
                vec![len - 1, 1500 % len],
                vec![1030 % len, 5],
            ] {
                let mut host = base.clone();
                for &i in &at {
                    host[i] = 5000.0;
                    host[len - 1 - i] = -5000.0;
                }
                check(ctx, &host, &format!("extremes at {at:?}"));
            }
        }
    }
}

/// NaN wins both argmax and argmin, the first one (of either sign); the value is that
/// NaN's bits.
#[test]
fn first_nan_wins() {
    let neg_nan = f32::from_bits(0xffc0_0001);
    for ctx in contexts() {
        for len in [1usize, 2, 5, 257, 1025, 4097] {
            let base = random_vec::<f32>(len, 3 + len as u64);
            let positions: [&[usize]; 4] = [&[0], &[len - 1], &[len / 2, len - 1], &[len / 3, 0]];
            for at in positions {
                let mut host = base.clone();
                for (k, &i) in at.iter().enumerate() {
                    host[i] = if k % 2 == 0 { f32::NAN } else { neg_nan };
                }
                check(ctx, &host, &format!("NaN at {at:?}"));
            }
            // NaN next to infinities.
            let mut host = vec![f32::INFINITY; len];
            host[0] = f32::NEG_INFINITY;
            host[len - 1] = neg_nan;
            check(ctx, &host, "infinities and a NaN");
        }
    }
    let ctx = ctx();
    let v = ctx.upload(&[1.0f32, f32::NAN, 2.0, f32::NAN]).unwrap();
    let (value, index) = ctx.argmin(&v).unwrap();
    assert!(value.is_nan() && index == 1, "{value} {index}");
}

/// -0.0 and +0.0 are equal (the first wins, with its sign); infinities and the integer
/// extremes, all equal, give index 0 (they tie with nothing the kernel starts from).
#[test]
fn zeros_infinities_and_extremes() {
    for ctx in contexts() {
        for host in [
            vec![-0.0f32, 0.0, -1.0],
            vec![0.0f32, -0.0, -1.0],
            vec![1.0f32, -0.0, 0.0],
            vec![1.0f32, 0.0, -0.0],
            vec![f32::NEG_INFINITY; 9],
            vec![f32::INFINITY; 9],
            vec![7.5f32; 1030],
        ] {
            check(ctx, &host, "zeros and infinities");
        }
        // Long enough for every workgroup's fast loop: the first of two zeros wins, with
        // its sign, whichever sign comes first (argmax over negatives, argmin over
        // positives).
        for (first, second) in [(-0.0f32, 0.0f32), (0.0, -0.0)] {
            for fill in [-1.0f32, 1.0] {
                let mut host = vec![fill; 40_003];
                host[17_001] = first;
                host[30_002] = second;
                check(ctx, &host, "zeros among many");
            }
        }
        for host in [vec![i32::MIN; 6], vec![i32::MAX; 6], vec![-3i32; 1025]] {
            check(ctx, &host, "i32 extremes");
        }
        for host in [vec![0u32; 6], vec![u32::MAX; 6], vec![9u32; 4097]] {
            check(ctx, &host, "u32 extremes");
        }
    }
    let ctx = ctx();
    let v = ctx.upload(&[-0.0f32, 0.0]).unwrap();
    let (value, index) = ctx.argmax(&v).unwrap();
    assert_eq!((value.to_bits(), index), ((-0.0f32).to_bits(), 0));
}

/// The same call gives the same bits every time (nothing depends on timing).
#[test]
fn deterministic() {
    let ctx = ctx();
    let host: Vec<f32> = random_vec::<f32>(100_000, 9)
        .iter()
        .map(|x| (x / 100.0).round())
        .collect();
    let v = ctx.upload(&host).unwrap();
    let first = ctx.argmax(&v).unwrap();
    for _ in 0..5 {
        assert_eq!(ctx.argmax(&v).unwrap(), first);
    }
    assert_eq!(first, cpu_arg(&host, true));
}

#[test]
fn async_twins() {
    let ctx = ctx();
    let host = random_vec::<i32>(5000, 4);
    let v = ctx.upload(&host).unwrap();
    assert_eq!(
        pollster::block_on(ctx.argmax_async(&v)).unwrap(),
        cpu_arg(&host, true)
    );
    assert_eq!(
        pollster::block_on(ctx.argmin_async(&v)).unwrap(),
        cpu_arg(&host, false)
    );
}

#[test]
fn errors() {
    let ctx = ctx();
    let empty = ctx.zeros::<f32>(0).unwrap();
    for result in [ctx.argmax(&empty), ctx.argmin(&empty)] {
        match result {
            Err(Error::InvalidArgument { message, .. }) => {
                assert!(message.contains("0 elements"), "{message}")
            }
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }
    let v = ctx.upload(&[1.0f32, 2.0]).unwrap();
    let mut value = ctx.zeros::<f32>(1).unwrap();
    let mut index = ctx.zeros::<u32>(1).unwrap();
    match ctx.argmax_into(&empty, &mut value, &mut index) {
        Err(Error::InvalidArgument { op, .. }) => assert_eq!(op, "argmax"),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    let mut no_value = ctx.zeros::<f32>(0).unwrap();
    let mut no_index = ctx.zeros::<u32>(0).unwrap();
    for result in [
        ctx.argmax_into(&v, &mut no_value, &mut index),
        ctx.argmin_into(&v, &mut value, &mut no_index),
    ] {
        match result {
            Err(Error::InvalidArgument { message, .. }) => {
                assert!(message.contains("0 elements"), "{message}")
            }
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }
    // A prefix view's length is on the device.
    let count = ctx.upload(&[1u32]).unwrap();
    let view = v.prefix(&count).unwrap();
    assert!(matches!(
        ctx.argmax(&view),
        Err(Error::InvalidArgument { .. })
    ));
    // A vector of another context.
    let other = split_ctx().upload(&[1.0f32]).unwrap();
    assert!(matches!(
        ctx.argmin(&other),
        Err(Error::ContextMismatch { .. })
    ));
    assert!(matches!(
        ctx.argmax_into(&v, &mut split_ctx().zeros::<f32>(1).unwrap(), &mut index),
        Err(Error::ContextMismatch { .. })
    ));
    // The output a view of the input's buffer: refused, not a wgpu panic.
    let buffer = ctx.upload(&random_vec::<u32>(4096, 5)).unwrap();
    let input = GpuVec::<u32>::from_buffer(ctx, buffer.buffer().clone(), 3).unwrap();
    let mut out = GpuVec::<u32>::from_buffer_at(
        ctx,
        buffer.buffer().clone(),
        ctx.info().limits.min_storage_buffer_offset_alignment as u64,
        1,
    )
    .unwrap();
    assert!(matches!(
        ctx.argmax_into(&input, &mut out, &mut index),
        Err(Error::InvalidArgument { .. })
    ));
    // Still usable afterwards.
    assert_eq!(ctx.argmax(&v).unwrap(), (2.0, 1));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 12, ..Default::default() })]

    /// Random lengths (edges, small, up to 300 000) and values, with few distinct values
    /// when `ties`, on each context.
    #[test]
    fn random_lengths(len in 1usize..300_000, seed: u64, which in 0usize..3, ties: bool) {
        let host = random_vec::<f32>(len, seed);
        let host: Vec<f32> = if ties { host.iter().map(|x| (x / 250.0).round()).collect() } else { host };
        check(contexts()[which], &host, "proptest f32");
        let ints: Vec<i32> = random_vec::<i32>(len, seed).iter().map(|&x| if ties { x % 4 } else { x }).collect();
        check(contexts()[which], &ints, "proptest i32");
    }
}
