//! GPU profiling of gpuprim's calls ([`CtxBuilder::profiling`](crate::CtxBuilder::profiling)),
//! through [wgpu-profiler](https://crates.io/crates/wgpu-profiler): timestamp queries
//! around each call's work, read back by [`Ctx::profile`], summarised per primitive and
//! written as a Chrome trace (open it in `chrome://tracing` or <https://ui.perfetto.dev>).
//!
//! With profiling off (the default) a call checks one `Option`: nothing is recorded.

use std::collections::HashMap;
use std::fmt;

use crate::error::{Error, Result};
use crate::runtime::context::Ctx;

/// The profiler of a context with profiling on.
pub(crate) struct Profiler {
    gpu: wgpu_profiler::GpuProfiler,
    /// Timestamps may be written between passes: one query spans a whole call.
    encoder_scopes: bool,
    next: u64,
    /// The calls recorded since the last report: (number, primitive).
    calls: Vec<(u64, &'static str)>,
}

impl fmt::Debug for Profiler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Profiler")
            .field("calls", &self.calls.len())
            .finish_non_exhaustive()
    }
}

/// The queries one call's recording has open.
pub(crate) struct CallQueries {
    label: String,
    whole: Option<wgpu_profiler::GpuProfilerQuery>,
}

impl Profiler {
    pub(crate) fn new(device: &wgpu::Device, features: wgpu::Features) -> Result<Profiler> {
        let settings = wgpu_profiler::GpuProfilerSettings {
            enable_timer_queries: true,
            enable_debug_groups: false,
            max_num_pending_frames: 4,
        };
        let gpu =
            wgpu_profiler::GpuProfiler::new(device, settings).map_err(|e| Error::Internal {
                op: "CtxBuilder::profiling",
                message: e.to_string(),
            })?;
        Ok(Profiler {
            gpu,
            encoder_scopes: features.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS),
            next: 0,
            calls: Vec::new(),
        })
    }

    /// Opens the queries of call `op` on `enc` (a query around the whole call where the
    /// device allows timestamps between passes).
    pub(crate) fn begin_call(
        &mut self,
        op: &'static str,
        enc: &mut wgpu::CommandEncoder,
    ) -> CallQueries {
        let label = format!("{op} #{}", self.next);
        self.calls.push((self.next, op));
        self.next += 1;
        let whole = self
            .encoder_scopes
            .then(|| self.gpu.begin_query(label.clone(), enc));
        CallQueries { label, whole }
    }

    /// A query for one compute pass of the call (its timestamps are the pass's own).
    pub(crate) fn begin_pass(
        &self,
        call: &CallQueries,
        enc: &mut wgpu::CommandEncoder,
    ) -> wgpu_profiler::GpuProfilerQuery {
        let label = if call.whole.is_some() {
            "pass".to_string()
        } else {
            call.label.clone()
        };
        self.gpu.begin_pass_query(label, enc)
    }

    pub(crate) fn end_pass(
        &self,
        enc: &mut wgpu::CommandEncoder,
        query: wgpu_profiler::GpuProfilerQuery,
    ) {
        self.gpu.end_query(enc, query);
    }

    /// Closes the call's queries and resolves them into `enc`.
    pub(crate) fn end_call(&mut self, enc: &mut wgpu::CommandEncoder, call: CallQueries) {
        if let Some(q) = call.whole {
            self.gpu.end_query(enc, q);
        }
        self.gpu.resolve_queries(enc);
    }
}

/// What a profiling context measured: every call recorded since the last report, with
/// its GPU time. Made by [`Ctx::profile`].
#[derive(Debug, Clone)]
pub struct Profile {
    /// The calls, in the order they were recorded.
    pub calls: Vec<ProfiledCall>,
    results: Vec<wgpu_profiler::GpuTimerQueryResult>,
}

/// One call in a [`Profile`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ProfiledCall {
    /// The primitive, e.g. `"reduce_with"`, `"map"`, `"scan"`.
    pub name: &'static str,
    /// GPU time of its work in milliseconds: from its first to its last timestamp, or
    /// the sum of its compute passes where the device cannot write timestamps between
    /// passes. `None` for a call with no compute pass there (a buffer copy).
    pub gpu_ms: Option<f64>,
}

/// One primitive's line in [`Profile::summary`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ProfileRow {
    /// The primitive.
    pub name: &'static str,
    /// Calls made.
    pub calls: usize,
    /// Their GPU time, in milliseconds (calls without a time count nothing).
    pub total_ms: f64,
    /// The longest call, in milliseconds.
    pub max_ms: f64,
}

