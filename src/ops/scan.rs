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

use crate::context::{Ctx, CtxBuilder, check_len};
use crate::dispatch::{
    Chunk, chunks, pow2_workgroup_size, storage_alignment, units_per_window, units_within,
    workgroup_grid,
};
use crate::element::GpuElement;
use crate::error::{Error, Limit, Result};
use crate::pipeline::{Kernel, PipelineKey, render};
use crate::record::{Res, Work};
use crate::vec::{GpuVec, LANES};
use crate::view::{View, units_wgsl};
use std::sync::Arc;

const SCAN_WGSL: &str = include_str!("../../wgsl/scan.wgsl");
const CHAINED_WGSL: &str = include_str!("../../wgsl/scan_chained.wgsl");
const SUBGROUP_WGSL: &str = include_str!("../../wgsl/scan_subgroup.wgsl");
const TREE_WGSL: &str = include_str!("../../wgsl/scan_tree.wgsl");
const LOOK_BACK_WGSL: &str = include_str!("../../wgsl/scan_lookback.wgsl");
const LOOK_BACK_SUBGROUP_WGSL: &str = include_str!("../../wgsl/scan_lookback_subgroup.wgsl");

/// Probes of a predecessor's status before a workgroup reduces that tile itself.
const SPIN: u32 = 64;
/// Predecessors whose published values the single pass's look-back keeps in workgroup
/// memory (4 bytes each); a walk further back loads them again. On a large GPU walks
/// often reach past 64 tiles, so smaller stashes were much slower, and 256 was as fast
/// as 1024 (see docs/perf-journal.md).
const STASH: u32 = 256;

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
                if info.device_type == wgpu::DeviceType::DiscreteGpu
                    && info.features.contains(wgpu::Features::SUBGROUP) =>
            {
                ScanAlgorithm::SinglePass
            }
            ScanAlgorithm::Auto => ScanAlgorithm::ReduceThenScan,
            chosen => chosen,
        }
    }
}

