//! Atomics: [`Ctx::atomic_sum`] (three strategies, [`AtomicStrategy`]) and histograms
//! ([`Ctx::histogram`], [`Ctx::histogram_range`]).
//!
//! Every kernel here is a grid-stride loop over vec4 units with a capped number of
//! workgroups (folded into 2D/3D past the per-dimension limit), dispatched once per
//! binding window of the input; the number of valid elements of each window comes in a
//! small uniform, so the padding of the last vec4 is never counted.

// This file: the atomic sum, its kernel's configuration ([`AtomicKernel`]) and what both
// families share (the uniform, the grid, template sections, recording). `histogram.rs`:
// the histograms.
mod histogram;
pub(crate) mod tuning;

pub(crate) use tuning::AtomicTuning;

use crate::element::GpuElement;
use crate::error::{Error, Result};
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::context::Ctx;
use crate::runtime::dispatch::Chunk;
use crate::runtime::dispatch::{chunks, pow2_workgroup_size, units_per_binding, workgroup_grid};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::{GpuVec, LANES};
use crate::runtime::view::{View, units_wgsl};
use std::sync::Arc;

const ATOMIC_WGSL: &str = include_str!("../../../wgsl/atomic.wgsl");
/// The uniform's `struct Params` and its binding, shared by both templates.
const PARAMS_WGSL: &str = include_str!("../../../wgsl/atomic_params.wgsl");

/// The largest bin count [`Ctx::histogram`] and [`Ctx::histogram_range`] accept: 2^24.
pub const MAX_BINS: u32 = 1 << 24;

/// [`AtomicTuning::groups`] on `ctx`'s adapter.
pub(super) fn atomic_groups(ctx: &Ctx) -> u64 {
    AtomicTuning::of(ctx.info()).groups
}

/// How [`Ctx::atomic_sum_with`] combines the elements.
///
/// All three give the same integer result (sums wrap); for `f32` each adds in a
/// different (and not fixed) order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AtomicStrategy {
    /// One global atomic add per element: the articles' `InterlockedAdd` sample. Every
    /// invocation contends for one address, so it is the slowest; it is here as the
    /// reference point.
    PerElement,
    /// Each workgroup sums its elements in shared memory (a tree with barriers), then
    /// adds its partial with one global atomic. The default.
    #[default]
    Hybrid,
    /// Like `Hybrid`, with `subgroupAdd` instead of the shared-memory tree: each
    /// subgroup's sum goes into a workgroup atomic, then one global atomic per workgroup.
    /// Needs the adapter feature `SUBGROUP` (else [`Error::Unsupported`]); works with any
    /// subgroup size.
    Subgroup,
}

impl AtomicStrategy {
    fn section(self) -> &'static str {
        match self {
            AtomicStrategy::PerElement => "per_element",
            AtomicStrategy::Hybrid => "hybrid",
            AtomicStrategy::Subgroup => "subgroup",
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for i32 {}
    impl Sealed for f32 {}
}

/// Element types [`Ctx::atomic_sum`] can add: `u32`, `i32` (both wrapping) and `f32`
/// (through a compare-exchange loop on the bit pattern). Sealed; `f64` and `f16` are
/// excluded at compile time.
pub trait AtomicElement: GpuElement + crate::ops::sort::SortValue + sealed::Sealed {
    /// The WGSL type of the atomic accumulator (`atomic<ATOM>`).
    #[doc(hidden)]
    const ATOM: &'static str;
    /// The template section that adds a value atomically.
    #[doc(hidden)]
    const ADD_SECTION: &'static str;
}

impl AtomicElement for u32 {
    const ATOM: &'static str = "u32";
    const ADD_SECTION: &'static str = "add_int";
}
impl AtomicElement for i32 {
    const ATOM: &'static str = "i32";
    const ADD_SECTION: &'static str = "add_int";
}
impl AtomicElement for f32 {
    const ATOM: &'static str = "u32";
    const ADD_SECTION: &'static str = "add_f32";
}

/// The uniform of each dispatch (same layout as `Params` in wgsl/atomic_params.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    n: u32,
    base: u32,
    width: u32,
    bins: u32,
    lo: f32,
    hi: f32,
    scale: f32,
    /// histogram: the window's first element (for a device count).
    first: u32,
}

/// One dispatch: an input window, an output window, its uniform, its grid.
struct Pass {
    /// The units of the input this pass reads.
    src: Chunk,
    /// Bytes of the output vector (from its first element) this pass adds into.
    dst: (u64, u64),
    params: Params,
    grid: [u32; 3],
}

