//! A plain `main` that returns at a moment when gpuprim is busy, as users' programs do.
//! Run as the test (no harness), it starts itself again as a child for each moment and
//! checks that every child exited 0 and was not killed by a signal:
//!
//! - `dropping`: six contexts, each used by two threads; `main` returns as soon as the
//!   last one has sent its results, while its thread may still be dropping it;
//! - `using`: threads go on making calls on their contexts; `main` returns once each has
//!   checked one round;
//! - `making`: threads go on making contexts (and their first vectors) and dropping them;
//! - `polling`: threads go on waiting for long work (sorts of 2^18 keys, read back).
//!
//! `GPUPRIM_EXIT_RUNS` (1) children for each moment; `GPUPRIM_EXIT_MODE` runs one moment
//! (as the child does).

mod exiting;

use std::process::Command;
use std::sync::mpsc;
use std::time::Instant;

use gpuprim::Ctx;

const MODES: [&str; 4] = ["dropping", "using", "making", "polling"];

fn main() {
    match std::env::var("GPUPRIM_EXIT_MODE") {
        Ok(mode) => child(&mode),
        Err(_) => parent(),
    }
}

fn child(mode: &str) {
    let (tx, rx) = mpsc::channel::<Result<(), String>>();
    let threads = 6u64;
    for c in 0..threads {
        let tx = tx.clone();
        let mode = mode.to_string();
        std::thread::spawn(move || {
            let new_ctx = || Ctx::new().map_err(|e| format!("context {c}: {e}"));
            let len = 20_000 + 10_000 * c as usize;
            match mode.as_str() {
                "dropping" => {
                    let ctx = match new_ctx() {
                        Ok(ctx) => ctx,
                        Err(e) => return tx.send(Err(e)).unwrap(),
                    };
                    let r = std::thread::scope(|s| {
                        let ctx = &ctx;
                        let a = s.spawn(move || exiting::round(ctx, len, c * 2));
                        let b = s.spawn(move || exiting::round(ctx, len + 1, c * 2 + 1));
                        a.join().unwrap().and(b.join().unwrap())
                    });
                    let _ = tx.send(r);
                }
                "using" => {
                    let ctx = match new_ctx() {
                        Ok(ctx) => ctx,
                        Err(e) => return tx.send(Err(e)).unwrap(),
                    };
                    for round in 0.. {
                        let r = exiting::round(&ctx, len, c * 1000 + round);
                        if r.is_err() || round == 0 {
                            let _ = tx.send(r);
                        }
                    }
                }
                "making" => {
                    for round in 0u64.. {
                        let r = new_ctx().and_then(|ctx| {
                            let h = exiting::random_u32(1000, round);
                            let v = ctx.upload(&h).map_err(|e| e.to_string())?;
                            let sum = ctx.reduce(&v).map_err(|e| e.to_string())?;
                            let want = h.iter().fold(0u32, |a, &b| a.wrapping_add(b));
                            if sum == want {
                                Ok(())
                            } else {
                                Err("reduce was wrong".into())
                            }
                        });
                        if r.is_err() || round == 0 {
                            let _ = tx.send(r);
                        }
                    }
                }
                "polling" => {
                    let ctx = match new_ctx() {
                        Ok(ctx) => ctx,
                        Err(e) => return tx.send(Err(e)).unwrap(),
                    };
                    let h = exiting::random_u32(1 << 18, c);
                    let mut want = h.clone();
                    want.sort_unstable();
                    for round in 0u64.. {
                        let r = ctx
                            .upload(&h)
                            .and_then(|mut v| ctx.sort(&mut v).and_then(|()| v.to_vec()))
                            .map_err(|e| e.to_string())
                            .and_then(|got| {
                                if got == want {
                                    Ok(())
                                } else {
                                    Err("sort was wrong".into())
                                }
                            });
                        if r.is_err() || round == 0 {
                            let _ = tx.send(r);
                        }
                    }
                }
                other => panic!("GPUPRIM_EXIT_MODE={other:?}: one of {MODES:?}"),
            }
        });
    }
    for _ in 0..threads {
        if let Err(e) = rx.recv().unwrap() {
            eprintln!("{mode}: {e}");
            std::process::exit(1);
        }
    }
    println!("{mode}: every thread's results were right; main returns");
    // `main` returns: the process exits with the threads where they are.
}

fn parent() {
    let runs: u32 = std::env::var("GPUPRIM_EXIT_RUNS")
        .map(|v| v.parse().expect("GPUPRIM_EXIT_RUNS is a whole number"))
        .unwrap_or(1);
    let me = std::env::current_exe().expect("the test binary's path");
    let start = Instant::now();
    let mut failed = 0;
    for mode in MODES {
        let mut ok = 0;
        for run in 0..runs {
            let out = Command::new(&me)
                .env("GPUPRIM_EXIT_MODE", mode)
                .output()
                .expect("starting the child");
            if out.status.success() {
                ok += 1;
            } else {
                failed += 1;
                println!(
                    "{mode} run {run} FAILED: {}\n{}{}",
                    describe(&out.status),
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
        println!("exit while {mode}: {ok} of {runs} runs exited 0");
    }
    println!("{:.1} s", start.elapsed().as_secs_f64());
    println!(
        "{} passed, {failed} failed",
        MODES.len() as u32 * runs - failed
    );
    std::process::exit(i32::from(failed > 0));
}

fn describe(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    format!("{status}")
}
