//! reduce_lab: a self-contained experiment for issue #3 (the f32 sum at memory speed).
//!
//! gpuprim's f32 sum of 2^28 values takes about 0.368 ms on the H100 (2.91 TB/s), while
//! `torch.sum` and CUB take 0.350 ms; `../shared/WGPU30.md` quotes a plain wgpu vec4
//! sum with a shared-memory tree at 0.346 ms on the same machine. This example times,
//! in one process, on the same input buffer (`GpuVec::buffer`):
//!
//! - `ctx.reduce_into` (the library, two passes);
//! - "plain" kernels written here, one axis changed at a time from the plain WGPU30
//!   shape (a vec4 accumulator, one vec4 load per iteration, the length and the grid as
//!   WGSL constants, a shared-memory tree, naga's loop bounding off): the bounds from a
//!   uniform; four loads per iteration; a scalar accumulator folding each vec4 the way
//!   the library does; subgroup operations; naga's default checks; workgroup counts;
//!   a second (finishing) dispatch per call; and the library's shape rebuilt here.
//!
//! Timing: each call is one compute pass (as a library call is), 20 calls recorded into
//! one command buffer; every pass writes a timestamp at its start and end. Two figures
//! per row, both medians over 11 rounds after 600 ms of warm-up: "round" is the first
//! pass's start to the last pass's end over 20 (what the bandwidth table measures, gaps
//! between calls included) and "pass" is the median of one pass's own start-to-end.
//! The library row has only the round figure (timed with the bandwidth table's
//! marks, as in its table).
//!
//! A last section times the library's kernel shape (16384 workgroups, a finishing
//! workgroup of up to 1024) with those marks too, submitted in several ways (one
//! command buffer; a command buffer per call in one submission; a submission per call;
//! the library's batches of 1, 16 and 3 calls), next to `ctx.reduce_into` with batch
//! limits 16 (the default), 1, 4, 8, 32 and 64: what the marks and the submissions add
//! per call. `reduce_lab 28 submission` runs only that section.
//!
//! Every kernel's result is checked: its partials are poisoned with NaN before a call,
//! summed on the host (f64) and compared with the f64 sum of the input (relative error
//! below 1e-5); a failed check prints FAIL and the run exits with status 1.
//!
//! `cargo run --release -p gpuprim-lab --bin reduce_lab -- [log2 n]` (default 28 on a GPU, 20 on a
//! CPU adapter).

use std::time::Instant;

use gpuprim::wgpu;
use gpuprim::{Ctx, GpuVec};

use gpuprim_lab::harness::{self, LabResult, scoped};
use gpuprim_lab::timing::GpuTimer;

const WG: u32 = 256;
const REPS: usize = 20;

/// One plain kernel's shape.
#[derive(Clone, Copy)]
struct Shape {
    /// vec4 loads per loop iteration (1 or 4).
    loads: u32,
    /// Accumulate in a vec4 (true) or fold each vec4 into a scalar first (the library).
    vec_acc: bool,
    /// Length and grid as WGSL constants (true) or read from a uniform.
    constants: bool,
    /// Workgroup step: subgroupAdd (true) or a shared-memory tree.
    subgroup: bool,
    /// naga's loop bounding on (wgpu's default module) instead of off.
    loop_bounding: bool,
    /// A second dispatch per call: one workgroup sums the partials.
    finish: bool,
    /// The finishing workgroup's size and its loads per loop iteration (1 or 4).
    finish_wg: u32,
    finish_loads: u32,
    /// Workgroups of the first pass.
    groups: u32,
}

const PLAIN: Shape = Shape {
    loads: 1,
    vec_acc: true,
    constants: true,
    subgroup: false,
    loop_bounding: false,
    finish: false,
    finish_wg: 256,
    finish_loads: 1,
    groups: 2048,
};

