//! [`Ctx::reduce_columns`]: one value per column of a [`Grid2D`]
//! (`wgsl/segmented_columns.wgsl`).
//!
//! Workgroups take blocks of consecutive columns (`SegmentedTuning::columns`), so each row is read in
//! contiguous pieces, and walk a block of rows. Where the columns alone give too few
//! workgroups (tall, narrow grids) the rows are split into blocks whose partials a
//! second pass combines in block order.

use bytemuck::{Pod, Zeroable};

use super::check_binding;
use super::grid::{GridKernel, GridPass, grid_input, grid_lanes};
use super::tuning::SegmentedTuning;
use crate::element::GpuElement;
use crate::error::Result;
use crate::ops::grid2d::Grid2D;
use crate::ops::reduce::{Reduce, Spec};
use crate::runtime::context::{Ctx, Info, check_len};
use crate::runtime::dispatch::{pow2_workgroup_size_within, workgroup_grid};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::GpuVec;
use crate::runtime::view::View;

/// Row blocks at most, per row read at once: the second pass folds 64 partials per
/// invocation at most.
const ROW_BLOCKS_PER_PHASE: u64 = 64;

/// Rows a row block has at least: four steps of four rows per phase.
const MIN_BLOCK_ROWS: u64 = 64;

/// `GpColumnsParams` in `wgsl/segmented_columns.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct ColumnsParams {
    width: u32,
    height: u32,
    pitch: u32,
    rows_per_block: u32,
    row_blocks: u32,
    col_blocks: u32,
    groups: u32,
    opaque_zero: u32,
}

impl Ctx {
    /// One reduction per column of `grid`: `grid.width()` values, column `x` being the
    /// elements `x + y * pitch` for every row `y`. Every [`Reduce`] operator works; the
    /// order of combination depends only on the adapter and the shape, so float results
    /// repeat bit for bit.
    ///
    /// The grid's vector must fit one storage binding
    /// ([`Info::max_binding_bytes`](crate::Info::max_binding_bytes); columns are not
    /// split across bindings), else [`Error::TooLarge`](crate::Error::TooLarge).
    ///
    /// # Errors
    /// As [`Ctx::segmented_reduce`] for the operator, and [`Error::TooLarge`](crate::Error::TooLarge)
    /// as above.
    ///
    /// ```
    /// use gpuprim::{Grid2D, Reduce};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1u32, 2, 3, 4, 5, 6])?; // rows [1 2 3] and [4 5 6]
    /// let grid = Grid2D::new(&v, 3, 2)?;
    /// assert_eq!(ctx.reduce_columns(&grid, Reduce::Sum)?.to_vec()?, vec![5, 7, 9]);
    /// assert_eq!(ctx.reduce_columns(&grid, Reduce::Min)?.to_vec()?, vec![1, 2, 3]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn reduce_columns<T: GpuElement>(
        &self,
        grid: &Grid2D<'_, T>,
        op: Reduce<T>,
    ) -> Result<GpuVec<T>> {
        let mut out = self.zeros::<T>(grid.width() as usize)?;
        self.reduce_columns_into(grid, op, &mut out)?;
        Ok(out)
    }

    /// [`Ctx::reduce_columns`] into `out`, which must have `grid.width()` elements,
    /// without waiting.
    ///
    /// ```
    /// use gpuprim::{Grid2D, Reduce};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1.0f32, -2.0, 0.0, 3.0, 4.0, 0.0])?; // 2 x 2, pitch 3
    /// let mut out = ctx.zeros::<f32>(2)?;
    /// ctx.reduce_columns_into(&Grid2D::with_pitch(&v, 2, 2, 3)?, Reduce::Max, &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![3.0, 4.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn reduce_columns_into<T: GpuElement>(
        &self,
        grid: &Grid2D<'_, T>,
        op: Reduce<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        let name = "reduce_columns_into";
        let values = grid.vec();
        self.check_owned(name, &[&values.ctx, &out.ctx])?;
        self.check_element::<T>()?;
        out.require_host_len(name)?;
        check_len(
            name,
            ("out", out.len()),
            ("grid columns", grid.width() as usize),
        )?;
        let (width, height, pitch) = (grid.width(), grid.height(), grid.pitch());
        let used = grid.span();
        check_binding(self, name, "the grid", used * size_of::<T>() as u64)?;
        let spec = Spec::new(self, &op)?;

        let wg = columns_workgroup(self.info());
        let view = View::of(values);
        let lanes = grid_lanes(&view, pitch);
        let wanted = SegmentedTuning::of(self.info()).column_groups;
        let cols = columns_across(self.info(), width, lanes, wanted);
        let (cols, wanted) = columns_override(self, cols, wanted, wg);
        let phases = u64::from(wg / cols);
        let col_blocks = u64::from(width.div_ceil(cols * lanes));
        let most = u64::from(height).div_ceil(MIN_BLOCK_ROWS.max(4 * phases));
        let row_blocks = wanted
            .div_ceil(col_blocks)
            .min(most)
            .clamp(1, ROW_BLOCKS_PER_PHASE * phases);
        let rows_per_block = u64::from(height).div_ceil(row_blocks);
        let row_blocks = u64::from(height).div_ceil(rows_per_block);

        let config = GridKernel {
            pass: GridPass::Columns,
            element: T::WGSL,
            enable: T::ENABLE,
            spec,
            workgroup_size: wg,
            across: cols,
            lanes,
        };
        let columns = self.pipeline_for(&config, "columns_main")?;
        let spec = &config.spec;
        let max_per_dim = self.info().max_workgroups_per_dimension;
        let grid_cap = u64::from(max_per_dim).saturating_pow(3);
        let mut work = Work::new(self, name);
        let partial_bytes = spec.accumulator_bytes() * (row_blocks * u64::from(width)).max(1);
        let partials = if row_blocks > 1 {
            let usage = wgpu::BufferUsages::STORAGE;
            work.keep(self.scratch("column partials", partial_bytes, usage)?)
        } else {
            // Not read: one row block writes the result itself.
            work.keep(self.scratch(
                "column partials",
                spec.accumulator_bytes(),
                wgpu::BufferUsages::STORAGE,
            )?)
        };
        let blocks = col_blocks * row_blocks;
        let groups = blocks.min(grid_cap);
        let base = ColumnsParams {
            width,
            height,
            pitch,
            rows_per_block: rows_per_block as u32,
            row_blocks: row_blocks as u32,
            col_blocks: col_blocks as u32,
            groups: groups as u32,
            opaque_zero: 0,
        };
        let block = work.params(&base);
        let input = grid_input(view, lanes, used);
        let out_binding = View::of(out).exact();
        work.dispatch(&columns, workgroup_grid(groups, max_per_dim)?)
            .bind(0, block)
            .bind(1, Res::whole(&partials))
            .bind(2, input)
            .bind(4, out_binding.clone());
        if row_blocks > 1 {
            let finish = self.pipeline_for(&config, "finish_main")?;
            let groups = col_blocks.min(grid_cap);
            let block = work.params(&ColumnsParams {
                groups: groups as u32,
                ..base
            });
            work.dispatch(&finish, workgroup_grid(groups, max_per_dim)?)
                .bind(0, block)
                .bind(1, Res::whole(&partials))
                .bind(4, out_binding);
        }
        work.submit()
    }
}

