//! scan_by_key's tuning: every number the family picks by adapter, chosen in one place.

use crate::runtime::context::Info;

/// What the scans by key pick by adapter: the tile of their one single pass, `workgroup`
/// invocations of `units` vec4 units each (`4 * workgroup * units` elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanByKeyTuning {
    /// Invocations per workgroup (a power of two; fewer where the device allows fewer).
    /// On a GPU 256, as the scan's single-pass tile; untuned for pairs. On
    /// a CPU adapter 64, so the tests cross many tiles cheaply.
    pub workgroup: u32,
    /// vec4 units per invocation and tile row (`V`, at most 8: an invocation keeps 4 bits
    /// per unit in one word). On a GPU 8, as the scan's single-pass tile (256 x 8 units,
    /// 8192 elements); untuned for pairs. On a CPU adapter 2 (64 x 2 units, 512
    /// elements).
    pub units: u32,
}

impl ScanByKeyTuning {
    /// The tuning for an adapter.
    pub fn of(info: &Info) -> Self {
        match info.device_type {
            wgpu::DeviceType::Cpu => ScanByKeyTuning {
                workgroup: 64,
                units: 2,
            },
            _ => ScanByKeyTuning {
                workgroup: 256,
                units: 8,
            },
        }
    }
}
