//! The GPU-particles article: the same particle update on the GPU, on one CPU thread and
//! on every CPU thread (rayon), checked equal, and timed as particle-updates per second.
//!
//! A particle has a position, a velocity, an angle, an angular velocity (spin), a life
//! (steps left) and its own xorshift128 state. Each step, a particle whose life has ended
//! or that fell below the floor (y < -1) is respawned at the origin with a random
//! velocity (upwards), spin and life drawn from its state; then every particle moves one
//! step: `pos += vel`, `vel.y -= gravity`, `angle += spin`, `life -= 1`. All of it happens
//! on the GPU, including the first spawn (every life starts at 0) and the seeding of the
//! states (`ctx.xorshift128_state`), where the article's original spawned on the CPU.
//!
//! As in the article, each GPU thread updates `PARTICLES_PER_THREAD` (4) particles, and
//! the workgroup size is a power of two (256). Unlike the article, a thread's particles
//! are `WG` apart rather than adjacent, so that a workgroup's loads are consecutive.
//!
//! The check runs a small system (10007 particles, 300 steps, so both kinds of respawn
//! happen) on all three: the xorshift128 states and lives must be bit-equal, positions
//! and velocities within 1e-4 (they are bit-equal on the adapters we tried: speeds and
//! gravity are powers of two, so no multiply rounds), and rayon equal to one thread.
//!
//! The table: updates per second at each size for
//! - GPU kernel: GPU time per step (timestamps; many steps in one submission),
//! - GPU step + wait: host time to submit one step and wait for it (what a program that
//!   needs the result on the CPU every step pays),
//! - CPU 1 thread and CPU rayon (all threads), host time per step.
//!
//! The CPU wins where the fixed cost of a GPU round trip (tens of microseconds) is more
//! than the CPU's whole update: small systems, or any size where the result must come
//! back to the CPU every step. The output says, per size, which was fastest. On the
//! software adapter (lavapipe) the "GPU" is the same CPU cores, so its rows measure
//! lavapipe, not a GPU.
//!
//! ```sh
//! # full size (10^5, 10^6, 10^7 particles), meant for a GPU:
//! cargo run --release --example particles
//! target/release/examples/particles --sizes 100000,1000000,10000000
//! # small, for the software adapter (a few seconds on lavapipe):
//! cargo run --release --example particles -- --quick
//! ```

#[path = "demos/common.rs"]
#[allow(dead_code)] // shared by the demos; each uses part of it
mod common;

use common::{Args, Checks, DemoResult, Kernel, grid, render};
use gpuprim::ops::random::cpu::{Xorshift128, u32_to_unit_f32, xorshift128_next};
use gpuprim::{Ctx, GpuVec, RANDOM_WGSL, Xorshift128State};
use rayon::prelude::*;

const USAGE: &str = "\
particles: the GPU-particles article's update on GPU, one CPU thread and rayon

usage: particles [--sizes N,N,...] [--quick] [--check-particles N] [--check-steps S]

  --sizes N,...        particle counts to time (default 100000,1000000,10000000 on a GPU,
                       10000,100000,1000000 on a software adapter)
  --quick              10000,100000 (for the software adapter)
  --check-particles N  particles in the GPU-vs-CPU check (default 10007)
  --check-steps S      steps in the GPU-vs-CPU check (default 300)";

/// Particles each GPU thread updates (the article's `MY_CS_PARTICLES_NUM_PER_THREAD`).
const PARTICLES_PER_THREAD: u32 = 4;
/// Workgroup size: a power of two, a multiple of every warp and wavefront width (the
/// article's `MY_CS_LOCAL_GROUP_SIZE`).
const WG: u32 = 256;
/// Largest respawn speed per step, in each axis (2^-4: a power of two, so exact).
const MAX_SPEED: f32 = 0.0625;
/// Largest spin per step, radians (2^-3).
const MAX_SPIN: f32 = 0.125;
/// Gravity, per step per step (2^-10).
const GRAVITY: f32 = 1.0 / 1024.0;
/// Particles below this height respawn.
const FLOOR: f32 = -1.0;
/// Lives are LIFE_MIN..LIFE_MIN + 128 steps.
const LIFE_MIN: u32 = 64;
/// Seed of the xorshift128 states.
const SEED: u32 = 2014;

