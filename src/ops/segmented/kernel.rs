//! `wgsl/segmented.wgsl`'s configuration ([`SegmentedKernel`]): the tiles and fixup
//! passes of a segmented reduction for one operator, element type, segment layout and
//! tile shape.

use crate::error::Result;
use crate::ops::reduce::Spec;
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::vec::LANES;

const SEGMENTED_WGSL: &str = include_str!("../../../wgsl/segmented.wgsl");

/// `{{WORKGROUP_SCAN}}` without subgroups: invocation `lane` owns the tile's `lane`-th
/// values, and the scan is Hillis-Steele in workgroup memory (two barriers a step).
const SCAN_TREE: &str = include_str!("../../../wgsl/segmented_scan_tree.wgsl");

/// `{{WORKGROUP_SCAN}}` with subgroups: invocations are ordered subgroup by subgroup, each
/// subgroup scans its lanes with shuffles, and the subgroups' totals meet once in
/// workgroup memory (two barriers a tile).
const SCAN_SUBGROUP: &str = include_str!("../../../wgsl/segmented_scan_subgroup.wgsl");

/// `{{SEGMENTS}}` (`gp_begin`, `gp_end`, `gp_upper`, `gp_lower`, `gp_find`) for segments
/// read from an offsets vector: binary searches, and a search outward from a guess.
const OFFSETS_WGSL: &str = include_str!("../../../wgsl/segmented_offsets.wgsl");

/// `{{SEGMENTS}}` for the rows of a grid: bounds computed from the width and pitch.
const ROWS_WGSL: &str = include_str!("../../../wgsl/segmented_rows.wgsl");

/// Per vec4 unit `K` of an invocation's values, written out with constant indices (so
/// the units stay in registers whatever the driver unrolls): its load (units `u0 + K *
/// stride`), its fold in a tile without boundaries, and its fold in a tile with them by
/// an invocation whose values hold no head.
const LOAD_UNIT: &str =
    "    if 4u * (u0 + K * stride) < end { xs[K] = gp_x_load(u0 + K * stride - w); }\n";
const FOLD_UNIT: &str = "            running = gp_combine(running, \
                         gp_fold4_below(cur[K], 4u * (u0 + K * stride), tile_end));\n";
const FOLD_OWN_UNIT: &str = "            w.acc = gp_combine(w.acc, gp_fold4(cur[K]));\n";

/// Where a kernel finds the segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum SegmentLayout {
    /// In an offsets vector, bound at 5.
    Offsets,
    /// The rows of a grid.
    Rows,
}

/// `wgsl/segmented.wgsl`: its tiles and fixup passes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct SegmentedKernel {
    /// The element type (`T`) and its `enable` directive, or "".
    pub(super) element: &'static str,
    pub(super) enable: &'static str,
    pub(super) spec: Spec,
    pub(super) segments: SegmentLayout,
    /// The values' layout ([`View::vec4`](crate::runtime::view::View::vec4)).
    pub(super) values_vec4: bool,
    /// The tile's scan uses subgroup shuffles.
    pub(super) subgroup_scan: bool,
    pub(super) workgroup_size: u32,
    /// Values per invocation (a multiple of 4).
    pub(super) values_per_invocation: u32,
}

impl KernelSource for SegmentedKernel {
    fn name(&self) -> &'static str {
        "segmented"
    }

    fn element(&self) -> &'static str {
        self.element
    }

    fn wgsl(&self) -> Result<String> {
        let v = self.values_per_invocation;
        render(
            SEGMENTED_WGSL,
            &[
                ("ENABLE", self.enable.to_string()),
                ("T", self.element.to_string()),
                ("A", self.spec.accumulator.to_string()),
                ("OP", self.spec.functions()?),
                (
                    "VALUES",
                    crate::runtime::view::units_wgsl(
                        "gp_x",
                        2,
                        self.element,
                        false,
                        self.values_vec4,
                    )?,
                ),
                (
                    "SEGMENTS",
                    match self.segments {
                        SegmentLayout::Offsets => OFFSETS_WGSL,
                        SegmentLayout::Rows => ROWS_WGSL,
                    }
                    .to_string(),
                ),
                (
                    "WORKGROUP_SCAN",
                    if self.subgroup_scan {
                        SCAN_SUBGROUP
                    } else {
                        SCAN_TREE
                    }
                    .to_string(),
                ),
                ("WG", self.workgroup_size.to_string()),
                ("V", v.to_string()),
                ("LOAD_UNITS", units_wgsl(v, LOAD_UNIT)),
                ("FOLD_UNITS", units_wgsl(v, FOLD_UNIT)),
                ("FOLD_OWN_UNITS", units_wgsl(v, FOLD_OWN_UNIT)),
                ("WALK_UNITS", walk_wgsl(v)),
            ],
        )
    }

    fn user_code(&self) -> &str {
        &self.spec.code
    }
}

/// `unit` for each of the `v / 4` units, `K` replaced by the unit's index.
fn units_wgsl(v: u32, unit: &str) -> String {
    (0..v / LANES as u32)
        .map(|k| unit.replace('K', &format!("{k}u")))
        .collect()
}

/// The walk over an invocation's `v` values in a tile with heads, value by value with
/// constant indices: a head (bit `j` of the invocation's mask `m`) ends the run before
/// it, then the value joins the run.
fn walk_wgsl(v: u32) -> String {
    (0..v)
        .map(|j| {
            let (unit, lane) = (j / LANES as u32, ["x", "y", "z", "w"][j as usize % LANES]);
            format!(
                "            if (m & (1u << {j}u)) != 0u {{ gp_head_step(k0 + {j}u, &w); }}\n\
                 \x20           w.acc = gp_combine(w.acc, gp_lift(cur[{unit}u].{lane}));\n"
            )
        })
        .collect()
}
