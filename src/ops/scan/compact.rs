//! Stream compaction: [`Ctx::compact`], [`Ctx::compact_indices`] and their `_into`
//! forms, a scan of the predicate's flags that writes each kept element (or its index)
//! at its position.

use super::ScanAlgorithm;
use super::program::Program;
use super::record::{OutRange, unit_bytes};
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
