//! What the harnesses that run kernels of their own share: flag parsing, checks that fail
//! the run at the end, compute kernels with wgpu errors caught in error scopes, and their
//! GPU time.
//!
//! Taken from the demo examples' `examples/demos/common.rs` (the part the harnesses use):
//! an example has to stand alone for users to copy, so the demos keep their own.

use std::collections::HashMap;
use std::fmt::Display;
use std::str::FromStr;
use std::time::Instant;

use gpuprim::Ctx;
use gpuprim::wgpu;

use crate::timing::GpuTimer;

/// Errors of the harnesses: gpuprim's, wgpu's (as text), bad flags, failed checks.
pub type LabResult<T> = Result<T, Box<dyn std::error::Error>>;

// ---------------------------------------------------------------------------------------
// Flags

/// `--name value`, `--name=value` and bare `--name` flags. Every flag must be asked for
/// (by [`Args::flag`] or [`Args::value`]) before [`Args::finish`], which rejects the rest.
pub struct Args {
    usage: &'static str,
    values: HashMap<String, Option<String>>,
    asked: Vec<String>,
}

impl Args {
    /// Parses the process arguments; `--help` prints `usage` and exits.
    pub fn parse(usage: &'static str) -> LabResult<Args> {
        let mut values = HashMap::new();
        let mut it = std::env::args().skip(1).peekable();
        while let Some(a) = it.next() {
            if a == "--help" || a == "-h" {
                println!("{usage}");
                std::process::exit(0);
            }
            let Some(name) = a.strip_prefix("--") else {
                return Err(format!("unexpected argument {a:?}\n\n{usage}").into());
            };
            let (name, value) = match name.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => {
                    let v = it.next_if(|next| !next.starts_with("--"));
                    (name.to_string(), v)
                }
            };
            if values.insert(name.clone(), value).is_some() {
                return Err(format!("--{name} given twice\n\n{usage}").into());
            }
        }
        Ok(Args {
            usage,
            values,
            asked: Vec::new(),
        })
    }

    /// Whether the bare flag `--name` was given.
    pub fn flag(&mut self, name: &str) -> LabResult<bool> {
        self.asked.push(name.to_string());
        match self.values.get(name) {
            None => Ok(false),
            Some(None) => Ok(true),
            Some(Some(v)) => {
                Err(format!("--{name} takes no value (got {v:?})\n\n{}", self.usage).into())
            }
        }
    }

    /// The value of `--name`, parsed, or `None` if it was not given.
    pub fn value<T: FromStr>(&mut self, name: &str) -> LabResult<Option<T>>
    where
        T::Err: Display,
    {
        self.asked.push(name.to_string());
        match self.values.get(name) {
            None => Ok(None),
            Some(None) => Err(format!("--{name} needs a value\n\n{}", self.usage).into()),
            Some(Some(v)) => v
                .parse()
                .map(Some)
                .map_err(|e| format!("--{name} {v:?}: {e}\n\n{}", self.usage).into()),
        }
    }

    /// A comma-separated list, e.g. `--sizes 100000,1000000`.
    pub fn list<T: FromStr>(&mut self, name: &str) -> LabResult<Option<Vec<T>>>
    where
        T::Err: Display,
    {
        let Some(text) = self.value::<String>(name)? else {
            return Ok(None);
        };
        let items: Result<Vec<T>, _> = text.split(',').map(|s| s.trim().parse::<T>()).collect();
        match items {
            Ok(v) if !v.is_empty() => Ok(Some(v)),
            Ok(_) => Err(format!("--{name} is empty\n\n{}", self.usage).into()),
            Err(e) => Err(format!("--{name} {text:?}: {e}\n\n{}", self.usage).into()),
        }
    }

    /// Rejects flags nobody asked for.
    pub fn finish(self) -> LabResult<()> {
        let mut unknown: Vec<_> = self
            .values
            .keys()
            .filter(|k| !self.asked.contains(k))
            .map(|k| format!("--{k}"))
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        unknown.sort();
        Err(format!("unknown flag {}\n\n{}", unknown.join(", "), self.usage).into())
    }
}

