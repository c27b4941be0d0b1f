//! A lost device: after `ctx.device().destroy()` (or a loss gpuprim learns of later),
//! every call returns `Error::DeviceLost`, pending read-backs resolve, nothing is printed,
//! and a new `Ctx` works. Each test makes a context with a device of its own
//! (`CtxBuilder::dedicated_device`): the device that `Ctx::new` contexts share would end
//! every other test's contexts when destroyed. One test destroys a shared device of its
//! own limits, which no other test uses.
//!
//! The tests take turns (`one_at_a_time`): on NVIDIA's Vulkan driver, a device destroyed
//! while other devices of the process work can hang the process (1 of 12 runs of this
//! binary did when its tests ran at once; docs/multidevice-hang.md).

mod common;

use std::sync::mpsc;
use std::time::Duration;

use common::*;
use gpuprim::{Ctx, Error, GpuVec, Grid2D, Grid2DMut, Reduce, Rng, Scan, ScanOp, Swizzle};

fn own_ctx() -> Ctx {
    Ctx::builder()
        .dedicated_device(true)
        .build()
        .unwrap_or_else(|e| panic!("no GPU context for the tests: {e}"))
}

/// Inputs the calls below use, made before the loss.
struct Inputs {
    a: GpuVec<f32>,
    b: GpuVec<f32>,
    keys: GpuVec<u32>,
    out: GpuVec<f32>,
}

fn inputs(ctx: &Ctx) -> Inputs {
    let n = 4096;
    Inputs {
        a: ctx.upload(&random_vec::<f32>(n, 1)).unwrap(),
        b: ctx.upload(&random_vec::<f32>(n, 2)).unwrap(),
        keys: ctx
            .upload(
                &random_vec::<u32>(n, 3)
                    .iter()
                    .map(|k| k % 16)
                    .collect::<Vec<_>>(),
            )
            .unwrap(),
        out: ctx.zeros::<f32>(n).unwrap(),
    }
}

