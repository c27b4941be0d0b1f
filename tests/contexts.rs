//! Several contexts in one process, each used by threads of its own, and the exit of that
//! process: the test a suite with one shared context never makes.
//!
//! This binary has no test harness (`harness = false`): run as the test, it starts itself
//! again as a child process, which makes the contexts, runs the soak's mixed calls on
//! each (map, zip, reduce, dot, scan, compact, histogram, atomics, random fills,
//! transposes, sorts, user kernels and calls recorded into an encoder; every result
//! checked against the CPU), drops the contexts and exits. The parent checks how each
//! child ended: exit status 0, no signal, within its deadline. A child past its deadline
//! is killed after its threads' kernel stacks are printed (Linux), so a hang fails the
//! test with a picture of what waited on what instead of hanging the suite.
//!
//! Environment (defaults are sized for the software adapter in CI):
//! - `GPUPRIM_STRESS_RUNS` (2): children, one after another;
//! - `GPUPRIM_STRESS_CONTEXTS` (8) and `GPUPRIM_STRESS_THREADS` (2 per context);
//! - `GPUPRIM_STRESS_SECONDS` (0: each thread makes every call once);
//! - `GPUPRIM_STRESS_MAX_LEN` (20000 elements a vector);
//! - `GPUPRIM_STRESS_DEADLINE` (600 s a child).
//!
//! On the GPU machine: `GPUPRIM_STRESS_RUNS=200 GPUPRIM_STRESS_MAX_LEN=70000 contexts-*`
//! (docs/PERFORMANCE.md has the figures).

mod common;
mod soak;

use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::setting;

/// Set in the child's environment: this process is the child.
const CHILD: &str = "GPUPRIM_STRESS_CHILD";

fn main() {
    if std::env::var_os(CHILD).is_some() {
        child();
    } else {
        parent();
    }
}

/// The contexts, their threads and the checks; returns only by exiting the process.
fn child() {
    let contexts = setting("GPUPRIM_STRESS_CONTEXTS", 8) as usize;
    let threads = setting("GPUPRIM_STRESS_THREADS", 2) as usize;
    let seconds = setting("GPUPRIM_STRESS_SECONDS", 0);
    let max_len = setting("GPUPRIM_STRESS_MAX_LEN", 20_000) as usize;
    // Each context is made, used and dropped on a thread of its own, all at once: devices
    // are created, worked and torn down concurrently, then the process exits.
    let handles: Vec<_> = (0..contexts)
        .map(|c| {
            std::thread::spawn(move || {
                let ctx = gpuprim::Ctx::new()
                    .unwrap_or_else(|e| panic!("context {c}: no GPU context: {e}"));
                let report = soak::run(&ctx, threads, Duration::from_secs(seconds), max_len);
                (ctx.info().name.clone(), report)
            })
        })
        .collect();
    let mut calls = 0;
    let mut failures = 0;
    let mut adapter = String::new();
    for (c, h) in handles.into_iter().enumerate() {
        match h.join() {
            Ok((name, report)) => {
                calls += report.calls;
                failures += report.failures;
                for f in &report.first_failures {
                    println!("context {c}: FAILED {f}");
                }
                adapter = name;
            }
            Err(_) => {
                println!("context {c}: its thread panicked");
                failures += 1;
            }
        }
    }
    println!(
        "{contexts} contexts x {threads} threads on {adapter}: {calls} calls checked, \
         {failures} failed"
    );
    std::process::exit(i32::from(failures > 0));
}

/// How a child ended.
enum Ending {
    Exited(ExitStatus),
    /// Killed at its deadline; what its threads were waiting in.
    Hung(String),
}

fn parent() {
    let runs = setting("GPUPRIM_STRESS_RUNS", 2);
    let deadline = Duration::from_secs(setting("GPUPRIM_STRESS_DEADLINE", 600));
    let me = std::env::current_exe().expect("the test binary's path");
    let mut bad = Vec::new();
    let start = Instant::now();
    for run in 0..runs {
        let mut child = Command::new(&me)
            .env(CHILD, "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting the child");
        let ending = wait(&mut child, deadline);
        let mut out = String::new();
        if let Some(mut stdout) = child.stdout.take() {
            use std::io::Read;
            let _ = stdout.read_to_string(&mut out);
        }
        let verdict = match &ending {
            Ending::Exited(status) if status.success() => None,
            Ending::Exited(status) => Some(describe(status)),
            Ending::Hung(stacks) => Some(format!(
                "still running after {} s, killed; its threads:\n{stacks}",
                deadline.as_secs()
            )),
        };
        if runs <= 3 || verdict.is_some() {
            print!("run {run}: {out}");
        }
        if let Some(v) = verdict {
            println!("run {run} FAILED: {v}");
            bad.push(run);
        }
    }
    println!(
        "contexts: {} of {runs} runs exited 0 ({:.1} s)",
        runs - bad.len() as u64,
        start.elapsed().as_secs_f64()
    );
    // The plain closing line a test runner's summary reads.
    println!("{} passed, {} failed", runs - bad.len() as u64, bad.len());
    if !bad.is_empty() {
        println!("contexts: failed runs {bad:?}");
        std::process::exit(1);
    }
}

fn describe(status: &ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal} (11 is a segmentation fault)");
        }
    }
    format!("exit status {status}")
}

/// Waits for `child` up to `deadline`; past it, records its threads and kills it.
fn wait(child: &mut std::process::Child, deadline: Duration) -> Ending {
    let until = Instant::now() + deadline;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ending::Exited(status),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let stacks = threads_of(child.id());
                let _ = child.kill();
                let _ = child.wait();
                return Ending::Hung(stacks);
            }
        }
    }
}

/// Each thread's name, what it waits in (`wchan`) and its kernel stack, where /proc has
/// them (the stack needs root).
fn threads_of(pid: u32) -> String {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return "(no /proc here)".into();
    };
    let mut out = String::new();
    for task in tasks.flatten() {
        let path = task.path();
        let read = |f: &str| {
            std::fs::read_to_string(path.join(f))
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        out.push_str(&format!(
            "  {} {:?} wchan={} state={}\n",
            task.file_name().to_string_lossy(),
            read("comm"),
            read("wchan"),
            read("stat").split_whitespace().nth(2).unwrap_or("?"),
        ));
        for line in read("stack").lines().take(8) {
            out.push_str(&format!("      {line}\n"));
        }
    }
    out
}
