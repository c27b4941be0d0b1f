//! Soak: threads sharing one `Ctx` make mixed primitive calls (map, zip, reduce, dot,
//! scan, compact, histogram, atomic_sum, fill_random, transpose) for a given time, and
//! every result is checked against the CPU. Prints the calls made and the failures;
//! exits with status 1 if any call failed.
//!
//! `cargo run --release --example soak -- [threads] [seconds] [max_len] [contexts]`
//! (defaults 8 threads, 60 s, vectors of up to 2^22 elements, 1 context; with several
//! contexts, each has `threads` threads of its own, all at once. `tests/faults.rs` runs the
//! same soak for 3 s on 4 threads; `tests/contexts.rs` runs it on 8 contexts in processes
//! of their own and checks how each process exits).

#[path = "../tests/soak/mod.rs"]
mod soak;

use std::time::Duration;

fn main() -> Result<(), gpuprim::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: u64| -> u64 {
        args.get(i)
            .map(|a| {
                a.parse()
                    .unwrap_or_else(|_| panic!("argument {a:?} is not a number"))
            })
            .unwrap_or(default)
    };
    let (threads, seconds, max_len, contexts) =
        (arg(0, 8), arg(1, 60), arg(2, 1 << 22), arg(3, 1).max(1));
    let ctx = gpuprim::Ctx::new()?;
    println!("adapter: {}", ctx.info());
    println!(
        "soak: {contexts} context(s) x {threads} threads, {seconds} s, vectors of 1..={max_len} elements"
    );
    let runs: Vec<_> = (0..contexts)
        .map(|c| {
            // The first context is `ctx`; the others are made on their own threads.
            let first = (c == 0).then(|| ctx.clone());
            std::thread::spawn(move || {
                let ctx = match first {
                    Some(ctx) => ctx,
                    None => gpuprim::Ctx::new().expect("a context"),
                };
                let d = Duration::from_secs(seconds);
                soak::run(&ctx, threads as usize, d, max_len as usize)
            })
        })
        .collect();
    let mut report = soak::Report::default();
    for r in runs {
        let r = r.join().expect("a soak thread panicked");
        report.calls += r.calls;
        report.failures += r.failures;
        report.first_failures.extend(r.first_failures);
        report.elapsed = report.elapsed.max(r.elapsed);
        if report.per_op.is_empty() {
            report.per_op = r.per_op;
        } else {
            for (total, (_, n)) in report.per_op.iter_mut().zip(r.per_op) {
                total.1 += n;
            }
        }
    }
    for (op, n) in &report.per_op {
        println!("  {op:<12} {n:>8} calls");
    }
    println!(
        "calls: {}, failures: {}, {:.1} s, {:.0} calls/s, pipelines compiled: {}",
        report.calls,
        report.failures,
        report.elapsed.as_secs_f64(),
        report.calls as f64 / report.elapsed.as_secs_f64(),
        ctx.pipelines_compiled()
    );
    for f in &report.first_failures {
        println!("  FAILED {f}");
    }
    if report.failures > 0 {
        std::process::exit(1);
    }
    Ok(())
}
