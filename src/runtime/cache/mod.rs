//! Generated WGSL and the pipeline cache.
//!
//! A kernel is described by a typed configuration that implements [`KernelSource`]: the
//! configuration is the cache key (`Hash + Eq`) and the one input of the WGSL it renders
//! (`KernelSource::wgsl(&self)`), so two configurations that render different WGSL can
//! never share a pipeline. The first call with a configuration renders and compiles;
//! later calls reuse the pipeline.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::runtime::context::Ctx;

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

    /// The kernel's WGSL.
    fn wgsl(&self) -> String;

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

/// Everything that changes a kernel's WGSL text, and so identifies its pipeline.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PipelineKey {
    /// Kernel name, e.g. "map" (the template's file stem, plus entry if several).
    pub(crate) op: &'static str,
    /// WGSL element type, e.g. "f32".
    pub(crate) element: &'static str,
    /// Invocations per workgroup.
    pub(crate) workgroup_size: u32,
    /// Variant of the kernel, e.g. "subgroup"; empty if the kernel has one form.
    pub(crate) variant: String,
    /// User WGSL spliced into the template (expressions, operators), or empty.
    pub(crate) code: String,
}

/// A compiled kernel: its pipeline and the layout its bind groups follow.
#[derive(Debug)]
pub(crate) struct Kernel {
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) layout: wgpu::BindGroupLayout,
    /// Bit `b`: binding `b` of group 0 is a storage buffer the kernel may write.
    pub(crate) writable: u64,
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

/// Fills a template's `{{NAME}}` placeholders.
pub(crate) fn render<S: AsRef<str>>(template: &str, vars: &[(&str, S)]) -> String {
    let mut out = template.to_string();
    for (name, value) in vars {
        out = out.replace(&format!("{{{{{name}}}}}"), value.as_ref());
    }
    debug_assert!(!out.contains("{{"), "unfilled placeholder in:\n{out}");
    out
}

