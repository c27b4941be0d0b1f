//! The reduction family's tuning (`reduce`, `dot`, `transform_reduce`, `argmax`): every
//! number it picks by adapter, chosen in one place ([`ReduceTuning::of`]).

use crate::runtime::context::Info;

/// What the two-level reductions pick by adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReduceTuning {
    /// Workgroups of the first pass per invocation of the finishing pass. On a GPU,
    /// many short-lived workgroups (16 partials per finishing invocation: 16384 with a
    /// 1024-invocation finish) balance the load across the compute units better than a
    /// few long ones (measured with `lab/src/bin/reduce_lab.rs`; see
    /// lab/perf-journal.md).
    pub partial_groups_per_finisher: u32,
    /// Workgroups of the first pass at most: on a CPU adapter each workgroup runs on one
    /// core, and more only add partials.
    pub max_partial_groups: u32,
}

impl ReduceTuning {
    /// The tuning for an adapter.
    pub fn of(info: &Info) -> Self {
        match info.device_type {
            wgpu::DeviceType::Cpu => ReduceTuning {
                partial_groups_per_finisher: 16,
                max_partial_groups: 32,
            },
            _ => ReduceTuning {
                partial_groups_per_finisher: 16,
                max_partial_groups: u32::MAX,
            },
        }
    }

    /// Workgroups of the first pass with a finishing pass of `finish_wg` invocations,
    /// before the device's grid limit.
    pub fn partial_groups(&self, finish_wg: u32) -> u32 {
        self.partial_groups_per_finisher
            .saturating_mul(finish_wg)
            .min(self.max_partial_groups)
    }
}
