//! The position of the largest or smallest element of each row of a grid or each segment
//! of a vector: [`Ctx::argmax_rows`], [`Ctx::argmin_rows`], [`Ctx::segmented_argmax`],
//! [`Ctx::segmented_argmin`] and their `_into` forms (`wgsl/arg_reduce_rows.wgsl`).
//!
//! A power-of-two group of `G` invocations takes a row (segment): about four to sixteen
//! vec4 units per invocation, up to a whole workgroup per row for wide rows, and `WG / G`
//! rows per workgroup for narrow ones. Each invocation walks the row's whole vec4 units
//! with four loads in flight (rows may start anywhere: the partial units at either end
//! are taken element by element), and the `G` bests meet by subgroup shuffles (32-bit
//! types; where `G` is more than the smallest subgroup, shuffles within each subgroup and
//! then the group's subgroups through workgroup memory) or a workgroup-memory tree. One
//! pass, unless a few rows are too long for a workgroup each to fill the GPU (fewer than
//! a quarter of its workgroups, a workgroup's worth of units or more each): those are
//! cut into parts, items of their own, and a second pass combines each row's parts.
//!
//! A vector larger than one storage binding is bound a window at a time: each window's
//! dispatch takes the part of every row inside it and combines it with what the earlier
//! windows found; outputs and offsets larger than one are bound a range of rows at a
//! time. The order is argmax's: the same bits every run.

use bytemuck::{Pod, Zeroable};

use super::Direction;
use super::tuning::ArgReduceTuning;
use crate::element::GpuElement;
use crate::error::{Error, Result};
use crate::ops::grid2d::Grid2D;
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::context::{Ctx, Info, check_len};
use crate::runtime::dispatch::{
    Chunk, chunks, pow2_workgroup_size_within, units_per_window, units_within, workgroup_grid,
};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::{GpuVec, LANES};
use crate::runtime::view::{View, units_wgsl};

const ROWS_WGSL: &str = include_str!("../../../wgsl/arg_reduce_rows.wgsl");

/// Where the segments are.
#[derive(Clone, Copy)]
enum Bounds<'a> {
    /// Segment s is `offsets[s]..offsets[s + 1]`, clamped to the values.
    Offsets(&'a GpuVec<u32>),
    /// Row y is `y * pitch..y * pitch + width`.
    Rows { width: u32, pitch: u32 },
}

/// `wgsl/arg_reduce_rows.wgsl` for one direction, element type, layout and shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ArgRowsKernel {
    direction: Direction,
    /// The element type (`T`) and its `enable` directive, or "".
    element: &'static str,
    enable: &'static str,
    /// Statements that return the value every element beats or ties.
    worst: String,
    /// The values' layout ([`View::vec4`]).
    vec4: bool,
    /// Segments from offsets (else rows of a grid).
    offsets: bool,
    /// How the invocations of a segment meet.
    meet: Meet,
    workgroup_size: u32,
    /// Invocations per segment.
    across: u32,
}

impl ArgRowsKernel {
    /// The configuration a device described by `info` takes for `T`, `direction`, the
    /// values' layout, the segments' kind and `units` vec4 units per segment (the rows'
    /// width, or the mean length of the segments).
    fn new<T: GpuElement>(
        info: &Info,
        direction: Direction,
        vec4: bool,
        offsets: bool,
        units: u64,
    ) -> ArgRowsKernel {
        let workgroup_size = workgroup_size(info);
        let across = across(workgroup_size, units);
        ArgRowsKernel {
            direction,
            element: T::WGSL,
            enable: T::ENABLE,
            worst: match direction {
                Direction::Max => T::LOWEST,
                Direction::Min => T::HIGHEST,
            }
            .wgsl_return(),
            vec4,
            offsets,
            meet: if across == 1 || size_of::<T>() != 4 || !info.subgroups_within(workgroup_size) {
                // Shuffles move 32-bit values; a group of one needs none.
                Meet::Workgroup
            } else if across <= info.subgroup_min_size {
                Meet::Shuffles
            } else {
                Meet::SubgroupsThenWorkgroup
            },
            workgroup_size,
            across,
        }
    }
}

