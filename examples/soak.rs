//! Soak: threads sharing one `Ctx` make mixed primitive calls (map, zip, reduce, dot,
//! scan, compact, histogram, atomic_sum, fill_random, transpose) for a given time, and
//! every result is checked against the CPU. Prints the calls made and the failures;
//! exits with status 1 if any call failed.
//!
//! `cargo run --release --example soak -- [threads] [seconds] [max_len]`
//! (defaults 8 threads, 60 s, vectors of up to 2^22 elements; `tests/faults.rs` runs the
//! same soak for 3 s on 4 threads).

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
    let (threads, seconds, max_len) = (arg(0, 8), arg(1, 60), arg(2, 1 << 22));
    let ctx = gpuprim::Ctx::new()?;
    println!("adapter: {}", ctx.info());
    println!("soak: {threads} threads, {seconds} s, vectors of 1..={max_len} elements");
    let report = soak::run(
        &ctx,
        threads as usize,
        Duration::from_secs(seconds),
        max_len as usize,
    );
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
