//! Segmented and per-axis reductions: [`Ctx::segmented_reduce`], [`Ctx::reduce_rows`],
//! [`Ctx::reduce_columns`] and their `_into` forms.
//!
//! Segmented reductions and row reductions are one kernel (`wgsl/segmented.wgsl`): the
//! values are split evenly across workgroups whatever the segment lengths. Each
//! workgroup walks a fixed range of values in tiles and knows the next segment boundary
//! (from the offsets; rows: arithmetically, from the pitch). Tiles before it are folded
//! as a reduction folds them. A tile with boundaries has its segments' heads marked in
//! workgroup memory by the invocations, one segment each, and then each invocation walks
//! its values: segments inside it are written at once, segments across invocations are
//! joined by a segmented scan of the tile, and a segment that spans ranges leaves one
//! partial per range, which a second small pass combines in range order. So one huge
//! segment costs what a reduction costs, and many short ones a scan per tile more.
//!
//! Segments read from offsets that are short on average (at most 1024 values), where
//! the adapter has subgroups, take a kernel of their own first (`wgsl/segmented_short.wgsl`,
//! `short.rs`): a few invocations of one subgroup per segment read its vec4 units and
//! meet by shuffles, with nothing to mark or scan. A segment too long for it (more than
//! 32 units per invocation) makes it hand the whole call to the segmented kernel, which
//! is dispatched indirectly after it (zero workgroups otherwise), so each call's values
//! come from one kernel, chosen by the lengths alone.
//! Column reductions (`wgsl/segmented_columns.wgsl`) read blocks
//! of consecutive columns a row at a time (a vec4 per invocation where rows start at
//! whole units) and, for tall grids, split the rows across workgroups and combine the
//! partials in a second pass.
//!
//! Every [`Reduce`] operator works, with `reduce_with`'s operator code (custom
//! operators must be associative and commutative). No float atomics: the order of
//! combination depends only on the adapter and the lengths, so float results repeat
//! bit for bit.
//!
//! Accuracy of [`Reduce::Sum`] over f32: each value of a segment of `m` values passes
//! through at most `V + 2 log2(WG) + m / T + 42 + m / (R * WG)` additions, with `V`
//! values per invocation, `WG` invocations, tiles of `T` values and workgroup ranges of
//! `R` values (8, 256, 2048 and at least 2048 on GPUs; 4, 64, 256 on CPU adapters), so
//! the error is below that many times `2^-24 * sum |x_i|`: about 560 times for a
//! segment of a million values on a GPU. Rows that take the short-rows kernel (with
//! subgroups: rows of at most `32 S` vec4 units or elements, `S` the subgroup size, or
//! grids of 8192 rows or more): at most `width / (4 G L) + 9 + log2(G)`, with `G`
//! invocations per row (at most `S`) reading `L` values at once (4 where rows start at
//! whole vec4 units, else 1). Segments the short-segments kernel takes: at most
//! `32 / 4 + 6 + log2(G)` (at most 32 vec4 units per invocation, four at a time). Columns: at most `height / (4 P) + P + 8 +`
//! the row blocks (at most `64 P`), with `P` rows read at once (4, or 16 for narrow
//! grids, on GPUs; 4 on CPU adapters).

mod columns;
mod grid;
mod kernel;
mod rows;
mod short;
pub(crate) mod tuning;

use kernel::{SegmentLayout, SegmentedKernel};

use bytemuck::{Pod, Zeroable};

use crate::element::GpuElement;
use crate::error::{Error, Limit, Result};
use crate::ops::grid2d::Grid2D;
use crate::ops::reduce::{Reduce, Spec};
use crate::runtime::context::{Ctx, Info, check_len};
use crate::runtime::dispatch::{
    chunks, gcd, lcm, pow2_workgroup_size_within, storage_alignment, units_per_window,
    workgroup_grid,
};
use crate::runtime::record::{Grid, Res, Work};
use crate::runtime::vec::{GpuVec, LANES};
use crate::runtime::view::View;
use tuning::SegmentedTuning;

