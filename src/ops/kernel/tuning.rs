//! The element-wise family's tuning: every number it picks by adapter, chosen in one
//! place ([`ElementwiseTuning::of`]).

use crate::runtime::context::Info;

/// What element-wise kernels (user kernels, `map`, `zip`, `fill`...) pick by adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementwiseTuning {
    /// Workgroups per binding window; they loop over the rest. On a GPU, more workgroups
    /// were faster up to about 32768, and one per vec4 (no loop) slower again (see
    /// lab/perf-journal.md). A CPU adapter runs a workgroup per core at a time, so a
    /// few hundred are plenty.
    pub groups: u64,
}

impl ElementwiseTuning {
    /// The tuning for an adapter.
    pub fn of(info: &Info) -> Self {
        match info.device_type {
            wgpu::DeviceType::Cpu => ElementwiseTuning { groups: 256 },
            _ => ElementwiseTuning { groups: 32768 },
        }
    }
}
