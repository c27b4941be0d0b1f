//! The bandwidth table's timing and printer (the `bandwidth` binary's rows), and the GPU
//! timer the other harnesses use too.
//!
//! GPU time comes from timestamp queries where the adapter has them: an empty compute
//! pass writes a timestamp before a round of back-to-back calls and another after it
//! (both at the bottom of the pipe, so they bracket the work). Host stalls, such as the
//! driver freeing a large upload's staging memory, do not count. Without timestamp
//! queries a round is timed by the host clock around submit + wait.
//!
//! Every row printed through [`Bench`] is also kept as a [`Record`] and, where
//! [`Bench::write_to`] named files, written as CSV and JSON after each row (so a run
//! that fails half-way still leaves the rows before the failure).

use std::fmt::Write as _;
use std::path::PathBuf;
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

/// `builder` with the library's tuning knobs that `bandwidth` takes from the environment:
/// `GP_RTS_KNOCKOUT=N` ([`gpuprim::CtxBuilder::sort_rts_knockout`]) and
/// `GP_COLUMNS=COLS:GROUPS` ([`gpuprim::CtxBuilder::reduce_columns_shape`]). The library
/// reads no such variable itself: a test binary with one left in its environment
/// runs its default kernels.
pub fn tuning(mut builder: gpuprim::CtxBuilder) -> gpuprim::CtxBuilder {
    if let Some(phases) = std::env::var("GP_RTS_KNOCKOUT")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        builder = builder.sort_rts_knockout(phases);
    }
    if let Ok(v) = std::env::var("GP_COLUMNS") {
        let mut it = v.split(':').map(|x| x.parse::<u64>().ok());
        if let (Some(Some(cols)), Some(Some(groups))) = (it.next(), it.next()) {
            builder = builder.reduce_columns_shape(cols.min(u64::from(u32::MAX)) as u32, groups);
        }
    }
    builder
}

/// One row of the table as the CSV and JSON files have it.
#[derive(Clone, Debug)]
pub struct Record {
    /// The section that made the row (`elementwise`, `reduce`, ..., `latency`).
    pub section: String,
    /// The row's name as printed.
    pub name: String,
    /// Elements per call: the table's `n` for bandwidth rows (rows on other sizes, the
    /// 2D images and the stateful fill, say theirs in the name), the call's own for
    /// latency rows, `None` where there is none (a wait on an idle device).
    pub n: Option<usize>,
    /// Bytes one call reads plus writes; `None` for latency rows.
    pub bytes: Option<usize>,
    /// Milliseconds per call (latency rows too: 22.4 us is 0.0224).
    pub ms: f64,
    /// Bandwidth relative to the copy kernel's (the copy kernel itself 1.0).
    pub vs_copy: Option<f64>,
}

impl Record {
    /// Effective bandwidth in GB/s (10^9 bytes), for rows with bytes.
    pub fn gb_per_s(&self) -> Option<f64> {
        self.bytes.map(|b| b as f64 / self.ms / 1e6)
    }
}

/// One table: a context, a size, and the copy kernel's time as the reference.
pub struct Bench<'a> {
    pub ctx: &'a Ctx,
    pub n: usize,
    pub software: bool,
    copy_ms: Option<f64>,
    section: String,
    records: Vec<Record>,
    csv: Option<PathBuf>,
    json: Option<PathBuf>,
}

impl<'a> Bench<'a> {
    pub fn new(ctx: &'a Ctx, n: usize, software: bool) -> Self {
        Bench {
            ctx,
            n,
            software,
            copy_ms: None,
            section: "elementwise".into(),
            records: Vec::new(),
            csv: None,
            json: None,
        }
    }

    /// Also writes every row to these files (CSV, JSON), rewritten after each row.
    /// Creates them at once, so a path that cannot be written fails before any timing.
    pub fn write_to(&mut self, csv: Option<PathBuf>, json: Option<PathBuf>) -> std::io::Result<()> {
        self.csv = csv;
        self.json = json;
        self.save()
    }

    /// Names the section later rows belong to in the CSV and JSON files.
    pub fn section(&mut self, name: &str) {
        self.section = name.into();
    }

