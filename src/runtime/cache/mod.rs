//! Generated WGSL and the pipeline cache.
//!
//! A kernel is described by a typed configuration that implements [`KernelSource`]: the
//! configuration is the cache key (`Hash + Eq`) and the one input of the WGSL it renders
//! (`KernelSource::wgsl(&self)`), so two configurations that render different WGSL can
//! never share a pipeline. The first call with a configuration renders and compiles;
//! later calls reuse the pipeline. Compilation (error scope, loop bounding, dumps) is in
//! `compile.rs`; the check that equal configurations render equal WGSL in `audit.rs`.

pub(crate) mod audit;
mod compile;
pub(crate) mod template;

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{Error, Result};
use crate::runtime::context::Ctx;
use compile::Label;
pub(crate) use compile::loops_are_ours;
pub(crate) use template::{render, section};

/// A kernel's typed description: every value that changes its WGSL, and nothing else.
///
/// The configuration is both the pipeline cache's key and the only input of
/// [`KernelSource::wgsl`], so the key and the source cannot disagree: a value that
/// changes the text is a field, and a field is part of the key.
pub(crate) trait KernelSource:
    Clone + fmt::Debug + Hash + Eq + Send + Sync + 'static
{
    /// The kernel's name in labels, WGSL dumps and compile errors (its template's stem).
    fn name(&self) -> &'static str;

    /// The WGSL element type in labels and dumps, or "" where there is none.
    fn element(&self) -> &'static str {
        ""
    }

    /// The kernel's WGSL, rendered by [`template::render`] (whose errors are gpuprim's
    /// bugs: a template and its caller that disagree).
    fn wgsl(&self) -> Result<String>;

    /// User WGSL spliced into the source (an expression, an operator, statements), or ""
    /// for gpuprim's own kernels.
    fn user_code(&self) -> &str {
        ""
    }

    /// For kernels whose user code is statements: the same configuration with plain
    /// user code in its place (e.g. an empty body). The compiled source must have the
    /// same shape (functions, entry points, globals) as this one's, so user code that
    /// closes its function and declares items of its own is refused, and naga's loop
    /// bounding stays on only if the user's functions loop (see [`loops_are_ours`]).
    fn plain(&self) -> Option<Self> {
        None
    }

    /// Whether the template writes every word of workgroup memory before reading it,
    /// so wgpu's zeroing of workgroup memory at the start of each workgroup can be left
    /// out (for the sort's digit pass, 48 KiB a workgroup, the zeroing is measurable;
    /// see lab/perf-journal.md). Only for gpuprim's own kernels.
    fn initializes_workgroup_memory(&self) -> bool {
        false
    }
}

/// A cache key of any type, compared and hashed through `dyn`.
trait DynKey: Send + Sync + fmt::Debug {
    fn as_any(&self) -> &dyn Any;
    fn eq_dyn(&self, other: &dyn DynKey) -> bool;
}

impl<K: Hash + Eq + fmt::Debug + Send + Sync + 'static> DynKey for K {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn eq_dyn(&self, other: &dyn DynKey) -> bool {
        other.as_any().downcast_ref::<K>() == Some(self)
    }
}

/// The hash of a key of type `K` with entry point `entry` (the type is part of it).
fn key_hash<K: Hash + 'static>(key: &K, entry: &str) -> u64 {
    let mut h = DefaultHasher::new();
    TypeId::of::<K>().hash(&mut h);
    key.hash(&mut h);
    entry.hash(&mut h);
    h.finish()
}

/// One entry point of a kernel, compiled: its compute pipeline and the layout its bind
/// groups follow. (A *kernel* is the GPU program a configuration, a [`KernelSource`],
/// describes; its templates may have several entry points, each a `Pipeline`.)
#[derive(Debug)]
pub(crate) struct Pipeline {
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) layout: wgpu::BindGroupLayout,
    /// Bit `b`: binding `b` of group 0 is a storage buffer the kernel may write.
    pub(crate) writable: u64,
    /// Bit `b`: the entry point uses binding `b` of group 0, so its layout holds it; a
    /// dispatch binds only these.
    pub(crate) used: u64,
}

impl Pipeline {
    /// Whether the kernel's layout holds binding `b` of group 0.
    pub(crate) fn uses(&self, b: u32) -> bool {
        b < 64 && self.used >> b & 1 == 1
    }
}

