//! The segmented family's tuning (`segmented_reduce`, `reduce_rows`, `reduce_columns`,
//! `segmented_scan`): every number it picks by adapter, chosen in one place
//! ([`SegmentedTuning::of`]).

use crate::runtime::context::Info;

/// What the segmented reductions and scans pick by adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentedTuning {
    /// Tile shapes of the segmented kernel (invocations, values per invocation), tried
    /// in order: the first whose tile fits the adapter's workgroup memory (a word per
    /// value marks the tile's heads). On a GPU, tiles of 2048 values (two vec4 loads per
    /// invocation, and the next tile's in flight): tiles of 4096 were slower on every
    /// shape measured (lab/perf-journal.md, run 17). On a CPU adapter small tiles let the
    /// tests cross many tiles and ranges cheaply.
    pub tile_shapes: &'static [(u32, u32)],
    /// Workgroup ranges of the segmented kernel at most: on a GPU 4096, several per
    /// compute unit, each long enough (at least 16 tiles of a 2^28-value reduction) that
    /// its search before the first tile and its scan after the last one cost little; few
    /// on a CPU adapter, where each workgroup runs on one core.
    pub ranges: u64,
    /// Invocations across the columns of a `reduce_columns` workgroup: 64 (a row piece of
    /// 64 elements or vec4 units per read), unless that makes fewer workgroups than
    /// wanted (then `narrow_columns`). CPU adapters take 16 always, so the tests combine
    /// several phases.
    pub columns: u32,
    /// Invocations across the columns for narrow grids, whose few column blocks need
    /// more row blocks (the workgroup then reads 16 rows at once; 16 vec4 units of f32
    /// are still 256 contiguous bytes).
    pub narrow_columns: u32,
    /// `reduce_columns` workgroups (column blocks x row blocks) wanted: a few per compute
    /// unit on a GPU, a few per core on a CPU adapter.
    pub column_groups: u64,
    /// `reduce_rows` workgroups at most (they loop over the rest): several per compute
    /// unit on a GPU, a few per core on a CPU.
    pub row_groups: u64,
    /// Workgroups at most of the kernel for short segments, likewise.
    pub short_groups: u64,
}

impl SegmentedTuning {
    /// The tuning for an adapter.
    pub fn of(info: &Info) -> Self {
        match info.device_type {
            wgpu::DeviceType::Cpu => SegmentedTuning {
                tile_shapes: &[(64, 4)],
                ranges: 32,
                columns: 16,
                narrow_columns: 16,
                column_groups: 16,
                row_groups: 16,
                short_groups: 16,
            },
            _ => SegmentedTuning {
                tile_shapes: &[(256, 8), (64, 4)],
                ranges: 4096,
                columns: 64,
                narrow_columns: 16,
                column_groups: 4096,
                row_groups: 8192,
                short_groups: 8192,
            },
        }
    }
}
