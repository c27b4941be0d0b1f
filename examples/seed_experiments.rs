//! The articles' experiments, as tables: what `docs/SEED_EXPERIMENTS.md` explains and
//! sets next to the articles' figures.
//!
//! 1. **Dot product, 1 / 32 / 4096 threads** (the dot-product article): `a[i] = b[i] =
//!    1 / (i + 1)` in f32 (so `sqrt(6 * dot)` tends to pi), at 2^18 and 2^27 elements.
//!    T threads each accumulate every T-th product (grid-stride, coalesced), then one
//!    workgroup of 256 sums the T partials with a shared-memory tree. 1 thread is one
//!    workgroup of 1, 32 threads one workgroup of 32, 4096 threads 128 workgroups of 32,
//!    as in the article. Next to them, gpuprim's `ctx.dot`.
//! 2. **Coalesced vs strided**: the same kernel and work at 4096 threads (and 65536),
//!    once with thread t reading t, t + T, ... (neighbours read neighbours) and once
//!    reading the block t * n/T .. (t + 1) * n/T (neighbours read n/T apart).
//! 3. **Workgroup size sweep** (the workgroup-size article): the compute-bound SinRandom
//!    kernel (2048 dependent iterations of a sine and a division) on 2^18 threads, in
//!    workgroups of 1, 2, 4, ..., 256 threads.
//!
//! Times are GPU timestamps (median of rounds; a call longer than a second is timed
//! once), every repetition in one submission; bandwidth counts `8 n` bytes (a and b read
//! once). The article timed with a millisecond host clock around dispatch + read-back.
//!
//! Checks (the run fails at the end if one fails): each dot kernel and `ctx.dot` on
//! integer-valued data (`a = 1`, `b = 1 + i % 3`), where every order of summation is
//! exact, must equal the exact sum; every timed dot must be within the rounding bound
//! of its summation order, `gamma(k) * sum |a_i b_i|` with `k` the longest chain of
//! additions (`gamma(k) = k u / (1 - k u)`, `u = 2^-24`), of the f64 sum; SinRandom must
//! give the same output at every workgroup size. SinRandom has no CPU check: the GPU's
//! `sin` is not correctly rounded and 2048 chaotic iterations amplify any difference, so
//! the output only reports how many sampled threads happen to agree with a CPU run.
//!
//! ```sh
//! # full size, meant for a GPU (the 1-thread dot at 2^27 alone may take a minute):
//! cargo run --release --example seed_experiments
//! target/release/examples/seed_experiments --dot-log2 18,27 --sin-log2 18
//! # small, for the software adapter (about 15 s on lavapipe, 2 cores):
//! cargo run --release --example seed_experiments -- --quick
//! ```

#[path = "demos/common.rs"]
#[allow(dead_code)] // shared by the demos; each uses part of it
mod common;

use common::{Args, Checks, DemoResult, Kernel, grid, render};
use gpuprim::{Ctx, GpuVec, wgpu};

const USAGE: &str = "\
seed_experiments: the articles' dot-product, coalescing and workgroup-size experiments

usage: seed_experiments [--quick] [--dot-log2 A,B,...] [--sin-log2 K] [--sin-loops L]
                        [--only dot,stride,wg]

  --quick          --dot-log2 14,16 --sin-log2 13 (for the software adapter)
  --dot-log2 A,..  dot-product sizes as powers of two (default 18,27)
  --sin-log2 K     SinRandom threads, 2^K (default 18)
  --sin-loops L    SinRandom iterations per thread (default 2048, as the article)
  --only LIST      run only these experiments: dot, stride, wg (default all)";

/// (threads, workgroup size) of the dot experiment, as the article ran them.
const DOT_THREADS: [(u32, u32); 3] = [(1, 1), (32, 32), (4096, 32)];
/// (threads, workgroup size) of the coalescing experiment: the article's 4096 threads,
/// and enough threads to keep a large GPU's memory system busy.
const STRIDE_THREADS: [(u32, u32); 2] = [(4096, 32), (65536, 256)];
/// Unit roundoff of f32.
const U: f64 = 1.0 / 16_777_216.0;