/// Workgroup memory of `tiles_main` for a shape: the heads (a word per value and one of
/// padding every 32), the head masks, the scan's keys and values, and the shared bounds
/// and word.
fn tile_storage_bytes(wg: u32, v: u32, accumulator_bytes: u64) -> u64 {
    let tile = u64::from(wg * v);
    4 * (tile + tile / 32) + u64::from(wg) * (8 + accumulator_bytes) + 16 + 4
}

/// `GpSegmentedParams` in `wgsl/segmented.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct SegmentedParams {
    n: u32,
    segments: u32,
    range: u32,
    ranges: u32,
    first: u32,
    groups: u32,
    width: u32,
    pitch: u32,
    opaque_zero: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

/// Where the segments are.
#[derive(Clone, Copy)]
enum Bounds<'a> {
    /// Segment s is `offsets[s]..offsets[s + 1]`.
    Offsets(&'a GpuVec<u32>),
    /// Segment s is `s * pitch..s * pitch + width` (the rows of a grid).
    Rows { width: u32, pitch: u32 },
}

/// Which kernel reduces segments read from offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// The short kernel where the segments are short on average (at most
    /// [`short::SHORT_MEAN`] values) and it applies, else the segmented kernel.
    Auto,
    /// The segmented kernel alone.
    Tiles,
    /// The short kernel (handing the call to the segmented kernel if a segment is too
    /// long for it). Asked for only by `segmented_path_into` (feature `internals`).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    Short,
}

impl Bounds<'_> {
    fn layout(&self) -> SegmentLayout {
        match self {
            Bounds::Offsets(_) => SegmentLayout::Offsets,
            Bounds::Rows { .. } => SegmentLayout::Rows,
        }
    }
}

