//! Waiting for the GPU: a wait past the context's limit is `Error::Timeout` and the
//! context stays usable; async waits share one waiter thread per context.
//!
//! No test here depends on how fast the GPU is: the timeout tests make work longer and
//! longer, and try again, until a wait with a zero limit has seen it unfinished (usually
//! the first round; lavapipe sometimes finishes a round before the look), and fail if it
//! never does. Mesa's GL device
//! (llvmpipe) runs each dispatch inside the submission, so no wait there can find work
//! unfinished: on it the tests check that a zero limit still returns the right data.
//!
//! The tests take turns (`one_at_a_time`): their contexts share one device, and another
//! test's wait on it (`synchronize` waits for the whole queue) can finish this test's work
//! and run its callback before a zero limit is checked.

mod common;

use std::time::Duration;

use common::*;
use gpuprim::{Ctx, Error, GpuVec};

/// A context of its own: the limit set here must not reach other tests' contexts.
fn own_ctx() -> Ctx {
    Ctx::new().unwrap_or_else(|e| panic!("no GPU context for the tests: {e}"))
}

/// Whether every submission has finished when `queue.submit` returns: Mesa's software
/// GL device runs compute dispatches on the submitting thread.
fn finishes_inside_submit(ctx: &Ctx) -> bool {
    let info = ctx.info();
    info.backend == gpuprim::wgpu::Backend::Gl && info.device_type == gpuprim::wgpu::DeviceType::Cpu
}

/// Iterations of the busy loop per element: below llvmpipe's 65535 loop iterations per
/// invocation (an element-wise kernel may take several elements an invocation), past
/// which it ends loops silently.
const SPINS: u32 = 2_000;

/// `rounds` calls of a kernel that hashes every element `SPINS` times, each call reading
/// what the one before wrote; returns the CPU's answer.
fn busy_work(ctx: &Ctx, v: &mut GpuVec<u32>, host: &[u32], rounds: u32) -> Vec<u32> {
    for _ in 0..rounds {
        ctx.elementwise(
            "var h = v; for (var i = 0u; i < spins; i++) { h = (h ^ (h >> 15u)) * 2246822519u + i; } v = h;",
        )
        .read_write("v", v)
        .scalar("spins", SPINS)
        .run()
        .unwrap();
    }
    host.iter()
        .map(|&x| {
            let mut h = x;
            for _ in 0..rounds {
                for i in 0..SPINS {
                    h = (h ^ (h >> 15)).wrapping_mul(2_246_822_519).wrapping_add(i);
                }
            }
            h
        })
        .collect()
}

/// Runs longer and longer work, reading it back through `read` with a zero limit, until
/// a read-back times out; then reads the same vector again with the default limit and
/// checks every element. Fails if no read-back ever timed out.
fn times_out_then_reads(read: impl Fn(&GpuVec<u32>) -> gpuprim::Result<Vec<u32>>, op: &str) {
    let ctx = own_ctx();
    let n = 1 << 14;
    if finishes_inside_submit(&ctx) {
        let host = random_vec::<u32>(n, 1);
        let mut v = ctx.upload(&host).unwrap();
        let want = busy_work(&ctx, &mut v, &host, 1);
        ctx.set_wait_timeout(Duration::ZERO);
        assert_all_eq(&read(&v).unwrap(), &want, "a zero limit on finished work");
        return;
    }
    for rounds in [1, 16, 16, 16, 16, 16, 256] {
        let host = random_vec::<u32>(n, u64::from(rounds));
        let mut v = ctx.upload(&host).unwrap();
        ctx.synchronize().unwrap();
        let want = busy_work(&ctx, &mut v, &host, rounds);
        ctx.set_wait_timeout(Duration::ZERO);
        let first = read(&v);
        ctx.set_wait_timeout(gpuprim::DEFAULT_WAIT_TIMEOUT);
        match first {
            Err(Error::Timeout {
                op: named,
                waited,
                limit,
            }) => {
                assert_eq!(named, op);
                assert_eq!(limit, Duration::ZERO);
                let message = Error::Timeout {
                    op: named,
                    waited,
                    limit,
                }
                .to_string();
                assert!(message.contains("wait_timeout"), "{message}");
                // Usable: the same vector reads back whole once the work is done, and a
                // new call works.
                assert_all_eq(&read(&v).unwrap(), &want, "read back after a timeout");
                let w = ctx.map(&v, "x ^ 1u").unwrap();
                let flipped: Vec<u32> = want.iter().map(|x| x ^ 1).collect();
                assert_all_eq(&w.to_vec().unwrap(), &flipped, "a call after a timeout");
                return;
            }
            Ok(got) => assert_all_eq(&got, &want, "a read-back that beat the zero limit"),
            Err(e) => panic!("{op} with a zero limit: {e}"),
        }
    }
    panic!("{op}: no read-back timed out, even of 256 rounds of work, with a zero limit");
}