fn main() -> std::process::ExitCode {
    common::main_with("seed_experiments", run)
}

#[derive(Clone, Copy, PartialEq)]
enum Mapping {
    Coalesced,
    Strided,
}

impl Mapping {
    fn entry(self) -> &'static str {
        match self {
            Mapping::Coalesced => "coalesced",
            Mapping::Strided => "strided",
        }
    }
}

/// One configuration of the dot kernels (n, threads, workgroup size, mapping) bound to
/// two vectors, with its partials and result.
struct DotRun {
    main: Kernel,
    combine: Kernel,
    bind_main: wgpu::BindGroup,
    bind_combine: wgpu::BindGroup,
    groups: [u32; 3],
    out: GpuVec<f32>,
    _partial: GpuVec<f32>,
    /// Longest chain of roundings in the result: products, per-thread additions, the
    /// combining workgroup's sequential part and its tree.
    chain: u64,
}

impl DotRun {
    fn new(
        ctx: &Ctx,
        a: &GpuVec<f32>,
        b: &GpuVec<f32>,
        threads: u32,
        wg: u32,
        mapping: Mapping,
    ) -> DemoResult<DotRun> {
        let n = a.len();
        let chunk = n.div_ceil(threads as usize);
        let wgsl = render(
            include_str!("demos/seed_dot.wgsl"),
            &[
                ("N", n.to_string()),
                ("T", threads.to_string()),
                ("WG", wg.to_string()),
                ("CHUNK", chunk.to_string()),
            ],
        )?;
        let label = format!("dot {} T={threads}", mapping.entry());
        let main = Kernel::new(ctx, &label, &wgsl, mapping.entry())?;
        let combine = Kernel::new(ctx, "dot combine", &wgsl, "combine")?;
        let partial = ctx.zeros::<f32>(threads as usize)?;
        let out = ctx.zeros::<f32>(1)?;
        let bind_main = main.bind(ctx, &[a.buffer(), b.buffer(), partial.buffer()])?;
        let bind_combine = combine.bind_from(ctx, 2, &[partial.buffer(), out.buffer()])?;
        let groups = grid(ctx, u64::from(threads.div_ceil(wg)))?;
        let chain = 1 + chunk as u64 + u64::from(threads.div_ceil(256)) + 8;
        Ok(DotRun {
            main,
            combine,
            bind_main,
            bind_combine,
            groups,
            out,
            _partial: partial,
            chain,
        })
    }

    /// Submits `reps` dot products (kernel, then combine) in one pass, without waiting.
    fn submit(&self, ctx: &Ctx, reps: usize) -> DemoResult<()> {
        common::submit(ctx, "dot", |pass| {
            for _ in 0..reps {
                self.main.record(pass, &self.bind_main, self.groups);
                self.combine.record(pass, &self.bind_combine, [1, 1, 1]);
            }
        })
    }

    /// The result of the last dot submitted (every repetition writes the same bits).
    fn result(&self) -> DemoResult<f32> {
        Ok(self.out.to_vec()?[0])
    }
}

/// `gamma(k) = k u / (1 - k u)`: the relative bound of a chain of `k` roundings.
fn gamma(k: u64) -> f64 {
    let ku = k as f64 * U;
    if ku < 1.0 {
        ku / (1.0 - ku)
    } else {
        f64::INFINITY
    }
}

/// The article's vectors: `1 / (i + 1)` in f32, and their dot product in f64 (each f32
/// product is exact in f64).
fn pi_data(n: usize) -> (Vec<f32>, f64) {
    let a: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    let exact = a.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
    (a, exact)
}