fn wgsl(s: Shape, n4: u32) -> String {
    let (n_expr, g_expr) = if s.constants {
        (format!("{n4}u"), format!("{}u", s.groups))
    } else {
        ("p.x".to_string(), "p.y".to_string())
    };
    let (acc_init, acc_ty) = if s.vec_acc {
        ("vec4<f32>(0.0)", "vec4<f32>")
    } else {
        ("0.0", "f32")
    };
    let lift = |v: &str| {
        if s.vec_acc {
            v.to_string()
        } else {
            format!("fold4({v})")
        }
    };
    let body = if s.loads == 4 {
        format!(
            "for (; i + 3u * stride < n; i += 4u * stride) {{
        let v0 = x[i];
        let v1 = x[i + stride];
        let v2 = x[i + 2u * stride];
        let v3 = x[i + 3u * stride];
        acc = acc + (({} + {}) + ({} + {}));
    }}
    for (; i < n; i += stride) {{
        acc = acc + {};
    }}",
            lift("v0"),
            lift("v1"),
            lift("v2"),
            lift("v3"),
            lift("x[i]")
        )
    } else {
        format!(
            "for (; i < n; i += stride) {{
        acc = acc + {};
    }}",
            lift("x[i]")
        )
    };
    let scalar = if s.vec_acc {
        "(acc.x + acc.y) + (acc.z + acc.w)"
    } else {
        "acc"
    };
    let (sg_ids, step) = if s.subgroup {
        (
            ",
    @builtin(subgroup_invocation_id) sl: u32,
    @builtin(subgroup_id) sid: u32,
    @builtin(num_subgroups) ns: u32",
            "let t = subgroupAdd(s);
    if sl == 0u {
        sh[sid] = t;
    }
    workgroupBarrier();
    if l == 0u {
        var total = sh[0];
        for (var j = 1u; j < ns; j++) {
            total = total + sh[j];
        }
        partials[w.x] = total;
    }",
        )
    } else {
        (
            "",
            "sh[l] = s;
    workgroupBarrier();
    for (var k = 128u; k > 0u; k >>= 1u) {
        if l < k {
            sh[l] = sh[l] + sh[l + k];
        }
        workgroupBarrier();
    }
    if l == 0u {
        partials[w.x] = sh[0];
    }",
        )
    };
    let fw = s.finish_wg;
    let finish_loop = if s.finish_loads == 4 {
        format!(
            "for (; i + 3u * {fw}u < {g_expr}; i += 4u * {fw}u) {{
        let a0 = partials[i];
        let a1 = partials[i + {fw}u];
        let a2 = partials[i + 2u * {fw}u];
        let a3 = partials[i + 3u * {fw}u];
        acc = acc + ((a0 + a1) + (a2 + a3));
    }}
    for (; i < {g_expr}; i += {fw}u) {{
        acc = acc + partials[i];
    }}"
        )
    } else {
        format!(
            "for (; i < {g_expr}; i += {fw}u) {{
        acc = acc + partials[i];
    }}"
        )
    };
    format!(
        "@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> partials: array<f32>;
@group(0) @binding(2) var<uniform> p: vec4<u32>;
@group(0) @binding(3) var<storage, read_write> result: array<f32>;

var<workgroup> sh: array<f32, {WG}>;
var<workgroup> fsh: array<f32, {fw}>;

fn fold4(v: vec4<f32>) -> f32 {{
    return (v.x + v.y) + (v.z + v.w);
}}

@compute @workgroup_size({WG})
fn partial(
    @builtin(local_invocation_index) l: u32,
    @builtin(workgroup_id) w: vec3<u32>{sg_ids}
) {{
    let n = {n_expr};
    let stride = {g_expr} * {WG}u;
    var acc: {acc_ty} = {acc_init};
    var i = w.x * {WG}u + l;
    {body}
    let s = {scalar};
    {step}
}}

@compute @workgroup_size({fw})
fn finish(@builtin(local_invocation_index) l: u32) {{
    var acc = 0.0;
    var i = l;
    {finish_loop}
    fsh[l] = acc;
    workgroupBarrier();
    for (var k = {fw}u / 2u; k > 0u; k >>= 1u) {{
        if l < k {{
            fsh[l] = fsh[l] + fsh[l + k];
        }}
        workgroupBarrier();
    }}
    if l == 0u {{
        result[0] = fsh[0];
    }}
}}
"
    )
}

struct Plain {
    partial: wgpu::ComputePipeline,
    finish: Option<wgpu::ComputePipeline>,
    bind: wgpu::BindGroup,
    groups: u32,
}

