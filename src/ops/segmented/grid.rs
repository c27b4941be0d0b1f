//! What the grid kernels of [`Ctx::reduce_columns`](crate::Ctx::reduce_columns) and of
//! short rows share: their configuration, how they read a grid (a vec4 unit or an
//! element at a time), and the binding of its values.

use crate::error::Result;
use crate::ops::reduce::Spec;
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::dispatch::Chunk;
use crate::runtime::record::Res;
use crate::runtime::view::View;

const COLUMNS_WGSL: &str = include_str!("../../../wgsl/segmented_columns.wgsl");
const SHORT_ROWS_WGSL: &str = include_str!("../../../wgsl/segmented_short_rows.wgsl");
/// `{{LOAD}}` ([`load_wgsl`]) by elements and by vec4 units.
const LOAD_WGSL: &str = include_str!("../../../wgsl/segmented_columns_load.wgsl");
const LOAD_VEC4_WGSL: &str = include_str!("../../../wgsl/segmented_columns_load_vec4.wgsl");

/// Which grid kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum GridPass {
    /// `wgsl/segmented_columns.wgsl`: its columns and finish passes.
    Columns,
    /// `wgsl/segmented_short_rows.wgsl`.
    ShortRows,
}

/// A grid kernel for one operator, element type and shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct GridKernel {
    pub(super) pass: GridPass,
    /// The element type (`T`) and its `enable` directive, or "".
    pub(super) element: &'static str,
    pub(super) enable: &'static str,
    pub(super) spec: Spec,
    pub(super) workgroup_size: u32,
    /// Columns: invocations across the columns of a workgroup; short rows: invocations
    /// per row.
    pub(super) across: u32,
    /// Elements an invocation reads at once: 4 (a vec4) or 1 ([`grid_lanes`]).
    pub(super) lanes: u32,
}

impl KernelSource for GridKernel {
    fn name(&self) -> &'static str {
        match self.pass {
            GridPass::Columns => "segmented_columns",
            GridPass::ShortRows => "segmented_short_rows",
        }
    }

    fn element(&self) -> &'static str {
        self.element
    }

    fn wgsl(&self) -> Result<String> {
        let template = match self.pass {
            GridPass::Columns => COLUMNS_WGSL,
            GridPass::ShortRows => SHORT_ROWS_WGSL,
        };
        render(
            template,
            &[
                ("ENABLE", self.enable.to_string()),
                ("T", self.element.to_string()),
                ("A", self.spec.accumulator.to_string()),
                ("OP", self.spec.functions()?),
                ("WG", self.workgroup_size.to_string()),
                ("ACROSS", self.across.to_string()),
                ("LANES", self.lanes.to_string()),
                ("LOAD", load_wgsl(self.lanes, self.element)?),
            ],
        )
    }

    fn user_code(&self) -> &str {
        &self.spec.code
    }
}

/// Elements a grid kernel reads at once: a vec4 where every row of a vec4 vector starts
/// at a whole unit, else one.
pub(super) fn grid_lanes(view: &View<'_>, pitch: u32) -> u32 {
    if pitch.is_multiple_of(4) && view.vec4() {
        4
    } else {
        1
    }
}

/// The binding of a grid's values, its first `used` elements: whole vec4 units, or the
/// elements exactly.
pub(super) fn grid_input(view: View<'_>, lanes: u32, used: u64) -> Res {
    if lanes == 4 {
        view.window(&Chunk {
            offset_units: 0,
            units: used.div_ceil(4),
        })
    } else {
        View {
            len: used as usize,
            ..view
        }
        .exact()
    }
}

/// `gp_load(y, x)` of the grid kernels and its binding: one element, or the vec4 unit
/// that starts at `(x, y)`.
fn load_wgsl(lanes: u32, t: &str) -> Result<String> {
    let template = if lanes == 4 {
        LOAD_VEC4_WGSL
    } else {
        LOAD_WGSL
    };
    render(template, &[("T", t)])
}