/// Every dot kernel configuration and `ctx.dot` on integer-valued data, where all sums
/// are exact whatever the order (partial sums stay below 2^24).
fn exactness_checks(ctx: &Ctx, n: usize, checks: &mut Checks) -> DemoResult<()> {
    let n = n.min(1 << 22);
    let a = ctx.upload(&vec![1.0f32; n])?;
    let b = ctx.upload(&(0..n).map(|i| (1 + i % 3) as f32).collect::<Vec<_>>())?;
    let exact: u64 = (0..n as u64).map(|i| 1 + i % 3).sum();
    let mut wrong = Vec::new();
    let mut configs = 0;
    for (threads, wg) in DOT_THREADS.into_iter().chain(STRIDE_THREADS) {
        for mapping in [Mapping::Coalesced, Mapping::Strided] {
            let run = DotRun::new(ctx, &a, &b, threads, wg, mapping)?;
            run.submit(ctx, 1)?;
            let got = run.result()?;
            configs += 1;
            if f64::from(got) != exact as f64 {
                wrong.push(format!("{} T={threads}: {got}", mapping.entry()));
            }
        }
    }
    let got = ctx.dot(&a, &b)?;
    configs += 1;
    if f64::from(got) != exact as f64 {
        wrong.push(format!("ctx.dot: {got}"));
    }
    checks.check(
        wrong.is_empty(),
        format!(
            "{configs} dot kernels (1..65536 threads, both mappings, ctx.dot) on exact \
             integer data, n = {}: all equal {exact}{}",
            common::size_name(n),
            if wrong.is_empty() {
                String::new()
            } else {
                format!(" (wrong: {})", wrong.join(", "))
            }
        ),
    );
    Ok(())
}

fn check_bound(checks: &mut Checks, what: &str, got: f32, exact: f64, chain: u64) {
    // Every product is positive, so sum |a_i b_i| is the exact result itself.
    let bound = gamma(chain) * exact;
    let err = (f64::from(got) - exact).abs();
    checks.check(
        err <= bound,
        format!("{what}: |{got} - {exact:.9}| = {err:.2e} <= bound {bound:.2e} (k = {chain})"),
    );
}

fn dot_experiment(ctx: &Ctx, sizes: &[u32], checks: &mut Checks) -> DemoResult<()> {
    println!("\n== 1. dot product, a[i] = b[i] = 1/(i+1) in f32 (sqrt(6 dot) -> pi)");
    println!(
        "{:>6} {:<28} {:>8} {:>5} {:>12} {:>9} {:>10} {:>13}",
        "n", "kernel", "threads", "wg", "time", "GB/s", "vs 1 thr", "sqrt(6 dot)"
    );
    for &log2 in sizes {
        let n = 1usize << log2;
        let (host, exact) = pi_data(n);
        let a = ctx.upload(&host)?;
        let b = ctx.upload(&host)?;
        drop(host);
        let mut one_thread_ms = None;
        for (threads, wg) in DOT_THREADS {
            let run = DotRun::new(ctx, &a, &b, threads, wg, Mapping::Coalesced)?;
            let ms = common::gpu_ms(ctx, 50.0, |reps| run.submit(ctx, reps))?;
            let got = run.result()?;
            let base = *one_thread_ms.get_or_insert(ms);
            let name = match threads {
                1 => "1 thread".to_string(),
                t => format!("{t} threads ({} x {wg})", t / wg),
            };
            print_dot_row(
                n,
                &name,
                &threads.to_string(),
                &wg.to_string(),
                ms,
                base,
                got,
            );
            check_bound(checks, &format!("2^{log2} {name}"), got, exact, run.chain);
        }
        let mut out = ctx.zeros::<f32>(1)?;
        let ms = common::gpu_ms(ctx, 50.0, |reps| {
            for _ in 0..reps {
                ctx.dot_into(&a, &b, &mut out)?;
            }
            Ok(())
        })?;
        let got = ctx.dot(&a, &b)?;
        print_dot_row(
            n,
            "gpuprim ctx.dot",
            "-",
            "-",
            ms,
            one_thread_ms.unwrap_or(ms),
            got,
        );
        // Its summation order is the library's own: the bound of any order (k = n + 1).
        check_bound(
            checks,
            &format!("2^{log2} ctx.dot"),
            got,
            exact,
            n as u64 + 1,
        );
    }
    Ok(())
}

