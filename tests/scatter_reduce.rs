//! scatter_add / scatter_max / scatter_min / scatter_reduce and histogram_weighted
//! against the CPU: u32, i32 and f32; both orders (atomic and deterministic); random
//! outputs to add into and random indices with about one in nine out of range (u32::MAX
//! among them), so an element no index names must keep its exact bits; outputs of 1
//! element (every value contends for it) up to 1024; index lengths around vec4 units and
//! workgroups and across binding windows (split_ctx: 4 KiB per binding); the count of
//! skipped indices; the errors.
//!
//! Integers are compared exactly (sums wrap). f32 sums are compared with the sum in f64:
//! element j, starting at x and given the values v_1..v_k, is within
//! (k + 1) * f32::EPSILON * (|x| + sum |v|) of it, whatever the order of the k roundings
//! (each is at most half an epsilon of a partial sum, and every partial sum is at most
//! |x| + sum |v|). Max and min are exact in either order. The deterministic order must
//! give the same bits on two runs.

mod common;

use common::*;
use gpuprim::{AtomicElement, Ctx, Error, ScatterOp, ScatterReduce};

const OUT_LENGTHS: &[usize] = &[1, 3, 4, 5, 257, 1024];
const INDEX_LENGTHS: &[usize] = &[0, 1, 3, 4, 5, 255, 256, 257, 1023, 1025, 4097];
const OPS: [ScatterOp; 3] = [ScatterOp::Sum, ScatterOp::Max, ScatterOp::Min];

fn contexts() -> [&'static Ctx; 2] {
    [ctx(), split_ctx()]
}

trait Element: AtomicElement + TestElement + std::fmt::Debug {
    /// `a op b` on the CPU (f32 sums are compared within a tolerance instead, by
    /// `check`).
    fn combine(op: ScatterOp, a: Self, b: Self) -> Self;
    fn to_f64(self) -> f64;
}