fn main() -> std::process::ExitCode {
    common::main_with("particles", run)
}

/// One particle on the CPU; the GPU keeps the same fields in four arrays.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Particle {
    pos: [f32; 4], // x, y, z, angle
    vel: [f32; 4], // vx, vy, vz, spin
    rng: [u32; 4],
    life: u32,
}

impl Particle {
    fn new(index: u32) -> Particle {
        Particle {
            pos: [0.0; 4],
            vel: [0.0; 4],
            rng: Xorshift128::seeded(SEED, index).state(),
            life: 0,
        }
    }

    /// One step; returns whether the particle respawned.
    #[inline]
    fn update(&mut self) -> bool {
        let respawn = self.life == 0 || self.pos[1] < FLOOR;
        if respawn {
            let mut s = self.rng;
            let mut draw = || {
                s = xorshift128_next(s);
                s[3]
            };
            let vx = MAX_SPEED * signed_unit(draw());
            let vy = MAX_SPEED * u32_to_unit_f32(draw());
            let vz = MAX_SPEED * signed_unit(draw());
            let spin = MAX_SPIN * signed_unit(draw());
            self.life = LIFE_MIN + (draw() >> 25);
            self.rng = s;
            self.pos = [0.0; 4];
            self.vel = [vx, vy, vz, spin];
        }
        for k in 0..4 {
            self.pos[k] += self.vel[k];
        }
        self.vel[1] -= GRAVITY;
        self.life -= 1;
        respawn
    }
}

/// Uniform in [-1, 1) from the top 24 bits: exact (the kernel's `signed_unit`).
fn signed_unit(r: u32) -> f32 {
    (r >> 8) as f32 * (1.0 / 8_388_608.0) - 1.0
}

fn step_serial(ps: &mut [Particle]) -> usize {
    ps.iter_mut().map(|p| usize::from(p.update())).sum()
}

fn step_rayon(ps: &mut [Particle]) {
    ps.par_iter_mut().for_each(|p| {
        p.update();
    });
}

/// The particles on the GPU and the kernel bound to them.
struct GpuParticles {
    n: usize,
    pos: GpuVec<f32>,
    vel: GpuVec<f32>,
    rng: Xorshift128State,
    life: GpuVec<u32>,
    kernel: Kernel,
    bind: gpuprim::wgpu::BindGroup,
    groups: [u32; 3],
}

impl GpuParticles {
    fn new(ctx: &Ctx, n: usize) -> DemoResult<GpuParticles> {
        let wgsl = render(
            include_str!("demos/particles.wgsl"),
            &[
                ("LIB", RANDOM_WGSL.to_string()),
                ("N", n.to_string()),
                ("WG", WG.to_string()),
                ("PPT", PARTICLES_PER_THREAD.to_string()),
                ("MAX_SPEED", format!("{MAX_SPEED:?}")),
                ("MAX_SPIN", format!("{MAX_SPIN:?}")),
                ("GRAVITY", format!("{GRAVITY:?}")),
                ("FLOOR", format!("{FLOOR:?}")),
                ("LIFE_MIN", LIFE_MIN.to_string()),
            ],
        )?;
        let kernel = Kernel::new(ctx, "particles", &wgsl, "main")?;
        let pos = ctx.zeros::<f32>(4 * n)?;
        let vel = ctx.zeros::<f32>(4 * n)?;
        let rng = ctx.xorshift128_state(n, SEED)?;
        let life = ctx.zeros::<u32>(n)?;
        let bind = kernel.bind(
            ctx,
            &[
                pos.buffer(),
                vel.buffer(),
                rng.words().buffer(),
                life.buffer(),
            ],
        )?;
        let per_group = u64::from(WG * PARTICLES_PER_THREAD);
        let groups = grid(ctx, (n as u64).div_ceil(per_group))?;
        Ok(GpuParticles {
            n,
            pos,
            vel,
            rng,
            life,
            kernel,
            bind,
            groups,
        })
    }