/// A scan: operator, inclusive or exclusive, and algorithm. For [`Ctx::scan_with`].
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
    /// [`Error::Compile`] if a custom operator is not valid WGSL of the element type,
    /// [`Error::InvalidArgument`] if it is not exactly one WGSL expression and for
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

    /// The elements of `v` for which the WGSL predicate `predicate` (an expression in `x`
    /// of the element type) holds, in their order. Blocks until the count is known.
    ///
    /// The result's buffer may be larger than its length (it is sized for the input when
    /// one binding holds the input); [`GpuVec::try_clone`] makes a tight copy.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `predicate` is not exactly one WGSL expression,
    /// [`Error::Compile`] if it is not a valid WGSL `bool` expression in `x`,
    /// [`Error::TooLarge`] past 2^32 - 1 elements.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[0.9f32, 0.1, 0.7, 0.3, 0.6])?;
    /// let kept = ctx.compact(&v, "x > 0.5")?;
    /// assert_eq!(kept.to_vec()?, vec![0.9, 0.7, 0.6]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn compact<T: GpuElement>(&self, v: &GpuVec<T>, predicate: &str) -> Result<GpuVec<T>> {
        self.compact_impl::<T, T>("compact", v, predicate)
    }

    /// The indices (ascending) of the elements of `v` for which `predicate` holds; see
    /// [`Ctx::compact`].
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[5i32, -2, 0, 7, -9])?;
    /// let negative = ctx.compact_indices(&v, "x < 0")?;
    /// assert_eq!(negative.to_vec()?, vec![1, 4]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn compact_indices<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        predicate: &str,
    ) -> Result<GpuVec<u32>> {
        self.compact_impl::<T, u32>("compact_indices", v, predicate)
    }

    fn compact_impl<T: GpuElement, O: GpuElement>(
        &self,
        op: &'static str,
        v: &GpuVec<T>,
        predicate: &str,
    ) -> Result<GpuVec<O>> {
        self.check_owned(op, &[&v.ctx])?;
        v.require_host_len(op)?;
        let indices = op == "compact_indices";
        let program = Program::compact::<T>(self, op, predicate, indices)?;
        check_positions(op, v.len())?;
        if v.is_empty() {
            let algorithm = self.choose_scan::<u32>(op, ScanAlgorithm::Auto, &program, &[])?;
            program.kernels(self, algorithm, &program.layouts(Some(&View::of(v)), None))?;
            return self.zeros::<O>(0);
        }
        let in_unit = unit_bytes::<T>();
        let out_bytes = size_of::<O>() as u64;
        let n = v.len() as u64;
        let max_binding = self.info().max_binding_bytes;
        if n.next_multiple_of(LANES as u64) * out_bytes <= max_binding {
            // The output fits one binding: one recording straight into a vector sized for
            // the input; the count comes back with the result.
            let mut out = self.zeros::<O>(v.len())?;
            let mut work = Work::new(self, op);
            let total = self.compact_record(&mut work, &program, v, &out)?;
            let count = self.submit_read_back::<u32>(work, (&total, 0), 1)?;
            out.len = count.wait()?[0] as usize;
            return Ok(out);
        }
        // The output may need several bindings: count the kept elements of each range
        // first, so each window's output binding can start where its elements go. A
        // window's output binding holds at most its elements, plus alignment and padding.
        let slack = storage_alignment(self) + LANES as u64 * out_bytes;
        let per = units_within(
            self,
            &[in_unit, LANES as u64 * out_bytes],
            max_binding.saturating_sub(slack),
        );
        let windows: Vec<Chunk> = chunks(v.lanes4(), per).collect();
        // Several windows: count each range first, so each window's output binding can
        // start where its kept elements go.
        let src = View::of(v);
        let kernels = program.kernels(
            self,
            ScanAlgorithm::ReduceThenScan,
            &program.layouts(Some(&src), None),
        )?;
        let (layout, mut params) = self.rts_layout(&kernels, n, &windows, None)?;
        let counts = {
            let mut work = Work::new(self, op);
            let partials = work.keep(self.scratch(
                "compact counts",
                4 * u64::from(layout.total_groups),
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            )?);
            for (i, w) in windows.iter().enumerate() {
                let block = work.params(&params[i]);
                work.dispatch(&kernels.upsweep, layout.grids[i])
                    .bind(0, block)
                    .bind(1, src.window(w))
                    .bind(3, Res::whole(&partials));
            }
            self.submit_read_back::<u32>(work, (&partials, 0), layout.total_groups as usize)?
                .wait()?
        };
        let mut offsets = Vec::with_capacity(counts.len() + 1);
        let mut total = 0u64;
        for &c in &counts {
            offsets.push(total as u32);
            total += u64::from(c);
        }
        offsets.push(total as u32);
        let out = self.zeros::<O>(total as usize)?;
        if total == 0 {
            return Ok(out);
        }
        let align_elems = (storage_alignment(self) / out_bytes).max(1);
        let outs: Vec<Option<OutRange>> = (0..windows.len())
            .map(|i| {
                let first = u64::from(offsets[layout.bases[i] as usize]);
                let end = u64::from(offsets[(layout.bases[i] + layout.groups[i]) as usize]);
                (end > first).then(|| {
                    let start = first / align_elems * align_elems;
                    let stop = end
                        .next_multiple_of(LANES as u64)
                        .min(out.lanes4() * LANES as u64);
                    OutRange {
                        res: Res::range(
                            &out.buffer,
                            out.offset + start * out_bytes,
                            (stop - start) * out_bytes,
                        ),
                        out_base: start as u32,
                    }
                })
            })
            .collect();
        let offsets = self.upload(&offsets)?;
        let mut work = Work::new(self, op);
        for (i, w) in windows.iter().enumerate() {
            let Some(range) = &outs[i] else {
                continue;
            };
            let p = &mut params[windows.len() + 1 + i];
            p.out_base = range.out_base;
            let block = work.params(p);
            work.dispatch(&kernels.downsweep, layout.grids[i])
                .bind(0, block)
                .bind(1, src.window(w))
                .bind(2, range.res.clone())
                .bind(4, Res::whole(&offsets.buffer));
        }
        work.submit()?;
        Ok(out)
    }

    /// Adds a compaction of `v` into `out` (whose padded elements fit one binding, with
    /// room for all of `v`) to `work`; returns the buffer the count lands in.
    fn compact_record<T: GpuElement, O: GpuElement>(
        &self,
        work: &mut Work,
        program: &Program,
        v: &GpuVec<T>,
        out: &GpuVec<O>,
    ) -> Result<wgpu::Buffer> {
        // Every window writes anywhere in the whole of `out`.
        let out = View::of(out);
        self.record_windows::<T, u32>(work, program, ScanAlgorithm::Auto, v, out, |_| OutRange {
            res: out.whole(),
            out_base: 0,
        })
    }

    /// Cuts `v` into binding windows, picks the algorithm for scanned type `A` and adds
    /// the scan of every window to `work`; `out_range` says which part of `out` a
    /// window's output binding covers. Returns the buffer holding the scan's total.
    fn record_windows<T: GpuElement, A: GpuElement>(
        &self,
        work: &mut Work,
        program: &Program,
        requested: ScanAlgorithm,
        v: &GpuVec<T>,
        out: View<'_>,
        out_range: impl Fn(&Chunk) -> OutRange,
    ) -> Result<wgpu::Buffer> {
        let windows: Vec<Chunk> =
            chunks(v.lanes4(), units_per_window(self, &[unit_bytes::<T>()])).collect();
        let algorithm = self.choose_scan::<A>(work.op(), requested, program, &windows)?;
        let input = View::of(v);
        let kernels =
            program.kernels(self, algorithm, &program.layouts(Some(&input), Some(&out)))?;
        let outs: Vec<_> = windows.iter().map(|w| Some(out_range(w))).collect();
        let io = Io {
            input,
            n: v.len() as u64,
            windows: &windows,
            outs: &outs,
        };
        self.record_scan(work, &kernels, algorithm, &io)
    }

    /// [`Ctx::compact`] without waiting: the kept elements go to the front of `out`
    /// (whose length must be at least `v.len()`, within one storage binding), their
    /// number to `count[0]`; the rest of `out` is left as it was.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[4u32, 9, 2, 7])?;
    /// let mut out = ctx.zeros::<u32>(4)?;
    /// let mut count = ctx.zeros::<u32>(1)?;
    /// ctx.compact_into(&v, "x > 3u", &mut out, &mut count)?;
    /// assert_eq!(count.to_vec()?, vec![3]);
    /// assert_eq!(out.to_vec()?[..3], [4, 9, 7]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn compact_into<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        predicate: &str,
        out: &mut GpuVec<T>,
        count: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.compact_into_impl("compact_into", v, predicate, out, count)
    }

    /// [`Ctx::compact_indices`] without waiting; see [`Ctx::compact_into`].
    pub fn compact_indices_into<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        predicate: &str,
        out: &mut GpuVec<u32>,
        count: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.compact_into_impl("compact_indices_into", v, predicate, out, count)
    }

    fn compact_into_impl<T: GpuElement, O: GpuElement>(
        &self,
        op: &'static str,
        v: &GpuVec<T>,
        predicate: &str,
        out: &mut GpuVec<O>,
        count: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.check_owned(op, &[&v.ctx, &out.ctx, &count.ctx])?;
        for len_on_host in [v.require_host_len(op), out.require_host_len(op)] {
            len_on_host?;
        }
        let program = Program::compact::<T>(self, op, predicate, op == "compact_indices_into")?;
        check_positions(op, v.len())?;
        if out.len() < v.len() {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "`out` has {} elements, fewer than the {} of `v`: every element may be kept",
                    out.len(),
                    v.len()
                ),
            });
        }
        if out.padded_bytes() > self.info().max_binding_bytes {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "`out` ({} bytes) is larger than one storage binding ({} bytes); use `compact`, \
                     which splits the output",
                    out.padded_bytes(),
                    self.info().max_binding_bytes
                ),
            });
        }
        if count.is_empty() {
            return Err(Error::InvalidArgument {
                op,
                message: "`count` has 0 elements; the count goes to element 0".into(),
            });
        }
        count.require_usage(op, wgpu::BufferUsages::COPY_DST)?;
        if v.is_empty() {
            let algorithm = self.choose_scan::<u32>(op, ScanAlgorithm::Auto, &program, &[])?;
            program.kernels(self, algorithm, &program.layouts(Some(&View::of(v)), None))?;
            // In the command stream (not `queue.write_buffer`, which would overtake
            // calls still held for batching).
            let mut work = Work::new(self, op);
            work.clear(&count.buffer, count.offset, Some(4));
            return work.submit();
        }
        let mut work = Work::new(self, op);
        let total = self.compact_record(&mut work, &program, v, out)?;
        work.copy((&total, 0), (&count.buffer, count.offset), 4);
        work.submit()
    }

    /// The algorithm for a scan of `T` over `windows`.
    fn choose_scan<T: GpuElement>(
        &self,
        op: &'static str,
        requested: ScanAlgorithm,
        program: &Program,
        windows: &[Chunk],
    ) -> Result<ScanAlgorithm> {
        let wide = size_of::<T>() != 4;
        let (tiles, status_bytes) = status_size(windows, program.chained_tile_units);
        let fits = status_bytes <= self.info().max_binding_bytes;
        match requested {
            ScanAlgorithm::Auto => Ok(
                if wide || !fits || self.scan_algorithm() != ScanAlgorithm::SinglePass {
                    ScanAlgorithm::ReduceThenScan
                } else {
                    ScanAlgorithm::SinglePass
                },
            ),
            ScanAlgorithm::SinglePass if wide => Err(Error::InvalidArgument {
                op,
                message: format!(
                    "ScanAlgorithm::SinglePass works on 32-bit elements (its look-back publishes \
                     32-bit words), not {}; use ScanAlgorithm::Auto or ReduceThenScan",
                    T::WGSL
                ),
            }),
            ScanAlgorithm::SinglePass if !fits => Err(Error::TooLarge {
                what: format!("the single-pass scan's tile status for {tiles} tiles"),
                kind: Limit::BindingBytes,
                requested: status_bytes,
                limit: self.info().max_binding_bytes,
            }),
            other => Ok(other),
        }
    }

    /// Adds a whole scan to `work`; returns the buffer that holds the combination of all
    /// elements afterwards.
    fn record_scan(
        &self,
        work: &mut Work,
        kernels: &Kernels,
        algorithm: ScanAlgorithm,
        io: &Io<'_>,
    ) -> Result<wgpu::Buffer> {
        let a_bytes = kernels.a_bytes;
        let total = work.keep(self.scratch(
            "scan total",
            a_bytes,
            wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        )?);
        let windows = io.windows;
        let last = windows.len() - 1;
        if algorithm == ScanAlgorithm::SinglePass {
            let counters = status_counters(windows.len());
            let (_, status_bytes) = status_size(windows, kernels.tile_units);
            let status = work.keep(self.scratch(
                "scan tile status",
                status_bytes,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            )?);
            work.clear(&status, 0, Some(status_bytes));
            let chained = kernels.chained.as_ref().expect("single pass compiled");
            let mut first_tile = 0u64;
            for (i, w) in windows.iter().enumerate() {
                let tiles = w.units.div_ceil(u64::from(kernels.tile_units));
                let grid = workgroup_grid(tiles, self.info().max_workgroups_per_dimension)?;
                let (first, count) = window_elems(w, io.n);
                let block = work.params(&ScanParams {
                    n: count as u32,
                    units: w.units as u32,
                    tiles: tiles as u32,
                    base: first_tile as u32,
                    window: i as u32,
                    counters: counters as u32,
                    first_elem: first as u32,
                    out_base: io.outs[i].as_ref().map_or(0, |r| r.out_base),
                    last: u32::from(i == last),
                    ..ScanParams::default()
                });
                first_tile += tiles;
                let Some(range) = &io.outs[i] else {
                    continue;
                };
                work.dispatch(chained, grid)
                    .bind(0, block)
                    .bind(1, io.input.window(w))
                    .bind(2, range.res.clone())
                    .bind(4, Res::whole(&total))
                    .bind(5, Res::range(&status, 0, status_bytes));
            }
            return Ok(total);
        }
        let (layout, params) = self.rts_layout(kernels, io.n, windows, Some(io))?;
        let partials = work.keep(self.scratch(
            "scan partials",
            a_bytes * u64::from(layout.total_groups),
            wgpu::BufferUsages::STORAGE,
        )?);
        let offsets_bytes = a_bytes * (u64::from(layout.total_groups) + 1);
        let offsets = work.keep(self.scratch(
            "scan offsets",
            offsets_bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        )?);
        for (i, w) in windows.iter().enumerate() {
            let block = work.params(&params[i]);
            work.dispatch(&kernels.upsweep, layout.grids[i])
                .bind(0, block)
                .bind(1, io.input.window(w))
                .bind(3, Res::whole(&partials));
        }
        let block = work.params(&params[windows.len()]);
        work.dispatch(&kernels.spine, [1, 1, 1])
            .bind(0, block)
            .bind(3, Res::whole(&partials))
            .bind(4, Res::whole(&offsets));
        for (i, w) in windows.iter().enumerate() {
            let Some(range) = &io.outs[i] else {
                continue;
            };
            let block = work.params(&params[windows.len() + 1 + i]);
            work.dispatch(&kernels.downsweep, layout.grids[i])
                .bind(0, block)
                .bind(1, io.input.window(w))
                .bind(2, range.res.clone())
                .bind(4, Res::whole(&offsets));
        }
        // Compaction's count (a plain scan has no use for the total, and the copy costs
        // a round of the GPU).
        if kernels.counts {
            let at = a_bytes * u64::from(layout.total_groups);
            work.copy((&offsets, at), (&total, 0), a_bytes);
        }
        Ok(total)
    }

    /// Workgroups and parameters of reduce-then-scan: one parameter block per window for
    /// the upsweep, one for the spine, one per window for the downsweep.
    fn rts_layout(
        &self,
        kernels: &Kernels,
        n: u64,
        windows: &[Chunk],
        io: Option<&Io<'_>>,
    ) -> Result<(RtsLayout, Vec<ScanParams>)> {
        let max_dim = u64::from(self.info().max_workgroups_per_dimension);
        let cap = u64::from(groups_cap(self)).min(max_dim.saturating_pow(3));
        let mut layout = RtsLayout {
            grids: Vec::new(),
            bases: Vec::new(),
            groups: Vec::new(),
            total_groups: 0,
        };
        let mut up = Vec::new();
        for w in windows {
            let tiles = w.units.div_ceil(u64::from(kernels.tile_units));
            let per_group = tiles.div_ceil(cap);
            let groups = tiles.div_ceil(per_group);
            let (first, count) = window_elems(w, n);
            up.push(ScanParams {
                n: count as u32,
                units: w.units as u32,
                tiles: tiles as u32,
                tiles_per_group: per_group as u32,
                groups: groups as u32,
                base: layout.total_groups,
                first_elem: first as u32,
                ..ScanParams::default()
            });
            layout.grids.push(workgroup_grid(
                groups,
                self.info().max_workgroups_per_dimension,
            )?);
            layout.bases.push(layout.total_groups);
            layout.groups.push(groups as u32);
            layout.total_groups += groups as u32;
        }
        let mut params = up.clone();
        params.push(ScanParams {
            groups: layout.total_groups,
            ..ScanParams::default()
        });
        for (i, mut p) in up.into_iter().enumerate() {
            if let Some(range) = io.and_then(|io| io.outs[i].as_ref()) {
                p.out_base = range.out_base;
            }
            params.push(p);
        }
        Ok((layout, params))
    }
}