/// Whether every loop of a kernel whose user WGSL is `user_code` comes from gpuprim's
/// templates, so naga's loop bounding can be left out.
///
/// naga bounds every loop by default: a hidden counter that ends it after 2^64
/// iterations, for loops a driver's compiler might otherwise treat as infinite (undefined
/// behaviour). In gpuprim's kernels that counter makes some kernels several times slower
/// (it keeps the driver from unrolling and costs registers; see docs/perf-journal.md),
/// and it is not
/// needed: every template loop ends. Grid-stride loops step a `u32` index by a positive
/// stride towards a bound below 2^32 minus the stride; workgroup and subgroup trees halve
/// or double a counter; the single-pass scan's waits give up after a fixed number of
/// probes; compare-exchange loops and a wait for an earlier dispatch's tile perform
/// atomic operations, which are observable side effects, so they are not loops a compiler
/// may assume away. User code is checked to be one WGSL expression before it reaches a
/// template (`expr::check_expression`), and an expression cannot hold a loop (a loop
/// needs braces). As a second line, a kernel whose user code has a brace anywhere keeps
/// the bounding. Bounds checks stay on for every kernel.
pub(crate) fn loops_are_ours(user_code: &str) -> bool {
    !user_code.contains(['{', '}'])
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
            let wgsl = config.wgsl();
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
        })
    }

    /// Whether the kernel `wgsl` (rendered from `config`) may be compiled without loop
    /// bounding: its source must have the shape of `plain`'s (user code that closes its
    /// function to declare items of its own is an [`Error::InvalidArgument`]), and its
    /// user functions must not loop.
    fn check_user_items<K: KernelSource>(&self, config: &K, plain: &K, wgsl: &str) -> Result<bool> {
        let op = config.name();
        let Ok(module) = naga::front::wgsl::parse_str(wgsl) else {
            // Does not parse: compile anyway, for wgpu's annotated message.
            return Ok(false);
        };
        let shape = |m: &naga::Module| {
            (
                m.functions.len(),
                m.entry_points.len(),
                m.global_variables.len(),
            )
        };
        let plain = naga::front::wgsl::parse_str(&plain.wgsl()).map_err(|e| Error::Internal {
            op,
            message: format!("a kernel template does not parse: {e}"),
        })?;
        if shape(&module) != shape(&plain) {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "the user code {:?} is not only statements or an expression: it \
                     closes the function it is placed in and declares items of its \
                     own; pass the statements (or expression) alone",
                    config.user_code()
                ),
            });
        }
        Ok(!user_functions_loop(&module))
    }

    /// The kernel for `key`, compiled from `source()` with entry point `main` on first use.
    pub(crate) fn kernel(
        &self,
        key: PipelineKey,
        source: impl FnOnce() -> String,
    ) -> Result<Arc<Kernel>> {
        self.kernel_entry(key, "main", source)
    }

    /// The kernel for `key` with entry point `entry`.
    pub(crate) fn kernel_entry(
        &self,
        key: PipelineKey,
        entry: &'static str,
        source: impl FnOnce() -> String,
    ) -> Result<Arc<Kernel>> {
        self.template_kernel(key, entry, source, true)
    }

    /// [`Ctx::kernel_entry`] for a template that writes every word of workgroup memory
    /// it reads first (see [`KernelSource::initializes_workgroup_memory`]).
    pub(crate) fn kernel_entry_initialized(
        &self,
        key: PipelineKey,
        entry: &'static str,
        source: impl FnOnce() -> String,
    ) -> Result<Arc<Kernel>> {
        debug_assert!(key.code.is_empty(), "only for gpuprim's own kernels");
        self.template_kernel(key, entry, source, false)
    }

    fn template_kernel(
        &self,
        key: PipelineKey,
        entry: &'static str,
        source: impl FnOnce() -> String,
        zero_init: bool,
    ) -> Result<Arc<Kernel>> {
        let trusted = loops_are_ours(&key.code);
        self.cached(&key, entry, |key: &PipelineKey| {
            let wgsl = source();
            self.compile(&Label::of(key), entry, &wgsl, trusted, zero_init)
        })
    }

    /// The kernel for `(key, entry)`, whose WGSL is `source(code)` with the user's
    /// statements `key.code`, checked against `source(reference)`.
    pub(crate) fn kernel_checked(
        &self,
        key: PipelineKey,
        entry: &'static str,
        op: &'static str,
        reference: &str,
        source: impl Fn(&str) -> String,
    ) -> Result<Arc<Kernel>> {
        self.cached(&key, entry, |key: &PipelineKey| {
            let wgsl = source(&key.code);
            let trusted = match naga::front::wgsl::parse_str(&wgsl) {
                Err(_) => false,
                Ok(module) => {
                    let shape = |m: &naga::Module| {
                        (
                            m.functions.len(),
                            m.entry_points.len(),
                            m.global_variables.len(),
                        )
                    };
                    let plain = naga::front::wgsl::parse_str(&source(reference)).map_err(|e| {
                        Error::Internal {
                            op,
                            message: format!("a kernel template does not parse: {e}"),
                        }
                    })?;
                    if shape(&module) != shape(&plain) {
                        return Err(Error::InvalidArgument {
                            op,
                            message: format!(
                                "the user code {:?} is not only statements or an expression: it \
                                 closes the function it is placed in and declares items of its \
                                 own; pass the statements (or expression) alone",
                                key.code
                            ),
                        });
                    }
                    !user_functions_loop(&module)
                }
            };
            self.compile(&Label::of(key), entry, &wgsl, trusted, true)
        })
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

    /// Compiles `wgsl` inside a validation error scope; `trusted`: every loop is known
    /// to end, so naga's loop bounding is left out (bounds checks stay); `zero_init`:
    /// workgroup memory is zeroed at the start of each workgroup, as WGSL promises
    /// (where the adapter does it well: see `zero_initialize_workgroup_memory`).
    fn compile(
        &self,
        key: &Label<'_>,
        entry: &'static str,
        wgsl: &str,
        trusted: bool,
        zero_init: bool,
    ) -> Result<Kernel> {
        let device = &self.inner.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let label = format!("gpuprim {} {} {}", key.name, key.element, entry);
        dump_wgsl(key, entry, wgsl);
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some(&label),
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        };
        let module = if trusted {
            let checks = wgpu::ShaderRuntimeChecks {
                force_loop_bounding: false,
                ..wgpu::ShaderRuntimeChecks::checked()
            };
            // SAFETY: bounds checks stay on. Loop bounding may go: every loop in the
            // kernel is a template's or known to end (see `loops_are_ours`).
            unsafe { device.create_shader_module_trusted(desc, checks) }
        } else {
            device.create_shader_module(desc)
        };
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&label),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                zero_initialize_workgroup_memory: zero_init
                    && self.zero_initialize_workgroup_memory(),
                ..Default::default()
            },
            cache: None,
        });
        // Inside the scope: on a lost device the pipeline is invalid, and so is asking it.
        let layout = pipeline.get_bind_group_layout(0);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(self.or_lost(Error::Compile {
                op: key.name,
                code: key.code.to_string(),
                message: compile_message(&e),
            }));
        }
        Ok(Kernel {
            pipeline,
            layout,
            writable: writable_bindings(wgsl),
        })
    }
}