/// `wgsl/atomic.wgsl`: an atomic sum for one strategy, element type and layout.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct AtomicKernel {
    strategy: AtomicStrategy,
    /// The element type, its accumulator's type and the section that adds one value
    /// ([`AtomicElement`]).
    element: &'static str,
    atom: &'static str,
    add_section: &'static str,
    /// Whether the input is bound as `vec4` units.
    src_vec4: bool,
    workgroup_size: u32,
}

impl KernelSource for AtomicKernel {
    fn name(&self) -> &'static str {
        "atomic_sum"
    }

    fn element(&self) -> &'static str {
        self.element
    }

    fn wgsl(&self) -> Result<String> {
        let picked = |name: &str| name == self.add_section || name == self.strategy.section();
        render(
            ATOMIC_WGSL,
            &[
                ("ADD_INT", picked("add_int").to_string()),
                ("ADD_F32", picked("add_f32").to_string()),
                ("PER_ELEMENT", picked("per_element").to_string()),
                ("HYBRID", picked("hybrid").to_string()),
                ("SUBGROUP", picked("subgroup").to_string()),
                (
                    "SRC",
                    units_wgsl("src", 0, self.element, false, self.src_vec4)?,
                ),
                (
                    "PARAMS",
                    render(PARAMS_WGSL, &[("WG", self.workgroup_size.to_string())])?,
                ),
                ("T", self.element.to_string()),
                ("ATOM", self.atom.to_string()),
                ("WG", self.workgroup_size.to_string()),
            ],
        )
    }
}

impl Ctx {
    /// The sum of all elements of `v`, added with GPU atomics ([`AtomicStrategy::Hybrid`]).
    ///
    /// For `u32` and `i32` the sum wraps on overflow (like `wrapping_add`) and is exact.
    /// For `f32` the workgroups' partial sums are added in whatever order they finish, so
    /// the result is **not deterministic**: it may differ in the last bits from run to
    /// run. Its error is at most `n * f32::EPSILON * sum(|x|)` (and in practice much less);
    /// use `Ctx::reduce` for a deterministic float sum. The f32 add is a
    /// compare-exchange loop on the bit pattern of a `u32` atomic, so it needs no
    /// adapter feature (`SHADER_FLOAT32_ATOMIC` is not used: WGSL through naga has no
    /// float atomics). An empty vector sums to 0.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`] if `v` belongs to another `Ctx`; wgpu errors as
    /// [`Error::Internal`] / [`Error::OutOfMemory`].
    ///
    /// # Examples
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&(0u32..1000).collect::<Vec<_>>())?;
    /// assert_eq!(ctx.atomic_sum(&v)?, 499_500);
    /// let f = ctx.upload(&[0.5f32, 1.5, 2.0])?;
    /// assert_eq!(ctx.atomic_sum(&f)?, 4.0);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn atomic_sum<T: AtomicElement>(&self, v: &GpuVec<T>) -> Result<T> {
        self.atomic_sum_with(v, AtomicStrategy::default())
    }

    /// [`Ctx::atomic_sum`] with a chosen [`AtomicStrategy`].
    ///
    /// # Errors
    /// [`Error::Unsupported`] for [`AtomicStrategy::Subgroup`] on a device without the
    /// `SUBGROUP` feature; otherwise as [`Ctx::atomic_sum`].
    ///
    /// # Examples
    /// ```
    /// use gpuprim::AtomicStrategy;
    ///
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[3i32, -5, 7, 11])?;
    /// assert_eq!(ctx.atomic_sum_with(&v, AtomicStrategy::PerElement)?, 16);
    /// if ctx.has_features(gpuprim::wgpu::Features::SUBGROUP) {
    ///     assert_eq!(ctx.atomic_sum_with(&v, AtomicStrategy::Subgroup)?, 16);
    /// }
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn atomic_sum_with<T: AtomicElement>(
        &self,
        v: &GpuVec<T>,
        strategy: AtomicStrategy,
    ) -> Result<T> {
        let mut acc = self.zeros::<T>(1)?;
        self.atomic_sum_into(v, strategy, &mut acc)?;
        Ok(acc.to_vec()?[0])
    }

    /// Adds the sum of `v` into `acc[0]` on the device, without reading back: the work
    /// is recorded without waiting, so several sums (or other calls) can
    /// follow before one read-back. Elements of `acc` past the first are untouched.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `acc` is empty; otherwise as
    /// [`Ctx::atomic_sum_with`].
    ///
    /// # Examples
    /// ```
    /// use gpuprim::AtomicStrategy;
    ///
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[1u32, 2, 3])?;
    /// let b = ctx.upload(&[10u32, 20])?;
    /// let mut acc = ctx.upload(&[100u32])?;
    /// ctx.atomic_sum_into(&a, AtomicStrategy::Hybrid, &mut acc)?;
    /// ctx.atomic_sum_into(&b, AtomicStrategy::PerElement, &mut acc)?;
    /// assert_eq!(acc.to_vec()?, vec![136]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn atomic_sum_into<T: AtomicElement>(
        &self,
        v: &GpuVec<T>,
        strategy: AtomicStrategy,
        acc: &mut GpuVec<T>,
    ) -> Result<()> {
        let op = "atomic_sum";
        self.check_owned(op, &[&v.ctx, &acc.ctx])?;
        v.require_host_len(op)?;
        if acc.is_empty() {
            return Err(Error::InvalidArgument {
                op: "atomic_sum_into",
                message: "acc has 0 elements; the sum is added into acc[0], so pass a vector \
                          of at least 1 element"
                    .into(),
            });
        }
        if strategy == AtomicStrategy::Subgroup {
            self.require(wgpu::Features::SUBGROUP, || {
                "atomic_sum with AtomicStrategy::Subgroup".to_string()
            })?;
        }
        if v.is_empty() {
            return Ok(());
        }
        let wg = workgroup_size(self);
        let src = View::of(v);
        let config = AtomicKernel {
            strategy,
            element: T::WGSL,
            atom: T::ATOM,
            add_section: T::ADD_SECTION,
            src_vec4: src.vec4(),
            workgroup_size: wg,
        };
        let kernel = self.pipeline_for(&config, "main")?;
        let unit = (LANES * size_of::<T>()) as u64;
        let mut passes = Vec::new();
        for c in chunks(v.lanes4(), units_per_binding(self, unit)) {
            let n = (v.len() as u64 - c.offset_units * LANES as u64).min(c.units * LANES as u64);
            passes.push(Pass {
                src: c,
                dst: (0, size_of::<T>() as u64),
                params: Params {
                    n: n as u32,
                    ..Params::default()
                },
                grid: grid(
                    self,
                    c.units.div_ceil(u64::from(wg)).min(atomic_groups(self)),
                )?,
            });
        }
        run_passes(self, op, &kernel, &src, acc, &passes)
    }
}

