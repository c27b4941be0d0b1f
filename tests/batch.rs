//! Calls made while the GPU is busy are held and submitted together: their order, and
//! the order against work submitted through `Ctx::queue`, must not change.
//!
//! Whether a call finds the GPU busy depends on how fast the GPU is, so these tests use
//! contexts that treat the GPU as busy (`CtxBuilder::assume_gpu_busy`) and, where they
//! count, hold work until a rule other than its age submits it (`hold_max`): what is
//! held, and how many submissions there are, is then the same on every adapter.
//!
//! The tests take turns (`one_at_a_time`): their contexts share one device, whose queue
//! must be idle when `idle_gpu_gets_calls_at_once` looks, with no other test's work on
//! it. (That test had a device of its own instead; on NVIDIA's driver, dropping it while
//! the other tests' device worked hung 3 of 200 runs: docs/multidevice-hang.md.)

mod common;

use std::time::Duration;

use common::*;
use gpuprim::{Ctx, Reduce};

/// A context of its own (so no other test's calls are held with this test's) that
/// treats the GPU as busy and holds up to `limit` calls, for as long as it takes.
fn batching_ctx(limit: usize) -> Ctx {
    Ctx::builder()
        .batch_limit(limit)
        .assume_gpu_busy(true)
        .hold_max(Duration::MAX)
        .build()
        .unwrap_or_else(|e| panic!("no GPU context for the tests: {e}"))
}

/// A chain of dependent calls (each reads what the one before wrote) against the same
/// chain on the CPU. Returns the most calls held at once and the submissions the chain
/// made before its read-backs.
fn chain(ctx: &Ctx) -> (usize, u64) {
    let len = 3001;
    let host = random_vec::<u32>(len, 5);
    let mut a = ctx.upload(&host).unwrap();
    let mut b = poisoned::<u32>(ctx, len);
    let mut sum = ctx.zeros::<u32>(1).unwrap();
    let mut want = host.clone();
    let mut most_held = 0;
    ctx.synchronize().unwrap();
    let submissions = ctx.submissions();
    for k in 0..40u32 {
        ctx.map_into(&a, &format!("x * 3u + {k}u"), &mut b).unwrap();
        let c = ctx.zip(&b, &a, "a ^ (b >> 3u)").unwrap();
        a.copy_from(&c).unwrap();
        for w in want.iter_mut() {
            let x = w.wrapping_mul(3).wrapping_add(k);
            *w = x ^ (*w >> 3);
        }
        most_held = most_held.max(ctx.held_calls());
    }
    ctx.reduce_with_into(&a, Reduce::Sum, &mut sum).unwrap();
    ctx.scan_into(&a, &mut b).unwrap();
    let submitted = ctx.submissions() - submissions;
    let scan: Vec<u32> = want
        .iter()
        .scan(0u32, |s, &x| {
            *s = s.wrapping_add(x);
            Some(*s)
        })
        .collect();
    assert_all_eq(&b.to_vec().unwrap(), &scan, "scan after a held chain");
    assert_all_eq(&a.to_vec().unwrap(), &want, "held chain of map/zip/copy");
    assert_eq!(sum.to_vec().unwrap()[0], *scan.last().unwrap());
    assert_eq!(ctx.held_calls(), 0, "a read-back submits everything held");
    (most_held, submitted)
}

#[test]
fn held_calls_keep_their_order() {
    let _turn = one_at_a_time();
    // 122 calls (40 x map, zip, copy; a reduce, a scan), held 64 at a time.
    let (most_held, submitted) = chain(&batching_ctx(64));
    assert_eq!(most_held, 63, "the 64th call submits the batch");
    assert_eq!(submitted, 1, "one full batch of 64 calls");
}

#[test]
fn unbatched_context_holds_nothing() {
    let _turn = one_at_a_time();
    let ctx = Ctx::builder()
        .batch_limit(1)
        .assume_gpu_busy(true)
        .build()
        .unwrap();
    let (most_held, submitted) = chain(&ctx);
    assert_eq!(most_held, 0);
    assert!(submitted >= 122, "one submission per call, {submitted}");
}

#[test]
fn batches_go_when_full() {
    let _turn = one_at_a_time();
    let ctx = &batching_ctx(4);
    let host = random_vec::<u32>(1000, 3);
    let a = ctx.upload(&host).unwrap();
    let mut b = poisoned::<u32>(ctx, 1000);
    let mut c = poisoned::<u32>(ctx, 1000);
    ctx.map_into(&a, "x + 1u", &mut b).unwrap();
    ctx.synchronize().unwrap();
    let start = ctx.submissions();
    let mut held = Vec::new();
    for _ in 0..10 {
        ctx.map_into(&b, "x + 1u", &mut c).unwrap();
        ctx.map_into(&c, "x + 1u", &mut b).unwrap();
        held.push(ctx.held_calls());
    }
    // Two calls an iteration, four to a batch.
    assert_eq!(held, [2, 0, 2, 0, 2, 0, 2, 0, 2, 0]);
    assert_eq!(ctx.submissions() - start, 5);
    let want: Vec<u32> = host.iter().map(|x| x.wrapping_add(21)).collect();
    assert_all_eq(&b.to_vec().unwrap(), &want, "20 held additions in order");
}

