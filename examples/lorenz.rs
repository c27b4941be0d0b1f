//! The articles' Lorenz attractor: a million particles integrated on the GPU and drawn
//! headless into a PNG.
//!
//! Each particle starts where the article puts it, computed on the GPU:
//! `r = wang_hash(id * 1847483629)`, `x = 0.005 * (r % 1024) - 1.5`, `r /= 1024`,
//! `y = 0.005 * (r % 1024) - 3.5`, `r /= 1024`, `z = 0.005 * (r % 1024) + 23`. Every
//! frame advances it 128 explicit Euler steps of `dt = 1e-4` with sigma = 10, rho = 28,
//! beta = 8/3. The article used `double3`: here the run is in `f64` where the adapter has
//! `SHADER_F64`, and also in `f32`; with both, the table shows how far the two runs drift
//! apart (the system is chaotic: rounding differences grow about e^(0.9 t)).
//!
//! The image: every particle of the last `--trail` frames is projected by a pinhole
//! camera and counted in its pixel (`atomicAdd` into a `u32` image on the GPU); the counts
//! are tone-mapped on a log scale to 8-bit colour on the GPU and written with the `png`
//! crate. The rendered run is the f64 one where there is one.
//!
//! Checks (the run fails if one fails): every particle's GPU start against the CPU
//! (`gpuprim::ops::random::cpu::wang_hash`); one frame of 128 steps for 4096 particles
//! against a CPU integration from the same start, within `4 * 128 * 50 * eps` (about 100
//! times the rounding of 128 steps at coordinates up to 50: 3.1e-3 in f32, 5.7e-12 in f64);
//! at least 90% of the splatted points inside the image.
//!
//! Full size (2^20 particles, 2000 frames, 1920 x 1080):
//!
//! ```sh
//! cargo run --release --example lorenz                     # writes docs/lorenz.png
//! cargo build --release --examples && target/release/examples/lorenz --out /tmp/lorenz.png
//! ```
//!
//! Small, for the software adapter (lavapipe): the first in about 2 s, the second (long
//! enough for the particles to spread over the attractor: t = 19) in about 10 s:
//!
//! ```sh
//! cargo run --release --example lorenz -- --particles 65536 --frames 2 --out /tmp/lorenz.png
//! cargo run --release --example lorenz -- --particles 32768 --frames 1500 --trail 32 \
//!     --size 960x540 --out /tmp/lorenz_small.png
//! ```
//!
//! The particles start in a small box and need t of about 20 (1500 frames) to spread over
//! the whole attractor; after a few hundred frames they still lie on a thin sheet.

#[path = "demos/common.rs"]
#[allow(dead_code)] // shared by the demos; each uses part of it
mod common;

use common::{Args, Checks, DemoResult, Kernel, grid, render};
use gpuprim::ops::random::cpu::wang_hash;
use gpuprim::{Ctx, GpuElement, GpuVec, RANDOM_WGSL, Reduce, wgpu};

const USAGE: &str = "\
lorenz: the articles' Lorenz attractor, integrated on the GPU, rendered to a PNG

usage: lorenz [--particles N] [--frames F] [--trail K] [--size WxH] [--out PATH] [--f32-only]

  --particles N  particles (default 1048576 = 2^20)
  --frames F     frames of 128 Euler steps (dt = 1e-4) each (default 2000)
  --trail K      draw the particles of the last K frames (default 8)
  --size WxH     image size in pixels (default 1920x1080)
  --out PATH     PNG to write (default docs/lorenz.png); its folder is created
  --f32-only     skip the f64 run even where the adapter has SHADER_F64";

/// Euler steps per frame, as in the article (`LOOPNUM`).
const STEPS: u32 = 128;
/// Workgroup size of the Lorenz kernels (the article's `numthreads(64, 1, 1)`).
const WG: u32 = 64;
/// Particles whose first frame is checked against the CPU.
const STEP_CHECKS: usize = 4096;

fn main() -> std::process::ExitCode {
    common::main_with("lorenz", run)
}

struct Options {
    particles: usize,
    frames: usize,
    trail: usize,
    width: u32,
    height: u32,
    out: std::path::PathBuf,
    f32_only: bool,
}