impl Ctx {
    /// One reduction per segment: segment `s` is `values[offsets[s]..offsets[s + 1]]`,
    /// so `offsets` holds `segments + 1` ascending entries and the result has
    /// `segments` elements. An empty segment gets the operator's identity (0 for sums,
    /// 1 for products, the greatest value for `Min`, the least for `Max`, the custom
    /// identity); values before `offsets[0]` or after the last offset belong to no
    /// segment. Every [`Reduce`] operator works; see the [module docs](self) for the
    /// order of combination and the accuracy.
    ///
    /// The values are split evenly across the GPU whatever the lengths: one segment of
    /// all values, or long segments of any lengths, cost about what
    /// [`Ctx::reduce_with`] costs. Where the adapter has subgroups, segments of at most
    /// 1024 values on average take a kernel of their own (a few invocations per
    /// segment), at about 0.9 of a reduction's bandwidth for millions of segments of 16
    /// values; a segment of more than 4 to 16 times the mean length among them (never
    /// fewer than 128 values) sends the call to the general kernel after that one, at
    /// the cost of both
    /// (docs/PERFORMANCE.md).
    ///
    /// Offsets that are not ascending or point past `values` give unspecified values
    /// (for any segment, not only theirs); no call reads or writes outside the vectors.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty `offsets` (it needs `segments + 1`
    /// entries; one entry is zero segments) and for a custom operator that is not one
    /// WGSL expression; [`Error::Compile`] for one that is not valid WGSL of `T`;
    /// [`Error::Unsupported`] for [`Reduce::SumWide`] without `SHADER_F64` or a type the
    /// adapter lacks; [`Error::TooLarge`] when `offsets` or the result does not fit one
    /// storage binding ([`Info::max_binding_bytes`](crate::Info::max_binding_bytes);
    /// `values` may be larger) or `values` has `2^32 - 2^20` elements or more.
    ///
    /// ```
    /// use gpuprim::Reduce;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let values = ctx.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    /// let offsets = ctx.upload(&[0u32, 2, 2, 6])?; // [1 2], [], [3 4 5 6]
    /// let sums = ctx.segmented_reduce(&values, &offsets, Reduce::Sum)?;
    /// assert_eq!(sums.to_vec()?, vec![3.0, 0.0, 18.0]);
    /// let maxima = ctx.segmented_reduce(&values, &offsets, Reduce::Max)?;
    /// assert_eq!(maxima.to_vec()?, vec![2.0, f32::NEG_INFINITY, 6.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn segmented_reduce<T: GpuElement>(
        &self,
        values: &GpuVec<T>,
        offsets: &GpuVec<u32>,
        op: Reduce<T>,
    ) -> Result<GpuVec<T>> {
        let segments = segments_of("segmented_reduce", offsets)?;
        let mut out = self.zeros::<T>(segments)?;
        self.segmented_into(
            "segmented_reduce",
            values,
            offsets,
            &op,
            &mut out,
            Path::Auto,
        )?;
        Ok(out)
    }

    /// [`Ctx::segmented_reduce`] into `out`, which must have `offsets.len() - 1`
    /// elements, without waiting.
    ///
    /// # Errors
    /// As [`Ctx::segmented_reduce`], and [`Error::LengthMismatch`] for an `out` of
    /// another length.
    ///
    /// ```
    /// use gpuprim::Reduce;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let values = ctx.upload(&[4u32, 9, 1, 7, 3])?;
    /// let offsets = ctx.upload(&[0u32, 3, 5])?;
    /// let mut out = ctx.zeros::<u32>(2)?;
    /// ctx.segmented_reduce_into(&values, &offsets, Reduce::Min, &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![1, 3]);
    /// ctx.segmented_reduce_into(&values, &offsets, Reduce::custom("a ^ b", 0u32), &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![4 ^ 9 ^ 1, 7 ^ 3]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn segmented_reduce_into<T: GpuElement>(
        &self,
        values: &GpuVec<T>,
        offsets: &GpuVec<u32>,
        op: Reduce<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        self.segmented_into(
            "segmented_reduce_into",
            values,
            offsets,
            &op,
            out,
            Path::Auto,
        )
    }

    /// [`Ctx::segmented_reduce_into`] by the segmented kernel alone (`short: false`) or
    /// by the kernel for short segments (`short: true`, which hands the call to the
    /// segmented kernel if a segment is too long for it), whatever the automatic choice
    /// would be. For tests and tuning (`bandwidth`'s `segmented_paths` section).
    ///
    /// # Errors
    /// As [`Ctx::segmented_reduce_into`]; [`Error::InvalidArgument`] for `short` where
    /// that kernel does not apply (no subgroups, an accumulator shuffles cannot move,
    /// values past one storage binding).
    #[cfg(feature = "internals")]
    pub fn segmented_path_into<T: GpuElement>(
        &self,
        values: &GpuVec<T>,
        offsets: &GpuVec<u32>,
        op: Reduce<T>,
        short: bool,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        let path = if short { Path::Short } else { Path::Tiles };
        self.segmented_into("segmented_reduce_into", values, offsets, &op, out, path)
    }

    /// One reduction per row of `grid`: `grid.height()` values, row `y` being the
    /// `width` elements from `y * pitch` (the elements between `width` and `pitch` are
    /// left out). Where the adapter has subgroups, short rows (or the rows of a grid of
    /// 8192 rows or more) take a few invocations of one subgroup each; otherwise the rows
    /// are equal segments of a [`Ctx::segmented_reduce`], with their bounds computed
    /// instead of read, and the grid's vector may be larger than one storage binding.
    /// Every [`Reduce`] operator works.
    ///
    /// # Errors
    /// As [`Ctx::segmented_reduce`] for the operator and sizes.
    ///
    /// ```
    /// use gpuprim::{Grid2D, Reduce};
    /// let ctx = gpuprim::Ctx::new()?;
    /// // 3 x 2 in a pitch of 4: rows [1 2 3] and [5 6 7]; 9 and 8 are padding
    /// let v = ctx.upload(&[1i32, 2, 3, 9, 5, 6, 7])?;
    /// let grid = Grid2D::with_pitch(&v, 3, 2, 4)?;
    /// assert_eq!(ctx.reduce_rows(&grid, Reduce::Sum)?.to_vec()?, vec![6, 18]);
    /// assert_eq!(ctx.reduce_rows(&grid, Reduce::Max)?.to_vec()?, vec![3, 7]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn reduce_rows<T: GpuElement>(
        &self,
        grid: &Grid2D<'_, T>,
        op: Reduce<T>,
    ) -> Result<GpuVec<T>> {
        let mut out = self.zeros::<T>(grid.height() as usize)?;
        self.reduce_rows_into(grid, op, &mut out)?;
        Ok(out)
    }

    /// [`Ctx::reduce_rows`] into `out`, which must have `grid.height()` elements,
    /// without waiting.
    ///
    /// ```
    /// use gpuprim::{Grid2D, Reduce};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    /// let mut out = ctx.zeros::<f32>(3)?;
    /// ctx.reduce_rows_into(&Grid2D::new(&v, 2, 3)?, Reduce::Product, &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![2.0, 12.0, 30.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn reduce_rows_into<T: GpuElement>(
        &self,
        grid: &Grid2D<'_, T>,
        op: Reduce<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        let name = "reduce_rows_into";
        let values = grid.vec();
        self.check_owned(name, &[&values.ctx, &out.ctx])?;
        out.require_host_len(name)?;
        check_len(
            name,
            ("out", out.len()),
            ("grid rows", grid.height() as usize),
        )?;
        // The grid's last element; anything after it belongs to no row.
        let used = grid.span();
        let bounds = Bounds::Rows {
            width: grid.width(),
            pitch: grid.pitch(),
        };
        let spec = Spec::new(self, &op)?;
        let mut work = Work::new(self, name);
        if self.record_short_rows(&mut work, grid, &spec, out)? {
            return work.submit();
        }
        self.record_segmented(
            &mut work,
            (values, used as usize),
            (bounds, grid.height() as usize),
            &spec,
            out,
            Path::Tiles,
        )?;
        work.submit()
    }

    /// The checks of the offsets forms, then the recording.
    fn segmented_into<T: GpuElement>(
        &self,
        name: &'static str,
        values: &GpuVec<T>,
        offsets: &GpuVec<u32>,
        op: &Reduce<T>,
        out: &mut GpuVec<T>,
        path: Path,
    ) -> Result<()> {
        self.check_owned(name, &[&values.ctx, &offsets.ctx, &out.ctx])?;
        for on_host in [values.require_host_len(name), out.require_host_len(name)] {
            on_host?;
        }
        let segments = segments_of(name, offsets)?;
        check_len(
            name,
            ("out", out.len()),
            ("segments (offsets.len() - 1)", segments),
        )?;
        check_binding(self, name, "offsets", offsets.len() as u64 * 4)?;
        let spec = Spec::new(self, op)?;
        let mut work = Work::new(self, name);
        self.record_segmented(
            &mut work,
            (values, values.len()),
            (Bounds::Offsets(offsets), segments),
            &spec,
            out,
            path,
        )?;
        work.submit()
    }

    /// Records both passes: the tiles over the first `n` values, window by window, then
    /// the fix-up.
    fn record_segmented<T: GpuElement>(
        &self,
        work: &mut Work,
        (values, n): (&GpuVec<T>, usize),
        (bounds, segments): (Bounds<'_>, usize),
        spec: &Spec,
        out: &GpuVec<T>,
        path: Path,
    ) -> Result<()> {
        let name = work.op();
        self.check_element::<T>()?;
        if segments == 0 {
            return Ok(());
        }
        check_binding(self, name, "the result", (segments * size_of::<T>()) as u64)?;
        let n = n as u64;
        if n >= u64::from(u32::MAX) - (1 << 20) {
            return Err(Error::TooLarge {
                what: format!("`{name}` (its element indices are u32)"),
                kind: Limit::Elements,
                requested: n,
                limit: u64::from(u32::MAX) - (1 << 20) - 1,
            });
        }
        let cap = SegmentedTuning::of(self.info()).ranges;
        // The adapter's shape, or a smaller one where a binding window cannot hold its
        // tile (a context with small bindings): the last one's error if none fits.
        let mut chosen = None;
        for (wg, v) in tile_shapes(self.info(), spec) {
            let planned = plan_ranges(self, n, u64::from(wg * v), size_of::<T>() as u64, cap);
            let fits = planned.is_ok();
            chosen = Some((wg, v, planned));
            if fits {
                break;
            }
        }
        let (wg, v, plan) = chosen.expect("at least one shape");
        let plan = plan?;

        let view = View::of(values);
        let subgroups = shuffles_apply(self.info(), spec, wg);
        let config = SegmentedKernel {
            element: T::WGSL,
            enable: T::ENABLE,
            spec: spec.clone(),
            segments: bounds.layout(),
            values_vec4: view.vec4(),
            subgroup_scan: subgroups,
            workgroup_size: wg,
            values_per_invocation: v,
        };
        let tiles = self.pipeline_for(&config, "tiles_main")?;
        let fixup = self.pipeline_for(&config, "fixup_main")?;

        // Bindings of 16-bit accumulators are whole words.
        let partial_bytes = (spec.accumulator_bytes() * plan.ranges.max(1)).next_multiple_of(4);
        let usage = wgpu::BufferUsages::STORAGE;
        let first = work.keep(self.scratch("segment partials", partial_bytes, usage)?);
        let last = work.keep(self.scratch("segment partials", partial_bytes, usage)?);
        let (width, pitch) = match bounds {
            Bounds::Rows { width, pitch } => (width, pitch),
            Bounds::Offsets(_) => (0, 1),
        };
        let base = SegmentedParams {
            n: n as u32,
            segments: segments as u32,
            range: plan.range as u32,
            ranges: plan.ranges as u32,
            width,
            pitch,
            ..SegmentedParams::default()
        };
        let out_binding = View::of(out).exact();
        let offsets_binding = match bounds {
            Bounds::Offsets(o) => Some(View::of(o).exact()),
            Bounds::Rows { .. } => None,
        };
        let max_per_dim = self.info().max_workgroups_per_dimension;
        let units = n.div_ceil(LANES as u64);
        let windows: Vec<_> = chunks(units, plan.window_units).collect();
        // An invocation per range (the ranges past the grid's size stride), at least one
        // workgroup for the empty segments after the values.
        let fixup_groups = plan
            .ranges
            .div_ceil(u64::from(wg))
            .clamp(1, u64::from(max_per_dim).saturating_pow(3));
        let fixup_grid = workgroup_grid(fixup_groups, max_per_dim)?;
        // Short segments first, by their own kernel; the passes below then run only if
        // it hands the call over (their grids come from its indirect arguments).
        let short_fits =
            || windows.len() == 1 && self.short_segments_apply(spec, n, size_of::<T>() as u64);
        let short = match (bounds, path) {
            (Bounds::Rows { .. }, _) | (_, Path::Tiles) => false,
            (Bounds::Offsets(_), Path::Auto) => {
                n <= short::SHORT_MEAN * segments as u64 && short_fits()
            }
            (Bounds::Offsets(_), Path::Short) => {
                if !short_fits() {
                    return Err(Error::InvalidArgument {
                        op: name,
                        message: format!(
                            "the kernel for short segments needs subgroups, a 32-bit \
                             accumulator (this operator's is {}) and values in one storage \
                             binding ({n} values of {} bytes, {} bytes a binding)",
                            spec.accumulator,
                            size_of::<T>(),
                            self.info().max_binding_bytes
                        ),
                    });
                }
                true
            }
        };
        let indirect = match (short, &offsets_binding) {
            (true, Some(offsets)) => Some(self.record_short_segments(
                work,
                &view,
                offsets.clone(),
                (n, segments as u64),
                spec,
                out_binding.clone(),
                short::Handover {
                    tiles: workgroup_grid(n.div_ceil(plan.range), max_per_dim)?,
                    fixup: fixup_grid,
                },
            )?),
            _ => None,
        };
        let grid_of = |direct: [u32; 3], at: u64| match &indirect {
            Some(args) => Grid::Indirect(args.clone(), at),
            None => Grid::Direct(direct),
        };
        for w in &windows {
            let first_value = w.offset_units * LANES as u64;
            let groups = (n - first_value)
                .min(w.units * LANES as u64)
                .div_ceil(plan.range);
            let block = work.params(&SegmentedParams {
                first: first_value as u32,
                groups: groups as u32,
                ..base
            });
            let grid = grid_of(workgroup_grid(groups, max_per_dim)?, 0);
            let d = work.dispatch_grid(&tiles, grid);
            d.bind(0, block)
                .bind(1, Res::range(&first, 0, partial_bytes))
                .bind(2, view.window(w))
                .bind(3, Res::range(&last, 0, partial_bytes))
                .bind(4, out_binding.clone());
            if let Some(o) = &offsets_binding {
                d.bind(5, o.clone());
            }
        }
        let block = work.params(&SegmentedParams {
            groups: fixup_groups as u32,
            ..base
        });
        let d = work.dispatch_grid(&fixup, grid_of(fixup_grid, 12));
        d.bind(0, block)
            .bind(1, Res::range(&first, 0, partial_bytes))
            .bind(3, Res::range(&last, 0, partial_bytes))
            .bind(4, out_binding);
        if let Some(o) = &offsets_binding {
            d.bind(5, o.clone());
        }
        Ok(())
    }
}