/// Invocations per workgroup of the columns kernel.
fn columns_workgroup(info: &Info) -> u32 {
    pow2_workgroup_size_within(&info.limits, 256)
}

/// Invocations across the columns for a grid `width` wide read `lanes` at once, where
/// `wanted` workgroups are wanted ([`SegmentedTuning::columns`]).
fn columns_across(info: &Info, width: u32, lanes: u32, wanted: u64) -> u32 {
    let wg = columns_workgroup(info);
    // The most workgroups `cols` invocations across can make.
    let reach = |cols: u32| {
        u64::from(width.div_ceil(cols * lanes)) * ROW_BLOCKS_PER_PHASE * u64::from(wg / cols)
    };
    let tuning = SegmentedTuning::of(info);
    match reach(tuning.columns.min(wg)) >= wanted {
        true => tuning.columns,
        false => tuning.narrow_columns,
    }
    .min(wg)
}

/// `reduce_columns`' shape in place of the chosen one, for tuning
/// ([`CtxBuilder::reduce_columns_shape`](crate::CtxBuilder::reduce_columns_shape);
/// `bandwidth`'s `segmented` rows).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ColumnsShape {
    cols: u32,
    groups: u64,
}

#[cfg(feature = "internals")]
impl crate::CtxBuilder {
    /// Run `reduce_columns` with `cols` invocations across the columns and `groups`
    /// workgroups wanted, in place of the shape it chooses; a `cols` that is not a power
    /// of two up to its workgroup size, or no groups, leaves the choice alone. For
    /// tuning only (feature `internals`).
    pub fn reduce_columns_shape(self, cols: u32, groups: u64) -> Self {
        self.option(ColumnsShape { cols, groups })
    }
}

/// The shape a builder asked for ([`ColumnsShape`]) where it is one `wg` allows, else
/// the chosen `(cols, wanted)`.
fn columns_override(ctx: &Ctx, cols: u32, wanted: u64, wg: u32) -> (u32, u64) {
    match ctx.option::<ColumnsShape>() {
        Some(s) if s.cols.is_power_of_two() && s.cols <= wg && s.groups > 0 => (s.cols, s.groups),
        _ => (cols, wanted),
    }
}

/// The columns kernel of `T` in each shape it takes on `info` (see `catalog` in
/// `mod.rs`): narrow and wide grids, rows at whole vec4 units or not.
#[cfg(test)]
pub(super) fn catalog_columns<T: GpuElement>(
    c: &mut crate::ops::catalog::Catalog,
    info: &Info,
    spec: &Spec,
) {
    let wg = columns_workgroup(info);
    for lanes in [1, 4] {
        for width in [1, u32::MAX / 4] {
            // `SegmentedTuning::column_groups` of a CPU adapter and of a GPU.
            for wanted in [16, 4096] {
                let config = GridKernel {
                    pass: GridPass::Columns,
                    element: T::WGSL,
                    enable: T::ENABLE,
                    spec: spec.clone(),
                    workgroup_size: wg,
                    across: columns_across(info, width, lanes, wanted),
                    lanes,
                };
                let storage = u64::from(wg) * spec.accumulator_bytes();
                let native = super::catalog::native(wg, storage, spec, T::WGSL);
                super::catalog::add(c, &config, native);
            }
        }
    }
}

#[cfg(test)]
pub(super) fn catalog_layout(c: &mut crate::ops::catalog::Catalog) {
    use crate::runtime::cache::KernelSource;
    let config = GridKernel {
        pass: GridPass::Columns,
        element: "f32",
        enable: "",
        spec: Spec::with_subgroups(true, &Reduce::<f32>::Sum).expect("a sum"),
        workgroup_size: 256,
        across: 64,
        lanes: 4,
    };
    let wgsl = config.wgsl().expect("columns render");
    crate::ops::catalog::layout!(
        c,
        ColumnsParams,
        "GpColumnsParams",
        wgsl,
        [
            width,
            height,
            pitch,
            rows_per_block,
            row_blocks,
            col_blocks,
            groups,
            opaque_zero
        ]
    );
}