/// u32 and i32: wrapping sums, exact max and min.
macro_rules! integer_element {
    ($t:ty) => {
        impl Element for $t {
            fn combine(op: ScatterOp, a: $t, b: $t) -> $t {
                match op {
                    ScatterOp::Sum => a.wrapping_add(b),
                    ScatterOp::Max => a.max(b),
                    ScatterOp::Min => a.min(b),
                }
            }
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
        }
    };
}
integer_element!(u32);
integer_element!(i32);
impl Element for f32 {
    fn combine(op: ScatterOp, a: f32, b: f32) -> f32 {
        match op {
            ScatterOp::Sum => a + b,
            ScatterOp::Max => a.max(b),
            ScatterOp::Min => a.min(b),
        }
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

/// Compares the GPU's result with the CPU's scatter of `vals` by `idx` into `init`.
fn check<T: Element>(gpu: &[T], init: &[T], idx: &[u32], vals: &[T], op: ScatterOp, what: &str) {
    assert_eq!(gpu.len(), init.len(), "{what}: length");
    let mut want = init.to_vec();
    let mut exact = vec![0f64; init.len()];
    let mut scale = vec![0f64; init.len()];
    let mut k = vec![0usize; init.len()];
    for (j, x) in init.iter().enumerate() {
        exact[j] = x.to_f64();
        scale[j] = x.to_f64().abs();
    }
    for (&i, &v) in idx.iter().zip(vals) {
        let Some(w) = want.get_mut(i as usize) else {
            continue;
        };
        *w = T::combine(op, *w, v);
        exact[i as usize] += v.to_f64();
        scale[i as usize] += v.to_f64().abs();
        k[i as usize] += 1;
    }
    let float_sum = T::WGSL == "f32" && op == ScatterOp::Sum;
    for j in 0..gpu.len() {
        if float_sum && k[j] > 0 {
            let tol = (k[j] + 1) as f64 * f64::from(f32::EPSILON) * scale[j];
            let err = (gpu[j].to_f64() - exact[j]).abs();
            assert!(
                err <= tol,
                "{what}: element {j} ({} values): GPU {:?}, exact {}, |diff| {err:e} > {tol:e}",
                k[j],
                gpu[j],
                exact[j]
            );
        } else {
            let same = bytemuck::bytes_of(&gpu[j]) == bytemuck::bytes_of(&want[j]);
            assert!(
                same,
                "{what}: element {j} ({} values): GPU {:?}, CPU {:?}",
                k[j], gpu[j], want[j]
            );
        }
    }
}

fn check_type<T: Element>(seed: u64) {
    for ctx in contexts() {
        for &len in OUT_LENGTHS {
            for &n in INDEX_LENGTHS {
                for op in OPS {
                    let seed = seed ^ (len as u64) << 24 ^ (n as u64) << 4 ^ op as u64;
                    let init: Vec<T> = random_vec(len, seed);
                    let idx_h = random_indices(n, len, seed + 1);
                    let vals_h: Vec<T> = random_vec(n, seed + 2);
                    let out_of_range = idx_h.iter().filter(|&&i| i as usize >= len).count();
                    let idx = ctx.upload(&idx_h).unwrap();
                    let vals = ctx.upload(&vals_h).unwrap();
                    let what = format!("{} {op:?} of {n} into {len}", T::WGSL);

                    let mut out = ctx.upload(&init).unwrap();
                    match op {
                        ScatterOp::Sum => ctx.scatter_add(&mut out, &idx, &vals),
                        ScatterOp::Max => ctx.scatter_max(&mut out, &idx, &vals),
                        ScatterOp::Min => ctx.scatter_min(&mut out, &idx, &vals),
                    }
                    .unwrap();
                    check(&out.to_vec().unwrap(), &init, &idx_h, &vals_h, op, &what);

                    let mut twice = Vec::new();
                    let whole = n as u64 * 4 <= ctx.info().max_binding_bytes;
                    if !whole {
                        let mut out = ctx.upload(&init).unwrap();
                        let how = ScatterReduce::new(op).deterministic();
                        let e = ctx.scatter_reduce(&mut out, &idx, &vals, how, None);
                        assert!(matches!(e, Err(Error::TooLarge { .. })), "{what}: {e:?}");
                        assert_eq!(
                            out.to_vec().unwrap(),
                            init,
                            "{what}: written after an error"
                        );
                    }
                    for _ in 0..2 * usize::from(whole) {
                        let mut out = ctx.upload(&init).unwrap();
                        let mut skipped = ctx.upload(&[5u32]).unwrap();
                        let how = ScatterReduce::new(op).deterministic();
                        ctx.scatter_reduce(&mut out, &idx, &vals, how, Some(&mut skipped))
                            .unwrap();
                        let got = out.to_vec().unwrap();
                        check(&got, &init, &idx_h, &vals_h, op, &format!("{what}, sorted"));
                        let skipped = skipped.to_vec().unwrap()[0] as usize;
                        assert_eq!(skipped, 5 + out_of_range, "{what}, sorted: skipped");
                        twice.push(bytemuck::cast_slice::<T, u8>(&got).to_vec());
                    }
                    if whole {
                        assert_eq!(twice[0], twice[1], "{what}, sorted: two runs differ");
                    }

                    let mut out = ctx.upload(&init).unwrap();
                    let mut skipped = ctx.zeros::<u32>(3).unwrap();
                    let how = ScatterReduce::new(op);
                    ctx.scatter_reduce(&mut out, &idx, &vals, how, Some(&mut skipped))
                        .unwrap();
                    check(&out.to_vec().unwrap(), &init, &idx_h, &vals_h, op, &what);
                    let skipped = skipped.to_vec().unwrap();
                    assert_eq!(skipped, [out_of_range as u32, 0, 0], "{what}: skipped");
                }
            }
        }
    }
}

#[test]
fn u32_matches_cpu() {
    check_type::<u32>(0x51);
}

#[test]
fn i32_matches_cpu() {
    check_type::<i32>(0x52);
}

#[test]
fn f32_matches_cpu() {
    check_type::<f32>(0x53);
}

#[test]
fn f32_sums_with_heavy_contention_lose_no_update() {
    // 2^16 values into 3 elements: every compare-exchange loop competes. The values are
    // small integers, so every partial sum is exact in f32 (below 2^24) whatever the
    // order, and a lost or doubled update shows as a wrong sum.
    for ctx in contexts() {
        let n = 1 << 16;
        let r: Vec<u32> = random_vec(n, 7);
        let idx_h: Vec<u32> = r.iter().map(|x| x % 3).collect();
        let vals_h: Vec<f32> = r.iter().map(|x| (x >> 8) as f32 % 17.0 - 8.0).collect();
        let init = [0.5f32, -2.0, 1000.0];
        let mut want = init;
        for (&i, &v) in idx_h.iter().zip(&vals_h) {
            want[i as usize] += v;
        }
        let mut out = ctx.upload(&init).unwrap();
        let idx = ctx.upload(&idx_h).unwrap();
        let vals = ctx.upload(&vals_h).unwrap();
        ctx.scatter_add(&mut out, &idx, &vals).unwrap();
        assert_eq!(
            out.to_vec().unwrap(),
            want,
            "f32 scatter_add into 3 elements"
        );
    }
}

#[test]
fn histogram_weighted_matches_cpu() {
    for ctx in contexts() {
        for &(n, bins) in &[(0usize, 1u32), (1, 1), (1000, 7), (4097, 1000), (300, 1024)] {
            let keys_h: Vec<u32> = random_vec::<u32>(n, n as u64 + 11)
                .iter()
                .map(|x| x % (bins + bins / 3 + 1))
                .collect();
            let keys = ctx.upload(&keys_h).unwrap();
            let wf: Vec<f32> = random_vec(n, 12);
            let wu: Vec<u32> = random_vec(n, 13);
            let got_f = ctx
                .histogram_weighted(&keys, &ctx.upload(&wf).unwrap(), bins)
                .unwrap();
            let got_u = ctx
                .histogram_weighted(&keys, &ctx.upload(&wu).unwrap(), bins)
                .unwrap();
            let what = format!("histogram_weighted of {n} into {bins}");
            let zeros_f = vec![0f32; bins as usize];
            let zeros_u = vec![0u32; bins as usize];
            check(&got_f, &zeros_f, &keys_h, &wf, ScatterOp::Sum, &what);
            check(&got_u, &zeros_u, &keys_h, &wu, ScatterOp::Sum, &what);
        }
    }
}

#[test]
fn errors() {
    let ctx = split_ctx();
    let idx = ctx.upload(&[0u32, 1]).unwrap();
    let vals = ctx.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let mut out = ctx.zeros::<f32>(4).unwrap();
    assert!(matches!(
        ctx.scatter_add(&mut out, &idx, &vals),
        Err(Error::LengthMismatch { .. })
    ));
    // The output is bound whole: 2000 f32 do not fit split_ctx's 4 KiB binding.
    let mut big = ctx.zeros::<f32>(2000).unwrap();
    let vals = ctx.upload(&[1.0f32, 2.0]).unwrap();
    let e = ctx.scatter_add(&mut big, &idx, &vals).unwrap_err();
    assert!(matches!(e, Error::TooLarge { .. }), "{e}");
    assert!(e.to_string().contains("out"), "{e}");
    let mut empty = ctx.zeros::<u32>(0).unwrap();
    let how = ScatterReduce::new(ScatterOp::Sum);
    assert!(matches!(
        ctx.scatter_reduce(&mut out, &idx, &vals, how, Some(&mut empty)),
        Err(Error::InvalidArgument { .. })
    ));
    let mut out_u = ctx.zeros::<u32>(4).unwrap();
    let vals_u = ctx.upload(&[1u32, 2]).unwrap();
    let mut alias = gpuprim::GpuVec::<u32>::from_buffer(ctx, out_u.buffer().clone(), 1).unwrap();
    assert!(matches!(
        ctx.scatter_reduce(&mut out_u, &idx, &vals_u, how, Some(&mut alias)),
        Err(Error::InvalidArgument { .. })
    ));
    let count = ctx.upload(&[1u32]).unwrap();
    let view = idx.prefix(&count).unwrap();
    assert!(matches!(
        ctx.scatter_add(&mut out, &view, &vals),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        ctx.histogram_weighted(&idx, &vals, 0),
        Err(Error::InvalidArgument { .. })
    ));
    // Nothing above wrote anything.
    assert_eq!(out.to_vec().unwrap(), vec![0.0; 4]);
}