    /// Submits `steps` steps without waiting.
    fn steps(&self, ctx: &Ctx, steps: usize) -> DemoResult<()> {
        self.kernel.run(ctx, &self.bind, self.groups, steps)
    }

    fn to_cpu(&self) -> DemoResult<Vec<Particle>> {
        let pos = self.pos.to_vec()?;
        let vel = self.vel.to_vec()?;
        let rng = self.rng.to_vec()?;
        let life = self.life.to_vec()?;
        Ok((0..self.n)
            .map(|i| Particle {
                pos: pos[4 * i..4 * i + 4].try_into().expect("4 floats"),
                vel: vel[4 * i..4 * i + 4].try_into().expect("4 floats"),
                rng: rng[i],
                life: life[i],
            })
            .collect())
    }
}

fn check(ctx: &Ctx, n: usize, steps: usize, checks: &mut Checks) -> DemoResult<()> {
    println!("check: {n} particles, {steps} steps on the GPU, one CPU thread and rayon");
    let gpu = GpuParticles::new(ctx, n)?;
    gpu.steps(ctx, steps)?;
    let mut serial: Vec<Particle> = (0..n as u32).map(Particle::new).collect();
    let mut parallel = serial.clone();
    let respawns: usize = (0..steps).map(|_| step_serial(&mut serial)).sum();
    for _ in 0..steps {
        step_rayon(&mut parallel);
    }
    let from_gpu = gpu.to_cpu()?;

    let state_diff = (0..n).filter(|&i| from_gpu[i].rng != serial[i].rng).count();
    let life_diff = (0..n)
        .filter(|&i| from_gpu[i].life != serial[i].life)
        .count();
    let mut worst = 0.0f32;
    for (g, c) in from_gpu.iter().zip(&serial) {
        for k in 0..4 {
            for d in [g.pos[k] - c.pos[k], g.vel[k] - c.vel[k]] {
                worst = if d.is_nan() {
                    f32::INFINITY
                } else {
                    worst.max(d.abs())
                };
            }
        }
    }
    println!(
        "  {respawns} respawns on the CPU ({:.2} per particle), the first {n} included",
        respawns as f64 / n as f64
    );
    checks.check(
        state_diff == 0 && life_diff == 0,
        format!(
            "GPU vs CPU: xorshift128 states differ for {state_diff} particles, lives for \
             {life_diff} (of {n}; must be 0)"
        ),
    );
    checks.check(
        worst <= 1e-4,
        format!("GPU vs CPU: largest position/velocity/angle/spin difference {worst:e} <= 1e-4"),
    );
    checks.check(
        parallel == serial,
        "CPU rayon vs one thread: bit-equal particles",
    );
    checks.check(
        respawns > n,
        format!("the check respawned particles after their first spawn ({respawns} > {n})"),
    );
    Ok(())
}

struct Row {
    n: usize,
    gpu_kernel: f64,
    gpu_wait: f64,
    cpu_one: f64,
    cpu_all: f64,
}

fn time_size(ctx: &Ctx, n: usize) -> DemoResult<Row> {
    // Every system runs 200 steps first, so lives and respawns are mixed as in a running
    // system (the first step respawns everything).
    const SETTLE: usize = 200;
    let gpu = GpuParticles::new(ctx, n)?;
    gpu.steps(ctx, SETTLE)?;
    ctx.synchronize()?;
    let gpu_kernel = common::gpu_ms(ctx, 50.0, |reps| gpu.steps(ctx, reps))?;
    let gpu_wait = common::host_ms(300.0, || {
        gpu.steps(ctx, 1)?;
        Ok(ctx.synchronize()?)
    })?;
    drop(gpu);

    let mut ps: Vec<Particle> = (0..n as u32).into_par_iter().map(Particle::new).collect();
    for _ in 0..SETTLE {
        step_rayon(&mut ps);
    }
    let cpu_one = common::host_ms(300.0, || {
        step_serial(&mut ps);
        Ok(())
    })?;
    let cpu_all = common::host_ms(300.0, || {
        step_rayon(&mut ps);
        Ok(())
    })?;
    let ups = |ms: f64| n as f64 / (ms / 1e3);
    Ok(Row {
        n,
        gpu_kernel: ups(gpu_kernel),
        gpu_wait: ups(gpu_wait),
        cpu_one: ups(cpu_one),
        cpu_all: ups(cpu_all),
    })
}

