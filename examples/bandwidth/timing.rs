//! Timing and the table printer.
//!
//! GPU time comes from timestamp queries where the adapter has them: an empty compute
//! pass writes a timestamp before a round of back-to-back calls and another after it
//! (both at the bottom of the pipe, so they bracket the work). Host stalls, such as the
//! driver freeing a large upload's staging memory, do not count. Without timestamp
//! queries a round is timed by the host clock around submit + wait.

use std::time::Instant;

use gpuprim::wgpu;
use gpuprim::{Ctx, GpuVec, Result};

/// The contexts' [`gpuprim::CtxBuilder::batch_limit`]: `BATCH_LIMIT` from the environment,
/// else the library's default.
pub fn batch_limit() -> usize {
    std::env::var("BATCH_LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(gpuprim::DEFAULT_BATCH_LIMIT)
}

/// One table: a context, a size, and the copy kernel's time as the reference.
pub struct Bench<'a> {
    pub ctx: &'a Ctx,
    pub n: usize,
    pub software: bool,
    copy_ms: Option<f64>,
}

impl<'a> Bench<'a> {
    pub fn new(ctx: &'a Ctx, n: usize, software: bool) -> Self {
        Bench {
            ctx,
            n,
            software,
            copy_ms: None,
        }
    }

    pub fn header(&self) {
        let clock = if self.ctx.has_features(wgpu::Features::TIMESTAMP_QUERY) {
            "GPU timestamps"
        } else {
            "host clock, submit + wait"
        };
        println!("times: median over rounds of back-to-back calls, {clock}");
        println!(
            "{:44} {:>12} {:>10} {:>9}",
            "primitive", "time", "GB/s", "vs copy"
        );
    }

    /// `n` uniform f32 in [0, 1) from a seeded stream, uploaded.
    pub fn random_f32(&self, seed: u64) -> Result<GpuVec<f32>> {
        let host: Vec<f32> = xorshift(self.n, seed)
            .map(|r| (r >> 40) as f32 / (1u64 << 24) as f32)
            .collect();
        self.ctx.upload(&host)
    }

    /// `n` u32 over the whole range from a seeded stream, uploaded.
    pub fn random_u32(&self, seed: u64) -> Result<GpuVec<u32>> {
        let host: Vec<u32> = xorshift(self.n, seed).map(|r| (r >> 32) as u32).collect();
        self.ctx.upload(&host)
    }

    /// Median milliseconds per call of `f`, which submits GPU work to `ctx` without waiting.
    pub fn time_on(&self, ctx: &Ctx, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
        // Warm up for a while, not a fixed count: after a pause on the host (generating
        // the next row's data) the GPU's clocks drop and take a moment to come back.
        let warm = Instant::now();
        while warm.elapsed().as_millis() < if self.software { 10 } else { 600 } {
            f()?;
            ctx.synchronize()?;
        }
        let (reps, rounds) = if self.software { (3, 3) } else { (20, 11) };
        let timer = GpuTimer::new(ctx);
        let mut ms = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let t0 = Instant::now();
            if let Some(t) = &timer {
                t.mark(ctx, 0);
            }
            for _ in 0..reps {
                f()?;
            }
            let gpu_ns = match &timer {
                Some(t) => Some(t.finish(ctx)?),
                None => None,
            };
            ctx.synchronize()?;
            let total_ms = gpu_ns.unwrap_or(t0.elapsed().as_secs_f64() * 1e9) / 1e6;
            ms.push(total_ms / reps as f64);
        }
        ms.sort_by(f64::total_cmp);
        Ok(ms[ms.len() / 2])
    }

    /// Times `f` and prints a row; `bytes` is what one call reads plus writes.
    pub fn row(&mut self, name: &str, bytes: usize, f: impl FnMut() -> Result<()>) -> Result<f64> {
        self.row_on(self.ctx, name, bytes, f)
    }

    /// [`Bench::row`] for work submitted to another context.
    pub fn row_on(
        &mut self,
        ctx: &Ctx,
        name: &str,
        bytes: usize,
        f: impl FnMut() -> Result<()>,
    ) -> Result<f64> {
        let ms = self.time_on(ctx, f)?;
        self.print_row(name, bytes, ms);
        Ok(ms)
    }

    /// Prints a row for a time measured otherwise (e.g. a difference of two rows' times).
    pub fn print_row(&self, name: &str, bytes: usize, ms: f64) {
        let gbs = bytes as f64 / ms / 1e6;
        let ratio = match self.copy_ms {
            Some(c) => format!("{:8.2}x", (bytes as f64 / ms) / (8.0 * self.n as f64 / c)),
            None => "".into(),
        };
        println!("{name:44} {ms:9.4} ms {gbs:10.1} {ratio:>9}");
    }

    /// The copy kernel's row: later rows print their bandwidth relative to it.
    pub fn reference(
        &mut self,
        name: &str,
        bytes: usize,
        f: impl FnMut() -> Result<()>,
    ) -> Result<()> {
        let ms = self.row(name, bytes, f)?;
        self.copy_ms = Some(ms);
        Ok(())
    }
}

/// Two timestamps around a round of work, written by empty compute passes. Public for
/// the demo examples, which reuse it through `examples/demos/common.rs`, and for
/// `examples/grid_lab.rs`, which records the marks into its own command buffers (hence
/// the public fields).
pub struct GpuTimer {
    pub queries: wgpu::QuerySet,
    pub resolved: wgpu::Buffer,
    pub read: wgpu::Buffer,
}

impl GpuTimer {
    /// `None` where the device has no `TIMESTAMP_QUERY`.
    pub fn new(ctx: &Ctx) -> Option<GpuTimer> {
        if !ctx.has_features(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let d = ctx.device();
        let buffer = |usage| {
            d.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps"),
                size: 16,
                usage,
                mapped_at_creation: false,
            })
        };
        Some(GpuTimer {
            queries: d.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("timer"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolved: buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC),
            read: buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST),
        })
    }

    /// Submits an empty pass that writes timestamp `index` (at its start for 0, its end
    /// for 1); for 1 also resolves both into the read-back buffer.
    pub fn mark(&self, ctx: &Ctx, index: u32) {
        let mut enc = ctx.device().create_command_encoder(&Default::default());
        enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("timer mark"),
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &self.queries,
                beginning_of_pass_write_index: (index == 0).then_some(0),
                end_of_pass_write_index: (index == 1).then_some(1),
            }),
        });
        if index == 1 {
            enc.resolve_query_set(&self.queries, 0..2, &self.resolved, 0);
            enc.copy_buffer_to_buffer(&self.resolved, 0, &self.read, 0, 16);
        }
        ctx.queue().submit([enc.finish()]);
    }

    /// Ends the round and returns its GPU nanoseconds.
    pub fn finish(&self, ctx: &Ctx) -> Result<f64> {
        self.mark(ctx, 1);
        self.read.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        ctx.synchronize()?;
        let ticks: [u64; 2] = {
            let view = self
                .read
                .slice(..)
                .get_mapped_range()
                .expect("mapped after the wait");
            bytemuck::pod_read_unaligned(&view[..16])
        };
        self.read.unmap();
        Ok(ticks[1].wrapping_sub(ticks[0]) as f64 * f64::from(ctx.queue().get_timestamp_period()))
    }
}

fn xorshift(n: usize, seed: u64) -> impl Iterator<Item = u64> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n).map(move |_| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    })
}
