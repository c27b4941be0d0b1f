//! Conjugate gradient on the 2D Poisson equation, built only from gpuprim calls.
//!
//! Solves `A x = b` on a `size x size` grid, `A` the 5-point Laplacian with zero
//! Dirichlet boundary (`(A p)_i = 4 p_i - p_left - p_right - p_up - p_down`, neighbours
//! outside the grid are 0). Every scalar of the iteration (`r.r`, `p.Ap`, alpha, beta)
//! stays on the GPU as a one-element vector that the kernels read as device scalars; the
//! host reads `r.r` only every `--check-every` iterations to decide whether to stop.
//!
//! One iteration is four calls:
//! 1. `p.Ap`: `transform_reduce` of `p_i * (A p)_i`, the stencil read from `p` raw;
//! 2. `x += alpha p`, `r -= alpha A p`: one `elementwise` kernel (the stencil again, so
//!    no `Ap` vector is stored);
//! 3. `r.r`: `transform_reduce` of `r * r`;
//! 4. `p = r + beta p`: one `elementwise` kernel.
//!
//! They read and write 40 bytes per grid point (p; x, r, p read and x, r written; r;
//! r, p read and p written; each f32, a stencil's neighbours counted once): the example
//! prints the effective bandwidth of that traffic next to a copy kernel's.
//!
//! At the default size it checks the solution against a CPU solve (f64 CG); at any size
//! it checks the true residual `|b - A x| / |b|` on the CPU. It exits non-zero if the
//! iteration does not converge or a check fails.
//!
//! ```sh
//! cargo run --release --example cg                    # 96 x 96, checked against the CPU
//! cargo run --release --example cg -- --size 4096     # 16.8 M unknowns
//! cargo run --release --example cg -- --profile       # GPU time of each kind of call
//! ```

use std::time::Instant;

use gpuprim::{Ctx, GpuVec, Reduce, Result};

/// `(A p)_i` over `n` points from the raw vector `p`, for a grid `w` wide. The width is a
/// literal of the kernel (one compile per grid size): the compiler then turns `i % w`
/// into a few integer operations instead of a division by a run-time value.
fn stencil(w: u32) -> String {
    format!(
        "(4.0 * p[i] \
         - select(0.0, p[i - 1u], i % {w}u > 0u) \
         - select(0.0, p[i + 1u], i % {w}u + 1u < {w}u) \
         - select(0.0, p[i - {w}u], i >= {w}u) \
         - select(0.0, p[i + {w}u], i + {w}u < n))"
    )
}

/// Bytes the four calls of one iteration read and write per grid point (see the docs).
const BYTES_PER_POINT: f64 = 40.0;

struct Options {
    profile: bool,
    size: u32,
    check_every: usize,
    tol: f64,
    max_iter: usize,
}

fn options() -> Options {
    let mut o = Options {
        profile: false,
        size: 96,
        check_every: 25,
        tol: 1e-5,
        max_iter: 100_000,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--profile" {
            o.profile = true;
            continue;
        }
        let value = it.next().unwrap_or_else(|| usage(flag));
        match flag.as_str() {
            "--size" => o.size = value.parse().unwrap_or_else(|_| usage(flag)),
            "--check-every" => o.check_every = value.parse().unwrap_or_else(|_| usage(flag)),
            "--tol" => o.tol = value.parse().unwrap_or_else(|_| usage(flag)),
            "--max-iter" => o.max_iter = value.parse().unwrap_or_else(|_| usage(flag)),
            _ => usage(flag),
        }
    }
    if o.size < 2 || o.check_every == 0 {
        usage("--size / --check-every");
    }
    o
}

fn usage(flag: &str) -> ! {
    eprintln!(
        "bad argument {flag:?}\nusage: cg [--size N (>= 2, default 96)] [--check-every K] \
         [--tol T (relative residual, default 1e-5)] [--max-iter M] [--profile]"
    );
    std::process::exit(2);
}

/// The right-hand side: a smooth bump plus a point source, so the solution has both.
fn rhs(size: u32) -> Vec<f32> {
    let s = size as usize;
    let mut b = vec![0.0f32; s * s];
    for row in 0..s {
        for col in 0..s {
            let (x, y) = (col as f32 / s as f32, row as f32 / s as f32);
            b[row * s + col] = (std::f32::consts::PI * x).sin() * (std::f32::consts::PI * y).sin();
        }
    }
    b[(s / 3) * s + s / 4] += 1.0;
    b
}