/// How the invocations of a segment combine their bests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Meet {
    /// A butterfly of subgroup shuffles: the group is within one subgroup.
    Shuffles,
    /// Shuffles within each subgroup, then the first invocation of the group combines
    /// its subgroups' bests from workgroup memory (two barriers).
    SubgroupsThenWorkgroup,
    /// A workgroup-memory tree (a barrier per level).
    Workgroup,
}

/// Parts each of `segments` segments of `units` vec4 units (their mean) is cut into: 1,
/// unless a workgroup a segment would leave most of the `cap` workgroups idle; then
/// enough parts for about `cap` workgroups in all, of at least `part_units` units an
/// invocation ([`ArgReduceTuning::part_units`]), if the pairs fit one binding and the
/// values are fewer than 2^31 (the part bounds stay in u32).
fn parts(
    wg: u32,
    segments: u64,
    units: u64,
    cap: u64,
    n: u64,
    per_out: u64,
    part_units: u64,
) -> u32 {
    let wg = u64::from(wg);
    let least = part_units * wg;
    if across(wg as u32, units) < wg as u32 || segments * 4 > cap || n >= 1 << 31 {
        return 1;
    }
    let parts = cap
        .div_ceil(segments)
        .min(units / least)
        .min(per_out / segments)
        .clamp(1, 1 << 16);
    parts as u32
}

/// Invocations per workgroup.
fn workgroup_size(info: &Info) -> u32 {
    pow2_workgroup_size_within(&info.limits, 256)
}

/// Invocations per segment of `units` vec4 units: a power of four (at most `wg`) that
/// leaves each about four to sixteen units, so each has four loads in flight.
fn across(wg: u32, units: u64) -> u32 {
    let mut g = 1u32;
    while u64::from(g) * 16 <= units && g * 4 <= wg {
        g *= 4;
    }
    g
}

impl KernelSource for ArgRowsKernel {
    fn name(&self) -> &'static str {
        match self.direction {
            Direction::Max => "argmax_rows",
            Direction::Min => "argmin_rows",
        }
    }

    fn element(&self) -> &'static str {
        self.element
    }

    fn wgsl(&self) -> Result<String> {
        let t = self.element;
        let better = match self.direction {
            Direction::Max => ">",
            Direction::Min => "<",
        };
        let compare = super::beats_wgsl(t, better, &self.worst)?;
        render(
            ROWS_WGSL,
            &[
                ("ENABLE", self.enable.to_string()),
                ("T", t.to_string()),
                ("WG", self.workgroup_size.to_string()),
                ("ACROSS", self.across.to_string()),
                ("INPUT", units_wgsl("gp_x", 1, t, false, self.vec4)?),
                ("COMPARE", compare),
                ("F32", (t == "f32").to_string()),
                ("BETTER", better.to_string()),
                ("OFFSETS", self.offsets.to_string()),
                ("SUBGROUP", (self.meet != Meet::Workgroup).to_string()),
                (
                    "HYBRID",
                    (self.meet == Meet::SubgroupsThenWorkgroup).to_string(),
                ),
                ("SHARED", (self.meet != Meet::Shuffles).to_string()),
            ],
        )
    }
}

/// `GpArgRowsParams` in `wgsl/arg_reduce_rows.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct ArgRowsParams {
    segments: u32,
    first_segment: u32,
    groups: u32,
    width: u32,
    pitch: u32,
    n: u32,
    window_start: u32,
    window_end: u32,
    last_window: u32,
    out_base: u32,
    parts: u32,
    _pad2: u32,
}

