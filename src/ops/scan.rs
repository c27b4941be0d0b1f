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

use crate::context::{Ctx, check_len};
use crate::dispatch::{
    Chunk, Step, chunks, encode_steps, pow2_workgroup_size, record_steps, storage_alignment,
    submit_steps, units_per_window, units_within, workgroup_grid,
};
use crate::element::GpuElement;
use crate::error::{Error, Result};
use crate::pipeline::{Kernel, PipelineKey, render};
use crate::vec::{GpuVec, LANES, Scratch};
use std::sync::Arc;

const SCAN_WGSL: &str = include_str!("../../wgsl/scan.wgsl");
const CHAINED_WGSL: &str = include_str!("../../wgsl/scan_chained.wgsl");
const SUBGROUP_WGSL: &str = include_str!("../../wgsl/scan_subgroup.wgsl");
const TREE_WGSL: &str = include_str!("../../wgsl/scan_tree.wgsl");
const LOOK_BACK_WGSL: &str = include_str!("../../wgsl/scan_lookback.wgsl");
const LOOK_BACK_SUBGROUP_WGSL: &str = include_str!("../../wgsl/scan_lookback_subgroup.wgsl");

/// Words of the `Params` uniform in `wgsl/scan.wgsl`.
const PARAMS_WORDS: usize = 12;