fn options() -> DemoResult<Options> {
    let mut a = Args::parse(USAGE)?;
    let particles = a.value::<usize>("particles")?.unwrap_or(1 << 20);
    let frames = a.value::<usize>("frames")?.unwrap_or(2000);
    let trail = a.value::<usize>("trail")?.unwrap_or(8);
    let size = a
        .value::<String>("size")?
        .unwrap_or_else(|| "1920x1080".into());
    let out = a
        .value::<String>("out")?
        .unwrap_or_else(|| "docs/lorenz.png".into());
    let f32_only = a.flag("f32-only")?;
    a.finish()?;
    let (width, height) = size
        .split_once('x')
        .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
        .filter(|&(w, h)| (16..=16384).contains(&w) && (16..=16384).contains(&h))
        .ok_or_else(|| {
            format!("--size {size:?}: expected WxH with 16..=16384 pixels a side\n\n{USAGE}")
        })?;
    if particles == 0 || particles > u32::MAX as usize / 3 {
        return Err(format!("--particles {particles}: expected 1 to {}", u32::MAX / 3).into());
    }
    if frames == 0 {
        return Err("--frames 0: run at least one frame".into());
    }
    let trail = trail.clamp(1, frames);
    if (particles as u64) * (trail as u64) > u64::from(u32::MAX) {
        return Err(format!(
            "--particles {particles} x --trail {trail} points could overflow a pixel's u32 count"
        )
        .into());
    }
    Ok(Options {
        particles,
        frames,
        trail,
        width,
        height,
        out: out.into(),
        f32_only,
    })
}

/// f32 or f64: what the kernels and the CPU reference are generic over.
trait Real:
    GpuElement
    + Into<f64>
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    /// WGSL literal suffix.
    const SUFFIX: &'static str;
    /// Machine epsilon.
    const EPS: f64;
    /// The constant `v` in this precision (the nearest value, as a WGSL literal gives).
    fn c(v: f64) -> Self;
}

impl Real for f32 {
    const SUFFIX: &'static str = "f";
    const EPS: f64 = f32::EPSILON as f64;
    fn c(v: f64) -> Self {
        v as f32
    }
}

impl Real for f64 {
    const SUFFIX: &'static str = "lf";
    const EPS: f64 = f64::EPSILON;
    fn c(v: f64) -> Self {
        v
    }
}

/// The article's start of particle `id`, on the CPU.
fn cpu_start<T: Real>(id: u32) -> [T; 3] {
    let mut r = wang_hash(id.wrapping_mul(1_847_483_629));
    let mut coord = |offset: f64| {
        let v = T::c(0.005) * T::c(f64::from(r % 1024)) + T::c(offset);
        r /= 1024;
        v
    };
    let x = coord(-1.5);
    let y = coord(-3.5);
    let z = coord(23.0);
    [x, y, z]
}

/// `steps` Euler steps on the CPU, with the kernel's expressions in the kernel's order.
fn cpu_steps<T: Real>(p: [T; 3], steps: u32) -> [T; 3] {
    let [mut x, mut y, mut z] = p;
    let (dt, ten, rho, eight, three) = (T::c(1e-4), T::c(10.0), T::c(28.0), T::c(8.0), T::c(3.0));
    for _ in 0..steps {
        let nx = x + dt * (-ten * x + ten * y);
        let ny = y + dt * (-x * z + rho * x - y);
        let nz = z + dt * (x * y - eight * z / three);
        (x, y, z) = (nx, ny, nz);
    }
    [x, y, z]
}

/// One precision's particles and kernels.
struct Sim<T: Real> {
    name: &'static str,
    pos: GpuVec<T>,
    step: Kernel,
    bind: wgpu::BindGroup,
    groups: [u32; 3],
}