impl Ctx {
    /// The largest element of each row of `grid` and its index within the row: two
    /// vectors of `grid.height()` elements. The order is [`Ctx::argmax`]'s: ties go to
    /// the lowest index, a NaN counts as larger than every number (the first NaN wins),
    /// `-0.0` and `+0.0` are equal; the value is that element's bits. The elements
    /// between `width` and `pitch` are left out.
    ///
    /// ```
    /// use gpuprim::Grid2D;
    /// let ctx = gpuprim::Ctx::new()?;
    /// // 3 x 2 in a pitch of 4: rows [1 7 7] and [-2 f32::NAN 5]; 99 is padding
    /// let v = ctx.upload(&[1.0f32, 7.0, 7.0, 99.0, -2.0, f32::NAN, 5.0])?;
    /// let (values, indices) = ctx.argmax_rows(&Grid2D::with_pitch(&v, 3, 2, 4)?)?;
    /// let values = values.to_vec()?;
    /// assert_eq!(values[0], 7.0);
    /// assert!(values[1].is_nan());
    /// assert_eq!(indices.to_vec()?, vec![1, 1]); // the first 7; the NaN
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] for `f16`/`f64` on adapters without them;
    /// [`Error::InvalidArgument`] for a vector of another context, a grid of `2^32 - 4`
    /// elements or more, or a [`GpuVec::prefix`] view. Any grid size works: vectors
    /// and results larger than one storage binding are bound a part at a time.
    pub fn argmax_rows<T: GpuElement>(
        &self,
        grid: &Grid2D<'_, T>,
    ) -> Result<(GpuVec<T>, GpuVec<u32>)> {
        self.arg_rows_new("argmax_rows", grid, Direction::Max)
    }

    /// The smallest element of each row of `grid` and its index within the row (ties:
    /// the lowest index; the first NaN wins, as in NumPy's `argmin`; `-0.0 == +0.0`).
    ///
    /// ```
    /// use gpuprim::Grid2D;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[4i32, -2, 7, -2, 9, 0])?;
    /// let (values, indices) = ctx.argmin_rows(&Grid2D::new(&v, 3, 2)?)?;
    /// assert_eq!(values.to_vec()?, vec![-2, -2]);
    /// assert_eq!(indices.to_vec()?, vec![1, 0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::argmax_rows`].
    pub fn argmin_rows<T: GpuElement>(
        &self,
        grid: &Grid2D<'_, T>,
    ) -> Result<(GpuVec<T>, GpuVec<u32>)> {
        self.arg_rows_new("argmin_rows", grid, Direction::Min)
    }

    /// [`Ctx::argmax_rows`] into `values` and `indices`, which must have
    /// `grid.height()` elements each, without waiting.
    ///
    /// ```
    /// use gpuprim::Grid2D;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[2u32, 8, 5, 8, 1, 3])?;
    /// let mut values = ctx.zeros::<u32>(3)?;
    /// let mut indices = ctx.zeros::<u32>(3)?;
    /// ctx.argmax_rows_into(&Grid2D::new(&v, 2, 3)?, &mut values, &mut indices)?;
    /// assert_eq!(values.to_vec()?, vec![8, 8, 3]);
    /// assert_eq!(indices.to_vec()?, vec![1, 1, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::argmax_rows`], and [`Error::LengthMismatch`] for outputs of another
    /// length.
    pub fn argmax_rows_into<T: GpuElement>(
        &self,
        grid: &Grid2D<'_, T>,
        values: &mut GpuVec<T>,
        indices: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.arg_rows_into("argmax_rows_into", grid, Direction::Max, values, indices)
    }

    /// [`Ctx::argmin_rows`] into `values` and `indices` (`grid.height()` elements each),
    /// without waiting.
    ///
    /// ```
    /// use gpuprim::Grid2D;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[0.5f32, -3.0, 2.0, -0.0, 0.0, 1.0])?;
    /// let mut values = ctx.zeros::<f32>(2)?;
    /// let mut indices = ctx.zeros::<u32>(2)?;
    /// ctx.argmin_rows_into(&Grid2D::new(&v, 3, 2)?, &mut values, &mut indices)?;
    /// assert_eq!(values.to_vec()?, vec![-3.0, -0.0]);
    /// assert_eq!(indices.to_vec()?, vec![1, 0]); // -0.0 == +0.0: the first
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::argmax_rows_into`].
    pub fn argmin_rows_into<T: GpuElement>(
        &self,
        grid: &Grid2D<'_, T>,
        values: &mut GpuVec<T>,
        indices: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.arg_rows_into("argmin_rows_into", grid, Direction::Min, values, indices)
    }

    /// The largest element of each segment and its index within the segment: segment
    /// `s` is `values[offsets[s]..offsets[s + 1]]`, so `offsets` holds `segments + 1`
    /// entries and both results have `segments` elements. The order is
    /// [`Ctx::argmax`]'s (ties: the lowest index; the first NaN wins; `-0.0 == +0.0`).
    ///
    /// An empty segment gets the index `u32::MAX` and the value every element beats or
    /// ties: `-inf` for floats, the type's least value (`i32::MIN`, `0`) for integers.
    /// Offsets are read on the device and clamped: an offset past `values.len()` counts
    /// as `values.len()`, and a segment whose end is below its start is empty; so offsets
    /// that are not ascending or point past the values still give these results, and no
    /// call reads or writes outside the vectors.
    ///
    /// A group of invocations (a power of two, for about four to sixteen vec4 units each
    /// at the mean segment length) takes each segment, so segments much longer than the
    /// mean take longer than their share.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let values = ctx.upload(&[1.0f32, 2.0, 3.0, 9.0, 5.0, 9.0])?;
    /// let offsets = ctx.upload(&[0u32, 2, 2, 6])?; // [1 2], [], [3 9 5 9]
    /// let (maxima, indices) = ctx.segmented_argmax(&values, &offsets)?;
    /// assert_eq!(maxima.to_vec()?, vec![2.0, f32::NEG_INFINITY, 9.0]);
    /// assert_eq!(indices.to_vec()?, vec![1, u32::MAX, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty `offsets` (it needs `segments + 1`
    /// entries; one entry is zero segments), vectors of another context, `values` of
    /// `2^32 - 4` elements or more or a [`GpuVec::prefix`] view; [`Error::Unsupported`]
    /// for `f16`/`f64` on adapters without them. Vectors larger than one storage binding
    /// are bound a part at a time.
    pub fn segmented_argmax<T: GpuElement>(
        &self,
        values: &GpuVec<T>,
        offsets: &GpuVec<u32>,
    ) -> Result<(GpuVec<T>, GpuVec<u32>)> {
        self.arg_segments_new("segmented_argmax", values, offsets, Direction::Max)
    }

    /// The smallest element of each segment and its index within the segment (see
    /// [`Ctx::segmented_argmax`]; an empty segment gets `u32::MAX` and `+inf` for floats,
    /// the type's greatest value for integers).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let values = ctx.upload(&[4i32, 9, 1, 7, 3])?;
    /// let offsets = ctx.upload(&[0u32, 3, 5])?;
    /// let (minima, indices) = ctx.segmented_argmin(&values, &offsets)?;
    /// assert_eq!(minima.to_vec()?, vec![1, 3]);
    /// assert_eq!(indices.to_vec()?, vec![2, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::segmented_argmax`].
    pub fn segmented_argmin<T: GpuElement>(
        &self,
        values: &GpuVec<T>,
        offsets: &GpuVec<u32>,
    ) -> Result<(GpuVec<T>, GpuVec<u32>)> {
        self.arg_segments_new("segmented_argmin", values, offsets, Direction::Min)
    }

    /// [`Ctx::segmented_argmax`] into `out_values` and `out_indices`, which must have
    /// `offsets.len() - 1` elements each, without waiting.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let values = ctx.upload(&[4u32, 9, 1, 7, 3])?;
    /// let offsets = ctx.upload(&[0u32, 3, 5])?;
    /// let mut maxima = ctx.zeros::<u32>(2)?;
    /// let mut indices = ctx.zeros::<u32>(2)?;
    /// ctx.segmented_argmax_into(&values, &offsets, &mut maxima, &mut indices)?;
    /// assert_eq!(maxima.to_vec()?, vec![9, 7]);
    /// assert_eq!(indices.to_vec()?, vec![1, 0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::segmented_argmax`], and [`Error::LengthMismatch`] for outputs of another
    /// length.
    pub fn segmented_argmax_into<T: GpuElement>(
        &self,
        values: &GpuVec<T>,
        offsets: &GpuVec<u32>,
        out_values: &mut GpuVec<T>,
        out_indices: &mut GpuVec<u32>,
    ) -> Result<()> {
        let name = "segmented_argmax_into";
        self.arg_segments_into(
            name,
            values,
            offsets,
            Direction::Max,
            out_values,
            out_indices,
        )
    }

    /// [`Ctx::segmented_argmin`] into `out_values` and `out_indices` (`offsets.len() - 1`
    /// elements each), without waiting.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let values = ctx.upload(&[4.0f32, 9.0, 1.0, 7.0, 3.0])?;
    /// let offsets = ctx.upload(&[0u32, 3, 5])?;
    /// let mut minima = ctx.zeros::<f32>(2)?;
    /// let mut indices = ctx.zeros::<u32>(2)?;
    /// ctx.segmented_argmin_into(&values, &offsets, &mut minima, &mut indices)?;
    /// assert_eq!(minima.to_vec()?, vec![1.0, 3.0]);
    /// assert_eq!(indices.to_vec()?, vec![2, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::segmented_argmax_into`].
    pub fn segmented_argmin_into<T: GpuElement>(
        &self,
        values: &GpuVec<T>,
        offsets: &GpuVec<u32>,
        out_values: &mut GpuVec<T>,
        out_indices: &mut GpuVec<u32>,
    ) -> Result<()> {
        let name = "segmented_argmin_into";
        self.arg_segments_into(
            name,
            values,
            offsets,
            Direction::Min,
            out_values,
            out_indices,
        )
    }

    fn arg_rows_new<T: GpuElement>(
        &self,
        name: &'static str,
        grid: &Grid2D<'_, T>,
        dir: Direction,
    ) -> Result<(GpuVec<T>, GpuVec<u32>)> {
        self.check_element::<T>()?;
        let h = grid.height() as usize;
        let mut values = self.zeros::<T>(h)?;
        let mut indices = self.zeros::<u32>(h)?;
        self.arg_rows_into(name, grid, dir, &mut values, &mut indices)?;
        Ok((values, indices))
    }

    fn arg_rows_into<T: GpuElement>(
        &self,
        name: &'static str,
        grid: &Grid2D<'_, T>,
        dir: Direction,
        out_values: &mut GpuVec<T>,
        out_indices: &mut GpuVec<u32>,
    ) -> Result<()> {
        let h = grid.height() as usize;
        check_outputs(self, name, grid.vec(), h, out_values, out_indices)?;
        let bounds = Bounds::Rows {
            width: grid.width(),
            pitch: grid.pitch(),
        };
        let mut work = Work::new(self, name);
        self.record_arg_rows(
            &mut work,
            grid.vec(),
            bounds,
            h,
            dir,
            out_values,
            out_indices,
        )?;
        work.submit()
    }

    fn arg_segments_new<T: GpuElement>(
        &self,
        name: &'static str,
        values: &GpuVec<T>,
        offsets: &GpuVec<u32>,
        dir: Direction,
    ) -> Result<(GpuVec<T>, GpuVec<u32>)> {
        self.check_element::<T>()?;
        let segments = segments_of(name, offsets)?;
        let mut out_values = self.zeros::<T>(segments)?;
        let mut out_indices = self.zeros::<u32>(segments)?;
        self.arg_segments_into(
            name,
            values,
            offsets,
            dir,
            &mut out_values,
            &mut out_indices,
        )?;
        Ok((out_values, out_indices))
    }

    fn arg_segments_into<T: GpuElement>(
        &self,
        name: &'static str,
        values: &GpuVec<T>,
        offsets: &GpuVec<u32>,
        dir: Direction,
        out_values: &mut GpuVec<T>,
        out_indices: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.check_owned(name, &[&offsets.ctx])?;
        let segments = segments_of(name, offsets)?;
        check_outputs(self, name, values, segments, out_values, out_indices)?;
        let mut work = Work::new(self, name);
        self.record_arg_rows(
            &mut work,
            values,
            Bounds::Offsets(offsets),
            segments,
            dir,
            out_values,
            out_indices,
        )?;
        work.submit()
    }

    /// Records one dispatch per binding window of `values` (windows that no segment
    /// touches aside).
    #[allow(clippy::too_many_arguments)]
    fn record_arg_rows<T: GpuElement>(
        &self,
        work: &mut Work,
        values: &GpuVec<T>,
        bounds: Bounds<'_>,
        segments: usize,
        dir: Direction,
        out_values: &GpuVec<T>,
        out_indices: &GpuVec<u32>,
    ) -> Result<()> {
        if segments == 0 {
            return Ok(());
        }
        let view = View::of(values);
        let n = values.len() as u64;
        let offsets = matches!(bounds, Bounds::Offsets(_));
        let (width, pitch) = match bounds {
            Bounds::Rows { width, pitch } => (width, pitch),
            Bounds::Offsets(_) => (0, 1),
        };
        let units = match bounds {
            Bounds::Rows { width, .. } => u64::from(width).div_ceil(LANES as u64),
            Bounds::Offsets(_) => n.div_ceil(segments as u64).div_ceil(LANES as u64),
        };
        let info = self.info();
        let tuning = ArgReduceTuning::of(info);
        let cap = tuning.row_groups;
        let max_per_dim = info.max_workgroups_per_dimension;
        let cap = cap.min(u64::from(max_per_dim).saturating_pow(3));
        // Outputs (and offsets, one entry more) bound `per_out` segments at a time.
        let per_out = units_within(
            self,
            &[size_of::<T>() as u64, 4],
            info.max_binding_bytes.saturating_sub(16),
        );
        let parts = parts(
            workgroup_size(info),
            segments as u64,
            units,
            cap,
            n,
            per_out,
            tuning.part_units,
        );
        let config = ArgRowsKernel::new::<T>(
            info,
            dir,
            view.vec4(),
            offsets,
            units.div_ceil(u64::from(parts)),
        );
        let kernel = self.pipeline_for(&config, "rows_main")?;
        let slots = u64::from(config.workgroup_size / config.across);
        let values_units = view.units();
        let per_window = units_per_window(self, &[view.unit_bytes()]);
        // At least one window, so that empty segments of empty values are written.
        let windows: Vec<_> = chunks(values_units.max(1), per_window).collect();
        let out_views = (View::of(out_values), View::of(out_indices));
        let offsets_view = match bounds {
            Bounds::Offsets(o) => Some(View::of(o)),
            Bounds::Rows { .. } => None,
        };
        // Split segments: the first pass's pairs, `parts` a segment.
        let partials = if parts > 1 {
            let items = segments as u64 * u64::from(parts);
            let usage = wgpu::BufferUsages::STORAGE;
            let bytes = (items * size_of::<T>() as u64).next_multiple_of(4);
            let values = work.keep(self.scratch("argmax_rows partial values", bytes, usage)?);
            let indices =
                work.keep(self.scratch("argmax_rows partial indices", 4 * items, usage)?);
            Some((
                Res::range(&values, 0, bytes),
                Res::range(&indices, 0, 4 * items),
            ))
        } else {
            None
        };
        for (k, w) in windows.iter().enumerate() {
            let start = w.offset_units * LANES as u64;
            let end = ((w.offset_units + w.units) * LANES as u64).min(n);
            // The rows that have an element in the window: all segments from offsets.
            let (first, last) = match bounds {
                Bounds::Rows { width, pitch } => {
                    let (width, pitch) = (u64::from(width), u64::from(pitch));
                    let first = if start < width {
                        0
                    } else {
                        (start - width) / pitch + 1
                    };
                    (first, end.div_ceil(pitch).min(segments as u64))
                }
                Bounds::Offsets(_) => (0, segments as u64),
            };
            let mut from = first;
            while from < last {
                let base = from / per_out * per_out;
                let to = last.min(base + per_out);
                let count = (to - from) * u64::from(parts);
                let groups = count.div_ceil(slots).clamp(1, cap);
                let block = work.params(&ArgRowsParams {
                    segments: count as u32,
                    first_segment: from as u32,
                    groups: groups as u32,
                    width,
                    pitch,
                    n: n as u32,
                    window_start: start as u32,
                    window_end: end as u32,
                    last_window: u32::from(k + 1 == windows.len()),
                    out_base: base as u32,
                    parts,
                    ..ArgRowsParams::default()
                });
                let outs = Chunk {
                    offset_units: base,
                    units: to - base,
                };
                let (to_values, to_indices) = match &partials {
                    // (`parts` splits only segments that fit one output binding: `base`
                    // is 0.)
                    Some((values, indices)) => (values.clone(), indices.clone()),
                    None => (
                        out_window(&out_views.0, &outs),
                        out_window(&out_views.1, &outs),
                    ),
                };
                let d = work
                    .dispatch(&kernel, workgroup_grid(groups, max_per_dim)?)
                    .bind(0, block)
                    .bind(1, view.window(w))
                    .bind(3, to_values)
                    .bind(4, to_indices);
                if let Some(o) = &offsets_view {
                    let entries = Chunk {
                        offset_units: base,
                        units: to + 1 - base,
                    };
                    d.bind(2, o.window_of(&entries, 4));
                }
                from = to;
            }
        }
        if let Some((values, indices)) = &partials {
            let finish = self.pipeline_for(&config, "finish_main")?;
            let groups = (segments as u64).min(cap);
            let block = work.params(&ArgRowsParams {
                segments: segments as u32,
                groups: groups as u32,
                parts,
                ..ArgRowsParams::default()
            });
            let outs = Chunk {
                offset_units: 0,
                units: segments as u64,
            };
            work.dispatch(&finish, workgroup_grid(groups, max_per_dim)?)
                .bind(0, block)
                .bind(3, out_window(&out_views.0, &outs))
                .bind(4, out_window(&out_views.1, &outs))
                .bind(5, values.clone())
                .bind(6, indices.clone());
        }
        Ok(())
    }
}

