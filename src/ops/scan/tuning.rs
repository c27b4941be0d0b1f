//! The scan family's tuning (`scan*`, `compact*`, `count_if`): every number it picks by
//! adapter, chosen in one place ([`ScanTuning::of`]).

use crate::runtime::context::Info;

/// What the scans and compactions pick by adapter. Workgroup size and vec4 units per
/// invocation are the fastest measured on a GPU (see lab/perf-journal.md); a CPU adapter
/// runs few invocations at once, so its tiles are kept small.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanTuning {
    /// Whether [`ScanAlgorithm::Auto`](crate::ScanAlgorithm::Auto) takes the single pass
    /// for 32-bit elements where the adapter has subgroups: on a discrete GPU. Its
    /// look-back is fast where subgroups carry it and the GPU runs many tiles at once; a
    /// CPU adapter is faster with reduce-then-scan, and other kinds were not measured.
    pub single_pass_with_subgroups: bool,
    /// Invocations a workgroup of the tile passes (fewer where the device allows fewer).
    pub workgroup: u32,
    /// vec4 units per invocation of reduce-then-scan's passes for 32-bit and 16-bit
    /// elements: 2 on a GPU (1 and 4 about the same), 4 on a CPU adapter.
    pub units: u32,
    /// vec4 units per invocation of reduce-then-scan for 64-bit elements.
    pub units_wide: u32,
    /// vec4 units per invocation of the single pass for scans: 8 (tiles of 8192
    /// elements; 512 x 4 and 1024 x 4 as fast, larger and smaller tiles slower).
    pub single_pass_units: u32,
    /// The same for compaction, whose store reads the input again, so fewer units a tile
    /// are faster: 6.
    pub single_pass_compact_units: u32,
    /// Invocations wanted for the spine, which scans the partials as tiles of its own
    /// (never fewer than the passes'): as wide as the device allows on a GPU, where its
    /// time is latency; the passes' shape on a CPU adapter.
    pub spine_workgroup: u32,
    /// vec4 units per invocation of the spine: 8 on a GPU (32768 partials in one tile),
    /// 1 on a CPU adapter (1024 partials a tile, so the tests reach its multi-tile loop).
    pub spine_units: u32,
    /// Workgroups of a reduce-then-scan pass, as many as one spine tile has partials on a
    /// GPU (32768 with a 1024-invocation spine); few on a CPU adapter. Each walks a
    /// contiguous range of tiles, and like a copy kernel's, the passes run faster as many
    /// short workgroups than as a few long ones, once the spine keeps up (the spines
    /// before this one scanned a few partials per step, and there more workgroups were
    /// slower; see lab/perf-journal.md).
    pub pass_groups: u32,
}

impl ScanTuning {
    /// The tuning for an adapter.
    pub fn of(info: &Info) -> Self {
        ScanTuning {
            single_pass_with_subgroups: info.device_type == wgpu::DeviceType::DiscreteGpu,
            ..Self::for_kind(info.device_type == wgpu::DeviceType::Cpu)
        }
    }

    /// The tuning for a CPU adapter (`cpu`) or a GPU: for the catalog's adapters, which
    /// have no [`Info`].
    pub(crate) fn for_kind(cpu: bool) -> Self {
        if cpu {
            ScanTuning {
                single_pass_with_subgroups: false,
                workgroup: 256,
                units: 4,
                units_wide: 2,
                single_pass_units: 4,
                single_pass_compact_units: 4,
                spine_workgroup: 256,
                spine_units: 1,
                pass_groups: 32,
            }
        } else {
            ScanTuning {
                single_pass_with_subgroups: true,
                workgroup: 256,
                units: 2,
                units_wide: 2,
                single_pass_units: 8,
                single_pass_compact_units: 6,
                spine_workgroup: 1024,
                spine_units: 8,
                pass_groups: 32768,
            }
        }
    }
}