struct Lab {
    ctx: Ctx,
    cpu: bool,
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    partials: wgpu::Buffer,
    result: wgpu::Buffer,
    uniform: wgpu::Buffer,
    read: wgpu::Buffer,
    queries: Option<wgpu::QuerySet>,
    resolved: wgpu::Buffer,
    stamps: wgpu::Buffer,
}

const MAX_GROUPS: u32 = 65536;

impl Lab {
    fn new(ctx: Ctx) -> Lab {
        let cpu = harness::is_software(&ctx);
        let d = ctx.device().clone();
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("reduce_lab"),
            entries: &[
                storage(0, true),
                storage(1, false),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage(3, false),
            ],
        });
        let pipeline_layout = d.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("reduce_lab"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let buffer = |label, size, usage| {
            d.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        let partial_bytes = 4 * u64::from(MAX_GROUPS + 1);
        let stamp_bytes = 16 * REPS as u64;
        let timestamps = ctx.has_features(wgpu::Features::TIMESTAMP_QUERY);
        Lab {
            cpu,
            partials: buffer(
                "partials",
                partial_bytes,
                U::STORAGE | U::COPY_SRC | U::COPY_DST,
            ),
            result: buffer("result", 4, U::STORAGE | U::COPY_SRC | U::COPY_DST),
            uniform: buffer("params", 16, U::UNIFORM | U::COPY_DST),
            read: buffer("read", partial_bytes, U::MAP_READ | U::COPY_DST),
            queries: timestamps.then(|| {
                d.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("passes"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2 * REPS as u32,
                })
            }),
            resolved: buffer("resolved", stamp_bytes, U::QUERY_RESOLVE | U::COPY_SRC),
            stamps: buffer("stamps", stamp_bytes, U::MAP_READ | U::COPY_DST),
            layout,
            pipeline_layout,
            ctx,
        }
    }

    fn plain(&self, s: Shape, x: &GpuVec<f32>) -> LabResult<Plain> {
        let n4 = (x.len() / 4) as u32;
        let src = wgsl(s, n4);
        let d = self.ctx.device().clone();
        let pipelines = scoped(&self.ctx, "compiling a plain kernel", || {
            let desc = wgpu::ShaderModuleDescriptor {
                label: Some("reduce_lab"),
                source: wgpu::ShaderSource::Wgsl(src.as_str().into()),
            };
            let module = if s.loop_bounding {
                d.create_shader_module(desc)
            } else {
                let checks = wgpu::ShaderRuntimeChecks {
                    force_loop_bounding: false,
                    ..wgpu::ShaderRuntimeChecks::checked()
                };
                // SAFETY: bounds checks stay on; every loop in `wgsl` ends.
                unsafe { d.create_shader_module_trusted(desc, checks) }
            };
            let pipeline = |entry| {
                d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry),
                    layout: Some(&self.pipeline_layout),
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                })
            };
            (pipeline("partial"), s.finish.then(|| pipeline("finish")))
        })
        .map_err(|e| format!("{e}\n--- WGSL ---\n{src}"))?;
        self.ctx.queue().write_buffer(
            &self.uniform,
            0,
            bytemuck::cast_slice(&[n4, s.groups, 0, 0]),
        );
        let bind = scoped(&self.ctx, "binding", || {
            d.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: x.buffer().as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: self.partials.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: self.uniform.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: self.result.as_entire_binding(),
                    },
                ],
            })
        })?;
        Ok(Plain {
            partial: pipelines.0,
            finish: pipelines.1,
            bind,
            groups: s.groups,
        })
    }

    /// One round of `reps` calls; per-pass timestamps when `stamped`.
    fn round(&self, k: &Plain, reps: usize, stamped: bool) -> wgpu::CommandBuffer {
        let mut enc = self
            .ctx
            .device()
            .create_command_encoder(&Default::default());
        for r in 0..reps {
            let writes = match (&self.queries, stamped) {
                (Some(q), true) => Some(wgpu::ComputePassTimestampWrites {
                    query_set: q,
                    beginning_of_pass_write_index: Some(2 * r as u32),
                    end_of_pass_write_index: Some(2 * r as u32 + 1),
                }),
                _ => None,
            };
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: writes,
            });
            pass.set_bind_group(0, &k.bind, &[]);
            pass.set_pipeline(&k.partial);
            pass.dispatch_workgroups(k.groups, 1, 1);
            if let Some(f) = &k.finish {
                pass.set_pipeline(f);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        if let (Some(q), true) = (&self.queries, stamped) {
            enc.resolve_query_set(q, 0..2 * reps as u32, &self.resolved, 0);
            enc.copy_buffer_to_buffer(&self.resolved, 0, &self.stamps, 0, 16 * reps as u64);
        }
        enc.finish()
    }

    /// Reads `bytes` of `src` back to the host.
    fn read_back(&self, src: &wgpu::Buffer, read: &wgpu::Buffer, bytes: u64) -> LabResult<Vec<u8>> {
        let mut enc = self
            .ctx
            .device()
            .create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(src, 0, read, 0, bytes);
        self.ctx.queue().submit([enc.finish()]);
        read.slice(..bytes).map_async(wgpu::MapMode::Read, |_| {});
        self.ctx.synchronize()?;
        let out = read
            .slice(..bytes)
            .get_mapped_range()
            .map_err(|e| format!("mapping: {e}"))?
            .to_vec();
        read.unmap();
        Ok(out)
    }

    /// One call with the partials poisoned first; the host's f64 sum of what it wrote.
    fn checked_sum(&self, k: &Plain) -> LabResult<f64> {
        let nan = vec![f32::NAN; MAX_GROUPS as usize + 1];
        self.ctx
            .queue()
            .write_buffer(&self.partials, 0, bytemuck::cast_slice(&nan));
        self.ctx
            .queue()
            .write_buffer(&self.result, 0, bytemuck::cast_slice(&[f32::NAN]));
        self.ctx.queue().submit([self.round(k, 1, false)]);
        if k.finish.is_some() {
            let b = self.read_back(&self.result, &self.read, 4)?;
            return Ok(f64::from(bytemuck::pod_read_unaligned::<f32>(&b)));
        }
        let b = self.read_back(&self.partials, &self.read, 4 * u64::from(k.groups))?;
        Ok(bytemuck::cast_slice::<u8, f32>(&b)
            .iter()
            .map(|&v| f64::from(v))
            .sum())
    }

    /// Runs `round` and waits, over and over for 600 ms (10 on a CPU adapter: the GPU's
    /// clocks come up); returns how many rounds to time (11, or 3).
    fn warm_up(&self, ctx: &Ctx, mut round: impl FnMut() -> LabResult<()>) -> LabResult<usize> {
        let (warm_ms, rounds) = if self.cpu { (10, 3) } else { (600, 11) };
        let warm = Instant::now();
        while warm.elapsed().as_millis() < warm_ms {
            round()?;
            ctx.synchronize()?;
        }
        Ok(rounds)
    }

    /// (round ms per call, pass ms) medians.
    fn time(&self, k: &Plain) -> LabResult<(f64, Option<f64>)> {
        let rounds = self.warm_up(&self.ctx, || {
            self.ctx.queue().submit([self.round(k, REPS, false)]);
            Ok(())
        })?;
        let period = f64::from(self.ctx.queue().get_timestamp_period());
        let mut round_ms = Vec::new();
        let mut pass_ms = Vec::new();
        for _ in 0..rounds {
            let t0 = Instant::now();
            self.ctx.queue().submit([self.round(k, REPS, true)]);
            if self.queries.is_some() {
                let b = self.read_back(&self.resolved, &self.stamps, 16 * REPS as u64)?;
                let t: &[u64] = bytemuck::cast_slice(&b);
                round_ms.push((t[2 * REPS - 1] - t[0]) as f64 * period / 1e6 / REPS as f64);
                for r in 0..REPS {
                    pass_ms.push((t[2 * r + 1] - t[2 * r]) as f64 * period / 1e6);
                }
            } else {
                self.ctx.synchronize()?;
                round_ms.push(t0.elapsed().as_secs_f64() * 1e3 / REPS as f64);
            }
        }
        let pass = (!pass_ms.is_empty()).then(|| harness::median(pass_ms));
        Ok((harness::median(round_ms), pass))
    }

    /// Median ms per call of `round` (which queues `REPS` calls on `ctx`), timed as the
    /// bandwidth table times a row: the GpuTimer's marks, each an empty pass in a
    /// submission of its own, before and after the round.
    fn time_marked(&self, ctx: &Ctx, mut round: impl FnMut() -> LabResult<()>) -> LabResult<f64> {
        let rounds = self.warm_up(ctx, &mut round)?;
        let timer = GpuTimer::new(ctx);
        let mut ms = Vec::new();
        for _ in 0..rounds {
            let t0 = Instant::now();
            if let Some(t) = &timer {
                t.mark(ctx, 0);
            }
            round()?;
            let ns = match &timer {
                Some(t) => t.finish(ctx)?,
                None => {
                    ctx.synchronize()?;
                    t0.elapsed().as_secs_f64() * 1e9
                }
            };
            ms.push(ns / 1e6 / REPS as f64);
        }
        Ok(harness::median(ms))
    }

    /// `ctx.reduce_into` on `ctx` (a context of its own, for other batch limits).
    fn library(&self, ctx: &Ctx, x: &GpuVec<f32>) -> LabResult<f64> {
        let mut out = ctx.zeros::<f32>(1)?;
        self.time_marked(ctx, || {
            for _ in 0..REPS {
                ctx.reduce_into(x, &mut out)?;
            }
            Ok(())
        })
    }

    /// The plain kernel `k` in `REPS` command buffers of one call each, submitted in
    /// groups of the sizes in `pattern` (which add up to `REPS`), marks around.
    fn submitted(&self, k: &Plain, pattern: &[usize]) -> LabResult<f64> {
        self.time_marked(&self.ctx, || {
            for &count in pattern {
                let cbs: Vec<_> = (0..count).map(|_| self.round(k, 1, false)).collect();
                self.ctx.queue().submit(cbs);
            }
            Ok(())
        })
    }
}

