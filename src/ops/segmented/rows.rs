//! [`Ctx::reduce_rows`] of grids with short rows, or many rows
//! (`wgsl/segmented_short_rows.wgsl`): a few invocations of one subgroup per row,
//! meeting by shuffles, instead of the segmented kernel's tiles, whose scan costs more
//! than short rows' values do.

use bytemuck::{Pod, Zeroable};

use super::grid::{GridKernel, GridPass, grid_input, grid_lanes};
use super::tuning::SegmentedTuning;
use crate::element::GpuElement;
use crate::error::Result;
use crate::ops::grid2d::Grid2D;
use crate::ops::reduce::Spec;
use crate::runtime::context::{Ctx, Info};
use crate::runtime::dispatch::{pow2_workgroup_size_within, workgroup_grid};
use crate::runtime::record::Work;
use crate::runtime::vec::GpuVec;
use crate::runtime::view::View;

/// Pieces (vec4 units or elements) per invocation of a row at most, unless the grid
/// has `MANY_ROWS` rows: wider rows of fewer take the segmented kernel, which splits
/// them across invocations evenly (a subgroup per row would leave the GPU idle).
const MAX_PIECES_PER_INVOCATION: u32 = 32;

/// Rows enough for a subgroup per row to fill a GPU, however wide.
const MANY_ROWS: u32 = 8192;

/// Pieces per invocation wanted: four, so each has four loads in flight.
const PIECES_WANTED: u32 = 4;

/// `GpRowsParams` in `wgsl/segmented_short_rows.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct RowsParams {
    width: u32,
    height: u32,
    pitch: u32,
    units: u32,
    groups: u32,
    opaque_zero: u32,
    _pad0: u32,
    _pad1: u32,
}

impl Ctx {
    /// Records the row reduction of `grid` by the short-rows kernel and returns true,
    /// or returns false (recording nothing) where that kernel does not apply: no
    /// subgroups, an accumulator shuffles cannot move, rows too wide, or a grid past
    /// one storage binding.
    pub(super) fn record_short_rows<T: GpuElement>(
        &self,
        work: &mut Work,
        grid: &Grid2D<'_, T>,
        spec: &Spec,
        out: &GpuVec<T>,
    ) -> Result<bool> {
        let (width, height, pitch) = (grid.width(), grid.height(), grid.pitch());
        let info = self.info();
        let wg = short_rows_workgroup(info);
        let view = View::of(grid.vec());
        let used = grid.span();
        let lanes = grid_lanes(&view, pitch);
        let units = width.div_ceil(lanes);
        let Some(per_row) = short_rows_per_row(info, spec, units, height) else {
            return Ok(false);
        };
        if used * size_of::<T>() as u64 > info.max_binding_bytes {
            return Ok(false);
        }
        self.check_element::<T>()?;
        let config = GridKernel {
            pass: GridPass::ShortRows,
            element: T::WGSL,
            enable: T::ENABLE,
            spec: spec.clone(),
            workgroup_size: wg,
            across: per_row,
            lanes,
        };
        let kernel = self.pipeline_for(&config, "rows_main")?;
        let rows_per_group = u64::from(wg / per_row);
        let cap = SegmentedTuning::of(info).row_groups;
        let max_per_dim = info.max_workgroups_per_dimension;
        let groups = u64::from(height)
            .div_ceil(rows_per_group)
            .clamp(1, cap.min(u64::from(max_per_dim).saturating_pow(3)));
        let block = work.params(&RowsParams {
            width,
            height,
            pitch,
            units,
            groups: groups as u32,
            ..RowsParams::default()
        });
        let input = grid_input(view, lanes, used);
        work.dispatch(&kernel, workgroup_grid(groups, max_per_dim)?)
            .bind(0, block)
            .bind(2, input)
            .bind(4, View::of(out).exact());
        Ok(true)
    }
}

/// Invocations per workgroup of the short-rows kernel.
pub(super) fn short_rows_workgroup(info: &Info) -> u32 {
    pow2_workgroup_size_within(&info.limits, 256)
}

/// Invocations per row for rows of `units` pieces (vec4 units or elements) in a grid of
/// `height` rows, or `None` where the kernel does not apply (no subgroups, an
/// accumulator shuffles cannot move, rows too wide): a power of two for about
/// `PIECES_WANTED` pieces each, at most the smallest subgroup.
pub(super) fn short_rows_per_row(info: &Info, spec: &Spec, units: u32, height: u32) -> Option<u32> {
    let wg = short_rows_workgroup(info);
    let max_per_row = info.subgroup_min_size.max(1).min(wg);
    if !super::shuffles_apply(info, spec, wg)
        || (units > max_per_row * MAX_PIECES_PER_INVOCATION && height < MANY_ROWS)
    {
        return None;
    }
    let per_row = (units / PIECES_WANTED).max(1);
    Some((1u32 << per_row.ilog2()).min(max_per_row))
}

/// The short-rows kernel of `T` in each shape it takes on `info` (see `catalog` in
/// `mod.rs`).
#[cfg(test)]
pub(super) fn catalog_short_rows<T: crate::element::GpuElement>(
    c: &mut crate::ops::catalog::Catalog,
    info: &Info,
    spec: &Spec,
) {
    let wg = short_rows_workgroup(info);
    let mut seen = Vec::new();
    for units in (0..24).map(|b| 1u32 << b) {
        for height in [1, MANY_ROWS] {
            if let Some(per_row) = short_rows_per_row(info, spec, units, height) {
                if !seen.contains(&per_row) {
                    seen.push(per_row);
                }
            }
        }
    }
    for across in seen {
        for lanes in [1, 4] {
            let config = GridKernel {
                pass: GridPass::ShortRows,
                element: T::WGSL,
                enable: T::ENABLE,
                spec: spec.clone(),
                workgroup_size: wg,
                across,
                lanes,
            };
            let native = super::catalog::native(wg, 0, spec, T::WGSL);
            super::catalog::add(c, &config, native);
        }
    }
}

#[cfg(test)]
pub(super) fn catalog_layout(c: &mut crate::ops::catalog::Catalog) {
    use crate::runtime::cache::KernelSource;
    let config = GridKernel {
        pass: GridPass::ShortRows,
        element: "f32",
        enable: "",
        spec: Spec::with_subgroups(true, &crate::Reduce::<f32>::Sum).expect("a sum"),
        workgroup_size: 256,
        across: 4,
        lanes: 4,
    };
    let wgsl = config.wgsl().expect("short rows render");
    crate::ops::catalog::layout!(
        c,
        RowsParams,
        "GpRowsParams",
        wgsl,
        [
            width,
            height,
            pitch,
            units,
            groups,
            opaque_zero,
            _pad0,
            _pad1
        ]
    );
}
