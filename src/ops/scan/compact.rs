//! Stream compaction: [`Ctx::compact`], [`Ctx::compact_indices`] and their `_into`
//! forms, a scan of the predicate's flags that writes each kept element (or its index)
//! at its position.

use super::ScanAlgorithm;
use super::kernel::PartitionWrite;
use super::program::{Kernels, Program};
use super::record::{OutRange, ScanParams, unit_bytes, window_elems};
use super::reduce_then_scan::RtsLayout;
use crate::element::GpuElement;
use crate::error::{Error, Limit, Result};
use crate::runtime::context::Ctx;
use crate::runtime::dispatch::{Chunk, chunks, storage_alignment, units_within};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::{GpuVec, LANES};
use crate::runtime::view::View;

impl Ctx {
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
        // first, so each window's output binding can start where its elements go.
        let c = self.count_windows(op, &program, v, out_bytes)?;
        let total = c.total();
        let out = self.zeros::<O>(total as usize)?;
        if total == 0 {
            return Ok(out);
        }
        let outs: Vec<Option<OutRange>> = (0..c.windows.len())
            .map(|i| {
                let (first, end) = c.kept(i);
                self.out_range(&out, first, end)
            })
            .collect();
        let offsets = self.upload(&c.offsets)?;
        let mut work = Work::new(self, op);
        c.record_downsweeps(&mut work, &c.kernels, View::of(v), &offsets, &outs);
        work.submit()?;
        Ok(out)
    }

    /// The first pass of a compaction or partition whose output needs several bindings:
    /// the input cut into windows whose output ranges fit a binding, and the number of
    /// kept elements before each workgroup's range of tiles, read back.
    fn count_windows<T: GpuElement>(
        &self,
        op: &'static str,
        program: &Program,
        v: &GpuVec<T>,
        out_bytes: u64,
    ) -> Result<Counted> {
        // A window's output binding holds at most its elements, plus alignment and
        // padding.
        let in_unit = unit_bytes::<T>();
        let max_binding = self.info().max_binding_bytes;
        let slack = storage_alignment(self) + LANES as u64 * out_bytes;
        let per = units_within(
            self,
            &[in_unit, LANES as u64 * out_bytes],
            max_binding.saturating_sub(slack),
        );
        let windows: Vec<Chunk> = chunks(v.lanes4(), per).collect();
        let src = View::of(v);
        let kernels = program.kernels(
            self,
            ScanAlgorithm::ReduceThenScan,
            &program.layouts(Some(&src), None),
        )?;
        let (layout, params) = self.rts_layout(&kernels, v.len() as u64, &windows, None)?;
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
        Ok(Counted {
            windows,
            kernels,
            layout,
            params,
            offsets,
            n: v.len() as u64,
        })
    }

    /// The binding of elements `first..end` of `out` (from an aligned element before
    /// `first`, to the end of the vec4 unit of `end`), or None for an empty range.
    fn out_range<O: GpuElement>(&self, out: &GpuVec<O>, first: u64, end: u64) -> Option<OutRange> {
        let out_bytes = size_of::<O>() as u64;
        let align_elems = (storage_alignment(self) / out_bytes).max(1);
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
        // Every window writes anywhere in the whole of `out`. A partition's downsweep
        // reads the total, which only reduce-then-scan has before it.
        let algorithm = if program.partitions() {
            ScanAlgorithm::ReduceThenScan
        } else {
            ScanAlgorithm::Auto
        };
        let out = View::of(out);
        self.record_windows::<T, u32>(work, program, algorithm, v, out, |_| OutRange {
            res: out.whole(),
            out_base: 0,
        })
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
        let program = Program::compact::<T>(self, "compact_into", predicate, false);
        self.compact_into_impl("compact_into", program, v, out, count)
    }

    /// [`Ctx::compact_indices`] without waiting; see [`Ctx::compact_into`].
    pub fn compact_indices_into<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        predicate: &str,
        out: &mut GpuVec<u32>,
        count: &mut GpuVec<u32>,
    ) -> Result<()> {
        let program = Program::compact::<T>(self, "compact_indices_into", predicate, true);
        self.compact_into_impl("compact_indices_into", program, v, out, count)
    }

    /// `v` partitioned by the WGSL predicate `predicate` (an expression in `x` of the
    /// element type): the elements for which it holds, in their order, then all the
    /// others, in their order (a stable partition: Thrust's `stable_partition_copy` into
    /// one vector, CUB's `DevicePartition::If` with the rejected part in order). Returns
    /// the vector, of `v`'s length, and the number of kept elements. Blocks until the
    /// count is known.
    ///
    /// Reduce-then-scan: one pass counts, one writes every element (the rejected ones
    /// need the total before they can be placed), so it reads `v` twice where
    /// [`Ctx::compact`] may read it once. Past one storage binding the counts are read
    /// back first, as `compact` does.
    ///
    /// # Errors
    /// As [`Ctx::compact`].
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[0.9f32, 0.1, 0.7, 0.3, 0.6])?;
    /// let (parts, kept) = ctx.partition(&v, "x > 0.5")?;
    /// assert_eq!(kept, 3);
    /// assert_eq!(parts.to_vec()?, vec![0.9, 0.7, 0.6, 0.1, 0.3]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn partition<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        predicate: &str,
    ) -> Result<(GpuVec<T>, usize)> {
        let op = "partition";
        self.check_owned(op, &[&v.ctx])?;
        v.require_host_len(op)?;
        let both = Program::partition::<T>(self, op, predicate, PartitionWrite::Both)?;
        check_positions(op, v.len())?;
        let src = View::of(v);
        let rts = ScanAlgorithm::ReduceThenScan;
        if v.is_empty() {
            both.kernels(self, rts, &both.layouts(Some(&src), None))?;
            return Ok((self.zeros::<T>(0)?, 0));
        }
        let out_bytes = size_of::<T>() as u64;
        let out = self.zeros::<T>(v.len())?;
        if out.padded_bytes() <= self.info().max_binding_bytes {
            let mut work = Work::new(self, op);
            let total = self.compact_record(&mut work, &both, v, &out)?;
            let count = self.submit_read_back::<u32>(work, (&total, 0), 1)?;
            let kept = count.wait()?[0] as usize;
            return Ok((out, kept));
        }
        // Several bindings: the kept and the rejected elements of a window go to two
        // ranges of the output, each written by a downsweep of its own.
        let kept = Program::partition::<T>(self, op, predicate, PartitionWrite::Kept)?;
        let rest = Program::partition::<T>(self, op, predicate, PartitionWrite::Rest)?;
        let c = self.count_windows(op, &kept, v, out_bytes)?;
        let rest_kernels = rest.kernels(self, rts, &rest.layouts(Some(&src), None))?;
        let ranges = |part: fn(&Counted, usize) -> (u64, u64)| -> Vec<Option<OutRange>> {
            (0..c.windows.len())
                .map(|i| {
                    let (first, end) = part(&c, i);
                    self.out_range(&out, first, end)
                })
                .collect()
        };
        let (kept_outs, rest_outs) = (ranges(Counted::kept), ranges(Counted::rest));
        let offsets = self.upload(&c.offsets)?;
        let mut work = Work::new(self, op);
        c.record_downsweeps(&mut work, &c.kernels, src, &offsets, &kept_outs);
        c.record_downsweeps(&mut work, &rest_kernels, src, &offsets, &rest_outs);
        work.submit()?;
        Ok((out, c.total() as usize))
    }

    /// [`Ctx::partition`] without waiting: the partition of `v` goes to the front of
    /// `out` (at least as long as `v`, within one storage binding), the number of kept
    /// elements to `count[0]`; the rest of `out` is left as it was.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[4i32, -9, 2, -7, 5])?;
    /// let mut out = ctx.zeros::<i32>(5)?;
    /// let mut count = ctx.zeros::<u32>(1)?;
    /// ctx.partition_into(&v, "x < 0", &mut out, &mut count)?;
    /// assert_eq!(count.to_vec()?, vec![2]);
    /// assert_eq!(out.to_vec()?, vec![-9, -7, 4, 2, 5]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::compact_into`].
    pub fn partition_into<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        predicate: &str,
        out: &mut GpuVec<T>,
        count: &mut GpuVec<u32>,
    ) -> Result<()> {
        let op = "partition_into";
        let program = Program::partition::<T>(self, op, predicate, PartitionWrite::Both);
        self.compact_into_impl(op, program, v, out, count)
    }

    /// The elements of `v` whose flag is not zero, in their order (CUB's
    /// `DeviceSelect::Flagged`, NumPy's `v[flags != 0]`). Blocks until the count is
    /// known.
    ///
    /// The kept indices are compacted from the flags ([`Ctx::compact_indices`]), then
    /// the elements gathered by them ([`Ctx::gather`]): `v` must fit one storage
    /// binding (the flags may not), and the indices cost one more write and read of the
    /// kept count than a fused selection would.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `v` and `flags` have one length;
    /// [`Error::TooLarge`] if `v` does not fit one storage binding; as
    /// [`Ctx::compact`] otherwise.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1.5f32, 2.5, 3.5, 4.5])?;
    /// let flags = ctx.upload(&[0u32, 1, 0, 7])?;
    /// assert_eq!(ctx.select_flagged(&v, &flags)?.to_vec()?, vec![2.5, 4.5]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn select_flagged<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        flags: &GpuVec<u32>,
    ) -> Result<GpuVec<T>> {
        let op = "select_flagged";
        self.check_owned(op, &[&v.ctx, &flags.ctx])?;
        crate::runtime::context::check_len(op, ("v", v.len()), ("flags", flags.len()))?;
        self.freely_indexed_len(op, "v", v)?;
        let indices = self.compact_indices(flags, "x != 0u")?;
        self.gather(v, &indices)
    }

    /// The `_into` forms: `program` is the compaction's or partition's (or why it could
    /// not be built).
    fn compact_into_impl<T: GpuElement, O: GpuElement>(
        &self,
        op: &'static str,
        program: Result<Program>,
        v: &GpuVec<T>,
        out: &mut GpuVec<O>,
        count: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.check_owned(op, &[&v.ctx, &out.ctx, &count.ctx])?;
        for len_on_host in [v.require_host_len(op), out.require_host_len(op)] {
            len_on_host?;
        }
        let program = program?;
        check_positions(op, v.len())?;
        if out.len() < v.len() {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "`out` has {} elements, fewer than the {} of `v`: every element may be written",
                    out.len(),
                    v.len()
                ),
            });
        }
        if out.padded_bytes() > self.info().max_binding_bytes {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "`out` ({} bytes) is larger than one storage binding ({} bytes); use `{}`, \
                     which splits the output",
                    out.padded_bytes(),
                    self.info().max_binding_bytes,
                    op.strip_suffix("_into").unwrap_or(op)
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
}