type Call = (&'static str, gpuprim::Result<()>);

/// Every kind of call a user makes, each with its result (values dropped).
fn every_call(ctx: &Ctx, v: &mut Inputs) -> Vec<Call> {
    let Inputs { a, b, keys, out } = v;
    let mut calls: Vec<Call> = vec![
        ("upload", ctx.upload(&[1.0f32, 2.0]).map(drop)),
        ("upload (empty)", ctx.upload::<u32>(&[]).map(drop)),
        ("zeros", ctx.zeros::<f32>(100).map(drop)),
        ("to_vec", a.to_vec().map(drop)),
        (
            "to_vec_async",
            pollster::block_on(a.to_vec_async()).map(drop),
        ),
        ("copy_from", out.copy_from(a)),
        ("try_clone", a.try_clone().map(drop)),
        ("map", ctx.map(a, "x * 2.0").map(drop)),
        (
            "map (new expression)",
            ctx.map(a, "x * 3.5 + 1.0").map(drop),
        ),
        ("map_into", ctx.map_into(a, "x + 1.0", out)),
        ("zip", ctx.zip(a, b, "a + b").map(drop)),
        ("zip_into", ctx.zip_into(a, b, "a * b", out)),
        ("reduce", ctx.reduce(a).map(drop)),
        ("reduce_with", ctx.reduce_with(a, Reduce::Max).map(drop)),
        (
            "reduce_with custom",
            ctx.reduce_with(a, Reduce::custom("max(abs(a), abs(b))", 0.0))
                .map(drop),
        ),
        (
            "reduce_async",
            pollster::block_on(ctx.reduce_async(a)).map(drop),
        ),
        ("dot", ctx.dot(a, b).map(drop)),
        (
            "dot_async",
            pollster::block_on(ctx.dot_async(a, b)).map(drop),
        ),
        ("atomic_sum", ctx.atomic_sum(keys).map(drop)),
        ("histogram", ctx.histogram(keys, 16).map(drop)),
        (
            "histogram_range",
            ctx.histogram_range(a, 8, -1000.0, 1000.0).map(drop),
        ),
        ("scan", ctx.scan(keys).map(drop)),
        ("scan_exclusive", ctx.scan_exclusive(keys).map(drop)),
        (
            "scan_with",
            ctx.scan_with(a, &Scan::inclusive(ScanOp::Max)).map(drop),
        ),
        ("compact", ctx.compact(a, "x > 0.0").map(drop)),
        (
            "compact_indices",
            ctx.compact_indices(a, "x < 0.0").map(drop),
        ),
        (
            "fill_random",
            ctx.fill_random(out, Rng::WangHash { seed: 7 }),
        ),
        (
            "fill_uniform",
            ctx.fill_uniform(out, Rng::Pcg32 { seed: 1 }, 0.0, 1.0),
        ),
        (
            "fill_normal",
            ctx.fill_normal(out, Rng::Xorshift32 { seed: 2 }, 0.0, 1.0),
        ),
        ("xorshift128_state", ctx.xorshift128_state(64, 3).map(drop)),
    ];
    let grid = |ctx: &Ctx, a: &GpuVec<f32>, out: &mut GpuVec<f32>, which: u32| {
        let src = Grid2D::new(a, 64, 64)?;
        let mut dst = Grid2DMut::new(out, 64, 64)?;
        match which {
            0 => ctx.map2d(&src, &mut dst, "load(x, y + 1) * 0.5", Swizzle::Off),
            1 => ctx.transpose(&src, &mut dst, Swizzle::Off),
            _ => ctx.blur_vertical(&src, &mut dst, 2, Swizzle::Off),
        }
    };
    calls.push(("map2d", grid(ctx, a, out, 0)));
    calls.push(("transpose", grid(ctx, a, out, 1)));
    calls.push(("blur_vertical", grid(ctx, a, out, 2)));
    calls.push(("flush", ctx.flush()));
    calls.push(("synchronize", ctx.synchronize()));
    calls.push(("to_vec (again)", out.to_vec().map(drop)));
    calls
}

/// Asserts that every call returned `DeviceLost`, naming the ones that did not.
fn assert_all_lost(calls: &[Call]) {
    let wrong: Vec<String> = calls
        .iter()
        .filter(|(_, r)| !matches!(r, Err(Error::DeviceLost { .. })))
        .map(|(name, r)| format!("{name}: {r:?}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} calls after the loss did not return DeviceLost:\n{}",
        wrong.len(),
        calls.len(),
        wrong.join("\n")
    );
}

/// Asserts that every call succeeded (the same calls on a live device: so the test above
/// tests calls that can work).
fn assert_all_ok(calls: &[Call]) {
    let wrong: Vec<String> = calls
        .iter()
        .filter(|(_, r)| r.is_err())
        .map(|(name, r)| format!("{name}: {r:?}"))
        .collect();
    assert!(wrong.is_empty(), "calls failed:\n{}", wrong.join("\n"));
}

/// A new context on the same adapter works and computes the right thing.
fn new_ctx_works() {
    let ctx = own_ctx();
    let host = random_vec::<u32>(3000, 9);
    let v = ctx.upload(&host).unwrap();
    let want: Vec<u32> = host.iter().map(|x| x.wrapping_mul(3)).collect();
    assert_all_eq(
        &ctx.map(&v, "x * 3u").unwrap().to_vec().unwrap(),
        &want,
        "map on a new Ctx after a loss",
    );
    let sum = host.iter().fold(0u32, |s, &x| s.wrapping_add(x));
    assert_eq!(ctx.reduce(&v).unwrap(), sum);
}

#[test]
fn every_call_after_destroy_is_device_lost() {
    let _turn = one_at_a_time();
    let ctx = own_ctx();
    let mut v = inputs(&ctx);
    // Every call works first (and compiles its kernels, so both cached and new kernels
    // meet the loss: "map (new expression)" is compiled only after it).
    let before = every_call(&ctx, &mut v);
    assert_all_ok(&before);
    ctx.device().destroy();
    // No synchronize or poll in between: the very next call must know.
    assert_all_lost(&every_call(&ctx, &mut v));
    // And again, with the loss already known.
    assert_all_lost(&every_call(&ctx, &mut v));
    let err = ctx.reduce(&v.a).unwrap_err();
    assert!(err.to_string().contains("create a new Ctx"), "{err}");
    drop(v);
    drop(ctx);
    new_ctx_works();
}

#[test]
fn destroy_through_a_clone_of_the_wgpu_device() {
    let _turn = one_at_a_time();
    // gpuprim does not see this destroy happen; it learns of it from the device.
    let ctx = own_ctx();
    let mut v = inputs(&ctx);
    assert_all_ok(&every_call(&ctx, &mut v));
    let device: gpuprim::wgpu::Device = (*ctx.device()).clone();
    device.destroy();
    assert_all_lost(&every_call(&ctx, &mut v));
    drop(v);
    drop(ctx);
    new_ctx_works();
}

#[test]
fn destroying_a_shared_device_ends_its_contexts_and_the_next_gets_a_new_device() {
    let _turn = one_at_a_time();
    // Limits of this test alone (no kernel uses 1D textures), so that the device destroyed
    // here is shared by this test's contexts only.
    let mut limits = own_ctx().info().limits.clone();
    limits.max_texture_dimension_1d = limits.max_texture_dimension_1d.min(1000) - 1;
    let shared = || Ctx::builder().limits(limits.clone()).build().unwrap();
    let (a, b) = (shared(), shared());
    assert_eq!(
        *a.device(),
        *b.device(),
        "contexts of one configuration share a device"
    );
    let v = b.upload(&[1u32, 2, 3]).unwrap();
    assert_eq!(b.reduce(&v).unwrap(), 6);
    a.device().destroy();
    assert!(
        matches!(b.reduce(&v), Err(Error::DeviceLost { .. })),
        "a context sharing the destroyed device"
    );
    // A new context works, so it is not on the destroyed device. (Device handles of
    // different wgpu instances, as on GL, may compare equal: the work is the proof.)
    let c = shared();
    let w = c.upload(&[4u32, 5, 6]).unwrap();
    assert_eq!(c.reduce(&w).unwrap(), 15);
}

/// The sequence of the issue that found it, on the default shared device: failed on an
/// H200 (it passed on lavapipe). No other test of this binary uses `Ctx::new`'s device.
#[test]
fn after_ctx_new_device_is_destroyed_the_next_ctx_new_works() {
    let _turn = one_at_a_time();
    let lost = Ctx::new().unwrap();
    lost.device().destroy();
    let ctx = Ctx::new().unwrap();
    assert_eq!(
        ctx.reduce(&ctx.upload(&[1.0f32, 2.0, 3.0]).unwrap())
            .unwrap(),
        6.0
    );
    assert!(matches!(
        lost.upload(&[1.0f32]),
        Err(Error::DeviceLost { .. })
    ));
}

/// Destroyed through a clone of the wgpu handle, which gpuprim never sees: no poll has
/// run the lost callback when the next context is made, and it still gets a new device.
#[test]
fn a_shared_device_destroyed_behind_gpuprims_back_is_not_handed_out_again() {
    let _turn = one_at_a_time();
    let mut limits = own_ctx().info().limits.clone();
    limits.max_texture_dimension_1d = limits.max_texture_dimension_1d.min(1000) - 2;
    let shared = || Ctx::builder().limits(limits.clone()).build().unwrap();
    let a = shared();
    let v = a.upload(&[1u32, 2, 3]).unwrap();
    assert_eq!(a.reduce(&v).unwrap(), 6);
    let raw: gpuprim::wgpu::Device = (*a.device()).clone();
    raw.destroy();
    let b = shared();
    let w = b.upload(&[4u32, 5, 6]).unwrap();
    assert_eq!(b.reduce(&w).unwrap(), 15);
}

#[test]
fn destroy_with_held_calls() {
    let _turn = one_at_a_time();
    let ctx = Ctx::builder()
        .dedicated_device(true)
        .batch_limit(64)
        .assume_gpu_busy(true)
        .hold_max(Duration::MAX)
        .build()
        .unwrap();
    let mut v = inputs(&ctx);
    assert_all_ok(&every_call(&ctx, &mut v));
    // Held calls (the context treats the GPU as busy, so nothing is submitted).
    for _ in 0..5 {
        ctx.map_into(&v.a, "x + 1.0", &mut v.out).unwrap();
    }
    assert_eq!(ctx.held_calls(), 5);
    ctx.device().destroy();
    assert_all_lost(&every_call(&ctx, &mut v));
    assert_eq!(ctx.held_calls(), 0, "held work is dropped or submitted");
    drop(v);
    drop(ctx);
    new_ctx_works();
}

#[test]
fn destroy_while_a_long_batch_is_in_flight() {
    let _turn = one_at_a_time();
    let ctx = own_ctx();
    let mut v = inputs(&ctx);
    assert_all_ok(&every_call(&ctx, &mut v));
    // Work that takes the software adapter about a second (much less on a GPU), with
    // read-backs waiting on it in other threads, blocking and async.
    let n = 1 << 22;
    let big = ctx.upload(&random_vec::<f32>(n, 4)).unwrap();
    let mut big_out = ctx.zeros::<f32>(n).unwrap();
    for k in 0..16 {
        ctx.map_into(&big, &format!("sqrt(abs(x)) * {k}.0 + x"), &mut big_out)
            .unwrap();
    }
    ctx.flush().unwrap();
    let (tx, rx) = mpsc::channel();
    let pending: Vec<_> = (0..2)
        .map(|t| {
            let tx = tx.clone();
            let out = big_out.try_clone().unwrap();
            std::thread::spawn(move || {
                let r = if t == 0 {
                    out.to_vec()
                } else {
                    pollster::block_on(out.to_vec_async())
                };
                tx.send((t, r)).unwrap();
            })
        })
        .collect();
    ctx.device().destroy();
    assert_all_lost(&every_call(&ctx, &mut v));
    // The read-backs started before the loss resolve: with the data (their work was
    // queued before the loss) or with DeviceLost, never hanging.
    for _ in 0..2 {
        let (t, r) = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("a read-back pending at the loss never resolved");
        match r {
            Ok(data) => assert_eq!(data.len(), n, "read-back {t}"),
            Err(Error::DeviceLost { .. }) => {}
            Err(e) => panic!("read-back {t}: {e:?}"),
        }
    }
    for p in pending {
        p.join().unwrap();
    }
    assert_all_lost(&every_call(&ctx, &mut v));
    drop((v, big, big_out));
    drop(ctx);
    new_ctx_works();
}

/// Runs the tests above again, each in a process of its own, and checks that they print
/// nothing to stderr (a lost device is an error value, not a message).
#[test]
fn a_lost_device_prints_nothing() {
    if std::env::var_os("GPUPRIM_CHILD").is_some() {
        return;
    }
    let _turn = one_at_a_time();
    let exe = std::env::current_exe().unwrap();
    for name in [
        "every_call_after_destroy_is_device_lost",
        "destroy_through_a_clone_of_the_wgpu_device",
        "destroy_with_held_calls",
        "destroy_while_a_long_batch_is_in_flight",
    ] {
        let out = std::process::Command::new(&exe)
            .args([name, "--exact", "--test-threads=1"])
            .env("GPUPRIM_CHILD", "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{name} failed in a process of its own:\n{stdout}\n{stderr}"
        );
        assert!(stdout.contains("1 passed"), "{name} did not run:\n{stdout}");
        assert!(
            stderr.trim().is_empty(),
            "{name} printed to stderr:\n{stderr}"
        );
    }
}

/// (From tests/errors.rs, where it ran beside the other tests' devices.)
#[test]
fn the_loss_error_says_to_make_a_new_ctx() {
    let _turn = one_at_a_time();
    let ctx = own_ctx();
    let a = ctx.upload(&[1u32, 2]).unwrap();
    ctx.device().destroy();
    let _ = ctx.synchronize();
    let err = ctx.map(&a, "x").unwrap_err();
    assert!(matches!(err, Error::DeviceLost { .. }), "{err:?}");
    assert!(err.to_string().contains("create a new Ctx"), "{err}");
    assert!(matches!(a.to_vec().unwrap_err(), Error::DeviceLost { .. }));
}
