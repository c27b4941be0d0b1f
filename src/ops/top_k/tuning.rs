//! The top-k family's tuning (`top_k`, `smallest_k`, `top_k_rows`...): every number it
//! picks by adapter, chosen in one place ([`TopKTuning::of`]).

use crate::runtime::context::Info;

/// What the top-k selections pick by adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopKTuning {
    /// The largest `k` of the radix select; above it the rank step's pairs (k^2) cost
    /// more than sorting. On CPU adapters smaller, so the tests reach both paths at small
    /// sizes.
    pub rank_max: usize,
    /// Candidate slots past `k`: once the elements of the bucket holding the `k`-th
    /// largest fit here, selecting stops and they are ranked with the others (the passes
    /// left, each a read of the vector, return at once). On a GPU 8192: 2^26 uniform
    /// floats in [0, 1) (2^24 possible values) leave about 4096 in the bucket after two
    /// digits, 2^26 random u32 about 16; the duplicates of the `k`-th largest (about 4
    /// copies there) fit too, instead of being selected by index. On CPU adapters 64, so
    /// small tests reach every way.
    pub slack: usize,
    /// Workgroups of the select's passes over the vector, per binding window: about one
    /// wave on a large GPU; few on a CPU adapter, where each workgroup's barriers are
    /// costly.
    pub groups: u64,
    /// Workgroups per dispatch of `top_k_rows` at most (rows are grid-strided over them).
    pub row_groups: u64,
}

impl TopKTuning {
    /// The tuning for an adapter.
    pub fn of(info: &Info) -> Self {
        match info.device_type {
            wgpu::DeviceType::Cpu => TopKTuning {
                rank_max: 1024,
                slack: 64,
                groups: 16,
                row_groups: 16,
            },
            _ => TopKTuning {
                rank_max: 8192,
                slack: 8192,
                groups: 1024,
                row_groups: 1 << 14,
            },
        }
    }
}
