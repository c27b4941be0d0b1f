//! The kernel of `wgsl/scan_by_key.wgsl` as a typed configuration ([`ScanByKeyKernel`]),
//! its parameter block, and the tile shape it is rendered in on an adapter.

use super::tuning::ScanByKeyTuning;
use crate::error::Result;
use crate::ops::scan::OperatorWgsl;
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::context::Info;
use crate::runtime::dispatch::pow2_workgroup_size_within;
use crate::runtime::view::units_wgsl;

const SCAN_BY_KEY_WGSL: &str = include_str!("../../../wgsl/scan_by_key.wgsl");

/// Probes of a predecessor's status before a workgroup reduces that tile itself (as the
/// scan's single pass).
pub(super) const SPIN: u32 = 64;
/// Predecessors whose published values the subgroup look-back keeps in workgroup memory
/// (as the scan's single pass).
const STASH: u32 = 256;

/// `Params` in `wgsl/scan_by_key.wgsl`.
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(super) struct ScanByKeyParams {
    pub(super) n: u32,
    pub(super) units: u32,
    pub(super) tiles: u32,
    pub(super) base: u32,
    pub(super) window: u32,
    pub(super) counters: u32,
    pub(super) before: u32,
    pub(super) first: u32,
}

/// The workgroup size and vec4 units per invocation on the device `info` describes:
/// [`ScanByKeyTuning`]'s, the workgroup within the device's limits.
pub(super) fn default_shape(info: &Info) -> (u32, u32) {
    let tuning = ScanByKeyTuning::of(info);
    (
        pow2_workgroup_size_within(&info.limits, tuning.workgroup),
        tuning.units,
    )
}

/// `wgsl/scan_by_key.wgsl`: its single pass for one value type, form, shape, layout and
/// operator.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct ScanByKeyKernel {
    /// The values' WGSL type (32-bit).
    pub(super) element: &'static str,
    pub(super) workgroup_size: u32,
    /// vec4 units per invocation and tile row (`V`).
    pub(super) units: u32,
    pub(super) exclusive: bool,
    /// Probes of a predecessor's status before standing in for it (at least 1).
    pub(super) spin: u32,
    /// The workgroup scans and looks back with subgroup operations.
    pub(super) subgroups: bool,
    /// Whether the keys, values and output are bound as `vec4` units.
    pub(super) keys_vec4: bool,
    pub(super) values_vec4: bool,
    pub(super) out_vec4: bool,
    pub(super) operator: OperatorWgsl,
}

impl KernelSource for ScanByKeyKernel {
    fn name(&self) -> &'static str {
        "scan_by_key"
    }

    fn element(&self) -> &'static str {
        self.element
    }

    fn user_code(&self) -> &str {
        &self.operator.code
    }

    fn wgsl(&self) -> Result<String> {
        let t = self.element;
        render(
            SCAN_BY_KEY_WGSL,
            &[
                ("SUBGROUPS", self.subgroups.to_string()),
                ("KEYS", units_wgsl("keys", 1, "u32", false, self.keys_vec4)?),
                (
                    "VALUES",
                    units_wgsl("values", 2, t, false, self.values_vec4)?,
                ),
                ("OUT", units_wgsl("out", 3, t, true, self.out_vec4)?),
                ("T", t.to_string()),
                ("WG", self.workgroup_size.to_string()),
                ("V", self.units.to_string()),
                ("EXCLUSIVE", self.exclusive.to_string()),
                ("SPIN", self.spin.to_string()),
                ("STASH", STASH.to_string()),
                ("BY_ID", self.subgroups.to_string()),
                ("IDENTITY", self.operator.identity.clone()),
                ("COMBINE", self.operator.combine.clone()),
            ],
        )
    }
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`): every operator, inclusive and exclusive, of every 32-bit value
/// type, for every layout of the keys, values and output, in the shape each catalog
/// device would choose (and the tests' single probe).
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::{devices, layout};
    use crate::ops::scan::ScanOp;
    catalog_of::<f32>(c);
    catalog_of::<i32>(c);
    catalog_of::<u32>(c);
    let config = catalog_config::<u32>(&devices()[0].info, &ScanOp::Sum);
    let wgsl = config.wgsl().expect("scan by key renders");
    layout!(
        c,
        ScanByKeyParams,
        "Params",
        wgsl,
        [n, units, tiles, base, window, counters, before, first]
    );
}

#[cfg(test)]
fn catalog_config<T: crate::element::GpuElement>(
    info: &Info,
    op: &crate::ops::scan::ScanOp<T>,
) -> ScanByKeyKernel {
    let (wg, v) = default_shape(info);
    ScanByKeyKernel {
        element: T::WGSL,
        workgroup_size: wg,
        units: v,
        exclusive: false,
        spin: SPIN,
        subgroups: info.subgroups_within(wg),
        keys_vec4: true,
        values_vec4: true,
        out_vec4: true,
        operator: op.wgsl("scan_by_key").expect("a valid operator"),
    }
}

#[cfg(test)]
fn catalog_of<T: crate::element::GpuElement>(c: &mut crate::ops::catalog::Catalog) {
    let ops = crate::ops::scan::catalog_ops::<T>();
    for device in crate::ops::catalog::devices() {
        for op in &ops {
            let base = catalog_config(&device.info, op);
            for exclusive in [false, true] {
                for layout in 0..8u32 {
                    for spin in [SPIN, 1] {
                        let config = ScanByKeyKernel {
                            exclusive,
                            spin,
                            keys_vec4: layout & 1 != 0,
                            values_vec4: layout & 2 != 0,
                            out_vec4: layout & 4 != 0,
                            ..base.clone()
                        };
                        c.add_for(&device, &config);
                    }
                }
            }
        }
    }
}
