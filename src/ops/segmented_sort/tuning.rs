//! The segmented sorts' tuning (`segmented_sort*`, `sort_rows*`): every number they
//! pick by adapter, chosen in one place ([`SegmentedSortTuning::of`]).

use crate::runtime::context::Info;

/// What the segmented and per-row sorts pick by adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentedSortTuning {
    /// Slots of the workgroup sort at most (fewer where the workgroup memory holds
    /// fewer): on a GPU 4096 words and 4096 indices (32 KiB) hold a row of 4096 keys;
    /// larger tiles would leave one workgroup per compute unit. On a CPU adapter small
    /// tiles, so tests reach the merges with small vectors.
    pub tile: u32,
    /// Invocations per workgroup wanted: on a GPU 256 (16 slots each of a 4096-slot
    /// tile).
    pub workgroup: u32,
    /// Places an invocation of a merge level writes: on a GPU 8 (one search of the merge
    /// path for eight keys), on a CPU adapter 4.
    pub merge_items: u32,
    /// Rows of a tile padded to at least this many slots are sorted by a radix sort in
    /// workgroup memory (four bits a pass, 16 slots an invocation), shorter ones by the
    /// bitonic network: on a GPU from 512 (H200, run 68b: rows of 512 0.89 ms against
    /// 1.01, of 256 0.89 against 0.85, per 2^24 keys), on a CPU adapter from 64 (so
    /// tests take both ways with short rows).
    pub radix_rows_from: u32,
}

impl SegmentedSortTuning {
    /// The tuning for an adapter.
    pub fn of(info: &Info) -> Self {
        match info.device_type {
            wgpu::DeviceType::Cpu => SegmentedSortTuning {
                tile: 256,
                workgroup: 64,
                merge_items: 4,
                radix_rows_from: 64,
            },
            _ => SegmentedSortTuning {
                tile: 4096,
                workgroup: 256,
                merge_items: 8,
                radix_rows_from: 512,
            },
        }
    }
}
