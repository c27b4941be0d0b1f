//! Faults: the device refusing memory, a failing call inside a held batch, threads that
//! panic while they hold a `Ctx` clone, and a short soak of mixed calls from several
//! threads. Each test makes a context of its own.
//!
//! The tests take turns (`one_at_a_time`): one of them makes a device of its own, which
//! must not be made or dropped while another test's device works.

mod common;
mod soak;

use std::process::Command;
use std::time::Duration;

use common::*;
use gpuprim::{Ctx, Error, GpuVec};

/// Set in a child process this binary starts for a test that needs a process of its own.
const CHILD: &str = "GPUPRIM_FAULTS_CHILD";

fn is_child(role: &str) -> bool {
    std::env::var(CHILD).is_ok_and(|r| r == role)
}

/// Runs test `name` of this binary in a child process with `CHILD=role`, under a limit
/// of `kib` KiB of address space if given; its stdout, after checking it passed.
fn run_child(name: &str, role: &str, kib: Option<u64>) -> String {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = match kib {
        // `ulimit -v` is the portable way to lower RLIMIT_AS for one process.
        Some(kib) => {
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
                .arg(&exe);
            c
        }
        None => Command::new(&exe),
    };
    let out = cmd
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, role)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} ({role}) in a child process: {:?}\n{stdout}\n{stderr}",
        out.status
    );
    stdout
}

fn own_ctx() -> Ctx {
    Ctx::new().unwrap_or_else(|e| panic!("no GPU context for the tests: {e}"))
}

/// Vectors allocated per step until the device refuses: 2^26 u32 (256 MiB).
const CHUNK: usize = 1 << 26;