impl<T: Real> Sim<T> {
    /// Allocates and initialises the particles on the GPU, then checks the start of every
    /// particle and one frame of a sample against the CPU.
    fn new(ctx: &Ctx, n: usize, checks: &mut Checks) -> DemoResult<Sim<T>> {
        let name = T::WGSL;
        let wgsl = render(
            include_str!("demos/lorenz.wgsl"),
            &[
                ("LIB", RANDOM_WGSL.to_string()),
                ("T", T::WGSL.to_string()),
                ("F", T::SUFFIX.to_string()),
                ("N", n.to_string()),
                ("WG", WG.to_string()),
                ("STEPS", STEPS.to_string()),
            ],
        )?;
        let init = Kernel::new(ctx, &format!("lorenz init {name}"), &wgsl, "init")?;
        let step = Kernel::new(ctx, &format!("lorenz step {name}"), &wgsl, "step")?;
        let pos = ctx.zeros::<T>(3 * n)?;
        let groups = grid(ctx, (n as u64).div_ceil(u64::from(WG)))?;
        let init_bind = init.bind(ctx, &[pos.buffer()])?;
        let bind = step.bind(ctx, &[pos.buffer()])?;
        init.run(ctx, &init_bind, groups, 1)?;
        let sim = Sim {
            name,
            pos,
            step,
            bind,
            groups,
        };

        // The start of every particle, against the article's formula on the CPU. The
        // values are multiples of 0.005 apart, so a wrong hash or offset is far outside
        // a few roundings (the GPU may fuse the multiply-add).
        let start = sim.pos.to_vec()?;
        let tol = 8.0 * T::EPS * 32.0;
        let mut worst = 0.0f64;
        for id in 0..n {
            let want = cpu_start::<T>(id as u32);
            for k in 0..3 {
                let d = (start[3 * id + k].into() - want[k].into()).abs();
                worst = if d.is_nan() {
                    f64::INFINITY
                } else {
                    worst.max(d)
                };
            }
        }
        checks.check(
            worst <= tol,
            format!(
                "{name}: GPU start of all {n} particles vs CPU wang_hash formula: largest \
                 difference {worst:.3e} <= {tol:.1e}"
            ),
        );

        // One frame (128 steps) for a spread sample, from the GPU's own start.
        sim.frames(ctx, 1, None)?;
        let after = sim.pos.to_vec()?;
        let tol = 4.0 * f64::from(STEPS) * 50.0 * T::EPS;
        let sample = STEP_CHECKS.min(n);
        let mut worst = 0.0f64;
        for j in 0..sample {
            let id = j * n / sample;
            let p = [start[3 * id], start[3 * id + 1], start[3 * id + 2]];
            let want = cpu_steps(p, STEPS);
            for k in 0..3 {
                let d = (after[3 * id + k].into() - want[k].into()).abs();
                worst = if d.is_nan() {
                    f64::INFINITY
                } else {
                    worst.max(d)
                };
            }
        }
        checks.check(
            worst <= tol,
            format!(
                "{name}: one frame ({STEPS} steps) of {sample} particles vs CPU Euler: \
                 largest difference {worst:.3e} <= {tol:.1e}"
            ),
        );
        Ok(sim)
    }

    /// Submits `frames` frames (one dispatch each), each followed by a splat where
    /// `splat(frame_index)` says so.
    fn frames(
        &self,
        ctx: &Ctx,
        frames: usize,
        splat: Option<(&Splat, &dyn Fn(usize) -> bool)>,
    ) -> DemoResult<()> {
        common::submit(ctx, "lorenz frames", |pass| {
            for f in 0..frames {
                self.step.record(pass, &self.bind, self.groups);
                if let Some((s, draw)) = splat {
                    if draw(f) {
                        s.kernel.record(pass, &s.bind, self.groups);
                    }
                }
            }
        })
    }

    fn positions(&self) -> DemoResult<Vec<f64>> {
        Ok(self.pos.to_vec()?.into_iter().map(Into::into).collect())
    }
}

/// The splat kernel bound to one precision's positions and the count image.
struct Splat {
    kernel: Kernel,
    bind: wgpu::BindGroup,
}

/// A pinhole camera looking at the attractor's middle from the -y side, a little from
/// the right and above, so the two wings spread left and right.
struct Camera {
    eye: [f32; 3],
    right: [f32; 3],
    up: [f32; 3],
    fwd: [f32; 3],
    focal: f32,
}