/// One pipeline of the cache, compiled or being compiled: its key, entry point and slot.
struct CacheEntry {
    key: Box<dyn DynKey>,
    entry: &'static str,
    slot: Arc<Slot>,
}

/// Where one kernel is compiled once and then kept: the thread that compiles holds
/// `compiling` (not the cache's map), so a thread asking for the same kernel waits for
/// it and one asking for another does not.
#[derive(Default)]
struct Slot {
    compiling: Mutex<()>,
    kernel: OnceLock<Arc<Pipeline>>,
}

/// The compiled kernels of a context, by key and entry point.
///
/// The map's lock is held only to look a key up or add its slot, never while compiling:
/// a cached kernel is returned at once while other threads compile theirs (seconds for
/// a large kernel on llvmpipe). A compile that fails leaves nothing behind; the next
/// call compiles again.
#[derive(Default)]
pub(crate) struct PipelineCache {
    /// By [`key_hash`]; a bucket holds the entries whose hashes are equal.
    map: Mutex<HashMap<u64, Vec<CacheEntry>>>,
    compiled: AtomicUsize,
}

impl PipelineCache {
    /// The kernels compiled and kept (not those being compiled).
    pub(crate) fn len(&self) -> usize {
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.values()
            .flatten()
            .filter(|e| e.slot.kernel.get().is_some())
            .count()
    }

    pub(crate) fn compiled(&self) -> usize {
        self.compiled.load(Ordering::Relaxed)
    }
}

impl Ctx {
    /// The kernel that `config` describes, with entry point `entry` (templates with
    /// several passes have several entry points; each is its own pipeline), compiled
    /// from `config.wgsl()` on first use.
    ///
    /// Two threads asking for one new kernel compile it once (the second waits for the
    /// first); a thread asking for a cached kernel never waits for another's compile.
    pub(crate) fn pipeline_for<K: KernelSource>(
        &self,
        config: &K,
        entry: &'static str,
    ) -> Result<Arc<Pipeline>> {
        self.cached(config, entry, |config: &K| {
            // naga's recursion depends on the user code: bound it, then compile on a
            // thread whose stack fits it (see `expr::check_size`).
            let terms = crate::expr::check_size(config.name(), "user code", config.user_code())?;
            crate::runtime::native::on_stack(crate::expr::compile_stack(terms), || {
                self.render_and_compile(config, entry)
            })
            .map_err(|e| Error::Internal {
                op: config.name(),
                message: format!("could not start the thread that compiles kernels: {e}"),
            })?
        })
    }

    /// `config`'s WGSL for `entry`, rendered, checked and compiled (on the compile
    /// thread of [`Ctx::pipeline_for`]).
    fn render_and_compile<K: KernelSource>(
        &self,
        config: &K,
        entry: &'static str,
    ) -> Result<Pipeline> {
        let wgsl = template::spec_dialect(config.wgsl().map_err(|e| match e {
            Error::Internal { message, .. } => Error::Internal {
                op: config.name(),
                message: format!("its template: {message}"),
            },
            other => other,
        })?);
        audit::record(config, entry, &wgsl)?;
        let label = Label {
            name: config.name(),
            element: config.element(),
            code: config.user_code(),
        };
        let trusted = match config.plain() {
            Some(plain) => self.check_user_items(config, &plain, &wgsl)?,
            None => loops_are_ours(config.user_code()),
        };
        let zero_init = !config.initializes_workgroup_memory();
        self.compile(&label, entry, &wgsl, trusted, zero_init)
    }