/// [`Ctx::count_windows`]'s windows, kernels and counts.
struct Counted {
    windows: Vec<Chunk>,
    kernels: Kernels,
    layout: RtsLayout,
    params: Vec<ScanParams>,
    /// The kept elements before each workgroup's tiles; the last is the total.
    offsets: Vec<u32>,
    /// Elements in the input.
    n: u64,
}

impl Counted {
    fn total(&self) -> u64 {
        u64::from(*self.offsets.last().unwrap_or(&0))
    }

    /// The kept elements of window `i`: their positions in a compaction.
    fn kept(&self, i: usize) -> (u64, u64) {
        let base = self.layout.bases[i] as usize;
        let first = u64::from(self.offsets[base]);
        let end = u64::from(self.offsets[base + self.layout.groups[i] as usize]);
        (first, end)
    }

    /// The rejected elements of window `i`: their positions in a partition, after all
    /// kept ones.
    fn rest(&self, i: usize) -> (u64, u64) {
        let (kept_first, kept_end) = self.kept(i);
        let (first_elem, count) = window_elems(&self.windows[i], self.n);
        let total = self.total();
        (
            total + first_elem - kept_first,
            total + first_elem + count - kept_end,
        )
    }

    /// Adds the downsweep of `kernels` over every window with an output range.
    fn record_downsweeps(
        &self,
        work: &mut Work,
        kernels: &Kernels,
        src: View<'_>,
        offsets: &GpuVec<u32>,
        outs: &[Option<OutRange>],
    ) {
        let windows = self.windows.len();
        for (i, w) in self.windows.iter().enumerate() {
            let Some(range) = &outs[i] else {
                continue;
            };
            let mut p = self.params[windows + 1 + i];
            p.out_base = range.out_base;
            let block = work.params(&p);
            work.dispatch(&kernels.downsweep, self.layout.grids[i])
                .bind(0, block)
                .bind(1, src.window(w))
                .bind(2, range.res.clone())
                .bind(4, Res::whole(&offsets.buffer));
        }
    }
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