#[test]
fn a_blocking_wait_past_the_limit_is_a_timeout_and_the_context_stays_usable() {
    let _turn = one_at_a_time();
    times_out_then_reads(|v| v.to_vec(), "GpuVec::to_vec");
}

#[test]
fn an_async_wait_past_the_limit_is_a_timeout_and_the_context_stays_usable() {
    let _turn = one_at_a_time();
    times_out_then_reads(|v| pollster::block_on(v.to_vec_async()), "GpuVec::to_vec");
}

#[test]
fn synchronize_past_the_limit_is_a_timeout() {
    let _turn = one_at_a_time();
    let ctx = own_ctx();
    let n = 1 << 14;
    if finishes_inside_submit(&ctx) {
        ctx.set_wait_timeout(Duration::ZERO);
        ctx.synchronize().unwrap();
        return;
    }
    for rounds in [1, 16, 16, 16, 16, 16, 256] {
        let host = random_vec::<u32>(n, 7);
        let mut v = ctx.upload(&host).unwrap();
        ctx.synchronize().unwrap();
        let want = busy_work(&ctx, &mut v, &host, rounds);
        ctx.set_wait_timeout(Duration::ZERO);
        let first = ctx.synchronize();
        ctx.set_wait_timeout(gpuprim::DEFAULT_WAIT_TIMEOUT);
        match first {
            Err(Error::Timeout { op, .. }) => {
                assert_eq!(op, "Ctx::synchronize");
                ctx.synchronize().unwrap();
                assert_all_eq(&v.to_vec().unwrap(), &want, "after synchronize");
                return;
            }
            Ok(()) => {}
            Err(e) => panic!("synchronize with a zero limit: {e}"),
        }
    }
    panic!("synchronize never timed out, even after 256 rounds of work, with a zero limit");
}

#[test]
fn the_builder_sets_the_limit() {
    let _turn = one_at_a_time();
    let ctx = Ctx::builder()
        .wait_timeout(Duration::from_secs(7))
        .build()
        .unwrap();
    assert_eq!(ctx.wait_timeout(), Duration::from_secs(7));
    assert_eq!(own_ctx().wait_timeout(), gpuprim::DEFAULT_WAIT_TIMEOUT);
}

/// Many async read-backs in flight at once: every one right, and one waiter thread for
/// all of them (not one thread each).
#[test]
fn async_read_backs_share_one_waiter_thread() {
    let _turn = one_at_a_time();
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll, Waker};

    let ctx = own_ctx();
    let hosts: Vec<Vec<u32>> = (0..200)
        .map(|k| random_vec::<u32>(1000 + k, k as u64))
        .collect();
    let vecs: Vec<GpuVec<u32>> = hosts
        .iter()
        .map(|h| ctx.map(&ctx.upload(h).unwrap(), "x * 5u").unwrap())
        .collect();
    type ReadBack<'a> = Pin<Box<dyn Future<Output = gpuprim::Result<Vec<u32>>> + 'a>>;
    let mut futures: Vec<ReadBack<'_>> = vecs
        .iter()
        .map(|v| Box::pin(v.to_vec_async()) as _)
        .collect();
    let mut results: Vec<Option<Vec<u32>>> = vec![None; futures.len()];
    let mut cx = Context::from_waker(Waker::noop());
    let mut most_waiters = 0;
    let deadline = std::time::Instant::now() + Duration::from_secs(300);
    while results.iter().any(Option::is_none) {
        for (i, f) in futures.iter_mut().enumerate() {
            if results[i].is_none() {
                if let Poll::Ready(r) = f.as_mut().poll(&mut cx) {
                    results[i] = Some(r.unwrap());
                }
            }
        }
        most_waiters = most_waiters.max(waiter_threads());
        assert!(
            std::time::Instant::now() < deadline,
            "async read-backs never finished"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    for (k, (got, host)) in results.iter().zip(&hosts).enumerate() {
        let want: Vec<u32> = host.iter().map(|x| x.wrapping_mul(5)).collect();
        assert_all_eq(got.as_ref().unwrap(), &want, &format!("read-back {k}"));
    }
    if cfg!(target_os = "linux") {
        // Other tests' contexts may have waiters of their own, one each.
        assert!(
            (1..=5).contains(&most_waiters),
            "{most_waiters} waiter threads for 200 async read-backs of 5 contexts at most"
        );
    }
}

/// Threads of this process named "gpuprim waiter" (Linux; 0 elsewhere).
fn waiter_threads() -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm"))
                .is_ok_and(|c| c.trim() == "gpuprim waiter")
        })
        .count()
}