impl Profile {
    /// Per primitive: calls, total and longest GPU time, the most total time first.
    pub fn summary(&self) -> Vec<ProfileRow> {
        let mut rows: Vec<ProfileRow> = Vec::new();
        for call in &self.calls {
            let ms = call.gpu_ms.unwrap_or(0.0);
            match rows.iter_mut().find(|r| r.name == call.name) {
                Some(r) => {
                    r.calls += 1;
                    r.total_ms += ms;
                    r.max_ms = r.max_ms.max(ms);
                }
                None => rows.push(ProfileRow {
                    name: call.name,
                    calls: 1,
                    total_ms: ms,
                    max_ms: ms,
                }),
            }
        }
        rows.sort_by(|a, b| b.total_ms.total_cmp(&a.total_ms));
        rows
    }

    /// Writes the calls as a Chrome trace (JSON) to `path`: open it in
    /// `chrome://tracing` or <https://ui.perfetto.dev>.
    pub fn write_chrome_trace(&self, path: impl AsRef<std::path::Path>) -> std::io::Result<()> {
        wgpu_profiler::chrometrace::write_chrometrace(path.as_ref(), &self.results)
    }
}

impl fmt::Display for Profile {
    /// The summary as a table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:28} {:>7} {:>12} {:>12} {:>12}",
            "primitive", "calls", "total ms", "mean ms", "max ms"
        )?;
        for r in self.summary() {
            writeln!(
                f,
                "{:28} {:>7} {:>12.4} {:>12.4} {:>12.4}",
                r.name,
                r.calls,
                r.total_ms,
                r.total_ms / r.calls as f64,
                r.max_ms
            )?;
        }
        Ok(())
    }
}

impl Ctx {
    /// The GPU times of every call made since the last `profile` (or since the context
    /// was built), on a context built with
    /// [`CtxBuilder::profiling`](crate::CtxBuilder::profiling). Waits for the GPU to
    /// finish them. Work recorded into your own encoder ([`Ctx::record`]) is not timed.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::builder().profiling(true).build()?;
    /// let v = ctx.upload(&vec![1.0f32; 1 << 16])?;
    /// let doubled = ctx.map(&v, "x * 2.0")?;
    /// assert_eq!(ctx.reduce(&doubled)?, 131072.0);
    /// let profile = ctx.profile()?;
    /// let names: Vec<_> = profile.calls.iter().map(|c| c.name).collect();
    /// assert_eq!(names, ["map", "reduce_with"]);
    /// println!("{profile}");                     // calls and GPU time per primitive
    /// profile.write_chrome_trace(std::env::temp_dir().join("gpuprim-trace.json"))?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] on a context built without profiling; what
    /// [`Ctx::synchronize`] returns.
    pub fn profile(&self) -> Result<Profile> {
        let op = "Ctx::profile";
        let Some(profiler) = &self.inner.profiler else {
            return Err(Error::InvalidArgument {
                op,
                message: "profiling is off on this context; build it with \
                          Ctx::builder().profiling(true)"
                    .into(),
            });
        };
        self.synchronize()?;
        let mut p = profiler.lock().unwrap_or_else(|e| e.into_inner());
        p.gpu.end_frame().map_err(|e| Error::Internal {
            op,
            message: e.to_string(),
        })?;
        let period = self.inner.queue.get_timestamp_period();
        // The frame's read-back buffers map once the GPU is done (it is): poll until
        // wgpu-profiler has them.
        let mut results = None;
        for _ in 0..1000 {
            if let Some(r) = p.gpu.process_finished_frame(period) {
                results = Some(r);
                break;
            }
            self.wait_for(op, crate::runtime::wait::Until::Idle)?;
            crate::runtime::native::sleep(std::time::Duration::from_micros(100));
        }
        let results = results.ok_or_else(|| Error::Internal {
            op,
            message: "the profiler's timestamps never came back".into(),
        })?;
        let mut ms: HashMap<u64, f64> = HashMap::new();
        for r in &results {
            let Some(seq) = r
                .label
                .rsplit_once(" #")
                .and_then(|(_, s)| s.parse::<u64>().ok())
            else {
                continue;
            };
            if let Some(t) = &r.time {
                *ms.entry(seq).or_default() += (t.end - t.start) * 1e3;
            }
        }
        let calls = std::mem::take(&mut p.calls)
            .into_iter()
            .map(|(seq, name)| ProfiledCall {
                name,
                gpu_ms: ms.get(&seq).copied(),
            })
            .collect();
        Ok(Profile { calls, results })
    }
}