/// Probes of a predecessor's status before a workgroup reduces that tile itself.
const SPIN: u32 = 64;
/// Predecessors whose published values the single pass's look-back keeps in workgroup
/// memory (4 bytes each); a walk further back loads them again. On the H100 at 2^28
/// f32 walks often reach past 64 tiles: a stash of 16 or 64 made the single pass 35%
/// slower, 256 was as fast as 1024 and compaction 1.5% faster (docs/PERFORMANCE.md,
/// run Z).
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
/// [`ScanAlgorithm::Auto`] takes the context's choice ([`Info::scan_algorithm`](crate::Info::scan_algorithm),
/// which [`CtxBuilder::scan_algorithm`](crate::CtxBuilder::scan_algorithm) can set) for
/// 32-bit elements, and reduce-then-scan for f16 and f64.
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
        check_len(op, ("out", out.len()), ("v", v.len()))?;
        let program = Program::scan(self, &scan.op, scan.exclusive)?;
        if v.is_empty() {
            // Nothing to do, but the same errors as at any length.
            let algorithm = self.choose_scan::<T>(op, scan.algorithm, &program, &[])?;
            program.kernels(self, algorithm)?;
            return Ok(());
        }
        // Each window's output is the same window of `out`.
        let (enc, scratch) =
            self.record_windows::<T, T>(op, &program, scan.algorithm, v, &out.buffer, |w| {
                let (offset, size) = w.byte_range(unit_bytes::<T>());
                OutRange {
                    offset,
                    size: size.get(),
                    out_base: 0,
                }
            })?;
        self.submit(op, enc)?;
        drop(scratch);
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
        let indices = op == "compact_indices";
        let program = Program::compact::<T>(self, op, predicate, indices)?;
        check_positions(op, v.len())?;
        if v.is_empty() {
            let algorithm = self.choose_scan::<u32>(op, ScanAlgorithm::Auto, &program, &[])?;
            program.kernels(self, algorithm)?;
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
            let (enc, scratch) = self.compact_record(op, &program, v, &out)?;
            let count = self.submit_read_back::<u32>(op, enc, &scratch.total, 1)?;
            drop(scratch);
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
        let kernels = program.kernels(self, ScanAlgorithm::ReduceThenScan)?;
        let (layout, mut params) = self.rts_layout(&kernels, n, &windows, None)?;
        let counts = {
            let partials = self.scratch(
                "compact counts",
                4 * u64::from(layout.total_groups),
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            )?;
            let uniform = self.params_uniform(&params)?;
            let steps = windows.iter().enumerate().map(|(i, w)| Step {
                kernel: &kernels.upsweep,
                entries: vec![
                    uniform.entry(0, i),
                    window_entry(1, &v.buffer, w, in_unit),
                    whole(3, &partials),
                ],
                grid: layout.grids[i],
            });
            let enc = encode_steps(self, op, steps)?;
            let read =
                self.submit_read_back::<u32>(op, enc, &partials, layout.total_groups as usize)?;
            drop(partials);
            read.wait()?
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
                        offset: start * out_bytes,
                        size: (stop - start) * out_bytes,
                        out_base: start as u32,
                    }
                })
            })
            .collect();
        for (i, range) in outs.iter().enumerate() {
            if let Some(range) = range {
                params[windows.len() + 1 + i][9] = range.out_base;
            }
        }
        let offsets = self.upload(&offsets)?;
        let uniform = self.params_uniform(&params)?;
        let steps = windows.iter().enumerate().filter_map(|(i, w)| {
            let range = outs[i].as_ref()?;
            Some(Step {
                kernel: &kernels.downsweep,
                entries: vec![
                    uniform.entry(0, i + windows.len() + 1),
                    window_entry(1, &v.buffer, w, in_unit),
                    range.entry(2, &out.buffer),
                    whole(4, &offsets.buffer),
                ],
                grid: layout.grids[i],
            })
        });
        submit_steps(self, op, steps)?;
        Ok(out)
    }

    /// Records a compaction of `v` into `out` (whose padded elements fit one binding,
    /// with room for all of `v`); the count lands in the scratch's `total`.
    fn compact_record<T: GpuElement, O: GpuElement>(
        &self,
        op: &'static str,
        program: &Program,
        v: &GpuVec<T>,
        out: &GpuVec<O>,
    ) -> Result<(wgpu::CommandEncoder, ScanScratch)> {
        // Every window writes anywhere in the whole of `out`.
        self.record_windows::<T, u32>(op, program, ScanAlgorithm::Auto, v, &out.buffer, |_| {
            OutRange {
                offset: 0,
                size: out.padded_bytes(),
                out_base: 0,
            }
        })
    }

    /// Cuts `v` into binding windows, picks the algorithm for scanned type `A` and
    /// records the scan of every window into a new encoder; `out_range` says which part
    /// of `out` a window's output binding covers.
    fn record_windows<T: GpuElement, A: GpuElement>(
        &self,
        op: &'static str,
        program: &Program,
        requested: ScanAlgorithm,
        v: &GpuVec<T>,
        out: &wgpu::Buffer,
        out_range: impl Fn(&Chunk) -> OutRange,
    ) -> Result<(wgpu::CommandEncoder, ScanScratch)> {
        let windows: Vec<Chunk> =
            chunks(v.lanes4(), units_per_window(self, &[unit_bytes::<T>()])).collect();
        let algorithm = self.choose_scan::<A>(op, requested, program, &windows)?;
        let kernels = program.kernels(self, algorithm)?;
        let outs: Vec<_> = windows.iter().map(|w| Some(out_range(w))).collect();
        let io = Io {
            input: &v.buffer,
            n: v.len() as u64,
            windows: &windows,
            out,
            outs: &outs,
        };
        self.record_scan(op, &kernels, algorithm, &io)
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
        if v.is_empty() {
            let algorithm = self.choose_scan::<u32>(op, ScanAlgorithm::Auto, &program, &[])?;
            program.kernels(self, algorithm)?;
            // In the command stream (not `queue.write_buffer`, which would overtake
            // calls still held for batching).
            let mut enc = self
                .inner
                .device
                .create_command_encoder(&Default::default());
            enc.clear_buffer(&count.buffer, 0, Some(4));
            return self.submit(op, enc);
        }
        let (mut enc, scratch) = self.compact_record(op, &program, v, out)?;
        enc.copy_buffer_to_buffer(&scratch.total, 0, &count.buffer, 0, 4);
        self.submit(op, enc)?;
        drop(scratch);
        Ok(())
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
                if wide || !fits || self.info().scan_algorithm != ScanAlgorithm::SinglePass {
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
                requested: status_bytes,
                limit: self.info().max_binding_bytes,
            }),
            other => Ok(other),
        }
    }

    /// Records a whole scan into a new encoder. The returned scratch buffers must live
    /// until the encoder is submitted; `total` holds the combination of all elements
    /// afterwards.
    fn record_scan(
        &self,
        op: &'static str,
        kernels: &Kernels,
        algorithm: ScanAlgorithm,
        io: &Io<'_>,
    ) -> Result<(wgpu::CommandEncoder, ScanScratch)> {
        let mut encoder = self
            .inner
            .device
            .create_command_encoder(&Default::default());
        let enc = &mut encoder;
        let a_bytes = kernels.a_bytes;
        let total = self.scratch(
            "scan total",
            a_bytes,
            wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        )?;
        let in_unit = kernels.in_unit;
        let windows = io.windows;
        let last = windows.len() - 1;
        if algorithm == ScanAlgorithm::SinglePass {
            let counters = status_counters(windows.len());
            let mut params = Vec::with_capacity(windows.len());
            let mut grids = Vec::with_capacity(windows.len());
            let mut first_tile = 0u64;
            for (i, w) in windows.iter().enumerate() {
                let tiles = w.units.div_ceil(u64::from(kernels.tile_units));
                let out_base = io.outs[i].as_ref().map_or(0, |r| r.out_base);
                let (first, count) = window_elems(w, io.n);
                params.push([
                    count as u32,
                    w.units as u32,
                    tiles as u32,
                    0,
                    0,
                    first_tile as u32,
                    i as u32,
                    counters as u32,
                    first as u32,
                    out_base,
                    u32::from(i == last),
                    0,
                ]);
                grids.push(workgroup_grid(
                    tiles,
                    self.info().max_workgroups_per_dimension,
                )?);
                first_tile += tiles;
            }
            let (_, status_bytes) = status_size(windows, kernels.tile_units);
            let status = self.scratch(
                "scan tile status",
                status_bytes,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            )?;
            let uniform = self.params_uniform(&params)?;
            let chained = kernels.chained.as_ref().expect("single pass compiled");
            let steps = windows.iter().enumerate().filter_map(|(i, w)| {
                let range = io.outs[i].as_ref()?;
                Some(Step {
                    kernel: chained,
                    entries: vec![
                        uniform.entry(0, i),
                        window_entry(1, io.input, w, in_unit),
                        range.entry(2, io.out),
                        whole(4, &total),
                        sized(5, &status, status_bytes),
                    ],
                    grid: grids[i],
                })
            });
            self.capture(op, || {
                enc.clear_buffer(&status, 0, Some(status_bytes));
                record_steps(self, op, enc, steps);
            })?;
            return Ok((
                encoder,
                ScanScratch {
                    total,
                    _others: vec![status],
                },
            ));
        }
        let (layout, params) = self.rts_layout(kernels, io.n, windows, Some(io))?;
        let partials = self.scratch(
            "scan partials",
            a_bytes * u64::from(layout.total_groups),
            wgpu::BufferUsages::STORAGE,
        )?;
        let offsets_bytes = a_bytes * (u64::from(layout.total_groups) + 1);
        let offsets = self.scratch(
            "scan offsets",
            offsets_bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        )?;
        let uniform = self.params_uniform(&params)?;
        let mut steps: Vec<Step> = windows
            .iter()
            .enumerate()
            .map(|(i, w)| Step {
                kernel: &kernels.upsweep,
                entries: vec![
                    uniform.entry(0, i),
                    window_entry(1, io.input, w, in_unit),
                    whole(3, &partials),
                ],
                grid: layout.grids[i],
            })
            .collect();
        steps.push(Step {
            kernel: &kernels.spine,
            entries: vec![
                uniform.entry(0, windows.len()),
                whole(3, &partials),
                whole(4, &offsets),
            ],
            grid: [1, 1, 1],
        });
        for (i, w) in windows.iter().enumerate() {
            let Some(range) = io.outs[i].as_ref() else {
                continue;
            };
            steps.push(Step {
                kernel: &kernels.downsweep,
                entries: vec![
                    uniform.entry(0, windows.len() + 1 + i),
                    window_entry(1, io.input, w, in_unit),
                    range.entry(2, io.out),
                    whole(4, &offsets),
                ],
                grid: layout.grids[i],
            });
        }
        self.capture(op, || {
            record_steps(self, op, enc, steps);
            // Compaction's count (a plain scan has no use for the total, and the copy
            // costs its round of the GPU: 3-8 us at 2^28 on the H100).
            if kernels.counts {
                let at = a_bytes * u64::from(layout.total_groups);
                enc.copy_buffer_to_buffer(&offsets, at, &total, 0, a_bytes);
            }
        })?;
        Ok((
            encoder,
            ScanScratch {
                total,
                _others: vec![partials, offsets],
            },
        ))
    }

    /// Workgroups and parameters of reduce-then-scan: one parameter block per window for
    /// the upsweep, one for the spine, one per window for the downsweep.
    fn rts_layout(
        &self,
        kernels: &Kernels,
        n: u64,
        windows: &[Chunk],
        io: Option<&Io<'_>>,
    ) -> Result<(RtsLayout, Vec<[u32; PARAMS_WORDS]>)> {
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
            up.push([
                count as u32,
                w.units as u32,
                tiles as u32,
                per_group as u32,
                groups as u32,
                layout.total_groups,
                0,
                0,
                first as u32,
                0,
                0,
                0,
            ]);
            layout.grids.push(workgroup_grid(
                groups,
                self.info().max_workgroups_per_dimension,
            )?);
            layout.bases.push(layout.total_groups);
            layout.groups.push(groups as u32);
            layout.total_groups += groups as u32;
        }
        let mut params = up.clone();
        let mut spine = [0u32; PARAMS_WORDS];
        spine[4] = layout.total_groups;
        params.push(spine);
        for (i, mut p) in up.into_iter().enumerate() {
            if let Some(range) = io.and_then(|io| io.outs[i].as_ref()) {
                p[9] = range.out_base;
            }
            params.push(p);
        }
        Ok((layout, params))
    }

    fn params_uniform(&self, params: &[[u32; PARAMS_WORDS]]) -> Result<ParamSlots> {
        let align = u64::from(self.info().limits.min_uniform_buffer_offset_alignment).max(1);
        let slot = ((PARAMS_WORDS * 4) as u64).next_multiple_of(align);
        let mut bytes = vec![0u8; slot as usize * params.len()];
        for (i, p) in params.iter().enumerate() {
            let at = i * slot as usize;
            bytes[at..at + PARAMS_WORDS * 4].copy_from_slice(bytemuck::cast_slice(p));
        }
        Ok(ParamSlots {
            buffer: self.uniform_constant(&bytes)?,
            slot,
        })
    }
}