/// The parameter block of `wgsl/scan.wgsl` (`struct Params` there, which says what each
/// field means to each entry point).
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct ScanParams {
    n: u32,
    units: u32,
    tiles: u32,
    tiles_per_group: u32,
    groups: u32,
    base: u32,
    window: u32,
    counters: u32,
    first_elem: u32,
    out_base: u32,
    last: u32,
    _pad: u32,
}

/// Workgroups of the reduce-then-scan passes per window.
struct RtsLayout {
    grids: Vec<[u32; 3]>,
    /// Each window's first partial.
    bases: Vec<u32>,
    groups: Vec<u32>,
    total_groups: u32,
}

/// Where a window's results go: a range of the output vector, starting at element
/// `out_base` (compaction writes kept element `p` to `out[p - out_base]`).
struct OutRange {
    res: Res,
    out_base: u32,
}

/// The vectors of one scan.
struct Io<'a> {
    input: View<'a>,
    /// Elements in the input.
    n: u64,
    windows: &'a [Chunk],
    /// The output binding of each window; `None` skips the window's output pass.
    outs: &'a [Option<OutRange>],
}

/// Compaction positions are u32.
fn check_positions(op: &'static str, n: usize) -> Result<()> {
    if n as u64 > u64::from(u32::MAX) {
        return Err(Error::TooLarge {
            what: format!("`{op}` (its positions are u32)"),
            kind: Limit::Elements,
            requested: n as u64,
            limit: u64::from(u32::MAX),
        });
    }
    Ok(())
}