/// Runs `body` and turns an error into a message and exit status 1 (no panic, no
/// `Debug` dump of the error).
pub fn main_with(name: &str, body: impl FnOnce() -> LabResult<()>) -> std::process::ExitCode {
    match body() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Whether the context runs on a software (CPU) adapter such as lavapipe.
pub fn is_software(ctx: &Ctx) -> bool {
    ctx.info().device_type == wgpu::DeviceType::Cpu
}

// ---------------------------------------------------------------------------------------
// Checks

/// Checks that do not stop the run: recorded as they happen, listed by
/// [`Checks::finish`] after the tables, which fails the run if any failed.
#[derive(Default)]
pub struct Checks {
    lines: Vec<(bool, String)>,
}

impl Checks {
    /// Records `ok` with a description (`what`, including the numbers compared).
    pub fn check(&mut self, ok: bool, what: impl Display) {
        self.lines.push((ok, what.to_string()));
    }

    /// Prints every check; `Err` listing the failed ones, if any.
    pub fn finish(self) -> LabResult<()> {
        println!("\nchecks:");
        for (ok, what) in &self.lines {
            println!("  {} {what}", if *ok { "ok:    " } else { "FAILED:" });
        }
        let failed: Vec<&str> = self
            .lines
            .iter()
            .filter(|(ok, _)| !ok)
            .map(|(_, w)| w.as_str())
            .collect();
        if failed.is_empty() {
            println!("all {} checks passed", self.lines.len());
            return Ok(());
        }
        Err(format!(
            "{} of {} checks failed:\n  {}",
            failed.len(),
            self.lines.len(),
            failed.join("\n  ")
        )
        .into())
    }
}

// ---------------------------------------------------------------------------------------
// Error scopes

/// Runs `f` (wgpu calls) with validation and out-of-memory errors caught and returned.
pub fn scoped<R>(ctx: &Ctx, what: &str, f: impl FnOnce() -> R) -> LabResult<R> {
    let d = ctx.device();
    let oom = d.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = d.push_error_scope(wgpu::ErrorFilter::Validation);
    let r = f();
    let invalid = pollster::block_on(validation.pop());
    let out_of_memory = pollster::block_on(oom.pop());
    match invalid.or(out_of_memory) {
        Some(e) => Err(format!("{what}: {e}").into()),
        None => Ok(r),
    }
}

// ---------------------------------------------------------------------------------------
// Kernels

/// One compute pipeline (its bind group 0 laid out from the shader).
pub struct Kernel {
    label: String,
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

impl Kernel {
    /// Compiles entry point `entry` of `wgsl`; a WGSL error comes back as an error with
    /// the compiler's message.
    pub fn new(ctx: &Ctx, label: &str, wgsl: &str, entry: &str) -> LabResult<Kernel> {
        let d = ctx.device();
        let pipeline = scoped(ctx, &format!("compiling kernel `{label}`"), || {
            let module = d.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(wgsl.into()),
            });
            d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: None,
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        })?;
        let layout = pipeline.get_bind_group_layout(0);
        Ok(Kernel {
            label: label.to_string(),
            pipeline,
            layout,
        })
    }

    /// Binds `buffers` whole, as bindings 0, 1, ... of group 0. Each must fit one storage
    /// binding of the device (an error naming the sizes otherwise).
    pub fn bind(&self, ctx: &Ctx, buffers: &[&wgpu::Buffer]) -> LabResult<wgpu::BindGroup> {
        let limit = ctx.info().max_binding_bytes;
        for (i, b) in buffers.iter().enumerate() {
            if b.size() > limit {
                return Err(format!(
                    "kernel `{}`: binding {i} is {} bytes, more than the device's largest \
                     storage binding ({limit} bytes); use fewer elements",
                    self.label,
                    b.size()
                )
                .into());
            }
        }
        let entries: Vec<_> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        scoped(ctx, &format!("binding kernel `{}`", self.label), || {
            ctx.device().create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&self.label),
                layout: &self.layout,
                entries: &entries,
            })
        })
    }

    /// Records one dispatch of `groups` workgroups into `pass`.
    pub fn record(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        bind: &wgpu::BindGroup,
        groups: [u32; 3],
    ) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, bind, &[]);
        pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
    }

    /// Submits `times` dispatches in one compute pass, without waiting.
    pub fn run(
        &self,
        ctx: &Ctx,
        bind: &wgpu::BindGroup,
        groups: [u32; 3],
        times: usize,
    ) -> LabResult<()> {
        submit(ctx, &self.label, |pass| {
            for _ in 0..times {
                self.record(pass, bind, groups);
            }
        })
    }
}

/// Records `f` into one compute pass and submits it, errors caught; does not wait.
pub fn submit(ctx: &Ctx, what: &str, f: impl FnOnce(&mut wgpu::ComputePass<'_>)) -> LabResult<()> {
    scoped(ctx, what, || {
        let mut enc = ctx.device().create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(what),
                timestamp_writes: None,
            });
            f(&mut pass);
        }
        ctx.queue().submit([enc.finish()]);
    })
}

// ---------------------------------------------------------------------------------------
// Timing

/// Median GPU milliseconds per call, where `f(reps)` submits `reps` calls without
/// waiting (several dispatches in one submission, so a short kernel is not timed by
/// the host's submission rate).
///
/// GPU timestamps ([`GpuTimer`]) bracket each round where the device has them;
/// otherwise the host clock times submit + wait. One call first (warm-up, and the
/// measure of how many calls make a round of about `round_ms`); a call longer than a
/// second is reported from that single sample.
pub fn gpu_ms(
    ctx: &Ctx,
    round_ms: f64,
    mut f: impl FnMut(usize) -> LabResult<()>,
) -> LabResult<f64> {
    let timer = GpuTimer::new(ctx);
    let mut round = |reps: usize| -> LabResult<f64> {
        let t0 = Instant::now();
        if let Some(t) = &timer {
            t.mark(ctx, 0);
        }
        f(reps)?;
        let gpu_ns = match &timer {
            Some(t) => Some(t.finish(ctx)?),
            None => None,
        };
        ctx.synchronize()?;
        let ns = gpu_ns.unwrap_or_else(|| t0.elapsed().as_secs_f64() * 1e9);
        Ok(ns / 1e6 / reps as f64)
    };
    let first = round(1)?;
    if first > 1000.0 {
        return Ok(first);
    }
    let reps = ((round_ms / first.max(1e-4)).ceil() as usize).clamp(1, 1000);
    let rounds = if first * reps as f64 > 500.0 { 3 } else { 7 };
    let mut ms = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        ms.push(round(reps)?);
    }
    Ok(median(ms))
}

/// The median (upper median for an even count); `NaN` for an empty list.
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