/// Workgroups of the reduce-then-scan passes per window.
struct RtsLayout {
    grids: Vec<[u32; 3]>,
    /// Each window's first partial.
    bases: Vec<u32>,
    groups: Vec<u32>,
    total_groups: u32,
}

/// Where a window's results go: a byte range of the output buffer, starting at element
/// `out_base` (compaction writes kept element `p` to `out[p - out_base]`).
struct OutRange {
    offset: u64,
    size: u64,
    out_base: u32,
}

impl OutRange {
    fn entry<'a>(&self, binding: u32, buffer: &'a wgpu::Buffer) -> wgpu::BindGroupEntry<'a> {
        wgpu::BindGroupEntry {
            binding,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset: self.offset,
                size: wgpu::BufferSize::new(self.size),
            }),
        }
    }
}

/// The buffers of one scan.
struct Io<'a> {
    input: &'a wgpu::Buffer,
    /// Elements in the input.
    n: u64,
    windows: &'a [Chunk],
    out: &'a wgpu::Buffer,
    /// The output binding of each window; `None` skips the window's output pass.
    outs: &'a [Option<OutRange>],
}

/// Scratch buffers of a recorded scan.
struct ScanScratch {
    total: Scratch,
    _others: Vec<Scratch>,
}

struct ParamSlots {
    buffer: wgpu::Buffer,
    slot: u64,
}

