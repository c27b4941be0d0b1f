//! The sort family's tuning (`sort*`, `argsort`, `unique`, `run_length_encode`,
//! `reduce_by_key`): every number it picks by adapter, chosen in one place
//! ([`SortTuning::of`]).

use crate::runtime::context::Info;

/// What the radix sorts and the run kernels pick by adapter. Tiles are (invocations per
/// workgroup, keys per invocation), best first: the first the adapter's limits allow is
/// taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortTuning {
    /// OneSweep's digit-pass tiles. On GPUs 1024 x 11 first (47 KiB of workgroup memory
    /// with subgroups of 32): larger tiles are faster, since each tile has a fixed cost
    /// that more keys share; the order is the measured one (docs/PERFORMANCE.md, its
    /// history in lab/perf-journal.md; `lab/src/bin/sort_lab.rs` with `GP_SORT_TILE`). On
    /// CPU adapters small tiles, so the tests reach many tiles and the look-back; where
    /// workgroup memory is small (WebGPU's 16 KiB, subgroups of 4 or 8) fewer invocations
    /// with more keys each, so that the tile, and the tests' tile counts, stay 1024 keys.
    pub onesweep_tiles: &'static [(u32, u32)],
    /// Probes of a predecessor's status before OneSweep's look-back counts that tile
    /// itself: 64 on a GPU, 8 on a CPU adapter (see `look_back_iterations`).
    pub spin: u32,
    /// The loop iterations an invocation of OneSweep's digit pass may spend looking back,
    /// where the adapter ends long loops: on CPU adapters a quarter of llvmpipe's 65535
    /// (see `dispatch_tiles` in `ops/sort/onesweep.rs`). `None`: no limit, one dispatch a
    /// binding window.
    pub look_back_iterations: Option<u64>,
    /// Workgroups of OneSweep's histogram pass at most: about one wave on a large GPU
    /// (each workgroup adds its counts to the global histograms with up to 1024 atomics),
    /// 16 on a CPU adapter. Untuned.
    pub histogram_groups: u64,
    /// Whether OneSweep ranks a subgroup's keys with peer tables in workgroup memory
    /// rather than ballots. The tables need `subgroupBarrier` to keep the subgroup's
    /// workgroup-memory atomics in order. naga writes it for Vulkan as a subgroup control
    /// barrier whose memory semantics (SubgroupMemory) Vulkan ignores, so there the
    /// tables rest on the hardware keeping a converged subgroup's workgroup-memory
    /// operations in order: used where that is checked, NVIDIA (CUB's `__syncwarp`
    /// ranking relies on the same; `tests/sort.rs` on an NVIDIA GPU) and CPU devices
    /// (lavapipe runs a subgroup in one thread; CI). For DX12 naga writes nothing;
    /// Metal's `simdgroup_barrier` would order them but is not measured, so both keep the
    /// ballots.
    pub peer_tables: bool,
    /// Reduce-then-scan's tiles for keys alone (tiles under 65536 keys: the split's
    /// 16-bit counters). On a GPU the largest tile workgroup memory holds (fewer tiles,
    /// so less of the tiles' fixed cost per key): keys alone keep no origins in the tile,
    /// so 256 x 32 fits, which measured fastest once the per-key loops were written out
    /// (then 512 x 12, 128 x 16 and 512 x 8; lab/perf-journal.md).
    pub rts_tiles_keys: &'static [(u32, u32)],
    /// Reduce-then-scan's tiles with values: 256 x 16 is the largest that fits 48 KiB.
    pub rts_tiles_pairs: &'static [(u32, u32)],
    /// Reduce-then-scan workgroups per pass (each owns a contiguous range of tiles): the
    /// counts to scan are 256 per workgroup.
    pub rts_groups: u64,
    /// Whether reduce-then-scan's per-key loops are written out. Not on a CPU adapter's
    /// GL (llvmpipe): there the written-out kernel compiles for seconds while wgpu holds
    /// the GL context, long enough for other threads' calls to give up waiting for it (a
    /// panic in wgpu-hal).
    pub rts_unrolled: bool,
    /// The run kernels' shape (`unique`, `run_length_encode`, `reduce_by_key`): tiles of
    /// 2048 elements on a GPU (the spine folds the tiles' values 2048 at a time;
    /// untuned), 256 on a CPU adapter (so the tests reach the spine's later rounds
    /// cheaply).
    pub runs_shape: (u32, u32),
}

impl SortTuning {
    /// The tuning for an adapter.
    pub fn of(info: &Info) -> Self {
        let cpu = info.device_type == wgpu::DeviceType::Cpu;
        let peer_tables = info.features.contains(wgpu::Features::SUBGROUP_BARRIER)
            && info.backend == wgpu::Backend::Vulkan
            && (info.vendor == 0x10de || cpu);
        if cpu {
            SortTuning {
                onesweep_tiles: &[(128, 8), (64, 16), (32, 32)],
                spin: 8,
                look_back_iterations: Some(16384),
                histogram_groups: 16,
                peer_tables,
                rts_tiles_keys: &[(128, 8)],
                rts_tiles_pairs: &[(128, 8)],
                rts_groups: 16,
                rts_unrolled: info.backend != wgpu::Backend::Gl,
                runs_shape: (64, 4),
            }
        } else {
            SortTuning {
                onesweep_tiles: &[(1024, 11), (1024, 8), (512, 15), (256, 12)],
                spin: 64,
                look_back_iterations: None,
                histogram_groups: 1024,
                peer_tables,
                rts_tiles_keys: &[(256, 32), (512, 8), (256, 16), (256, 8)],
                rts_tiles_pairs: &[(256, 16), (256, 8)],
                rts_groups: 2048,
                rts_unrolled: true,
                runs_shape: (256, 8),
            }
        }
    }
}
