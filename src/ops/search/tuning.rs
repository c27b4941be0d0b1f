//! The search family's tuning (`lower_bound`, `upper_bound`, `merge` and their forms):
//! every number it picks by adapter, chosen in one place ([`SearchTuning::of`]).

use crate::runtime::context::Info;

/// What the searches pick by adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchTuning {
    /// Whether a search may group the queries by table range first: on a GPU, where
    /// random queries in a table larger than its cache miss the cache at most steps of
    /// their search. A CPU adapter's cache is its host's.
    pub bucketing: bool,
    /// The least queries for which grouping pays: below 2^18 the passes cost what they
    /// save (lab/perf-journal.md).
    pub bucketed_min_queries: usize,
    /// The least table elements for which grouping pays: a table of 2^20 elements
    /// (4 MiB) stays in a GPU's cache whatever order the queries come in.
    pub bucketed_min_table: usize,
    /// Workgroups per search dispatch (before the device's grid limit). Each loads the
    /// pivots once (16 KiB from the small pivot buffer, which stays in cache), so on a
    /// GPU a few thousand workgroups (several per compute unit, each taking a few units
    /// per invocation) amortise that load and keep every compute unit busy; on a CPU
    /// adapter each workgroup runs on one core.
    pub groups: u32,
    /// The merge kernel's workgroup size and keys per invocation: a tile of their
    /// product (1024 keys, 8 KiB of workgroup memory for keys and sources) per
    /// workgroup, found by one search along the merge path per tile.
    pub merge_workgroup: u32,
    /// Keys each invocation of the merge kernel merges in sequence.
    pub merge_keys_per_invocation: u32,
}

impl SearchTuning {
    /// The tuning for an adapter.
    pub fn of(info: &Info) -> Self {
        let gpu = SearchTuning {
            bucketing: true,
            bucketed_min_queries: 1 << 18,
            bucketed_min_table: 1 << 22,
            groups: 4096,
            merge_workgroup: 128,
            merge_keys_per_invocation: 8,
        };
        match info.device_type {
            wgpu::DeviceType::Cpu => SearchTuning {
                bucketing: false,
                groups: 32,
                ..gpu
            },
            _ => gpu,
        }
    }
}
