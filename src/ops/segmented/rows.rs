//! [`Ctx::reduce_rows`] of grids with short rows, or many rows
//! (`wgsl/segmented_short_rows.wgsl`): a few invocations of one subgroup per row,
//! meeting by shuffles, instead of the segmented kernel's tiles, whose scan costs more
//! than short rows' values do.

use bytemuck::{Pod, Zeroable};

use super::grid::{GridKernel, GridPass, grid_input, grid_lanes};
use crate::element::GpuElement;
use crate::error::Result;
use crate::ops::grid2d::Grid2D;
use crate::ops::reduce::Spec;
use crate::runtime::context::Ctx;
use crate::runtime::dispatch::{pow2_workgroup_size, workgroup_grid};
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

/// Workgroups at most: several per compute unit on a GPU, a few per core on a CPU.
const GROUPS_GPU: u64 = 8192;
const GROUPS_CPU: u64 = 16;

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
    _pad: [u32; 2],
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
        let wg = pow2_workgroup_size(self, 256);
        let info = self.info();
        let subgroups = super::shuffles_apply(self, spec, wg);
        let view = View::of(grid.vec());
        let used = grid.span();
        let lanes = grid_lanes(&view, pitch);
        let units = width.div_ceil(lanes);
        let max_per_row = info.subgroup_min_size.max(1).min(wg);
        if !subgroups
            || (units > max_per_row * MAX_PIECES_PER_INVOCATION && height < MANY_ROWS)
            || used * size_of::<T>() as u64 > info.max_binding_bytes
        {
            return Ok(false);
        }
        self.check_element::<T>()?;
        // A power of two of invocations per row, for about PIECES_WANTED pieces each.
        let per_row = (units / PIECES_WANTED).max(1);
        let per_row = (1u32 << per_row.ilog2()).min(max_per_row);
        let config = GridKernel {
            pass: GridPass::ShortRows,
            element: T::WGSL,
            enable: T::ENABLE,
            spec: spec.clone(),
            workgroup_size: wg,
            across: per_row,
            lanes,
        };
        let kernel = self.kernel_for(&config, "rows_main")?;
        let rows_per_group = u64::from(wg / per_row);
        let cap = match info.device_type {
            wgpu::DeviceType::Cpu => GROUPS_CPU,
            _ => GROUPS_GPU,
        };
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