/// `A p` on the CPU, in f64.
fn apply(size: usize, p: &[f64]) -> Vec<f64> {
    let at = |r: isize, c: isize| {
        if r < 0 || c < 0 || r >= size as isize || c >= size as isize {
            0.0
        } else {
            p[r as usize * size + c as usize]
        }
    };
    let mut out = vec![0.0; size * size];
    for r in 0..size as isize {
        for c in 0..size as isize {
            out[r as usize * size + c as usize] =
                4.0 * at(r, c) - at(r, c - 1) - at(r, c + 1) - at(r - 1, c) - at(r + 1, c);
        }
    }
    out
}

/// Plain CG on the CPU in f64, to a relative residual of 1e-12.
fn cpu_solve(size: usize, b: &[f32]) -> Vec<f64> {
    let n = size * size;
    let b: Vec<f64> = b.iter().map(|&v| v as f64).collect();
    let dot = |a: &[f64], c: &[f64]| a.iter().zip(c).map(|(x, y)| x * y).sum::<f64>();
    let mut x = vec![0.0; n];
    let mut r = b.clone();
    let mut p = r.clone();
    let mut rs = dot(&r, &r);
    let stop = 1e-24 * rs;
    for _ in 0..10 * n {
        let ap = apply(size, &p);
        let alpha = rs / dot(&p, &ap);
        for i in 0..n {
            x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        let rs_new = dot(&r, &r);
        if rs_new < stop {
            break;
        }
        for i in 0..n {
            p[i] = r[i] + rs_new / rs * p[i];
        }
        rs = rs_new;
    }
    x
}

/// The four calls of one iteration (see the module docs); `rs` holds `r.r` on entry,
/// `rs_next` receives the new one.
#[allow(clippy::too_many_arguments)]
fn iteration(
    ctx: &Ctx,
    w: u32,
    (x, r, p): (&mut GpuVec<f32>, &mut GpuVec<f32>, &mut GpuVec<f32>),
    rs: &GpuVec<f32>,
    rs_next: &mut GpuVec<f32>,
    pap: &mut GpuVec<f32>,
) -> Result<()> {
    let stencil = stencil(w);
    ctx.transform_reduce(&format!("p[i] * {stencil}"), Reduce::Sum)
        .raw("p", p)
        .len(x.len())
        .run_into(pap)?;
    ctx.elementwise(&format!(
        "let alpha = rs / pap; x = x + alpha * p[i]; r = r - alpha * {stencil};"
    ))
    .read_write("x", x)
    .read_write("r", r)
    .raw("p", p)
    .device_scalar("rs", rs, 0)
    .device_scalar("pap", pap, 0)
    .run()?;
    ctx.transform_reduce("r * r", Reduce::Sum)
        .read("r", r)
        .run_into(rs_next)?;
    ctx.elementwise("p = r + (rs_next / rs) * p;")
        .read("r", r)
        .read_write("p", p)
        .device_scalar("rs_next", rs_next, 0)
        .device_scalar("rs", rs, 0)
        .run()
}

/// Copy-kernel bandwidth over `n` f32 in this process (GB/s, read + write).
fn copy_gbs(ctx: &Ctx, n: usize) -> Result<f64> {
    let a = ctx.zeros::<f32>(n)?;
    let mut out = ctx.zeros::<f32>(n)?;
    let reps = 20;
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        ctx.synchronize()?;
        let t0 = Instant::now();
        for _ in 0..reps {
            ctx.map_into(&a, "x", &mut out)?;
        }
        ctx.synchronize()?;
        best = best.min(t0.elapsed().as_secs_f64() / reps as f64);
    }
    Ok(8.0 * n as f64 / best / 1e9)
}