fn print_dot_row(n: usize, name: &str, threads: &str, wg: &str, ms: f64, base: f64, got: f32) {
    println!(
        "{:>6} {name:<28} {threads:>8} {wg:>5} {:>9.4} ms {:>9.1} {:>9.1}x {:>13.9}",
        common::size_name(n),
        ms,
        8.0 * n as f64 / ms / 1e6,
        base / ms,
        (6.0 * f64::from(got)).sqrt()
    );
}

fn stride_experiment(ctx: &Ctx, sizes: &[u32], checks: &mut Checks) -> DemoResult<()> {
    println!("\n== 2. coalesced vs strided access (same kernel, same work, other index mapping)");
    println!(
        "{:>6} {:>8} {:>5} {:>8} {:>14} {:>14} {:>18}",
        "n", "threads", "wg", "per thr", "coalesced", "strided", "strided/coalesced"
    );
    for &log2 in sizes {
        let n = 1usize << log2;
        let (host, exact) = pi_data(n);
        let a = ctx.upload(&host)?;
        let b = ctx.upload(&host)?;
        drop(host);
        for (threads, wg) in STRIDE_THREADS {
            if threads as usize * 4 > n {
                continue;
            }
            let mut ms = [0.0; 2];
            for (k, mapping) in [Mapping::Coalesced, Mapping::Strided]
                .into_iter()
                .enumerate()
            {
                let run = DotRun::new(ctx, &a, &b, threads, wg, mapping)?;
                ms[k] = common::gpu_ms(ctx, 50.0, |reps| run.submit(ctx, reps))?;
                let got = run.result()?;
                check_bound(
                    checks,
                    &format!("2^{log2} {} T={threads}", mapping.entry()),
                    got,
                    exact,
                    run.chain,
                );
            }
            println!(
                "{:>6} {threads:>8} {wg:>5} {:>8} {:>11.4} ms {:>11.4} ms {:>17.2}x",
                common::size_name(n),
                n / threads as usize,
                ms[0],
                ms[1],
                ms[1] / ms[0]
            );
        }
    }
    Ok(())
}

/// SinRandom on the CPU in f32 with Rust's `sin` (for the informational comparison).
/// The conversion saturates at 4294967040, the largest f32 below 2^32, as naga's does.
fn cpu_sin_random(id: u32, loops: u32) -> u32 {
    let mut x = id;
    for _ in 0..loops {
        let mut y = (1.234f32 * (x % 12345) as f32).sin();
        y = 2.3456f32 / (y + 1.0001f32);
        x = ((100_000_000.0f32 * y).min(4_294_967_040.0) as u32).wrapping_add(id);
    }
    x
}