    fn clock(&self) -> &'static str {
        if self.ctx.has_features(wgpu::Features::TIMESTAMP_QUERY) {
            "GPU timestamps"
        } else {
            "host clock, submit + wait"
        }
    }

    pub fn header(&self) {
        let clock = self.clock();
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
        let host: Vec<u32> = stream_u32(self.n, seed).collect();
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

    /// Prints and keeps a row for a time measured otherwise (the difference of two
    /// timings: the sort rows' copy + sort minus the copy).
    pub fn print_row(&mut self, name: &str, bytes: usize, ms: f64) {
        let record = self.record_time(name, bytes, ms);
        let gbs = record.gb_per_s().unwrap_or(f64::NAN);
        let ratio = match record.vs_copy {
            Some(r) => format!("{r:8.2}x"),
            None => "".into(),
        };
        println!("{name:44} {ms:9.4} ms {gbs:10.1} {ratio:>9}");
    }

    /// Keeps a bandwidth row timed and printed elsewhere (such as the alternating rows
    /// of the `auto` section) for the CSV and JSON files, and returns it.
    pub fn record_time(&mut self, name: &str, bytes: usize, ms: f64) -> Record {
        let vs_copy = self
            .copy_ms
            .map(|c| (bytes as f64 / ms) / (8.0 * self.n as f64 / c));
        self.push(Record {
            section: self.section.clone(),
            name: name.into(),
            n: Some(self.n),
            bytes: Some(bytes),
            ms,
            vs_copy,
        })
    }

    /// Prints and keeps a host round-trip row: `us` microseconds per call of something
    /// on `n` elements (`None`: no elements, such as a wait).
    pub fn latency_row(&mut self, name: &str, n: Option<usize>, us: f64) {
        println!("latency {name:36} {us:9.1} us");
        self.push(Record {
            section: self.section.clone(),
            name: name.into(),
            n,
            bytes: None,
            ms: us / 1e3,
            vs_copy: None,
        });
    }

    fn push(&mut self, record: Record) -> Record {
        self.records.push(record.clone());
        if let Err(e) = self.save() {
            eprintln!("warning: could not write the table's files: {e}");
        }
        record
    }

    /// Rewrites the CSV and JSON files, where asked for, with every row so far.
    fn save(&self) -> std::io::Result<()> {
        if let Some(path) = &self.csv {
            std::fs::write(path, self.to_csv())?;
        }
        if let Some(path) = &self.json {
            std::fs::write(path, self.to_json())?;
        }
        Ok(())
    }

    /// The rows as CSV, one line each after a header; every line names the adapter.
    pub fn to_csv(&self) -> String {
        let adapter = csv_field(&self.ctx.info().name);
        let mut out = String::from("adapter,section,primitive,n,bytes,ms,gb_per_s,vs_copy\n");
        for r in &self.records {
            let _ = writeln!(
                out,
                "{adapter},{},{},{},{},{},{},{}",
                csv_field(&r.section),
                csv_field(&r.name),
                opt(r.n),
                opt(r.bytes),
                r.ms,
                opt(r.gb_per_s()),
                opt(r.vs_copy),
            );
        }
        out
    }

    /// The rows as one JSON object: the run's settings, then `rows`.
    pub fn to_json(&self) -> String {
        let info = self.ctx.info();
        let or_null = |v: Option<String>| v.unwrap_or_else(|| "null".into());
        let mut out = String::from("{\n");
        for (key, value) in [
            ("adapter", json_string(&info.name)),
            (
                "device_type",
                json_string(&format!("{:?}", info.device_type)),
            ),
            ("backend", json_string(&format!("{:?}", info.backend))),
            ("driver", json_string(&info.driver)),
            ("n", self.n.to_string()),
            ("batch_limit", batch_limit().to_string()),
            ("clock", json_string(self.clock())),
        ] {
            let _ = writeln!(out, "  \"{key}\": {value},");
        }
        out.push_str("  \"rows\": [");
        for (i, r) in self.records.iter().enumerate() {
            let fields = [
                ("section", json_string(&r.section)),
                ("primitive", json_string(&r.name)),
                ("n", or_null(r.n.map(|v| v.to_string()))),
                ("bytes", or_null(r.bytes.map(|v| v.to_string()))),
                ("ms", json_number(r.ms)),
                ("gb_per_s", or_null(r.gb_per_s().map(json_number))),
                ("vs_copy", or_null(r.vs_copy.map(json_number))),
            ]
            .map(|(key, value)| format!("\"{key}\": {value}"));
            let comma = if i == 0 { "" } else { "," };
            let _ = write!(out, "{comma}\n    {{{}}}", fields.join(", "));
        }
        out.push_str("\n  ]\n}\n");
        out
    }

    /// The copy kernel's row: later rows print their bandwidth relative to it.
    pub fn reference(
        &mut self,
        name: &str,
        bytes: usize,
        f: impl FnMut() -> Result<()>,
    ) -> Result<()> {
        let ms = self.time_on(self.ctx, f)?;
        self.copy_ms = Some(ms);
        self.print_row(name, bytes, ms);
        Ok(())
    }
}

/// Two timestamps around a round of work, written by empty compute passes. Its fields are
/// public for `grid_lab` and `reduce_lab`, which record the marks into their own command
/// buffers.
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

/// A CSV field, quoted where it holds a comma, a quote or a line break (RFC 4180).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into()
    }
}

/// An optional CSV value: empty where there is none.
fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(String::new, |v| v.to_string())
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// JSON has no NaN or infinity: those become null.
fn json_number(v: f64) -> String {
    if v.is_finite() {
        v.to_string()
    } else {
        "null".into()
    }
}

/// `n` u32 from a seeded xorshift stream (the high words of [`xorshift`]'s): the
/// sections' host data.
pub fn stream_u32(n: usize, seed: u64) -> impl Iterator<Item = u32> {
    xorshift(n, seed).map(|r| (r >> 32) as u32)
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
