//! Prefix scans and stream compaction: [`Ctx::scan`], [`Ctx::scan_exclusive`],
//! [`Ctx::scan_with`], [`Ctx::compact`], [`Ctx::compact_indices`].
//!
//! Two algorithms (`wgsl/scan.wgsl`), chosen per adapter ([`ScanAlgorithm`]):
//! - reduce-then-scan: three passes (reduce ranges of tiles, scan the range totals, scan
//!   each range from its offset). Reads the input twice; no workgroup ever waits for
//!   another. Every adapter, every element type.
//! - single pass (`wgsl/scan_chained.wgsl`): a chained scan with decoupled look-back.
//!   Reads the input once. A workgroup waits for its predecessors' results only a bounded
//!   number of probes, then reduces the missing tile itself, so it cannot hang on an
//!   adapter that does not schedule workgroups fairly. 32-bit element types.
//!
//! Both fold every prefix in a fixed order: float scans give the same bits on every run
//! (the two algorithms round differently from each other).
//!
//! In the source: this file holds the public API; `compact` compaction; `record` the
//! binding windows and the algorithm choice; `single_pass` and `reduce_then_scan` each
//! algorithm's recording; `program` the kernels of one scan on an adapter, and `kernel`
//! their configuration and WGSL.

mod compact;
mod kernel;
mod program;
mod record;
mod reduce_then_scan;
mod single_pass;
pub(crate) mod tuning;

pub(crate) use kernel::OperatorWgsl;

use crate::element::GpuElement;
use crate::error::Result;
use crate::runtime::context::{Ctx, CtxBuilder, check_len};
use crate::runtime::record::Work;
use crate::runtime::vec::GpuVec;
use crate::runtime::view::View;
use program::Program;
use record::OutRange;

/// The operator of a scan.
///
/// Operators must be associative; they need not be commutative: element `i` of an
/// inclusive scan is `x[0] op x[1] op ... op x[i]`, combined left to right in groups
/// whose boundaries depend only on the adapter and the length.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ScanOp<T> {
    /// Prefix sums; integers wrap like `wrapping_add`.
    Sum,
    /// Prefix products; integers wrap like `wrapping_mul`.
    Product,
    /// Running minimum.
    Min,
    /// Running maximum.
    Max,
    /// A WGSL binary expression in `a` (earlier elements) and `b` (later ones) of the
    /// element type, with its identity: `ScanOp::custom("max(a, b)", i32::MIN)`.
    Custom {
        /// The expression.
        op: String,
        /// `op(identity, x) == x` for every `x`; the first element of an exclusive scan.
        identity: T,
    },
}

impl<T> ScanOp<T> {
    /// `ScanOp::Custom` from an expression in `a` and `b` and its identity.
    pub fn custom(op: impl Into<String>, identity: T) -> Self {
        ScanOp::Custom {
            op: op.into(),
            identity,
        }
    }
}

/// How a scan finds the prefix of each tile.
///
/// [`ScanAlgorithm::Auto`] takes the context's choice ([`Ctx::scan_algorithm`], which
/// [`CtxBuilder::scan_algorithm`] can set) for 32-bit elements, and reduce-then-scan for
/// f16 and f64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ScanAlgorithm {
    /// The context's choice for the element type.
    #[default]
    Auto,
    /// Three passes; reads the input twice. Any adapter and element type.
    ReduceThenScan,
    /// One pass with decoupled look-back; reads the input once. 32-bit element types.
    SinglePass,
}

impl CtxBuilder {
    /// The scan algorithm for [`ScanAlgorithm::Auto`] on 32-bit elements (16- and 64-bit
    /// elements always use reduce-then-scan). The default, `Auto`, decides by adapter
    /// ([`Ctx::scan_algorithm`]).
    pub fn scan_algorithm(self, algorithm: ScanAlgorithm) -> Self {
        self.option(algorithm)
    }
}