fn main() -> std::process::ExitCode {
    harness::main_with("reduce_lab", run)
}

fn run() -> LabResult<()> {
    let ctx = Ctx::new()?;
    let lab = Lab::new(ctx);
    let log2: u32 = match std::env::args().nth(1) {
        Some(a) => a
            .parse()
            .map_err(|_| format!("log2 n: `{a}` is not a number"))?,
        None if lab.cpu => 20,
        None => 28,
    };
    if !(12..=29).contains(&log2) {
        return Err(format!("log2 n = {log2}: choose 12..=29").into());
    }
    let n = 1usize << log2;
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let host: Vec<f32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect();
    let want: f64 = host.iter().map(|&v| f64::from(v)).sum();
    let x = lab.ctx.upload(&host)?;
    drop(host);
    let gb = 4.0 * n as f64 / 1e9;
    println!("device: {}  n = 2^{log2}", lab.ctx.info().name);
    println!(
        "{:52} {:>10} {:>9} {:>10}",
        "row", "round ms", "TB/s", "pass ms"
    );

    let only_submission = std::env::args().nth(2).as_deref() == Some("submission");
    let lib_ms = lab.library(&lab.ctx, &x)?;
    let got = f64::from(lab.ctx.reduce(&x)?);
    let mut failed = Vec::new();
    let mut check = |name: &str, got: f64| {
        let rel = ((got - want) / want).abs();
        if rel.is_nan() || rel > 1e-5 {
            failed.push(format!("{name}: {got} against {want} (relative {rel:.2e})"));
            " FAIL"
        } else {
            ""
        }
    };
    let flag = check("library", got);
    println!(
        "{:52} {lib_ms:10.4} {:9.3} {:>10}{flag}",
        "library ctx.reduce_into (2 passes, batched calls)",
        gb / lib_ms,
        "-"
    );

    let subgroups = lab.ctx.has_features(wgpu::Features::SUBGROUP);
    let cap = |g: u32| if lab.cpu { g.min(64) } else { g };
    let mut rows: Vec<(String, Shape)> = vec![
        ("plain (WGPU30 shape), 2048 groups".into(), PLAIN),
        (
            "plain, bounds from a uniform".into(),
            Shape {
                constants: false,
                ..PLAIN
            },
        ),
        (
            "plain, 4 loads per iteration".into(),
            Shape { loads: 4, ..PLAIN },
        ),
        (
            "plain, scalar fold per vec4".into(),
            Shape {
                vec_acc: false,
                ..PLAIN
            },
        ),
        (
            "plain, naga loop bounding on".into(),
            Shape {
                loop_bounding: true,
                ..PLAIN
            },
        ),
        (
            "plain + finishing dispatch".into(),
            Shape {
                finish: true,
                ..PLAIN
            },
        ),
    ];
    for g in [1056, 4224, 8448, 16384, 32768] {
        rows.push((format!("plain, {g} groups"), Shape { groups: g, ..PLAIN }));
    }
    // Many partials, then a finishing dispatch: how much does combining them cost?
    let big_wg = lab
        .ctx
        .info()
        .limits
        .max_compute_invocations_per_workgroup
        .min(1024);
    for g in [8448, 16384, 32768] {
        for (fw, fl) in [(256, 1), (256, 4), (big_wg, 1), (big_wg, 4)] {
            rows.push((
                format!("plain, {g} groups + finish {fw} x {fl} loads"),
                Shape {
                    groups: g,
                    finish: true,
                    finish_wg: fw,
                    finish_loads: fl,
                    ..PLAIN
                },
            ));
        }
    }
    let lib_shape = Shape {
        loads: 4,
        vec_acc: false,
        constants: false,
        subgroup: subgroups,
        finish: true,
        ..PLAIN
    };
    if subgroups {
        rows.push((
            "plain, subgroupAdd".into(),
            Shape {
                subgroup: true,
                ..PLAIN
            },
        ));
    }
    rows.push((
        "library's shape rebuilt (4 loads, fold, uniform, 2 passes)".into(),
        lib_shape,
    ));
    rows.push((
        "library's shape, bounds as constants".into(),
        Shape {
            constants: true,
            ..lib_shape
        },
    ));
    rows.push((
        "library's shape, vec4 accumulator".into(),
        Shape {
            vec_acc: true,
            ..lib_shape
        },
    ));
    if only_submission {
        rows.clear();
    }
    for (name, mut shape) in rows {
        shape.groups = cap(shape.groups);
        let k = lab.plain(shape, &x)?;
        let flag = check(&name, lab.checked_sum(&k)?);
        let (round, pass) = lab.time(&k)?;
        let pass = pass.map_or("-".to_string(), |p| format!("{p:.4}"));
        println!("{name:52} {round:10.4} {:9.3} {pass:>10}{flag}", gb / round);
    }
    // Where a library call's time goes besides its kernels: the same kernels as the
    // library's (16384 workgroups, a 1024-wide finish where allowed), timed with the
    // bandwidth table's marks, submitted as the library would and otherwise.
    println!("-- submission patterns, marks as in the bandwidth table (ms per call)");
    let shape = Shape {
        groups: cap(16 * big_wg),
        finish: true,
        finish_wg: big_wg,
        ..PLAIN
    };
    let k = lab.plain(shape, &x)?;
    let flag = check("submission patterns kernel", lab.checked_sum(&k)?);
    let one_cb = lab.time_marked(&lab.ctx, || {
        lab.ctx.queue().submit([lab.round(&k, REPS, false)]);
        Ok(())
    })?;
    let patterns: [(&str, Vec<usize>); 3] = [
        ("a command buffer per call, one submission", vec![REPS]),
        ("a submission per call", vec![1; REPS]),
        (
            "the library's batches: 1, 16, 3 calls",
            vec![1, 16, REPS - 17],
        ),
    ];
    println!(
        "{:52} {one_cb:10.4}{flag}",
        "plain, one command buffer of 20 calls"
    );
    for (name, pattern) in patterns {
        let ms = lab.submitted(&k, &pattern)?;
        println!("{name:52} {ms:10.4}");
    }
    println!(
        "{:52} {:10.4}",
        "library ctx.reduce_into (default batch limit)",
        lab.library(&lab.ctx, &x)?
    );
    for limit in [1, 4, 8, 32, 64] {
        let c = Ctx::builder().batch_limit(limit).build()?;
        let cx = c.upload(&x.to_vec()?)?;
        let ms = lab.library(&c, &cx)?;
        println!(
            "{:52} {ms:10.4}",
            format!("library ctx.reduce_into, batch limit {limit}")
        );
    }
    if failed.is_empty() {
        println!("all checks passed (relative error of each sum below 1e-5 against f64)");
        Ok(())
    } else {
        Err(format!("checks failed:\n  {}", failed.join("\n  ")).into())
    }
}