impl ParamSlots {
    fn entry(&self, binding: u32, i: usize) -> wgpu::BindGroupEntry<'_> {
        wgpu::BindGroupEntry {
            binding,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &self.buffer,
                offset: self.slot * i as u64,
                size: wgpu::BufferSize::new((PARAMS_WORDS * 4) as u64),
            }),
        }
    }
}

fn window_entry<'a>(
    binding: u32,
    buffer: &'a wgpu::Buffer,
    w: &Chunk,
    unit: u64,
) -> wgpu::BindGroupEntry<'a> {
    let (offset, size) = w.byte_range(unit);
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset,
            size: Some(size),
        }),
    }
}

fn whole(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

fn sized(binding: u32, buffer: &wgpu::Buffer, bytes: u64) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: 0,
            size: wgpu::BufferSize::new(bytes),
        }),
    }
}

/// Compaction positions are u32.
fn check_positions(op: &'static str, n: usize) -> Result<()> {
    if n as u64 > u64::from(u32::MAX) {
        return Err(Error::TooLarge {
            what: format!("`{op}` of {n} elements (positions are u32)"),
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
/// faster as many short workgroups than as a few long ones, once the spine keeps up:
/// H100, 2^28 f32, one run: 4096 workgroups 1.1400 ms, 16384 1.1268 / 1.1274, 32768
/// 1.1184 / 1.1136 (torch.cumsum 1.0186). The spines before this one scanned a few
/// partials per step, and there more workgroups were slower (16384: 1.153 ms, of which
/// 52 us were the spine's).
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
    in_unit: u64,
    a_bytes: u64,
    /// Compaction: the scan's total (the kept count) is wanted after the run.
    counts: bool,
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
    in_unit: u64,
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
                  \x20       r = src[u];\n\
                  \x20       MASK\n\
                  \x20   }\n\
                  \x20   return r;\n\
                  }\n\
                  fn store(u: u32, s: vec4<A>) {\n\
                  \x20   if u < params.units {\n\
                  \x20       out[u] = s;\n\
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
            "vec4<T>",
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
             \x20       let v = src[u];\n\
             \x20       r = vec4<u32>(flag(v.x), flag(v.y), flag(v.z), flag(v.w));\n\
             \x20       MASK\n\
             \x20   }}\n\
             \x20   return r;\n\
             }}\n\
             fn store(u: u32, s: vec4<A>) {{\n\
             \x20   if u >= params.units {{\n\
             \x20       return;\n\
             \x20   }}\n\
             \x20   let v = src[u];\n\
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
        let out = if indices { "u32" } else { "T" };
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
            out,
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
        out: &str,
        io: &str,
        gpu_units: u32,
    ) -> Program {
        let wg = pow2_workgroup_size(ctx, 256);
        let subgroups = ctx.has_features(wgpu::Features::SUBGROUP)
            && size_of::<A>() == 4
            && ctx.info().subgroup_max_size <= wg
            && ctx.info().subgroup_min_size >= 1;
        // Workgroup size and vec4 units per invocation, from the H100 at 2^28 f32
        // (docs/PERFORMANCE.md). Reduce-then-scan: 2 units (1.155 ms; 1 unit and 4 units
        // within 1%). The single pass: 256 x 8 units for scans, tiles of 8192 elements
        // (0.95 ms; 512 x 4 and 1024 x 4 the same, 256 x 6 1% slower, 1024 x 8 1.03 ms,
        // 256 x 12 1.84 ms, 256 x 16 1.89 ms, 128 x 8 2.25 ms), 256 x 6 for compaction
        // (whose store reads the input again: 1.108 ms against 1.149 with 8 units). A CPU
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
                ("OUT", out.to_string()),
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
                // counter's round trip before the loads; H100, 2^28, run AI: f32 1.8%,
                // u32 3.6%, compaction 1.5% faster), and by a counter, in the order
                // workgroups start, with the one-at-a-time look-back (by id it was 1.9x
                // slower there).
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
            in_unit: unit_bytes::<T>(),
            a_bytes: size_of::<A>() as u64,
            counts: false,
        }
    }

    fn kernels(&self, ctx: &Ctx, algorithm: ScanAlgorithm) -> Result<Kernels> {
        let source = || render(SCAN_WGSL, &self.vars);
        let chained = match (&self.chained, algorithm) {
            (Some(chained), ScanAlgorithm::SinglePass) => {
                let key = PipelineKey {
                    variant: format!("{}+chained", self.key.variant),
                    ..self.key.clone()
                };
                Some(ctx.kernel_entry(key, "chained", || render(SCAN_WGSL, chained))?)
            }
            _ => None,
        };
        let (spine_wg, spine_v) = self.spine_shape;
        let spine_key = PipelineKey {
            variant: format!("{}+spine{spine_wg}x{spine_v}", self.key.variant),
            workgroup_size: spine_wg,
            ..self.key.clone()
        };
        let spine = ctx.kernel_entry(spine_key, "spine", || render(SCAN_WGSL, &self.spine))?;
        Ok(Kernels {
            upsweep: ctx.kernel_entry(self.key.clone(), "upsweep", source)?,
            spine,
            downsweep: ctx.kernel_entry(self.key.clone(), "downsweep", source)?,
            tile_units: if chained.is_some() {
                self.chained_tile_units
            } else {
                self.tile_units
            },
            chained,
            in_unit: self.in_unit,
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