/// The tile shapes (invocations, values per invocation) `record_segmented` tries in
/// order: the adapter's ([`SegmentedTuning::tile_shapes`]), then smaller ones, each within the workgroup memory the device
/// grants (the smallest, 64 x 4, needs at most 2.4 KiB, under WebGPU's least 16 KiB).
fn tile_shapes(info: &Info, spec: &Spec) -> Vec<(u32, u32)> {
    let shapes = SegmentedTuning::of(info).tile_shapes;
    let storage = u64::from(info.limits.max_compute_workgroup_storage_size);
    shapes
        .iter()
        .map(|&(wg, v)| (pow2_workgroup_size_within(&info.limits, wg), v))
        .filter(|&(wg, v)| {
            tile_storage_bytes(wg, v, spec.accumulator_bytes()) <= storage || wg * v <= 256
        })
        .collect()
}

/// Whether the segmented kernels can combine `spec`'s accumulators by subgroup shuffles
/// in workgroups of `wg`: subgroups that fit, and an accumulator of 32-bit scalars or
/// their vectors (what shuffles move).
fn shuffles_apply(info: &Info, spec: &Spec, wg: u32) -> bool {
    info.subgroups_within(wg) && matches!(spec.accumulator, "f32" | "i32" | "u32" | "vec2<f32>")
}