fn run() -> DemoResult<()> {
    let mut a = Args::parse(USAGE)?;
    let sizes = a.list::<usize>("sizes")?;
    let quick = a.flag("quick")?;
    let check_n = a.value::<usize>("check-particles")?.unwrap_or(10007);
    let check_steps = a.value::<usize>("check-steps")?.unwrap_or(300);
    a.finish()?;

    let ctx = Ctx::new()?;
    println!("adapter: {}", ctx.info());
    let software = common::is_software(&ctx);
    let sizes = match (sizes, quick) {
        (Some(_), true) => {
            return Err(format!("give --sizes or --quick, not both\n\n{USAGE}").into());
        }
        (Some(s), false) => s,
        (None, true) => vec![10_000, 100_000],
        (None, false) if software => vec![10_000, 100_000, 1_000_000],
        (None, false) => vec![100_000, 1_000_000, 10_000_000],
    };
    for &n in sizes.iter().chain([&check_n]) {
        if n == 0 || n > u32::MAX as usize / 4 {
            return Err(format!("{n} particles: expected 1 to {}", u32::MAX / 4).into());
        }
    }
    println!(
        "workgroup {WG}, {PARTICLES_PER_THREAD} particles per thread; CPU: {} rayon threads",
        rayon::current_num_threads()
    );
    let mut checks = Checks::default();
    check(&ctx, check_n, check_steps, &mut checks)?;

    println!("\nparticle-updates per second (median; higher is better):");
    println!(
        "{:>10} {:>14} {:>16} {:>14} {:>14}   fastest",
        "particles",
        "GPU kernel",
        "GPU step+wait",
        "CPU 1 thread",
        format!("CPU rayon x{}", rayon::current_num_threads())
    );
    let mut rows = Vec::new();
    for &n in &sizes {
        let r = time_size(&ctx, n)?;
        let cols = [
            ("GPU kernel", r.gpu_kernel),
            ("GPU step+wait", r.gpu_wait),
            ("CPU 1 thread", r.cpu_one),
            ("CPU rayon", r.cpu_all),
        ];
        let best = cols
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map_or("", |c| c.0);
        println!(
            "{:>10} {:>14} {:>16} {:>14} {:>14}   {best}",
            common::size_name(n),
            common::rate(r.gpu_kernel),
            common::rate(r.gpu_wait),
            common::rate(r.cpu_one),
            common::rate(r.cpu_all),
        );
        rows.push(r);
    }

    println!("\nwhere the CPU wins:");
    let cpu_best = |r: &Row| r.cpu_one.max(r.cpu_all);
    let mut any = false;
    for r in &rows {
        let cpu = cpu_best(r);
        if cpu > r.gpu_wait {
            any = true;
            println!(
                "  {} particles: the CPU ({}) is {:.2}x the GPU's step + wait{}",
                common::size_name(r.n),
                common::rate(cpu),
                cpu / r.gpu_wait,
                if cpu > r.gpu_kernel {
                    format!(", and {:.2}x even the GPU kernel alone", cpu / r.gpu_kernel)
                } else {
                    String::new()
                }
            );
        }
    }
    if !any {
        println!(
            "  nowhere in this run: the GPU's step + wait beat the best CPU column at every size"
        );
    }
    if software {
        println!(
            "  (this adapter is software: the \"GPU\" columns are lavapipe running on the \
             same CPU cores, not a GPU)"
        );
    }
    checks.finish()
}