/// Invocations per workgroup: a power of two (the tree reduction halves it), 256 or the
/// largest the device allows below that.
fn workgroup_size(ctx: &Ctx) -> u32 {
    pow2_workgroup_size(ctx, 256)
}

/// `groups` workgroups folded into the device's grid; at most max_per_dim^3 (the
/// kernels are grid-stride loops, so fewer groups only means more work each).
fn grid(ctx: &Ctx, groups: u64) -> Result<[u32; 3]> {
    let max = u64::from(ctx.info().max_workgroups_per_dimension);
    workgroup_grid(
        groups
            .min(max.saturating_mul(max).saturating_mul(max))
            .max(1),
        ctx.info().max_workgroups_per_dimension,
    )
}

/// Records every pass in one compute pass and submits it, with errors captured.
fn run_passes<D: GpuElement>(
    ctx: &Ctx,
    op: &'static str,
    kernel: &Arc<crate::runtime::cache::Pipeline>,
    src: &View<'_>,
    dst: &GpuVec<D>,
    passes: &[Pass],
) -> Result<()> {
    let mut work = Work::new(ctx, op);
    for p in passes {
        let block = work.params(&p.params);
        let d = work.dispatch(kernel, p.grid);
        d.bind(0, src.window(&p.src))
            .bind(1, Res::range(&dst.buffer, dst.offset + p.dst.0, p.dst.1))
            .bind(2, block);
        if let Some(count) = src.count_binding() {
            d.bind(3, count);
        }
    }
    // The parameters are kept by content: a repeated call with the same lengths uploads
    // nothing.
    work.submit()
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`).
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::layout;
    fn sums<T: AtomicElement>(c: &mut crate::ops::catalog::Catalog) {
        for strategy in [
            AtomicStrategy::PerElement,
            AtomicStrategy::Hybrid,
            AtomicStrategy::Subgroup,
        ] {
            for src_vec4 in [true, false] {
                // 256 invocations: every adapter, WebGPU's limits included, allows them.
                c.add(&AtomicKernel {
                    strategy,
                    element: T::WGSL,
                    atom: T::ATOM,
                    add_section: T::ADD_SECTION,
                    src_vec4,
                    workgroup_size: 256,
                });
            }
        }
    }
    sums::<u32>(c);
    sums::<i32>(c);
    sums::<f32>(c);
    let sum = AtomicKernel {
        strategy: AtomicStrategy::Hybrid,
        element: "u32",
        atom: "u32",
        add_section: "add_int",
        src_vec4: true,
        workgroup_size: 256,
    };
    let wgsl = sum.wgsl().expect("atomic_sum renders");
    layout!(
        c,
        Params,
        "Params",
        wgsl,
        [n, base, width, bins, lo, hi, scale, first]
    );
    histogram::catalog(c);
}