/// How a kernel is named in labels, dumps and compile errors.
struct Label<'a> {
    name: &'static str,
    element: &'static str,
    code: &'a str,
}

impl Label<'_> {
    fn of(key: &PipelineKey) -> Label<'_> {
        Label {
            name: key.op,
            element: key.element,
            code: &key.code,
        }
    }
}

/// The check that equal kernel configurations render equal WGSL, across every context
/// of the process: with the `internals` feature (the tests turn it on), each compiled
/// configuration's source is remembered by key, and a configuration equal to one seen
/// before whose source differs is an [`Error::Internal`]. [`KernelSource::wgsl`] takes
/// only the configuration, so this holds unless a render reads something else (a
/// global, the environment); the test suite's contexts differ in limits and features,
/// so such a read would show.
pub(crate) mod audit {
    use super::*;

    #[cfg(feature = "internals")]
    struct Seen {
        key: Box<dyn DynKey>,
        entry: &'static str,
        source: u64,
    }

    #[cfg(feature = "internals")]
    static SEEN: Mutex<Option<HashMap<u64, Vec<Seen>>>> = Mutex::new(None);
    #[cfg(feature = "internals")]
    static COMPARED: AtomicUsize = AtomicUsize::new(0);

    /// Records that `config` with `entry` rendered `wgsl`; an equal configuration seen
    /// with another source is an error.
    #[cfg(feature = "internals")]
    pub(crate) fn record<K: KernelSource>(
        config: &K,
        entry: &'static str,
        wgsl: &str,
    ) -> Result<()> {
        let mut h = DefaultHasher::new();
        wgsl.hash(&mut h);
        let source = h.finish();
        let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
        let bucket = seen
            .get_or_insert_with(HashMap::new)
            .entry(key_hash(config, entry))
            .or_default();
        match bucket
            .iter()
            .find(|s| s.entry == entry && s.key.eq_dyn(config))
        {
            Some(s) => {
                COMPARED.fetch_add(1, Ordering::Relaxed);
                if s.source != source {
                    return Err(Error::Internal {
                        op: config.name(),
                        message: format!(
                            "two equal kernel configurations rendered different WGSL: {config:?}"
                        ),
                    });
                }
            }
            None => bucket.push(Seen {
                key: Box::new(config.clone()),
                entry,
                source,
            }),
        }
        Ok(())
    }

    #[cfg(not(feature = "internals"))]
    pub(crate) fn record<K: KernelSource>(_: &K, _: &'static str, _: &str) -> Result<()> {
        Ok(())
    }

    /// Distinct (configuration, entry) pairs compiled so far in this process, and how
    /// many compiles found an equal configuration seen before (and compared sources).
    #[cfg(feature = "internals")]
    pub fn counts() -> (usize, usize) {
        let seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
        let distinct = seen.as_ref().map_or(0, |m| m.values().map(Vec::len).sum());
        (distinct, COMPARED.load(Ordering::Relaxed))
    }
}