/// `offsets.len() - 1`, or `Err(InvalidArgument)` for an empty `offsets`.
fn segments_of(name: &'static str, offsets: &GpuVec<u32>) -> Result<usize> {
    offsets.require_host_len(name)?;
    offsets
        .len()
        .checked_sub(1)
        .ok_or_else(|| Error::InvalidArgument {
            op: name,
            message: "`offsets` has 0 entries; it needs segments + 1 (segment s is \
                      values[offsets[s]..offsets[s + 1]]), so pass [0] for no segments"
                .into(),
        })
}

/// `Err(TooLarge)` unless `bytes` fit one storage binding.
fn check_binding(ctx: &Ctx, name: &'static str, what: &str, bytes: u64) -> Result<()> {
    let limit = ctx.info().max_binding_bytes;
    if bytes > limit {
        return Err(Error::TooLarge {
            what: format!("{what} of `{name}`, bound whole,"),
            kind: Limit::BindingBytes,
            requested: bytes,
            limit,
        });
    }
    Ok(())
}

/// How the values are cut: workgroup ranges of `range` values, binding windows of
/// `window_units` vec4 units (a whole number of ranges each).
#[derive(Debug, Clone, Copy)]
struct RangePlan {
    range: u64,
    ranges: u64,
    window_units: u64,
}