fn main() -> Result<()> {
    let o = options();
    let ctx = Ctx::builder().profiling(o.profile).build()?;
    let (size, n) = (o.size, o.size as usize * o.size as usize);
    println!("adapter: {}", ctx.info().name);
    println!("grid {size} x {size} = {n} unknowns, tolerance {:e}", o.tol);

    let host_b = rhs(size);
    let b = ctx.upload(&host_b)?;
    let mut x = ctx.zeros::<f32>(n)?;
    let mut r = b.try_clone()?;
    let mut p = b.try_clone()?;
    let mut rs = ctx.zeros::<f32>(1)?;
    let mut rs_next = ctx.zeros::<f32>(1)?;
    let mut pap = ctx.zeros::<f32>(1)?;
    ctx.transform_reduce("r * r", Reduce::Sum)
        .read("r", &r)
        .run_into(&mut rs)?;
    let rs0 = f64::from(rs.to_vec()?[0]);
    let stop = o.tol * o.tol * rs0;

    // The first iteration compiles the kernels; none may compile after it.
    let start = Instant::now();
    let mut compiled_after_first = 0;
    let mut iterations = 0;
    let mut relative = 1.0;
    let mut converged = false;
    while iterations < o.max_iter {
        iteration(
            &ctx,
            size,
            (&mut x, &mut r, &mut p),
            &rs,
            &mut rs_next,
            &mut pap,
        )?;
        std::mem::swap(&mut rs, &mut rs_next);
        iterations += 1;
        if iterations == 1 {
            ctx.synchronize()?;
            compiled_after_first = ctx.pipelines_compiled();
        }
        if iterations % o.check_every == 0 {
            let now = f64::from(rs.to_vec()?[0]);
            relative = (now / rs0).sqrt();
            if now <= stop {
                converged = true;
                break;
            }
            if !now.is_finite() {
                break;
            }
        }
    }
    ctx.synchronize()?;
    let seconds = start.elapsed().as_secs_f64();
    let compiled = ctx.pipelines_compiled();
    let per_iter = seconds / iterations as f64;
    let gbs = BYTES_PER_POINT * n as f64 / per_iter / 1e9;
    let copy = copy_gbs(&ctx, n)?;
    println!(
        "{} after {iterations} iterations: |r| / |b| = {relative:.3e} (recursive residual)",
        if converged {
            "converged"
        } else {
            "NOT converged"
        }
    );
    println!(
        "time per iteration {:.4} ms ({} calls), {gbs:.1} GB/s effective ({} bytes per point), \
         copy kernel {copy:.1} GB/s: {:.2}x the time of the traffic at copy bandwidth",
        per_iter * 1e3,
        4,
        BYTES_PER_POINT,
        copy / gbs,
    );
    println!("pipelines compiled: {compiled} (after the first iteration: {compiled_after_first})");
    if o.profile {
        // GPU time of each of an iteration's four calls, over the whole solve.
        println!("-- profile (--profile): GPU time per primitive over the whole solve");
        print!("{}", ctx.profile()?);
    }

    // Checks on the CPU: the true residual of the GPU's x, and at small sizes the solution.
    let gx: Vec<f64> = x.to_vec()?.iter().map(|&v| v as f64).collect();
    let ax = apply(size as usize, &gx);
    let bnorm = host_b
        .iter()
        .map(|&v| (v as f64).powi(2))
        .sum::<f64>()
        .sqrt();
    let true_residual = host_b
        .iter()
        .zip(&ax)
        .map(|(&bv, a)| (bv as f64 - a).powi(2))
        .sum::<f64>()
        .sqrt()
        / bnorm;
    // x itself is rounded to f32: |A (x - fl(x))| <= |A| (u/2) |x| with |A| <= 8, times
    // a margin of 16 for the rounding the iteration accumulates. On large grids |x| / |b|
    // grows like the condition number (size^2), and this bound says little there.
    let xnorm = gx.iter().map(|v| v * v).sum::<f64>().sqrt();
    let bound = o.tol + 16.0 * 8.0 * f64::from(f32::EPSILON) / 2.0 * xnorm / bnorm;
    println!(
        "true residual |b - A x| / |b| = {true_residual:.3e} (CPU, f64), bound {bound:.3e} \
         (the tolerance plus f32 rounding of x)"
    );
    let mut ok = converged && compiled == compiled_after_first && true_residual <= bound;
    if size <= 256 {
        let cx = cpu_solve(size as usize, &host_b);
        let max = cx.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let err = gx
            .iter()
            .zip(&cx)
            .fold(0.0f64, |m, (g, c)| m.max((g - c).abs()))
            / max;
        println!("max |x_gpu - x_cpu| / max |x_cpu| = {err:.3e} (CPU solve in f64)");
        ok &= err <= 100.0 * o.tol;
    }
    if !ok {
        eprintln!(
            "cg: FAILED (converged {converged}, compiles after the first iteration {}, checks above)",
            compiled - compiled_after_first
        );
        std::process::exit(1);
    }
    println!("cg: ok");
    Ok(())
}