/// The binding of elements `chunk` of an output, whole words (16-bit elements).
fn out_window(view: &View<'_>, chunk: &Chunk) -> Res {
    let start = chunk.offset_units * view.size;
    let bytes = (chunk.units * view.size)
        .next_multiple_of(4)
        .min(view.bytes().max(4) - start);
    Res::range(view.buffer, view.offset + start, bytes)
}

/// The checks every form shares: the element type, one context, lengths on the host,
/// outputs of `segments` elements, values whose indices fit a `u32`.
fn check_outputs<T: GpuElement>(
    ctx: &Ctx,
    name: &'static str,
    values: &GpuVec<T>,
    segments: usize,
    out_values: &GpuVec<T>,
    out_indices: &GpuVec<u32>,
) -> Result<()> {
    ctx.check_element::<T>()?;
    ctx.check_owned(name, &[&values.ctx, &out_values.ctx, &out_indices.ctx])?;
    for on_host in [
        values.require_host_len(name),
        out_values.require_host_len(name),
        out_indices.require_host_len(name),
    ] {
        on_host?;
    }
    check_len(
        name,
        ("values out", out_values.len()),
        ("segments", segments),
    )?;
    check_len(
        name,
        ("indices out", out_indices.len()),
        ("segments", segments),
    )?;
    let limit = u64::from(u32::MAX) - 4;
    if values.len() as u64 >= limit {
        return Err(Error::InvalidArgument {
            op: name,
            message: format!(
                "the values have {} elements; element indices are u32, so `{name}` takes \
                 fewer than {limit}",
                values.len()
            ),
        });
    }
    Ok(())
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

/// Every configuration of the rows kernel, for the catalog test: both directions, every
/// element type the device has, both layouts, both kinds of segments and every group
/// size the device's policy picks.
#[cfg(test)]
pub(super) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::{Catalog, Device, devices, layout};
    fn add<T: GpuElement>(c: &mut Catalog, device: &Device) {
        if !device.info.features.contains(T::FEATURES) {
            return;
        }
        let wg = workgroup_size(&device.info);
        let mut sizes: Vec<u64> = Vec::new();
        let mut seen = Vec::new();
        for units in (0..40).map(|b| 1u64 << b) {
            let g = across(wg, units);
            if !seen.contains(&g) {
                seen.push(g);
                sizes.push(units);
            }
        }
        for direction in [Direction::Max, Direction::Min] {
            for vec4 in [true, false] {
                for offsets in [true, false] {
                    for &units in &sizes {
                        c.add_for(
                            device,
                            &ArgRowsKernel::new::<T>(&device.info, direction, vec4, offsets, units),
                        );
                    }
                }
            }
        }
    }
    for d in devices() {
        add::<f32>(c, &d);
        add::<i32>(c, &d);
        add::<u32>(c, &d);
        add::<half::f16>(c, &d);
        add::<f64>(c, &d);
    }
    let wgsl = ArgRowsKernel::new::<f32>(&devices()[0].info, Direction::Max, true, true, 64)
        .wgsl()
        .expect("argmax_rows renders");
    layout!(
        c,
        ArgRowsParams,
        "GpArgRowsParams",
        wgsl,
        [
            segments,
            first_segment,
            groups,
            width,
            pitch,
            n,
            window_start,
            window_end,
            last_window,
            out_base,
            parts,
            _pad2
        ]
    );
}
