//! The atomic family's tuning (`atomic_sum*`, `histogram*`): every number it picks by
//! adapter, chosen in one place ([`AtomicTuning::of`]).

use crate::runtime::context::Info;

/// What the atomic kernels pick by adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtomicTuning {
    /// Workgroups per dispatch of the grid-stride kernels (before the device's limits):
    /// enough to fill a large GPU (one holds about 1000 groups of 256 at a time), and few
    /// on a software adapter, where each group's barriers cost a coroutine switch per
    /// invocation.
    pub groups: u64,
}

impl AtomicTuning {
    /// The tuning for an adapter.
    pub fn of(info: &Info) -> Self {
        match info.device_type {
            wgpu::DeviceType::Cpu => AtomicTuning { groups: 64 },
            _ => AtomicTuning { groups: 1024 },
        }
    }
}