/// With `GPUPRIM_DUMP_WGSL=DIR` in the environment, each kernel's WGSL is written to
/// `DIR/{op}-{element}-{entry}-{n}.wgsl` as it is compiled: what a driver is given, to
/// read or to feed to other tools. `n` counts the kernels compiled so far, so variants
/// of one kernel keep their own files; kernels without an element type leave out
/// `-{element}`. A file that cannot be written is skipped.
fn dump_wgsl(key: &Label<'_>, entry: &str, wgsl: &str) {
    static DUMPED: AtomicUsize = AtomicUsize::new(0);
    let Some(dir) = std::env::var_os("GPUPRIM_DUMP_WGSL") else {
        return;
    };
    let n = DUMPED.fetch_add(1, Ordering::Relaxed);
    let element = if key.element.is_empty() {
        String::new()
    } else {
        format!("-{}", key.element)
    };
    let name: String = format!("{}{element}-{entry}-{n}", key.name)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .chain(".wgsl".chars())
        .collect();
    let dir = std::path::Path::new(&dir);
    let _ = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(dir.join(name), wgsl));
}

/// The bindings of group 0 that `wgsl` declares as writable storage (a bit each), as
/// naga reads them.
fn writable_bindings(wgsl: &str) -> u64 {
    let Ok(module) = naga::front::wgsl::parse_str(wgsl) else {
        return 0;
    };
    module
        .global_variables
        .iter()
        .filter_map(|(_, g)| match (g.space, &g.binding) {
            (naga::AddressSpace::Storage { access }, Some(b))
                if b.group == 0
                    && b.binding < 64
                    && access.contains(naga::StorageAccess::STORE) =>
            {
                Some(1u64 << b.binding)
            }
            _ => None,
        })
        .fold(0, |m, b| m | b)
}

/// Whether a function of `module` whose name starts with `gp_user` has a loop (`for`,
/// `while` and `loop` all become naga's `Loop`).
fn user_functions_loop(module: &naga::Module) -> bool {
    fn block_loops(block: &naga::Block) -> bool {
        block.iter().any(|s| match s {
            naga::Statement::Loop { .. } => true,
            naga::Statement::Block(b) => block_loops(b),
            naga::Statement::If { accept, reject, .. } => {
                block_loops(accept) || block_loops(reject)
            }
            naga::Statement::Switch { cases, .. } => cases.iter().any(|c| block_loops(&c.body)),
            _ => false,
        })
    }
    module
        .functions
        .iter()
        .filter(|(_, f)| f.name.as_deref().is_some_and(|n| n.starts_with("gp_user")))
        .any(|(_, f)| block_loops(&f.body))
}

impl Ctx {
    /// Whether wgpu should zero workgroup memory before a kernel runs: not on GL.
    ///
    /// Every template writes its workgroup memory before reading it (a tree or scan
    /// stores each invocation's slot first, atomics and look-back values are stored by
    /// invocation 0 before a barrier or a uniform load), and user code is an expression
    /// or statements inside a function, which cannot declare workgroup memory (code
    /// that declares module items is refused: `kernel_checked`). On GL, naga zeroes an array by one
    /// constructor with an argument per element, which Mesa's llvmpipe compiles slowly:
    /// tens of seconds for a first `reduce` (its 1024-element finishing array) or
    /// `transpose` (its 32 x 33 tile) against a fraction of a second without. Elsewhere the
    /// driver or a loop zeroes it and it stays on.
    fn zero_initialize_workgroup_memory(&self) -> bool {
        self.info().backend != wgpu::Backend::Gl
    }
}

/// wgpu's validation text, with its error chain, minus the generic header.
fn compile_message(e: &wgpu::Error) -> String {
    let mut text = match e {
        wgpu::Error::Validation { description, .. } => description.clone(),
        other => other.to_string(),
    };
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str("\n  ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn render_fills_every_placeholder() {
        let out = super::render("a {{T}} b {{WG}} {{T}}", &[("T", "f32"), ("WG", "256")]);
        assert_eq!(out, "a f32 b 256 f32");
    }

    #[test]
    fn loop_bounding_stays_for_user_code_with_braces() {
        use super::loops_are_ours;
        assert!(loops_are_ours(""));
        assert!(loops_are_ours("x * 2.0 + select(0.0, 1.0, x > 0.5)"));
        assert!(loops_are_ours("max(a, b) | identity -3.4028235e38"));
        // More than an expression: it could hold a loop of its own.
        assert!(!loops_are_ours(
            "a + f(b); } fn f(x: f32) -> f32 { loop { } } fn g() -> f32 { return 0.0"
        ));
        assert!(!loops_are_ours("a /* } */ + b"));
    }
}