#[test]
fn idle_gpu_gets_calls_at_once() {
    let _turn = one_at_a_time();
    // Without the switch: once the GPU has finished everything, a call is submitted by
    // itself (the queue cannot become busy on its own: the tests take turns, so no other
    // test's work is on the shared device).
    let ctx = Ctx::builder().batch_limit(64).build().unwrap();
    let a = ctx.upload(&[1u32, 2, 3]).unwrap();
    for round in 0..3 {
        ctx.synchronize().unwrap();
        let before = ctx.submissions();
        let b = ctx.map(&a, "x * 5u").unwrap();
        assert_eq!(ctx.held_calls(), 0, "round {round}");
        assert_eq!(ctx.submissions(), before + 1, "round {round}");
        assert_eq!(b.to_vec().unwrap(), vec![5, 10, 15]);
    }
}

#[test]
fn own_submissions_run_after_held_calls() {
    let _turn = one_at_a_time();
    let ctx = &batching_ctx(64);
    // Handles taken before the gpuprim call and used after it.
    let (device, queue) = (ctx.device(), ctx.queue());
    let host = random_vec::<u32>(1000, 11);
    let a = ctx.upload(&host).unwrap();
    let mut b = poisoned::<u32>(ctx, 1000);
    ctx.map_into(&a, "x + 7u", &mut b).unwrap();
    assert_eq!(ctx.held_calls(), 1);
    // Our own copy of b into c, then our own write into d's first element.
    let c = poisoned::<u32>(ctx, 1000);
    let mut enc = device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(b.buffer(), 0, c.buffer(), 0, 4000);
    queue.submit([enc.finish()]);
    assert_eq!(ctx.held_calls(), 0);
    let want: Vec<u32> = host.iter().map(|x| x.wrapping_add(7)).collect();
    assert_all_eq(
        &c.to_vec().unwrap(),
        &want,
        "copy submitted through ctx.queue()",
    );
    // A write_buffer after a held call must land after it, not before.
    ctx.map_into(&a, "x + 9u", &mut b).unwrap();
    assert_eq!(ctx.held_calls(), 1);
    queue.write_buffer(b.buffer(), 0, bytemuck::bytes_of(&42u32));
    let mut want: Vec<u32> = host.iter().map(|x| x.wrapping_add(9)).collect();
    want[0] = 42;
    assert_all_eq(
        &b.to_vec().unwrap(),
        &want,
        "write_buffer through ctx.queue()",
    );
}

#[test]
fn flush_submits_held_calls() {
    let _turn = one_at_a_time();
    let ctx = &batching_ctx(64);
    let a = ctx.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let b = ctx.map(&a, "x * 2.0").unwrap();
    let c = ctx.map(&b, "x + 0.5").unwrap();
    assert_eq!(ctx.held_calls(), 2);
    let before = ctx.submissions();
    ctx.flush().unwrap();
    assert_eq!(ctx.held_calls(), 0);
    assert_eq!(
        ctx.submissions(),
        before + 1,
        "both calls in one submission"
    );
    ctx.synchronize().unwrap();
    assert_eq!(c.to_vec().unwrap(), vec![2.5, 4.5, 6.5]);
}

#[test]
fn held_work_waits_at_most_100_us() {
    let _turn = one_at_a_time();
    // The GPU is treated as busy; the age rule (100 us, the default) is the only thing
    // that submits held work before the batch limit.
    let ctx = &Ctx::builder()
        .batch_limit(64)
        .assume_gpu_busy(true)
        .build()
        .unwrap();
    let a = ctx.upload(&random_vec::<u32>(1000, 13)).unwrap();
    let mut b = poisoned::<u32>(ctx, 1000);
    let mut c = poisoned::<u32>(ctx, 1000);
    let want: Vec<u32> = a
        .to_vec()
        .unwrap()
        .iter()
        .map(|x| (x.wrapping_add(1).wrapping_mul(3)) ^ 5)
        .collect();
    for round in 0..2 {
        // Round 0 compiles the kernels between the calls; round 1 finds them cached.
        ctx.map_into(&a, "x + 1u", &mut b).unwrap();
        assert_eq!(
            ctx.held_calls(),
            1,
            "round {round}: nothing was held before"
        );
        std::thread::sleep(Duration::from_millis(1));
        ctx.map_into(&b, "x * 3u", &mut c).unwrap();
        assert_eq!(
            ctx.held_calls(),
            0,
            "round {round}: work held for 1 ms goes with the next call"
        );
        ctx.map_into(&c, "x ^ 5u", &mut b).unwrap();
        assert_eq!(ctx.held_calls(), 1, "round {round}: a new hold starts");
        assert_all_eq(&b.to_vec().unwrap(), &want, "calls across the age rule");
    }
}