/// Counter words before the tile statuses: one per window, rounded to 4.
fn status_counters(windows: usize) -> u64 {
    (windows as u64).next_multiple_of(4)
}

/// Tiles of the single pass over `windows`, and the bytes of its status buffer (the
/// counters, then an aggregate and an inclusive pair per tile).
fn status_size(windows: &[Chunk], tile_units: u32) -> (u64, u64) {
    let tiles: u64 = windows
        .iter()
        .map(|w| w.units.div_ceil(u64::from(tile_units)))
        .sum();
    (tiles, 4 * (status_counters(windows.len()) + 4 * tiles))
}

/// The index of window `w`'s first element and its element count, of `n` in all.
fn window_elems(w: &Chunk, n: u64) -> (u64, u64) {
    let first = w.offset_units * LANES as u64;
    (first, (n - first).min(w.units * LANES as u64))
}

fn unit_bytes<T: GpuElement>() -> u64 {
    (LANES * size_of::<T>()) as u64
}

/// Workgroups of a reduce-then-scan pass: on a GPU many short ones, as many as one
/// spine tile has partials (32768 with a 1024-invocation spine); few on a CPU adapter.
/// Each walks a contiguous range of tiles, and like a copy kernel's, the passes run
/// faster as many short workgroups than as a few long ones, once the spine keeps up
/// (the spines before this one scanned a few partials per step, and there more
/// workgroups were slower; see docs/perf-journal.md).
fn groups_cap(ctx: &Ctx) -> u32 {
    match ctx.info().device_type {
        wgpu::DeviceType::Cpu => 32,
        _ => 32768,
    }
}