impl Camera {
    fn new(width: u32, height: u32) -> Camera {
        let target = [0.0f32, 0.0, 25.0];
        let (az, el, dist) = ((-40f32).to_radians(), 10f32.to_radians(), 105.0f32);
        // Eye on a sphere around the target; forward points back at the target.
        let offset = [-az.sin() * el.cos(), -az.cos() * el.cos(), el.sin()];
        let eye = [0, 1, 2].map(|k| target[k] + dist * offset[k]);
        let fwd = offset.map(|v| -v);
        let right = normalize(cross(fwd, [0.0, 0.0, 1.0]));
        let up = cross(right, fwd);
        // 58 world units tall at the target's distance (the attractor is about 48 high).
        let focal = 0.5 * height.min(width * 9 / 16) as f32 * dist / 29.0;
        Camera {
            eye,
            right,
            up,
            fwd,
            focal,
        }
    }
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn normalize(a: [f32; 3]) -> [f32; 3] {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    a.map(|v| v / l)
}

fn vec3(v: [f32; 3]) -> String {
    format!("vec3<f32>({:?}, {:?}, {:?})", v[0], v[1], v[2])
}

fn splat_kernel<T: Real>(
    ctx: &Ctx,
    o: &Options,
    pos: &GpuVec<T>,
    image: &GpuVec<u32>,
) -> DemoResult<Splat> {
    let cam = Camera::new(o.width, o.height);
    let wgsl = render(
        include_str!("demos/lorenz_splat.wgsl"),
        &[
            ("T", T::WGSL.to_string()),
            ("N", o.particles.to_string()),
            ("WG", WG.to_string()),
            ("W", o.width.to_string()),
            ("H", o.height.to_string()),
            ("EYE", vec3(cam.eye)),
            ("RIGHT", vec3(cam.right)),
            ("UP", vec3(cam.up)),
            ("FWD", vec3(cam.fwd)),
            ("FOCAL", format!("{:?}", cam.focal)),
        ],
    )?;
    let kernel = Kernel::new(ctx, "lorenz splat", &wgsl, "splat")?;
    let bind = kernel.bind(ctx, &[pos.buffer(), image.buffer()])?;
    Ok(Splat { kernel, bind })
}

/// Distances between the f32 and f64 runs' particles: mean, median, largest, and the
/// fraction farther apart than 1.
fn drift(a: &[f64], b: &[f64]) -> (f64, f64, f64, f64) {
    let mut d: Vec<f64> = a
        .chunks_exact(3)
        .zip(b.chunks_exact(3))
        .map(|(p, q)| {
            ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
        })
        .collect();
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let far = d.iter().filter(|&&x| x > 1.0 || x.is_nan()).count() as f64 / n;
    let max = d.iter().copied().fold(
        0.0,
        |m: f64, x| if x.is_nan() { f64::INFINITY } else { m.max(x) },
    );
    (mean, common::median(std::mem::take(&mut d)), max, far)
}

fn run() -> DemoResult<()> {
    let o = options()?;
    let ctx = Ctx::new()?;
    println!("adapter: {}", ctx.info());
    let has_f64 = ctx.has_features(wgpu::Features::SHADER_F64) && !o.f32_only;
    println!(
        "{} particles, {} frames of {STEPS} steps (t = {:.3}), precision {}; image {}x{}, last {} frame(s) drawn",
        o.particles,
        o.frames,
        o.frames as f64 * f64::from(STEPS) * 1e-4,
        if has_f64 { "f64 and f32" } else { "f32 only" },
        o.width,
        o.height,
        o.trail
    );
    let mut checks = Checks::default();

    // Both runs start on the GPU and are checked against the CPU (their first frame runs
    // inside `Sim::new`).
    let sim64 = if has_f64 {
        Some(Sim::<f64>::new(&ctx, o.particles, &mut checks)?)
    } else {
        None
    };
    let sim32 = Sim::<f32>::new(&ctx, o.particles, &mut checks)?;

    let pixels = o.width as usize * o.height as usize;
    let image = ctx.zeros::<u32>(pixels)?;
    let splat = match &sim64 {
        Some(s) => splat_kernel(&ctx, &o, &s.pos, &image)?,
        None => splat_kernel(&ctx, &o, &sim32.pos, &image)?,
    };
    // Frames are numbered from 0; frame 0 ran inside the checks. The last `trail` frames
    // are drawn, each right after its step.
    let first_drawn = o.frames - o.trail;
    if first_drawn == 0 {
        common::submit(&ctx, "lorenz splat", |p| {
            splat.kernel.record(p, &splat.bind, sim32.groups)
        })?;
    }

    // Frames 1.. in segments ending at checkpoints 1, 10, 100, ... and the last, where
    // the two runs are compared.
    let mut checkpoints: Vec<usize> = std::iter::successors(Some(1usize), |c| c.checked_mul(10))
        .take_while(|&c| c < o.frames)
        .collect();
    checkpoints.push(o.frames);
    if has_f64 {
        println!("\nf32 vs f64 (distance between the same particle in the two runs):");
        println!(
            "{:>7} {:>8} {:>12} {:>12} {:>12} {:>10}",
            "frames", "t", "mean", "median", "max", "> 1 apart"
        );
    }
    let mut done = 1;
    for &cp in &checkpoints {
        while done < cp {
            let batch = (cp - done).min(64);
            let first = done;
            let draw = move |f: usize| first + f >= first_drawn;
            match &sim64 {
                Some(s64) => {
                    s64.frames(&ctx, batch, Some((&splat, &draw)))?;
                    sim32.frames(&ctx, batch, None)?;
                }
                None => sim32.frames(&ctx, batch, Some((&splat, &draw)))?,
            }
            done += batch;
        }
        if let Some(s64) = &sim64 {
            let (mean, median, max, far) = drift(&s64.positions()?, &sim32.positions()?);
            println!(
                "{cp:>7} {:>8.3} {mean:>12.3e} {median:>12.3e} {max:>12.3e} {:>9.2}%",
                cp as f64 * f64::from(STEPS) * 1e-4,
                100.0 * far
            );
        }
    }

    // Tone map on the GPU: the largest count (gpuprim's reduce) sets the top of the curve.
    let max_count = ctx.reduce_with(&image, Reduce::Max)?;
    let total = ctx.reduce(&image)?;
    let drawn = o.particles as u64 * o.trail as u64;
    let inside = total as f64 / drawn as f64;
    let lit = {
        let nonzero = ctx.map(&image, "select(0u, 1u, x > 0u)")?;
        ctx.reduce(&nonzero)?
    };
    println!(
        "\nimage: {total} of {drawn} points inside ({:.1}%), {lit} pixels lit ({:.2}%), largest count {max_count}",
        100.0 * inside,
        100.0 * f64::from(lit) / pixels as f64
    );
    checks.check(
        inside >= 0.9,
        format!(
            "{:.1}% of the points inside the image (>= 90%)",
            100.0 * inside
        ),
    );
    let tonemap = Kernel::new(
        &ctx,
        "lorenz tonemap",
        &render(
            include_str!("demos/lorenz_tonemap.wgsl"),
            &[
                ("PIXELS", pixels.to_string()),
                ("WG", WG.to_string()),
                (
                    "LOG_MAX",
                    format!("{:?}", (1.0 + max_count.max(1) as f32).ln()),
                ),
            ],
        )?,
        "tonemap",
    )?;
    let rgba = ctx.zeros::<u32>(pixels)?;
    let bind = tonemap.bind(&ctx, &[image.buffer(), rgba.buffer()])?;
    tonemap.run(
        &ctx,
        &bind,
        grid(&ctx, (pixels as u64).div_ceil(u64::from(WG)))?,
        1,
    )?;
    let rgba: Vec<u8> = bytemuck::cast_slice(&rgba.to_vec()?).to_vec();
    write_png(&o.out, o.width, o.height, &rgba)?;
    println!("wrote {}", o.out.display());

    // Speed, after the picture: more frames on the evolved particles.
    println!("\nspeed (GPU time per frame of {STEPS} steps, median):");
    let rows: Vec<(&str, f64)> = {
        let mut rows = Vec::new();
        if let Some(s) = &sim64 {
            rows.push((
                s.name,
                common::gpu_ms(&ctx, 50.0, |reps| s.frames(&ctx, reps, None))?,
            ));
        }
        rows.push((
            sim32.name,
            common::gpu_ms(&ctx, 50.0, |reps| sim32.frames(&ctx, reps, None))?,
        ));
        rows
    };
    for (name, ms) in rows {
        let steps_per_s = o.particles as f64 * f64::from(STEPS) / (ms / 1e3);
        println!(
            "  {name}: {ms:9.4} ms per frame, {} particle-steps/s",
            common::rate(steps_per_s)
        );
    }
    checks.finish()
}

fn write_png(path: &std::path::Path, width: u32, height: u32, rgba: &[u8]) -> DemoResult<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    }
    let file =
        std::fs::File::create(path).map_err(|e| format!("creating {}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let rgb: Vec<u8> = rgba
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let mut w = enc.write_header()?;
    w.write_image_data(&rgb)?;
    w.finish()?;
    Ok(())
}
