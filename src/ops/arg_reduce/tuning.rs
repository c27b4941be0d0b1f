//! The arg-reduction family's tuning (`argmax`, `argmin`, their row and segment forms):
//! every number it picks by adapter, chosen in one place ([`ArgReduceTuning::of`]). The
//! whole-vector forms take the reductions' shapes ([`ReduceTuning`]).
//!
//! [`ReduceTuning`]: crate::ops::reduce::tuning::ReduceTuning

use crate::runtime::context::Info;

/// What the arg-reductions pick by adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgReduceTuning {
    /// Workgroups at most of the per-row and per-segment kernels: several per compute
    /// unit on a GPU, a few per core on a CPU.
    pub row_groups: u64,
    /// vec4 units an invocation takes at least when wide rows are cut into parts: 16 on
    /// a GPU, 4 on a CPU adapter's 16 workgroups.
    pub part_units: u64,
}

impl ArgReduceTuning {
    /// The tuning for an adapter.
    pub fn of(info: &Info) -> Self {
        match info.device_type {
            wgpu::DeviceType::Cpu => ArgReduceTuning {
                row_groups: 16,
                part_units: 4,
            },
            _ => ArgReduceTuning {
                row_groups: 8192,
                part_units: 16,
            },
        }
    }
}