/// Ranges of whole tiles, at most `cap` of them unless a binding window holds fewer
/// values than that needs; windows of whole ranges, aligned for the device.
fn plan_ranges(ctx: &Ctx, n: u64, tile: u64, element_bytes: u64, cap: u64) -> Result<RangePlan> {
    let unit_bytes = LANES as u64 * element_bytes;
    let align = storage_alignment(ctx);
    // Units a window start must be a multiple of.
    let step = align / gcd(align, unit_bytes);
    let per_window = units_per_window(ctx, &[unit_bytes]);
    let tile_units = tile / LANES as u64;
    let mut range_units = n.div_ceil(cap).next_multiple_of(tile).max(tile) / LANES as u64;
    if lcm(step, range_units) > per_window {
        // Small bindings: as many whole tiles as a window holds.
        let q = lcm(step, tile_units);
        range_units = per_window / q * q;
        if range_units == 0 {
            return Err(Error::TooLarge {
                what: format!("a tile of {tile} values of {element_bytes} bytes"),
                kind: Limit::BindingBytes,
                requested: tile * element_bytes,
                limit: ctx.info().max_binding_bytes,
            });
        }
    }
    let q = lcm(step, range_units);
    let range = range_units * LANES as u64;
    Ok(RangePlan {
        range,
        ranges: n.div_ceil(range),
        window_units: per_window / q * q,
    })
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`): every element type and operator text, on lavapipe (subgroups of 4,
/// 8 and 16), GL (no subgroups), GPUs (subgroups of 32 and 64, large limits) and at
/// WebGPU's default limits (with subgroups of 8, 32 or 4..64, and without), each kernel
/// in every shape and layout its policy picks there; and the parameter structs.
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use half::f16;
    let profiles = catalog::profiles();
    catalog::element::<f32>(
        c,
        &profiles,
        &[
            Reduce::Sum,
            Reduce::SumCompensated,
            Reduce::SumWide,
            Reduce::Product,
            Reduce::Min,
            Reduce::Max,
            Reduce::custom("max(abs(a), abs(b))", 0.0),
        ],
    );
    catalog::element::<f16>(
        c,
        &profiles,
        &[
            Reduce::Sum,
            Reduce::SumWide,
            Reduce::Product,
            Reduce::Min,
            Reduce::Max,
            Reduce::custom("max(abs(a), abs(b))", f16::ZERO),
        ],
    );
    catalog::element::<f64>(
        c,
        &profiles,
        &[Reduce::Sum, Reduce::Product, Reduce::Min, Reduce::Max],
    );
    catalog::element::<i32>(c, &profiles, &catalog::integer_ops());
    catalog::element::<u32>(c, &profiles, &catalog::integer_ops());
    catalog::layouts(c);
}

#[cfg(test)]
mod catalog {
    use super::columns::catalog_columns;
    use super::rows::catalog_short_rows;
    use super::short::catalog_short;
    use super::{SegmentLayout, SegmentedKernel, SegmentedParams, shuffles_apply, tile_shapes};
    use crate::element::GpuElement;
    use crate::ops::catalog::{Catalog, layout};
    use crate::ops::reduce::{Reduce, Spec};
    use crate::runtime::cache::KernelSource;
    use crate::runtime::context::Info;

    /// Whether a kernel of `wg` invocations and `storage` bytes of workgroup memory
    /// needs more than WebGPU's default limits grant, or f64.
    pub(super) fn native(wg: u32, storage: u64, spec: &Spec, element: &str) -> bool {
        let webgpu = wgpu::Limits::default();
        wg > webgpu.max_compute_invocations_per_workgroup
            || storage > u64::from(webgpu.max_compute_workgroup_storage_size)
            || element == "f64"
            || spec.accumulator == "f64"
    }

    /// Adds `config`, natively or at WebGPU's limits.
    pub(super) fn add<K: KernelSource>(c: &mut Catalog, config: &K, native: bool) {
        c.add_with(config, native);
    }

    /// An adapter's description: subgroups of `(min, max)` sizes or none; f16 always,
    /// f64 past WebGPU's workgroup memory (where the native adapters have it).
    fn profile(
        device_type: wgpu::DeviceType,
        subgroups: Option<(u32, u32)>,
        limits: wgpu::Limits,
    ) -> Info {
        let mut features = wgpu::Features::SHADER_F16;
        if limits.max_compute_workgroup_storage_size > 16384 {
            features |= wgpu::Features::SHADER_F64;
        }
        if subgroups.is_some() {
            features |= wgpu::Features::SUBGROUP;
        }
        let (subgroup_min_size, subgroup_max_size) = subgroups.unwrap_or((0, 0));
        Info {
            name: String::new(),
            backend: wgpu::Backend::Noop,
            device_type,
            vendor: 0,
            driver: String::new(),
            subgroup_min_size,
            subgroup_max_size,
            max_binding_bytes: limits.max_storage_buffer_binding_size,
            max_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension,
            limits,
            features,
        }
    }

    /// The adapters whose choices the catalog holds.
    pub(super) fn profiles() -> Vec<Info> {
        use wgpu::DeviceType::{Cpu, DiscreteGpu};
        let large = |storage: u32| wgpu::Limits {
            max_compute_workgroup_storage_size: storage,
            max_compute_invocations_per_workgroup: 1024,
            max_compute_workgroup_size_x: 1024,
            ..wgpu::Limits::default()
        };
        let webgpu = wgpu::Limits::default;
        vec![
            // lavapipe (LP_NATIVE_VECTOR_WIDTH 128, 256, 512) and llvmpipe's GL
            profile(Cpu, Some((4, 4)), large(32768)),
            profile(Cpu, Some((8, 8)), large(32768)),
            profile(Cpu, Some((16, 16)), large(32768)),
            profile(Cpu, None, large(32768)),
            // GPUs
            profile(DiscreteGpu, Some((32, 32)), large(49152)),
            profile(DiscreteGpu, Some((64, 64)), large(65536)),
            profile(DiscreteGpu, None, large(49152)),
            // WebGPU's default limits (GPUPRIM_PROFILE=webgpu, webgpu-no-subgroups)
            profile(Cpu, Some((8, 8)), webgpu()),
            profile(Cpu, None, webgpu()),
            profile(DiscreteGpu, Some((32, 32)), webgpu()),
            profile(DiscreteGpu, Some((4, 64)), webgpu()),
            profile(DiscreteGpu, None, webgpu()),
        ]
    }

    /// The operators whose text differs for an integer type (its other sums are plain
    /// sums).
    pub(super) fn integer_ops<T: GpuElement>() -> Vec<Reduce<T>> {
        vec![
            Reduce::Sum,
            Reduce::Product,
            Reduce::Min,
            Reduce::Max,
            Reduce::custom("a ^ b", T::ZERO),
        ]
    }

    /// Every kernel of `T` with each operator, on each profile that has `T`.
    pub(super) fn element<T: GpuElement>(c: &mut Catalog, profiles: &[Info], ops: &[Reduce<T>]) {
        for info in profiles {
            if !info.features.contains(T::FEATURES) {
                continue;
            }
            let subgroups = info.features.contains(wgpu::Features::SUBGROUP);
            for op in ops {
                let spec = match Spec::with_subgroups(subgroups, op) {
                    Ok(spec) => spec,
                    Err(e) => {
                        c.failures.push((format!("{op:?}"), e.to_string()));
                        continue;
                    }
                };
                tiles::<T>(c, info, &spec);
                catalog_columns::<T>(c, info, &spec);
                catalog_short_rows::<T>(c, info, &spec);
                catalog_short::<T>(c, info, &spec);
            }
        }
    }

    /// `wgsl/segmented.wgsl` in each tile shape, segment layout and values layout.
    fn tiles<T: GpuElement>(c: &mut Catalog, info: &Info, spec: &Spec) {
        for (wg, v) in tile_shapes(info, spec) {
            let storage = super::tile_storage_bytes(wg, v, spec.accumulator_bytes());
            for segments in [SegmentLayout::Offsets, SegmentLayout::Rows] {
                for values_vec4 in [true, false] {
                    let config = SegmentedKernel {
                        element: T::WGSL,
                        enable: T::ENABLE,
                        spec: spec.clone(),
                        segments,
                        values_vec4,
                        subgroup_scan: shuffles_apply(info, spec, wg),
                        workgroup_size: wg,
                        values_per_invocation: v,
                    };
                    add(c, &config, native(wg, storage, spec, T::WGSL));
                }
            }
        }
    }

    pub(super) fn layouts(c: &mut Catalog) {
        let spec = Spec::with_subgroups(true, &Reduce::<f32>::Sum).expect("a sum");
        let config = SegmentedKernel {
            element: "f32",
            enable: "",
            spec,
            segments: SegmentLayout::Offsets,
            values_vec4: true,
            subgroup_scan: true,
            workgroup_size: 64,
            values_per_invocation: 4,
        };
        let wgsl = config.wgsl().expect("segmented renders");
        layout!(
            c,
            SegmentedParams,
            "GpSegmentedParams",
            wgsl,
            [
                n,
                segments,
                range,
                ranges,
                first,
                groups,
                width,
                pitch,
                opaque_zero,
                _pad0,
                _pad1,
                _pad2
            ]
        );
        super::columns::catalog_layout(c);
        super::rows::catalog_layout(c);
        super::short::catalog_layout(c);
    }
}