/// The WGSL of one scan or compaction, and what identifies it. The three renders of
/// `wgsl/scan.wgsl` are kept as their substitutions and rendered only when a pipeline
/// is not cached yet.
struct Program {
    key: PipelineKey,
    /// The upsweep and downsweep (and the single pass's source below, when enabled).
    vars: Vars,
    /// The single-pass kernel, for 32-bit scanned types.
    chained: Option<Vars>,
    /// The spine: the template again, as an exclusive scan of the partials (its `load`
    /// and `store` read `partials` and write `offsets`) in tiles of `spine_shape`.
    spine: Vars,
    spine_shape: (u32, u32),
    /// Elements per tile (/ 4) of reduce-then-scan and of the single pass.
    tile_units: u32,
    chained_tile_units: u32,
    a_bytes: u64,
    /// Compaction: the scan's total (the kept count) is wanted after the run.
    counts: bool,
    /// The input's element type.
    src_type: &'static str,
    /// Compaction's output element type (`out` is elements); `None`: vec4 units of the
    /// input type (a scan).
    scalar_out: Option<&'static str>,
}

/// The input and output declarations of a scan's kernels, and their part of the key.
struct Layouts {
    src: String,
    out: String,
    key: String,
}

/// Substitutions for one render of `wgsl/scan.wgsl`.
type Vars = Vec<(&'static str, String)>;

/// The compiled kernels of a [`Program`] for one algorithm.
struct Kernels {
    upsweep: Arc<Kernel>,
    spine: Arc<Kernel>,
    downsweep: Arc<Kernel>,
    /// Compiled for [`ScanAlgorithm::SinglePass`] only.
    chained: Option<Arc<Kernel>>,
    tile_units: u32,
    a_bytes: u64,
    counts: bool,
}

impl Program {
    fn scan<T: GpuElement>(ctx: &Ctx, op: &ScanOp<T>, exclusive: bool) -> Result<Program> {
        ctx.check_element::<T>()?;
        let (name, combine, identity, builtin) = match op {
            ScanOp::Sum => (
                "sum",
                "a + b".to_string(),
                T::ZERO,
                Some("subgroupInclusiveAdd"),
            ),
            ScanOp::Product => (
                "product",
                "a * b".into(),
                T::ONE,
                Some("subgroupInclusiveMul"),
            ),
            ScanOp::Min => ("min", "min(a, b)".into(), T::HIGHEST, None),
            ScanOp::Max => ("max", "max(a, b)".into(), T::LOWEST, None),
            ScanOp::Custom { op, identity } => {
                crate::expr::check_expression("scan", "operator", op)?;
                ("custom", format!("({op})"), *identity, None)
            }
        };
        let code = match op {
            ScanOp::Custom { op, identity } => {
                format!("{op} | identity {}", identity.wgsl_literal())
            }
            _ => String::new(),
        };
        let io = "fn load(u: u32) -> vec4<A> {\n\
                  \x20   var r = vec4<A>(identity());\n\
                  \x20   if u < params.units {\n\
                  \x20       r = src_load(u);\n\
                  \x20       MASK\n\
                  \x20   }\n\
                  \x20   return r;\n\
                  }\n\
                  fn store(u: u32, s: vec4<A>) {\n\
                  \x20   if u < params.units {\n\
                  \x20       out_store(u, s);\n\
                  \x20   }\n\
                  }\n";
        Ok(Program::build::<T, T>(
            ctx,
            "scan",
            &format!("{name}{}", if exclusive { "-exclusive" } else { "" }),
            code,
            Operator {
                combine,
                identity: identity.wgsl_literal(),
                builtin,
                commutative: !matches!(op, ScanOp::Custom { .. }),
            },
            exclusive,
            None,
            io,
            8,
        ))
    }

    fn compact<T: GpuElement>(
        ctx: &Ctx,
        op: &'static str,
        predicate: &str,
        indices: bool,
    ) -> Result<Program> {
        ctx.check_element::<T>()?;
        crate::expr::check_expression(op, "predicate", predicate)?;
        let io = format!(
            "fn keep(x: T) -> bool {{ return ({predicate}); }}\n\
             fn flag(x: T) -> u32 {{ return select(0u, 1u, keep(x)); }}\n\
             fn load(u: u32) -> vec4<A> {{\n\
             \x20   var r = vec4<A>(identity());\n\
             \x20   if u < params.units {{\n\
             \x20       let v = src_load(u);\n\
             \x20       r = vec4<u32>(flag(v.x), flag(v.y), flag(v.z), flag(v.w));\n\
             \x20       MASK\n\
             \x20   }}\n\
             \x20   return r;\n\
             }}\n\
             fn store(u: u32, s: vec4<A>) {{\n\
             \x20   if u >= params.units {{\n\
             \x20       return;\n\
             \x20   }}\n\
             \x20   let v = src_load(u);\n\
             \x20   for (var k = 0u; k < 4u; k++) {{\n\
             \x20       let i = u * 4u + k;\n\
             \x20       if i < params.n && keep(v[k]) {{\n\
             \x20           out[s[k] - params.out_base] = {};\n\
             \x20       }}\n\
             \x20   }}\n\
             }}\n",
            if indices {
                "params.first_elem + i"
            } else {
                "v[k]"
            }
        );
        let out = if indices { "u32" } else { T::WGSL };
        let mut program = Program::build::<T, u32>(
            ctx,
            op,
            "",
            predicate.to_string(),
            Operator {
                combine: "a + b".into(),
                identity: "0u".into(),
                builtin: Some("subgroupInclusiveAdd"),
                commutative: true,
            },
            true,
            Some(out),
            &io,
            6,
        );
        program.counts = true;
        Ok(program)
    }

    /// Renders the template for input elements `T` scanned as `A`; the single pass takes
    /// `gpu_units` vec4 units per invocation on a GPU.
    #[allow(clippy::too_many_arguments)]
    fn build<T: GpuElement, A: GpuElement>(
        ctx: &Ctx,
        op: &'static str,
        variant: &str,
        code: String,
        operator: Operator,
        exclusive: bool,
        scalar_out: Option<&'static str>,
        io: &str,
        gpu_units: u32,
    ) -> Program {
        let wg = pow2_workgroup_size(ctx, 256);
        let subgroups = ctx.has_features(wgpu::Features::SUBGROUP)
            && size_of::<A>() == 4
            && ctx.info().subgroup_max_size <= wg
            && ctx.info().subgroup_min_size >= 1;
        // Workgroup size and vec4 units per invocation, the fastest measured on a GPU
        // (see docs/perf-journal.md). Reduce-then-scan: 2 units (1 and 4 about the same).
        // The single pass: 256 x 8 units for scans, tiles of 8192 elements (512 x 4 and
        // 1024 x 4 as fast, larger and smaller tiles slower), 256 x 6 for compaction
        // (whose store reads the input again, so fewer units a tile are faster). A CPU
        // adapter runs few invocations at once: 256 x 4 (2 for 64-bit types) keeps tiles
        // small there.
        let (v, wg_chained, v_chained) = match ctx.info().device_type {
            wgpu::DeviceType::Cpu => (if size_of::<A>() > 4 { 2 } else { 4 }, wg, 4),
            _ => (2, wg, gpu_units),
        };
        // The workgroup scan, and what fills its placeholder (the subgroup variant's
        // inclusive scan); rendered with the rest of the template only on a compile.
        let (workgroup_scan, subgroup_inclusive) = if subgroups {
            let body = match operator.builtin {
                Some(f) => format!("    return {f}(x);"),
                None => "    var v = x;\n\
                         \x20   for (var d = 1u; d < ids.subgroup_size; d <<= 1u) {\n\
                         \x20       let y = subgroupShuffleUp(v, d);\n\
                         \x20       if ids.subgroup_lane >= d {\n\
                         \x20           v = combine(y, v);\n\
                         \x20       }\n\
                         \x20   }\n\
                         \x20   return v;"
                    .to_string(),
            };
            (SUBGROUP_WGSL, Some(body))
        } else {
            (TREE_WGSL, None)
        };
        let functions = format!(
            "fn identity() -> A {{ return {}; }}\nfn combine(a: A, b: A) -> A {{ return {}; }}\n",
            operator.identity, operator.combine
        );
        let mask = "let first = u * 4u;\n\
                    \x20       if first + 4u > params.n {\n\
                    \x20           for (var k = 0u; k < 4u; k++) {\n\
                    \x20               if first + k >= params.n {\n\
                    \x20                   r[k] = identity();\n\
                    \x20               }\n\
                    \x20           }\n\
                    \x20       }";
        let io = io.replace("MASK", mask);
        let chained_ok = size_of::<A>() == 4;
        let look_back = if subgroups {
            LOOK_BACK_SUBGROUP_WGSL
        } else {
            LOOK_BACK_WGSL
        };
        // The spine scans the partials as one or more tiles of their own: a workgroup as
        // wide as the device allows and 8 units per invocation on a GPU (32768 partials
        // in one tile; its time is latency), the pass's shape with 1 unit on a CPU
        // adapter (1024 partials a tile, so the tests reach its multi-tile loop).
        let spine_shape = match ctx.info().device_type {
            wgpu::DeviceType::Cpu => (wg, 1),
            _ => (pow2_workgroup_size(ctx, 1024).max(wg), 8),
        };
        let spine_io = "fn load(u: u32) -> vec4<A> {\n\
                        \x20   var r = vec4<A>(identity());\n\
                        \x20   for (var k = 0u; k < 4u; k++) {\n\
                        \x20       if u * 4u + k < params.groups {\n\
                        \x20           r[k] = partials[u * 4u + k];\n\
                        \x20       }\n\
                        \x20   }\n\
                        \x20   return r;\n\
                        }\n\
                        fn store(u: u32, s: vec4<A>) {\n\
                        \x20   for (var k = 0u; k < 4u; k++) {\n\
                        \x20       if u * 4u + k < params.groups {\n\
                        \x20           offsets[u * 4u + k] = s[k];\n\
                        \x20       }\n\
                        \x20   }\n\
                        }\n";
        // Substitutions are made in order, so a placeholder that a value brings in (the
        // workgroup scan's `{{SUBGROUP_INCLUSIVE}}`, the single pass's `{{LOOK_BACK}}`,
        // the look-back's `{{STASH}}`) is filled by an entry after it.
        let vars = |(wg, v): (u32, u32), exclusive: bool, io: &str, chained: bool| -> Vars {
            let mut vars = vec![
                ("ENABLE", T::ENABLE.to_string()),
                ("T", T::WGSL.to_string()),
                ("A", A::WGSL.to_string()),
                ("WG", wg.to_string()),
                ("V", v.to_string()),
                ("EXCLUSIVE", exclusive.to_string()),
                ("COMMUTATIVE", operator.commutative.to_string()),
                ("SPIN", SPIN.to_string()),
                ("OP", functions.clone()),
                ("IO", io.to_string()),
                ("WORKGROUP_SCAN", workgroup_scan.to_string()),
            ];
            if let Some(body) = &subgroup_inclusive {
                vars.push(("SUBGROUP_INCLUSIVE", body.clone()));
            }
            if chained {
                vars.push(("CHAINED", CHAINED_WGSL.to_string()));
                vars.push(("LOOK_BACK", look_back.to_string()));
                vars.push(("STASH", STASH.to_string()));
                // Tiles are numbered by workgroup id with the subgroup look-back (no
                // counter's round trip before the loads, so slightly faster), and by a
                // counter, in the order workgroups start, with the one-at-a-time look-back
                // (by id it was much slower there; see docs/perf-journal.md).
                vars.push(("BY_ID", subgroups.to_string()));
            } else {
                vars.push(("CHAINED", String::new()));
            }
            vars
        };
        Program {
            key: PipelineKey {
                op,
                element: T::WGSL,
                workgroup_size: wg,
                variant: format!(
                    "{variant}+v{v}/{wg_chained}x{v_chained}{}",
                    if subgroups { "+subgroup" } else { "" }
                ),
                code,
            },
            vars: vars((wg, v), exclusive, &io, false),
            chained: chained_ok.then(|| vars((wg_chained, v_chained), exclusive, &io, true)),
            spine: vars(spine_shape, true, spine_io, false),
            spine_shape,
            tile_units: wg * v,
            chained_tile_units: wg_chained * v_chained,
            a_bytes: size_of::<A>() as u64,
            counts: false,
            src_type: T::WGSL,
            scalar_out,
        }
    }

    /// The declarations of the input and output vectors for their layouts (gpuprim's
    /// padded vec4 units where a vector is not given).
    fn layouts(&self, src: Option<&View<'_>>, out: Option<&View<'_>>) -> Layouts {
        let src_decl = match src {
            Some(v) => v.units_wgsl("src", 1, false),
            None => units_wgsl("src", 1, self.src_type, false, true),
        };
        let (out_decl, out_layout) = match (self.scalar_out, out) {
            (Some(o), _) => (
                format!("@group(0) @binding(2) var<storage, read_write> out: array<{o}>;\n"),
                "elements",
            ),
            (None, Some(v)) => (v.units_wgsl("out", 2, true), v.layout()),
            (None, None) => (units_wgsl("out", 2, self.src_type, true, true), "vec4"),
        };
        Layouts {
            key: format!("{}/{out_layout}", src.map_or("vec4", |v| v.layout())),
            src: src_decl,
            out: out_decl,
        }
    }

    fn kernels(&self, ctx: &Ctx, algorithm: ScanAlgorithm, layouts: &Layouts) -> Result<Kernels> {
        // The vectors' declarations first: they bring no placeholders of their own.
        let with = |vars: &Vars, layouts: &Layouts| -> Vars {
            let mut all = vec![
                ("SRC", layouts.src.clone()),
                ("OUT_DECL", layouts.out.clone()),
            ];
            all.extend(vars.iter().cloned());
            all
        };
        let key = PipelineKey {
            variant: format!("{}|{}", self.key.variant, layouts.key),
            ..self.key.clone()
        };
        let source = || render(SCAN_WGSL, &with(&self.vars, layouts));
        let chained = match (&self.chained, algorithm) {
            (Some(chained), ScanAlgorithm::SinglePass) => {
                let key = PipelineKey {
                    variant: format!("{}+chained", key.variant),
                    ..key.clone()
                };
                Some(ctx.kernel_entry(key, "chained", || {
                    render(SCAN_WGSL, &with(chained, layouts))
                })?)
            }
            _ => None,
        };
        let (spine_wg, spine_v) = self.spine_shape;
        let spine_key = PipelineKey {
            variant: format!("{}+spine{spine_wg}x{spine_v}", self.key.variant),
            workgroup_size: spine_wg,
            ..self.key.clone()
        };
        // The spine reads and writes its own buffers: the same text for every layout.
        let spine = ctx.kernel_entry(spine_key, "spine", || {
            render(SCAN_WGSL, &with(&self.spine, &self.layouts(None, None)))
        })?;
        Ok(Kernels {
            upsweep: ctx.kernel_entry(key.clone(), "upsweep", source)?,
            spine,
            downsweep: ctx.kernel_entry(key, "downsweep", source)?,
            tile_units: if chained.is_some() {
                self.chained_tile_units
            } else {
                self.tile_units
            },
            chained,
            a_bytes: self.a_bytes,
            counts: self.counts,
        })
    }
}

/// A scan operator's WGSL.
struct Operator {
    combine: String,
    identity: String,
    /// The subgroup built-in for an inclusive scan with this operator, if there is one.
    builtin: Option<&'static str>,
    /// Built-in operators may be applied in any order (custom ones keep element order).
    commutative: bool,
}