/// The child's part of `out_of_memory_when_the_device_refuses`: with `role` "measure"
/// it prints its address space after making a context and compiling its kernels, and
/// whether the adapter is a CPU; with "oom" it allocates until refused and checks that
/// the error is OutOfMemory and that the context and a held batch survive it.
#[test]
fn out_of_memory_child() {
    let _turn = one_at_a_time();
    let measure = is_child("measure");
    if !measure && !is_child("oom") {
        return; // only as a child (see the next test)
    }
    // The primary backends (Vulkan here): wgpu's GL backend does not report a failed
    // allocation (it handed out 16 GiB of buffers under a 2 GiB limit), so out of memory
    // cannot be caused through it. Without a Vulkan driver this says so and fails.
    // On a GPU the budget refuses (device memory is not address space the limit
    // counts); Mesa 22's lavapipe reports no budget, so there the limit does.
    let ctx = Ctx::builder()
        .backends(gpuprim::wgpu::Backends::PRIMARY)
        .memory_budget(5)
        .batch_limit(64)
        .assume_gpu_busy(true)
        .hold_max(Duration::MAX)
        .build()
        .unwrap_or_else(|e| {
            panic!("the out-of-memory test needs a Vulkan (Metal, DX12) adapter: {e}")
        });
    let host = random_vec::<u32>(10_000, 3);
    let a = ctx.upload(&host).unwrap();
    let mut b = poisoned::<u32>(&ctx, host.len());
    let mut c = poisoned::<u32>(&ctx, host.len());
    ctx.map_into(&a, "x + 1u", &mut b).unwrap();
    ctx.map_into(&b, "x * 3u", &mut c).unwrap();
    ctx.reduce(&c).unwrap();
    if measure {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let vm = status.lines().find(|l| l.starts_with("VmSize:")).unwrap();
        let cpu = ctx.info().device_type == gpuprim::wgpu::DeviceType::Cpu;
        println!("GPUPRIM_VM {} {cpu}", vm.split_whitespace().nth(1).unwrap());
        return;
    }
    // A held call before the refusal and one after: both must run, in order.
    ctx.map_into(&a, "x + 1u", &mut b).unwrap();
    let mut kept: Vec<GpuVec<u32>> = Vec::new();
    let refused = loop {
        match ctx.zeros::<u32>(CHUNK) {
            Ok(v) => kept.push(v),
            Err(e) => break e,
        }
        assert!(
            kept.len() < 64,
            "16 GiB allocated and never refused: the limit did not apply"
        );
    };
    match &refused {
        Error::OutOfMemory { bytes, what, .. } => {
            assert_eq!(*bytes, (CHUNK * 4) as u64);
            assert!(what.contains(&CHUNK.to_string()), "{what}");
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    assert!(
        refused.to_string().contains("free some GpuVecs"),
        "{refused}"
    );
    println!(
        "GPUPRIM_OOM refused after {} x {} MiB: {refused}",
        kept.len(),
        (CHUNK * 4) >> 20
    );
    ctx.map_into(&b, "x * 3u", &mut c).unwrap();
    assert_eq!(ctx.held_calls(), 2, "the refused call held nothing");
    // Freeing memory makes room again; the context works.
    kept.clear();
    let again = ctx.zeros::<u32>(CHUNK).unwrap();
    drop(again);
    let want: Vec<u32> = host
        .iter()
        .map(|x| x.wrapping_add(1).wrapping_mul(3))
        .collect();
    assert_all_eq(&c.to_vec().unwrap(), &want, "held calls around the refusal");
    assert_eq!(ctx.reduce(&c).unwrap(), sum(&want));
}

fn sum(v: &[u32]) -> u32 {
    v.iter().fold(0u32, |s, &x| s.wrapping_add(x))
}

/// Out of memory, caused for real: a child process allocates 256 MiB vectors until the
/// device refuses. On the software adapter its address space is limited to what it
/// uses plus 2 GiB, so lavapipe's allocation fails (Mesa 22's lavapipe has no
/// `VK_EXT_memory_budget`, so `CtxBuilder::memory_budget` cannot do it there); on a
/// GPU, `memory_budget(5)` refuses at 5% of the driver's budget. `examples/oom.rs`
/// fills a GPU's whole memory.
#[test]
fn out_of_memory_when_the_device_refuses() {
    let _turn = one_at_a_time();
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let measured = run_child("out_of_memory_child", "measure", None);
    let words: Vec<&str> = measured
        .lines()
        .find_map(|l| l.split("GPUPRIM_VM ").nth(1))
        .expect("the child printed its address space")
        .split_whitespace()
        .collect();
    let vm_kib: u64 = words[0].parse().unwrap();
    let limit = (words[1] == "true").then_some(vm_kib + (2 << 20));
    let out = run_child("out_of_memory_child", "oom", limit);
    assert!(out.contains("GPUPRIM_OOM refused after"), "{out}");
}

#[test]
fn one_failing_call_leaves_a_held_batch_unharmed() {
    let _turn = one_at_a_time();
    let ctx = Ctx::builder()
        .batch_limit(64)
        .assume_gpu_busy(true)
        .hold_max(Duration::MAX)
        .build()
        .unwrap();
    let host = random_vec::<u32>(5000, 8);
    let a = ctx.upload(&host).unwrap();
    let mut b = poisoned::<u32>(&ctx, host.len());
    let mut c = poisoned::<u32>(&ctx, host.len());
    let mut short = poisoned::<u32>(&ctx, 10);
    ctx.map_into(&a, "x + 1u", &mut b).unwrap();
    assert_eq!(ctx.held_calls(), 1);
    // Calls that fail at each stage: the argument checks, the expression check, the
    // compile, and a kernel's own check after compiling (the key of a histogram).
    assert!(matches!(
        ctx.map_into(&a, "x", &mut short),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        ctx.map_into(&a, "x +", &mut c),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        ctx.map_into(&a, "x * 2.5", &mut c),
        Err(Error::Compile { .. })
    ));
    assert!(matches!(
        ctx.histogram(&a, 0),
        Err(Error::InvalidArgument { .. })
    ));
    assert_eq!(ctx.held_calls(), 1, "failed calls hold nothing");
    ctx.map_into(&b, "x * 3u", &mut c).unwrap();
    ctx.map_into(&c, "x ^ 5u", &mut b).unwrap();
    assert_eq!(ctx.held_calls(), 3);
    let want: Vec<u32> = host
        .iter()
        .map(|x| x.wrapping_add(1).wrapping_mul(3) ^ 5)
        .collect();
    assert_all_eq(&b.to_vec().unwrap(), &want, "the batch around failed calls");
    assert_all_eq(&short.to_vec().unwrap(), &[u32::POISON; 10], "untouched");
}

/// Worker threads that check every result, on clones of `ctx`.
fn workers(ctx: &Ctx, threads: u32, rounds: u32) -> Vec<std::thread::JoinHandle<()>> {
    (0..threads)
        .map(|t| {
            let ctx = ctx.clone();
            std::thread::spawn(move || {
                for round in 0..rounds {
                    let host = random_vec::<u32>(2000 + 37 * t as usize, u64::from(t * 97 + round));
                    let v = ctx.upload(&host).unwrap();
                    let m = ctx.map(&v, "x * 7u + 1u").unwrap();
                    let want: Vec<u32> = host
                        .iter()
                        .map(|x| x.wrapping_mul(7).wrapping_add(1))
                        .collect();
                    assert_all_eq(&m.to_vec().unwrap(), &want, "worker map");
                    assert_eq!(ctx.reduce(&m).unwrap(), sum(&want));
                }
            })
        })
        .collect()
}

#[test]
fn threads_that_panic_while_holding_a_ctx_leave_it_working() {
    let _turn = one_at_a_time();
    // A device of its own: the caller's callback below must run in this test's poll, not
    // in a poll of another test's context on a shared device.
    let ctx = Ctx::builder()
        .dedicated_device(true)
        .batch_limit(8)
        .assume_gpu_busy(true)
        .hold_max(Duration::MAX)
        .build()
        .unwrap();
    let host = random_vec::<u32>(3000, 21);
    let a = ctx.upload(&host).unwrap();

    // A panic inside gpuprim's submission: a callback of the caller's own, registered on
    // the queue while it is idle, runs at wgpu's next poll, which is the one inside the
    // `queue.submit` of a flush, while gpuprim holds its lock on the held work (the lock
    // is poisoned on the way out). Alone, so no other thread's poll runs it first.
    let handle = {
        let ctx = ctx.clone();
        let a = ctx.upload(&host).unwrap();
        std::thread::spawn(move || {
            ctx.synchronize().unwrap();
            ctx.queue()
                .on_submitted_work_done(|| panic!("a callback of the caller's panicked"));
            let _held = ctx.map(&a, "x + 2u").unwrap();
            assert_eq!(ctx.held_calls(), 1);
            let _ = ctx.flush();
        })
    };
    let payload = handle
        .join()
        .expect_err("the callback's panic reached the caller");
    assert_eq!(
        payload.downcast_ref::<&str>(),
        Some(&"a callback of the caller's panicked")
    );

    // Workers on the same context while another thread panics in its own code with
    // calls of its own held.
    let running = workers(&ctx, 4, 6);
    let panicker = {
        let ctx = ctx.clone();
        let a = ctx.upload(&host).unwrap();
        std::thread::spawn(move || {
            let mut out = ctx.zeros::<u32>(a.len()).unwrap();
            for _ in 0..3 {
                ctx.map_into(&a, "x + 3u", &mut out).unwrap();
            }
            panic!("the caller's own code panicked");
        })
    };
    assert!(panicker.join().is_err());
    for w in running {
        w.join().expect("a worker failed");
    }
    // Everything still works from here, including what goes through the poisoned lock.
    let b = ctx.map(&a, "x ^ 0xffu").unwrap();
    let want: Vec<u32> = host.iter().map(|x| x ^ 0xff).collect();
    assert_all_eq(&b.to_vec().unwrap(), &want, "after the panics");
    assert_eq!(ctx.held_calls(), 0);
    ctx.synchronize().unwrap();
}

/// The soak of `examples/soak.rs`, short: 4 threads for 3 s on small vectors.
#[test]
fn short_soak() {
    let _turn = one_at_a_time();
    let ctx = own_ctx();
    let report = soak::run(&ctx, 4, Duration::from_secs(3), 20_000);
    assert_eq!(
        report.failures,
        0,
        "{} of {} calls failed:\n{}",
        report.failures,
        report.calls,
        report.first_failures.join("\n")
    );
    assert!(
        report.per_op.iter().all(|&(_, n)| n > 0),
        "every op ran: {:?}",
        report.per_op
    );
}