    /// The cached kernel for `(key, entry)`, or `compile`'s, which is then cached.
    fn cached<K: Hash + Eq + Clone + fmt::Debug + Send + Sync + 'static>(
        &self,
        key: &K,
        entry: &'static str,
        compile: impl FnOnce(&K) -> Result<Pipeline>,
    ) -> Result<Arc<Pipeline>> {
        self.check_alive()?;
        let cache = &self.inner.cache;
        let hash = key_hash(key, entry);
        let slot = {
            let mut map = cache.map.lock().unwrap_or_else(|p| p.into_inner());
            let bucket = map.entry(hash).or_default();
            match bucket
                .iter()
                .find(|e| e.entry == entry && e.key.eq_dyn(key))
            {
                Some(found) => Arc::clone(&found.slot),
                None => {
                    let slot = Arc::new(Slot::default());
                    bucket.push(CacheEntry {
                        key: Box::new(key.clone()),
                        entry,
                        slot: Arc::clone(&slot),
                    });
                    slot
                }
            }
        };
        if let Some(kernel) = slot.kernel.get() {
            return Ok(Arc::clone(kernel));
        }
        // Only threads asking for this kernel wait here.
        let _compiling = slot.compiling.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(kernel) = slot.kernel.get() {
            return Ok(Arc::clone(kernel));
        }
        match compile(key) {
            Ok(kernel) => {
                let kernel = Arc::new(kernel);
                cache.compiled.fetch_add(1, Ordering::Relaxed);
                // Only the holder of `compiling` sets the kernel, once.
                let _ = slot.kernel.set(Arc::clone(&kernel));
                Ok(kernel)
            }
            Err(e) => {
                // Nothing is kept for code that did not compile: a program that tries
                // many expressions does not fill the map with them.
                let mut map = cache.map.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(bucket) = map.get_mut(&hash) {
                    bucket.retain(|e| !Arc::ptr_eq(&e.slot, &slot));
                    if bucket.is_empty() {
                        map.remove(&hash);
                    }
                }
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, mpsc};
    use std::time::Duration;

    use super::{Label, Pipeline};
    use crate::{Ctx, Error};

    /// A kernel compiled for real, to stand for a slow compile's result.
    fn trivial_kernel(ctx: &Ctx) -> Pipeline {
        let label = Label {
            name: "test",
            element: "",
            code: "",
        };
        let wgsl = "@compute @workgroup_size(1) fn main() {}";
        ctx.compile(&label, "main", wgsl, true, false).unwrap()
    }

    #[test]
    fn a_cached_kernel_never_waits_for_another_kernels_compile() {
        let ctx = Ctx::new().unwrap();
        let v = ctx.upload(&[1u32, 2, 3]).unwrap();
        assert_eq!(ctx.reduce(&v).unwrap(), 6); // reduce's kernels are now cached
        let (started_tx, started_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (ctx, v) = (&ctx, &v);
        std::thread::scope(|s| {
            // A compile that lasts until this test releases it.
            let slow = s.spawn(move || {
                ctx.cached(&"a slow kernel", "main", |_| {
                    started_tx.send(()).unwrap();
                    release_rx.recv().unwrap();
                    Ok(trivial_kernel(ctx))
                })
            });
            started_rx.recv().unwrap();
            // Meanwhile: a cached call, and a second thread asking for the slow kernel.
            let (done_tx, done_rx) = mpsc::channel();
            s.spawn(move || done_tx.send(ctx.reduce(v)).unwrap());
            let same = s.spawn(move || {
                ctx.cached(&"a slow kernel", "main", |_| -> crate::Result<Pipeline> {
                    panic!("the slow kernel was compiled twice")
                })
            });
            // The wait only bounds how long a wrong cache hangs the test; a right one
            // answers as soon as the reduce has run.
            let hit = done_rx.recv_timeout(Duration::from_secs(300));
            release_tx.send(()).unwrap();
            let sum = hit.expect("a cached call waited for another kernel's compile");
            assert_eq!(sum.unwrap(), 6);
            let first = slow.join().unwrap().unwrap();
            let second = same.join().unwrap().unwrap();
            assert!(Arc::ptr_eq(&first, &second), "one compile for both threads");
        });
    }

    #[test]
    fn a_failed_compile_keeps_nothing() {
        let ctx = Ctx::new().unwrap();
        let before = ctx.pipelines_cached();
        let fail = || {
            ctx.cached(&"fails", "main", |_| -> crate::Result<Pipeline> {
                Err(Error::Internal {
                    op: "test",
                    message: "on purpose".into(),
                })
            })
        };
        assert!(fail().is_err());
        assert_eq!(ctx.pipelines_cached(), before);
        let entries: usize = ctx
            .inner
            .cache
            .map
            .lock()
            .unwrap()
            .values()
            .map(Vec::len)
            .sum();
        assert_eq!(entries, before);
        // It compiles again next time (and is kept once it does).
        let kernel = ctx
            .cached(&"fails", "main", |_| Ok(trivial_kernel(&ctx)))
            .unwrap();
        let again = ctx
            .cached(&"fails", "main", |_| -> crate::Result<Pipeline> {
                panic!("compiled twice")
            })
            .unwrap();
        assert!(Arc::ptr_eq(&kernel, &again));
        assert_eq!(ctx.pipelines_cached(), before + 1);
    }
}
