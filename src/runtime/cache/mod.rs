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
use std::sync::{Arc, Mutex};

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
    /// see docs/perf-journal.md). Only for gpuprim's own kernels.
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

/// A compiled kernel: its pipeline and the layout its bind groups follow.
#[derive(Debug)]
pub(crate) struct Kernel {
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) layout: wgpu::BindGroupLayout,
    /// Bit `b`: binding `b` of group 0 is a storage buffer the kernel may write.
    pub(crate) writable: u64,
    /// Bit `b`: the entry point uses binding `b` of group 0, so its layout holds it; a
    /// dispatch binds only these.
    pub(crate) used: u64,
}

impl Kernel {
    /// Whether the kernel's layout holds binding `b` of group 0.
    pub(crate) fn uses(&self, b: u32) -> bool {
        b < 64 && self.used >> b & 1 == 1
    }
}

/// One cached pipeline: its key, entry point and kernel.
struct CacheEntry {
    key: Box<dyn DynKey>,
    entry: &'static str,
    kernel: Arc<Kernel>,
}

/// The compiled kernels of a context, by key and entry point.
#[derive(Default)]
pub(crate) struct PipelineCache {
    /// By [`key_hash`]; a bucket holds the entries whose hashes are equal.
    map: Mutex<HashMap<u64, Vec<CacheEntry>>>,
    compiled: AtomicUsize,
}

impl PipelineCache {
    pub(crate) fn len(&self) -> usize {
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.values().map(Vec::len).sum()
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
    /// The cache lock is held while compiling, so two threads asking for one new kernel
    /// compile it once.
    pub(crate) fn kernel_for<K: KernelSource>(
        &self,
        config: &K,
        entry: &'static str,
    ) -> Result<Arc<Kernel>> {
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
    /// thread of [`Ctx::kernel_for`]).
    fn render_and_compile<K: KernelSource>(
        &self,
        config: &K,
        entry: &'static str,
    ) -> Result<Kernel> {
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
        compile: impl FnOnce(&K) -> Result<Kernel>,
    ) -> Result<Arc<Kernel>> {
        self.check_alive()?;
        let cache = &self.inner.cache;
        let hash = key_hash(key, entry);
        let mut map = cache.map.lock().unwrap_or_else(|p| p.into_inner());
        let bucket = map.entry(hash).or_default();
        if let Some(found) = bucket
            .iter()
            .find(|e| e.entry == entry && e.key.eq_dyn(key))
        {
            return Ok(Arc::clone(&found.kernel));
        }
        let kernel = Arc::new(compile(key)?);
        cache.compiled.fetch_add(1, Ordering::Relaxed);
        bucket.push(CacheEntry {
            key: Box::new(key.clone()),
            entry,
            kernel: Arc::clone(&kernel),
        });
        Ok(kernel)
    }
}