fn workgroup_experiment(ctx: &Ctx, log2: u32, loops: u32, checks: &mut Checks) -> DemoResult<()> {
    let n = 1usize << log2;
    let info = ctx.info();
    println!(
        "\n== 3. workgroup size sweep: SinRandom ({loops} iterations) on 2^{log2} threads; \
         subgroup size {}..{}",
        info.subgroup_min_size, info.subgroup_max_size
    );
    println!(
        "{:>5} {:>9} {:>12} {:>14}  speed (1/time)",
        "wg", "groups", "time", "vs wg = 1"
    );
    let mut outputs = Vec::new();
    let mut base = None;
    for wg in (0..=8).map(|k| 1u32 << k) {
        let wgsl = render(
            include_str!("demos/seed_sin.wgsl"),
            &[
                ("N", n.to_string()),
                ("WG", wg.to_string()),
                ("LOOPS", loops.to_string()),
            ],
        )?;
        let kernel = Kernel::new(ctx, &format!("sin_random wg={wg}"), &wgsl, "main")?;
        let out = ctx.zeros::<u32>(n)?;
        let bind = kernel.bind(ctx, &[out.buffer()])?;
        let groups_1d = (n as u64).div_ceil(u64::from(wg));
        let groups = grid(ctx, groups_1d)?;
        let ms = common::gpu_ms(ctx, 50.0, |reps| kernel.run(ctx, &bind, groups, reps))?;
        let speedup = *base.get_or_insert(ms) / ms;
        let bar = "#".repeat((speedup.log2().max(0.0) * 4.0).round() as usize + 1);
        println!("{wg:>5} {groups_1d:>9} {ms:>9.4} ms {speedup:>13.2}x  {bar}");
        outputs.push((wg, out.to_vec()?));
    }
    let (_, reference) = &outputs[outputs.len() - 1];
    let differing: Vec<String> = outputs
        .iter()
        .filter(|(_, o)| o != reference)
        .map(|(wg, o)| {
            let k = o.iter().zip(reference).filter(|(x, y)| x != y).count();
            format!("wg {wg}: {k} elements")
        })
        .collect();
    checks.check(
        differing.is_empty(),
        format!(
            "SinRandom output identical at all 9 workgroup sizes{}",
            if differing.is_empty() {
                String::new()
            } else {
                format!(" (differ: {})", differing.join(", "))
            }
        ),
    );
    let sample = 64.min(n);
    let agree = (0..sample)
        .filter(|&i| cpu_sin_random(i as u32, loops) == reference[i])
        .count();
    println!(
        "  (not a check) {agree} of the first {sample} threads equal a CPU f32 run: the GPU's \
         sin is not correctly rounded, and {loops} chaotic iterations amplify a one-ulp \
         difference"
    );
    Ok(())
}

fn run() -> DemoResult<()> {
    let mut a = Args::parse(USAGE)?;
    let quick = a.flag("quick")?;
    let dot_sizes = a.list::<u32>("dot-log2")?;
    let sin_log2 = a.value::<u32>("sin-log2")?;
    let sin_loops = a.value::<u32>("sin-loops")?.unwrap_or(2048);
    let only = a.list::<String>("only")?;
    a.finish()?;
    let dot_sizes = dot_sizes.unwrap_or(if quick { vec![14, 16] } else { vec![18, 27] });
    let sin_log2 = sin_log2.unwrap_or(if quick { 13 } else { 18 });
    if let Some(&bad) = dot_sizes.iter().find(|&&k| !(8..=30).contains(&k)) {
        return Err(format!("--dot-log2 {bad}: expected 8 to 30\n\n{USAGE}").into());
    }
    if !(8..=28).contains(&sin_log2) {
        return Err(format!("--sin-log2 {sin_log2}: expected 8 to 28\n\n{USAGE}").into());
    }
    let only = only.unwrap_or_else(|| vec!["dot".into(), "stride".into(), "wg".into()]);
    if let Some(bad) = only
        .iter()
        .find(|s| !["dot", "stride", "wg"].contains(&s.as_str()))
    {
        return Err(format!("--only {bad:?}: expected dot, stride or wg\n\n{USAGE}").into());
    }
    let wants = |name: &str| only.iter().any(|s| s == name);

    let ctx = Ctx::new()?;
    println!("adapter: {}", ctx.info());
    println!("times: GPU timestamps where the adapter has them, median of rounds; lower is better");
    let mut checks = Checks::default();
    if wants("dot") || wants("stride") {
        let smallest = 1usize << dot_sizes.iter().min().copied().unwrap_or(14);
        exactness_checks(&ctx, smallest, &mut checks)?;
    }
    if wants("dot") {
        dot_experiment(&ctx, &dot_sizes, &mut checks)?;
    }
    if wants("stride") {
        stride_experiment(&ctx, &dot_sizes, &mut checks)?;
    }
    if wants("wg") {
        workgroup_experiment(&ctx, sin_log2, sin_loops, &mut checks)?;
    }
    checks.finish()
}