impl Ctx {
    /// The scan algorithm [`ScanAlgorithm::Auto`] picks for 32-bit elements: what
    /// [`CtxBuilder::scan_algorithm`] asked for, else the single pass on a discrete GPU
    /// with subgroups and reduce-then-scan elsewhere, the faster of the two on each
    /// adapter measured (see docs/PERFORMANCE.md).
    ///
    /// ```
    /// use gpuprim::ScanAlgorithm;
    /// let ctx = gpuprim::Ctx::builder().scan_algorithm(ScanAlgorithm::SinglePass).build()?;
    /// assert_eq!(ctx.scan_algorithm(), ScanAlgorithm::SinglePass);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_algorithm(&self) -> ScanAlgorithm {
        let info = self.info();
        match self
            .option::<ScanAlgorithm>()
            .map_or(ScanAlgorithm::Auto, |a| *a)
        {
            // The single pass's look-back is fast where subgroups carry it and the GPU
            // runs many tiles at once; a CPU adapter, or one without subgroups (where the
            // look-back walks one tile at a time), is faster with reduce-then-scan.
            ScanAlgorithm::Auto
                if tuning::ScanTuning::of(info).single_pass_with_subgroups
                    && info.features.contains(wgpu::Features::SUBGROUP) =>
            {
                ScanAlgorithm::SinglePass
            }
            ScanAlgorithm::Auto => ScanAlgorithm::ReduceThenScan,
            chosen => chosen,
        }
    }
}

/// A scan: operator, inclusive or exclusive, and algorithm. For [`Ctx::scan_with`] and
/// [`Ctx::scan_by_key_with`](crate::Ctx::scan_by_key_with).
///
/// ```
/// use gpuprim::{Scan, ScanAlgorithm, ScanOp};
/// let ctx = gpuprim::Ctx::new()?;
/// let v = ctx.upload(&[3i32, -1, 4, -1, 5])?;
/// let running_max = ctx.scan_with(&v, &Scan::inclusive(ScanOp::Max))?;
/// assert_eq!(running_max.to_vec()?, vec![3, 3, 4, 4, 5]);
/// let before = Scan::exclusive(ScanOp::Sum).algorithm(ScanAlgorithm::ReduceThenScan);
/// assert_eq!(ctx.scan_with(&v, &before)?.to_vec()?, vec![0, 3, 2, 6, 5]);
/// # Ok::<(), gpuprim::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Scan<T> {
    op: ScanOp<T>,
    exclusive: bool,
    algorithm: ScanAlgorithm,
}

impl<T> Scan<T> {
    /// Element `i` combines elements `0..=i`.
    pub fn inclusive(op: ScanOp<T>) -> Self {
        Scan {
            op,
            exclusive: false,
            algorithm: ScanAlgorithm::Auto,
        }
    }

    /// Element `i` combines elements `0..i` (element 0 is the identity).
    pub fn exclusive(op: ScanOp<T>) -> Self {
        Scan {
            op,
            exclusive: true,
            algorithm: ScanAlgorithm::Auto,
        }
    }

    /// Forces an algorithm (the default is [`ScanAlgorithm::Auto`]).
    pub fn algorithm(mut self, algorithm: ScanAlgorithm) -> Self {
        self.algorithm = algorithm;
        self
    }
}

impl<T> Scan<T> {
    /// The operator (for the families that take a [`Scan`] too: `scan_by_key`).
    pub(crate) fn op(&self) -> &ScanOp<T> {
        &self.op
    }

    /// Whether element `i` combines elements `0..i` (else `0..=i`).
    pub(crate) fn is_exclusive(&self) -> bool {
        self.exclusive
    }

    /// The algorithm asked for ([`ScanAlgorithm::Auto`] unless [`Scan::algorithm`] set one).
    pub(crate) fn requested_algorithm(&self) -> ScanAlgorithm {
        self.algorithm
    }
}

