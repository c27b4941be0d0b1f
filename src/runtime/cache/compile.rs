//! Compilation: a kernel's WGSL compiled under an error scope, with naga's loop bounding
//! left out where every loop is known to end, workgroup memory zeroing where it is
//! needed, the bindings a kernel writes, and `GPUPRIM_DUMP_WGSL`'s dumps.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::template::naga_dialect;
use super::{KernelSource, Pipeline};
use crate::error::{Error, Result};
use crate::runtime::context::Ctx;

/// Whether every loop of a kernel whose user WGSL is `user_code` comes from gpuprim's
/// templates, so naga's loop bounding can be left out.
///
/// naga bounds every loop by default: a hidden counter that ends it after 2^64
/// iterations, for loops a driver's compiler might otherwise treat as infinite (undefined
/// behaviour). In gpuprim's kernels that counter makes some kernels several times slower
/// (it keeps the driver from unrolling and costs registers; see lab/perf-journal.md),
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
    /// Whether the kernel `wgsl` (rendered from `config`) may be compiled without loop
    /// bounding: its source must have the shape of `plain`'s (user code that closes its
    /// function to declare items of its own is an [`Error::InvalidArgument`]), and its
    /// user functions must not loop.
    pub(super) fn check_user_items<K: KernelSource>(
        &self,
        config: &K,
        plain: &K,
        wgsl: &str,
    ) -> Result<bool> {
        let op = config.name();
        let Ok(module) = naga::front::wgsl::parse_str(&naga_dialect(wgsl)) else {
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
        let plain = super::template::spec_dialect(plain.wgsl()?);
        let plain =
            naga::front::wgsl::parse_str(&naga_dialect(&plain)).map_err(|e| Error::Internal {
                op,
                message: format!("a kernel template does not parse: {e}"),
            })?;
        if shape(&module) != shape(&plain) {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "the user code {} is not only statements or an expression: it \
                     closes the function it is placed in and declares items of its \
                     own; pass the statements (or expression) alone",
                    crate::error::quote(config.user_code())
                ),
            });
        }
        Ok(!user_functions_loop(&module))
    }

    /// Compiles `wgsl` (the spec's dialect: what is dumped; naga is given
    /// [`naga_dialect`]) inside a validation error scope; `trusted`: every loop is known
    /// to end, so naga's loop bounding is left out (bounds checks stay); `zero_init`:
    /// workgroup memory is zeroed at the start of each workgroup, as WGSL promises
    /// (where the adapter does it well: see `zero_initialize_workgroup_memory`).
    pub(super) fn compile(
        &self,
        key: &Label<'_>,
        entry: &'static str,
        wgsl: &str,
        trusted: bool,
        zero_init: bool,
    ) -> Result<Pipeline> {
        let _inside = crate::runtime::driver::enter();
        let device = &self.inner.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let label = format!("gpuprim {} {} {}", key.name, key.element, entry);
        let naga_wgsl = naga_dialect(wgsl);
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some(&label),
            source: wgpu::ShaderSource::Wgsl(naga_wgsl.clone()),
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
        let failed = crate::runtime::native::block_on(scope.pop());
        dump_wgsl(key, entry, wgsl, failed.is_none());
        if let Some(e) = failed {
            return Err(self.or_lost(Error::Compile {
                op: key.name,
                code: key.code.to_string(),
                message: crate::error::cut_long_lines(&compile_message(&e)),
            }));
        }
        crate::runtime::driver::close_at_exit_after_compiling();
        let (writable, used) = bindings(&naga_wgsl, entry);
        Ok(Pipeline {
            pipeline,
            layout,
            writable,
            used,
        })
    }
}

/// How a kernel is named in labels, dumps and compile errors.
pub(super) struct Label<'a> {
    pub(super) name: &'static str,
    pub(super) element: &'static str,
    pub(super) code: &'a str,
}

/// With `GPUPRIM_DUMP_WGSL=DIR` in the environment, each kernel's WGSL is written to
/// `DIR/{op}-{element}-{entry}-{n}.wgsl` once it is compiled, in the spec's dialect (what
/// a browser's compiler is given; naga gets it without `enable subgroups;`), to read or
/// to feed to other tools such as `.ci/dawn-check.mjs`. A kernel that failed to compile
/// (user code with an error) is written as `...-{n}.wgsl.rejected`. `n` counts the
/// kernels compiled so far, so variants of one kernel keep their own files; kernels
/// without an element type leave out `-{element}`. A file that cannot be written is
/// skipped.
fn dump_wgsl(key: &Label<'_>, entry: &str, wgsl: &str, compiled: bool) {
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
        .chain(if compiled { "" } else { ".rejected" }.chars())
        .collect();
    let dir = std::path::Path::new(&dir);
    let _ = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(dir.join(name), wgsl));
}

/// The bindings of group 0 (a bit each) that `wgsl` declares as writable storage, and
/// those its entry point `entry` uses, as naga reads them.
///
/// wgpu's automatic layout holds only the bindings the entry point uses, and user code
/// may leave a vector it was given unread (an elementwise body that never indexes a
/// `raw` vector, a 2D body that never calls `load`): a dispatch binds only the used ones.
/// Where the module does not validate here, every binding counts as used (the compile
/// has failed then, or the layout holds them all).
fn bindings(wgsl: &str, entry: &str) -> (u64, u64) {
    let Ok(module) = naga::front::wgsl::parse_str(wgsl) else {
        return (0, !0);
    };
    let group0 = |g: &naga::GlobalVariable| {
        g.binding
            .as_ref()
            .filter(|b| b.group == 0 && b.binding < 64)
            .map(|b| 1u64 << b.binding)
    };
    let writable = module
        .global_variables
        .iter()
        .filter_map(|(_, g)| match g.space {
            naga::AddressSpace::Storage { access }
                if access.contains(naga::StorageAccess::STORE) =>
            {
                group0(g)
            }
            _ => None,
        })
        .fold(0, |m, b| m | b);
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module);
    let used = match (
        info,
        module.entry_points.iter().position(|e| e.name == entry),
    ) {
        (Ok(info), Some(index)) => {
            let function = info.get_entry_point(index);
            module
                .global_variables
                .iter()
                .filter(|(handle, _)| !function[*handle].is_empty())
                .filter_map(|(_, g)| group0(g))
                .fold(0, |m, b| m | b)
        }
        _ => !0,
    };
    (writable, used)
}

/// Whether a function of `module` whose name starts with `gp_user` has a loop (`for`,
/// `while` and `loop` all become naga's `Loop`).
pub(super) fn user_functions_loop(module: &naga::Module) -> bool {
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
    /// that declares module items is refused: `check_user_items`). On GL, naga zeroes an
    /// array by one constructor with an argument per element, which Mesa's llvmpipe
    /// compiles slowly: tens of seconds for a first `reduce` (its 1024-element finishing
    /// array) or `transpose` (its 32 x 33 tile) against a fraction of a second without.
    /// Elsewhere the driver or a loop zeroes it and it stays on.
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