impl Ctx {
    /// Inclusive prefix sums: element `i` is `v[0] + ... + v[i]` (integers wrap).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let counts = ctx.upload(&[2u32, 0, 3, 1])?;
    /// assert_eq!(ctx.scan(&counts)?.to_vec()?, vec![2, 2, 5, 6]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan<T: GpuElement>(&self, v: &GpuVec<T>) -> Result<GpuVec<T>> {
        self.scan_with(v, &Scan::inclusive(ScanOp::Sum))
    }

    /// Exclusive prefix sums: element `i` is `v[0] + ... + v[i - 1]`, element 0 is 0.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let counts = ctx.upload(&[2u32, 0, 3, 1])?;
    /// assert_eq!(ctx.scan_exclusive(&counts)?.to_vec()?, vec![0, 2, 2, 5]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_exclusive<T: GpuElement>(&self, v: &GpuVec<T>) -> Result<GpuVec<T>> {
        self.scan_with(v, &Scan::exclusive(ScanOp::Sum))
    }

    /// [`Ctx::scan`] into `out` (same length), recorded without waiting.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1.5f32, 2.0, -0.5])?;
    /// let mut out = ctx.zeros::<f32>(3)?;
    /// ctx.scan_into(&v, &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![1.5, 3.5, 3.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_into<T: GpuElement>(&self, v: &GpuVec<T>, out: &mut GpuVec<T>) -> Result<()> {
        self.scan_with_into(v, &Scan::inclusive(ScanOp::Sum), out)
    }

    /// [`Ctx::scan_exclusive`] into `out` (same length), without waiting.
    pub fn scan_exclusive_into<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        self.scan_with_into(v, &Scan::exclusive(ScanOp::Sum), out)
    }

    /// A scan with any operator, inclusive or exclusive, by either algorithm (see [`Scan`]).
    ///
    /// # Errors
    /// [`Error::Compile`](crate::Error::Compile) if a custom operator is not valid WGSL of the element type,
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) if it is not exactly one WGSL expression and for
    /// [`ScanAlgorithm::SinglePass`] on 16- or 64-bit elements.
    ///
    /// ```
    /// use gpuprim::{Scan, ScanOp};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[0b0011u32, 0b0100, 0b1000])?;
    /// let or = ctx.scan_with(&v, &Scan::inclusive(ScanOp::custom("a | b", 0)))?;
    /// assert_eq!(or.to_vec()?, vec![0b0011, 0b0111, 0b1111]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_with<T: GpuElement>(&self, v: &GpuVec<T>, scan: &Scan<T>) -> Result<GpuVec<T>> {
        let mut out = self.zeros::<T>(v.len())?;
        self.scan_with_into(v, scan, &mut out)?;
        Ok(out)
    }

    /// [`Ctx::scan_with`] into `out` (same length), without waiting.
    pub fn scan_with_into<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        scan: &Scan<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        let op = "scan";
        self.check_owned(op, &[&v.ctx, &out.ctx])?;
        v.require_host_len(op)?;
        out.require_host_len(op)?;
        check_len(op, ("out", out.len()), ("v", v.len()))?;
        let program = Program::scan(self, &scan.op, scan.exclusive)?;
        if v.is_empty() {
            // Nothing to do, but the same errors as at any length.
            let algorithm = self.choose_scan::<T>(op, scan.algorithm, &program, &[])?;
            let layouts = program.layouts(Some(&View::of(v)), Some(&View::of(out)));
            program.kernels(self, algorithm, &layouts)?;
            return Ok(());
        }
        // Each window's output is the same window of `out`.
        let mut work = Work::new(self, op);
        let out = View::of(out);
        self.record_windows::<T, T>(&mut work, &program, scan.algorithm, v, out, |w| OutRange {
            res: out.window(w),
            out_base: 0,
        })?;
        work.submit()
    }

    /// Adds the exclusive prefix sum of `v` into `out` (same length, host lengths) to
    /// `work`: for primitives built on scans (the radix sort's digit counts), so the scan
    /// goes in the same recording as their own passes.
    pub(crate) fn record_scan_exclusive<T: GpuElement>(
        &self,
        work: &mut Work,
        v: &GpuVec<T>,
        out: &GpuVec<T>,
    ) -> Result<()> {
        debug_assert_eq!(v.len(), out.len());
        let program = Program::scan(self, &ScanOp::<T>::Sum, true)?;
        if v.is_empty() {
            return Ok(());
        }
        let out = View::of(out);
        self.record_windows::<T, T>(work, &program, ScanAlgorithm::Auto, v, out, |w| OutRange {
            res: out.window(w),
            out_base: 0,
        })?;
        Ok(())
    }
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`): scans with every operator, inclusive and exclusive, and
/// compactions (elements and indices), of every element type, for every layout of the
/// vectors, on the adapters of `catalog_adapters` (both algorithms and the spine).
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use crate::runtime::cache::KernelSource;
    catalog_of::<f32>(c);
    catalog_of::<i32>(c);
    catalog_of::<u32>(c);
    catalog_of::<half::f16>(c);
    catalog_of::<f64>(c);
    let form = program::Form::scan(&ScanOp::<f32>::Sum, false).expect("a built-in operator");
    let configs = program::Program::build::<f32, f32>(&catalog_adapters()[0], form).configs();
    let wgsl = configs[0].wgsl().expect("the spine renders");
    crate::ops::catalog::layout!(
        c,
        record::ScanParams,
        "Params",
        wgsl,
        [
            n,
            units,
            tiles,
            tiles_per_group,
            groups,
            base,
            window,
            counters,
            first_elem,
            out_base,
            last,
            total_at
        ]
    );
}

/// The adapters whose shapes the catalog covers: lavapipe (a CPU adapter with subgroups
/// of 8; of 4 or 16 the same text), Mesa's GL device (no subgroups), a GPU with
/// subgroups of 32 and with none, and both kinds at WebGPU's 256 invocations, with
/// subgroups up to 128 wide and without.
#[cfg(test)]
pub(crate) fn catalog_adapters() -> Vec<program::Adapter> {
    let mut all = Vec::new();
    for cpu in [true, false] {
        for (max_invocations, subgroup_max) in [
            (1024, Some(if cpu { 8 } else { 32 })),
            (1024, None),
            (256, Some(128)),
            (256, None),
        ] {
            all.push(program::Adapter {
                cpu,
                max_invocations,
                subgroup_max,
            });
        }
    }
    all
}

/// Every kind of operator a scan renders differently, for the catalogs of scan and
/// scan_by_key.
#[cfg(test)]
pub(crate) fn catalog_ops<T: GpuElement>() -> [ScanOp<T>; 5] {
    [
        ScanOp::Sum,
        ScanOp::Product,
        ScanOp::Min,
        ScanOp::Max,
        ScanOp::custom("max(a, b)", T::LOWEST),
    ]
}

#[cfg(test)]
fn catalog_of<T: GpuElement>(c: &mut crate::ops::catalog::Catalog) {
    let ops = catalog_ops::<T>();
    for adapter in catalog_adapters() {
        let mut programs = Vec::new();
        for op in &ops {
            for exclusive in [false, true] {
                let form = program::Form::scan(op, exclusive).expect("a valid operator");
                programs.push(program::Program::build::<T, T>(&adapter, form));
            }
        }
        for (name, indices) in [("compact", false), ("compact_indices", true)] {
            let form = program::Form::compact::<T>(name, "x > x", indices).expect("a predicate");
            programs.push(program::Program::build::<T, u32>(&adapter, form));
        }
        for config in programs.iter().flat_map(program::Program::configs) {
            // Past WebGPU: more than 256 invocations, or f64.
            if config.workgroup_size > 256 || T::WGSL == "f64" {
                c.add_native(&config);
            } else {
                c.add(&config);
            }
        }
    }
}
