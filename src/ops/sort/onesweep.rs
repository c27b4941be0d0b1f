//! OneSweep: its tile shape on an adapter and the recording of its passes. One pass
//! counts every digit pass's histogram, a second scans them, then each digit pass ranks
//! its tiles and finds their output positions by a decoupled look-back over the tiles
//! before (see `wgsl/sort_onesweep.wgsl`). Its kernels are in `kernels.rs`.

use super::tuning::SortTuning;
use std::sync::Arc;

use bytemuck::{Pod, Zeroable};

use super::engine::{Peers, Plan, RADIX, Route, ScratchBuffers, Window, keys_out, pow2_workgroup};
use super::kernels::{SortHistogramKernel, SortOneSweepKernel};
use crate::error::{Error, Result};
use crate::runtime::cache::Pipeline;
use crate::runtime::context::{Ctx, Info};
use crate::runtime::dispatch::workgroup_grid;
use crate::runtime::record::{Res, Work};
use crate::runtime::view::View;

/// OneSweep's status words hold a 30-bit count.
pub(super) const ONESWEEP_MAX_KEYS: u64 = (1 << 30) - 1;

/// Words of a subgroup's peer table (`PEER_TABLES`): one per value of a digit's low
/// seven bits.
pub(super) const PEER_TABLE_WORDS: u32 = 128;
/// The histogram pass: invocations per workgroup and at least 2048 vec4 units (8192
/// keys) per workgroup (at most [`SortTuning::histogram_groups`] workgroups). Untuned.
const HISTOGRAM_WG: u32 = 256;
const HISTOGRAM_UNITS_PER_GROUP: u64 = 2048;
/// The most vec4 units an invocation of the histogram pass counts: each takes about 30
/// loop iterations where a compiler does not unroll, and llvmpipe ends every loop after
/// 65535 in all (`dispatch_tiles`).
const HISTOGRAM_UNITS_PER_INVOCATION: u64 = 512;

/// `PassParams` in `wgsl/sort_onesweep.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct PassParams {
    n: u32,
    tiles: u32,
    tile_base: u32,
    first: u32,
    shift: u32,
    mask: u32,
    key_xor: u32,
    neg_mask: u32,
    pass_index: u32,
    indices: u32,
    write_keys: u32,
    out_lo: u32,
    out_hi: u32,
    window_base: u32,
    _pad1: u32,
    _pad2: u32,
}

/// `HistParams` in `wgsl/sort_histogram.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct HistParams {
    n: u32,
    units: u32,
    passes: u32,
    key_xor: u32,
    neg_mask: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    shifts: [u32; 4],
    masks: [u32; 4],
}

impl Plan {
    /// Records the histogram passes and every digit pass into `work`.
    pub(super) fn record_onesweep(
        &self,
        work: &mut Work,
        ctx: &Ctx,
        keys: &View<'_>,
        routes: &[Route<'_>],
        scratch: &ScratchBuffers,
    ) -> Result<()> {
        let pairs = routes[0].values_in.is_some();
        let op = self.op;
        let shape = onesweep_shape(ctx.info(), self.tile)
            .map_err(|message| Error::InvalidArgument { op, message })?;
        let kernels = kernels(ctx, &shape, (self.spin, self.peers), pairs, keys.vec4())?;
        let tile = u64::from(shape.tile());
        let windows = &self.windows;
        let passes = self.passes.len() as u64;
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let hist_bytes = passes * u64::from(RADIX) * 4;
        let hist = work.keep(ctx.scratch("sort histograms", hist_bytes, usage)?);
        let status_bytes = status_bytes(windows, shape.tile());
        let status =
            work.keep(ctx.scratch_kept("sort tile status", status_bytes * passes, usage)?);
        let unused = scratch.unused.as_ref();
        work.clear(&hist, 0, Some(hist_bytes));
        work.clear(&status, 0, Some(status_bytes * passes));

        let mut shifts = [0u32; 4];
        let mut masks = [0u32; 4];
        for (i, &(s, m)) in self.passes.iter().enumerate() {
            shifts[i] = s;
            masks[i] = m;
        }
        let max_dim = ctx.info().max_workgroups_per_dimension;
        let hist_cap = SortTuning::of(ctx.info()).histogram_groups;
        // (at most HISTOGRAM_UNITS_PER_INVOCATION units an invocation: llvmpipe's loop limit,
        // see `dispatch_tiles`)
        let hist_wg = u64::from(histogram_wg(ctx.info(), &shape));
        for w in windows {
            let groups = w
                .chunk
                .units
                .div_ceil(HISTOGRAM_UNITS_PER_GROUP)
                .clamp(1, hist_cap)
                .max(
                    w.chunk
                        .units
                        .div_ceil(hist_wg * HISTOGRAM_UNITS_PER_INVOCATION),
                );
            let block = work.params(&HistParams {
                n: w.len as u32,
                units: w.chunk.units as u32,
                passes: passes as u32,
                key_xor: self.key_xor,
                neg_mask: self.neg_mask,
                shifts,
                masks,
                ..Default::default()
            });
            work.dispatch(&kernels.histogram, workgroup_grid(groups, max_dim)?)
                .bind(0, block)
                .bind(1, keys.window(&w.chunk))
                .bind(2, Res::range(&hist, 0, hist_bytes));
        }
        work.dispatch(&kernels.scan, [passes as u32, 1, 1])
            .bind(2, Res::range(&hist, 0, hist_bytes));
        let dispatch_tiles = dispatch_tiles(ctx, &shape, self.spin);
        for (p, (&(shift, mask), route)) in self.passes.iter().zip(routes).enumerate() {
            let mut window_base = 0;
            for wi in windows {
                let window_tiles = wi.len.div_ceil(tile);
                for first_tile in
                    (0..window_tiles).step_by(dispatch_tiles.min(window_tiles).max(1) as usize)
                {
                    let tiles = (window_tiles - first_tile).min(dispatch_tiles);
                    let grid = workgroup_grid(tiles, max_dim)?;
                    for wo in windows {
                        let block = work.params(&PassParams {
                            n: wi.len as u32,
                            tiles: tiles as u32,
                            tile_base: (window_base + first_tile) as u32,
                            window_base: window_base as u32,
                            first: wi.first as u32,
                            shift,
                            mask,
                            key_xor: self.key_xor,
                            neg_mask: self.neg_mask,
                            pass_index: p as u32,
                            indices: u32::from(route.indices),
                            write_keys: u32::from(route.keys_out.is_some()),
                            out_lo: wo.first as u32,
                            out_hi: (wo.first + wo.len) as u32,
                            ..Default::default()
                        });
                        let d = work.dispatch(&kernels.pass, grid);
                        d.bind(0, block)
                            .bind(1, route.keys_in.window(&wi.chunk))
                            .bind(2, keys_out(route, wo, unused))
                            .bind(
                                5,
                                Res::range(&status, p as u64 * status_bytes, status_bytes),
                            )
                            .bind(6, Res::range(&hist, 0, hist_bytes));
                        if pairs {
                            d.bind(3, route.values_in.expect("pairs").window(&wi.chunk))
                                .bind(4, route.values_out.expect("pairs").window(&wo.chunk));
                        }
                    }
                }
                window_base += window_tiles;
            }
        }
        Ok(())
    }
}

/// Bytes of one pass's tile statuses: a word per digit per tile, over every window.
pub(super) fn status_bytes(windows: &[Window], tile: u32) -> u64 {
    let tiles: u64 = windows
        .iter()
        .map(|w| w.len.div_ceil(u64::from(tile)))
        .sum();
    tiles * u64::from(RADIX) * 4
}

/// The histogram pass's workgroup size.
fn histogram_wg(info: &Info, shape: &OneSweepShape) -> u32 {
    pow2_workgroup(info, HISTOGRAM_WG).max(shape.sg_max)
}

/// The most tiles one dispatch of a digit pass may have on `ctx`'s adapter.
///
/// llvmpipe (lavapipe, Mesa's CPU device) ends every loop of a kernel once the loops of
/// an invocation have taken 65535 iterations in all, silently. A tile whose predecessors
/// have published nothing counts them itself, one per round of `look_back`, and each
/// round probes every open digit again; lavapipe hands each of its threads a
/// contiguous run of tiles, so the first tile of a run has as many such predecessors
/// as there are tiles before it, and 2^22 keys were sorted wrong. A tile of an earlier
/// dispatch is complete (one probe finds its inclusive prefix), so on CPU adapters each
/// dispatch has only as many tiles as keep a look-back's rounds (each at most DPT x
/// (probes + 3) + KPT iterations) within [`SortTuning::look_back_iterations`]. GPUs keep one
/// dispatch a binding window.
fn dispatch_tiles(ctx: &Ctx, shape: &OneSweepShape, spin: u32) -> u64 {
    let Some(iterations) = SortTuning::of(ctx.info()).look_back_iterations else {
        return u64::MAX;
    };
    let round = u64::from(shape.dpt()) * (u64::from(spin.max(1)) + 3) + u64::from(shape.kpt);
    (iterations / round).max(1)
}

/// OneSweep's shape on an adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct OneSweepShape {
    pub(super) wg: u32,
    pub(super) kpt: u32,
    pub(super) sg_min: u32,
    pub(super) sg_max: u32,
    /// The staged tile has an array of its own (see `stage_apart`).
    pub(super) apart: bool,
}

impl OneSweepShape {
    pub(super) fn tile(&self) -> u32 {
        self.wg * self.kpt
    }
    pub(super) fn max_subgroups(&self) -> u32 {
        self.wg / self.sg_min
    }
    /// Digits an invocation of the digit pass owns (`DPT`).
    pub(super) fn dpt(&self) -> u32 {
        RADIX.div_ceil(self.wg)
    }
    /// Words of the subgroups' digit counters and, where masks can be one word, their
    /// peer tables (`PEER_TABLES`).
    pub(super) fn counter_words(&self) -> u32 {
        let tables = if self.sg_max <= 32 {
            PEER_TABLE_WORDS
        } else {
            0
        };
        // (two 16-bit counters a word, a word of padding per pair: `STRIDE` in the
        // template)
        (self.max_subgroups() + 1) * RADIX / 2 + self.max_subgroups() * tables
    }
    /// Words of the counters and of the staged tile: apart, or overlapped.
    pub(super) fn staging_words(&self, apart: bool) -> u32 {
        let counters = self.counter_words();
        if apart {
            counters + self.tile()
        } else {
            counters.max(self.tile())
        }
    }
    fn workgroup_bytes(&self, apart: bool) -> u32 {
        4 * (self.staging_words(apart) + 2 * RADIX + self.max_subgroups() + 2)
    }
    /// Whether the staged tile gets an array of its own (plain loads and stores), which
    /// it does where workgroup memory allows.
    fn stage_apart(&self, limit: u32) -> bool {
        self.workgroup_bytes(true) <= limit
    }
}

/// The digit passes' shape on `ctx`'s adapter (with `tile` asked for instead of the
/// default), or why OneSweep cannot run there.
pub(super) fn onesweep_shape(
    info: &Info,
    tile: Option<(u32, u32)>,
) -> std::result::Result<OneSweepShape, String> {
    let sg_min = info.subgroup_min_size.max(1);
    let sg_max = info.subgroup_max_size.max(sg_min);
    if !sg_min.is_power_of_two() || !sg_max.is_power_of_two() || sg_max > 128 {
        return Err(format!(
            "OneSweep needs power-of-two subgroup sizes up to 128; this adapter's are {sg_min}..{sg_max}"
        ));
    }
    let limits = &info.limits;
    let max_wg = limits
        .max_compute_invocations_per_workgroup
        .min(limits.max_compute_workgroup_size_x);
    let (wg, kpt) = match tile {
        Some(asked) => asked,
        None => {
            // The first default that fits; else the last, with the workgroup halved (down
            // to the largest subgroup) while its subgroups' counters do not fit: small
            // subgroups mean many counters.
            let candidates = SortTuning::of(info).onesweep_tiles;
            let bytes = |wg, kpt| {
                let shape = OneSweepShape {
                    wg,
                    kpt,
                    sg_min,
                    sg_max,
                    apart: false,
                };
                shape.workgroup_bytes(false)
            };
            let limit = limits.max_compute_workgroup_storage_size;
            match candidates
                .iter()
                .find(|&&(wg, kpt)| wg <= max_wg && wg >= sg_max && bytes(wg, kpt) <= limit)
            {
                Some(&tile) => tile,
                None => {
                    let (mut wg, kpt) = candidates[candidates.len() - 1];
                    wg = wg.min(1 << max_wg.max(1).ilog2());
                    while wg / 2 >= sg_max && bytes(wg, kpt) > limit {
                        wg /= 2;
                    }
                    (wg, kpt)
                }
            }
        }
    };
    if !wg.is_power_of_two()
        || wg < sg_max
        || wg > max_wg
        || kpt == 0
        || kpt > 64
        || wg * kpt >= 65536
    {
        return Err(format!(
            "a OneSweep tile of {wg} x {kpt}: the workgroup must be a power of two from the \
             largest subgroup ({sg_max}) to {max_wg} invocations, with 1 to 64 keys each \
             and fewer than 65536 in all (its counters have 16 bits)"
        ));
    }
    let shape = OneSweepShape {
        wg,
        kpt,
        sg_min,
        sg_max,
        apart: false,
    };
    let limit = limits.max_compute_workgroup_storage_size;
    if shape.workgroup_bytes(false) > limit {
        return Err(format!(
            "a OneSweep tile of {wg} x {kpt} needs {} bytes of workgroup memory, more than \
             this adapter's {limit}",
            shape.workgroup_bytes(false)
        ));
    }
    Ok(OneSweepShape {
        apart: shape.stage_apart(limit),
        ..shape
    })
}

/// The histogram, its scan and the digit pass.
struct OneSweepKernels {
    histogram: Arc<Pipeline>,
    scan: Arc<Pipeline>,
    pass: Arc<Pipeline>,
}

/// The kernels of a OneSweep sort with `shape` on `ctx`'s adapter.
fn kernels(
    ctx: &Ctx,
    shape: &OneSweepShape,
    spin_peers: (u32, Peers),
    pairs: bool,
    keys_vec4: bool,
) -> Result<OneSweepKernels> {
    let (histogram, pass) = kernel_configs(ctx.info(), shape, spin_peers, pairs, keys_vec4);
    Ok(OneSweepKernels {
        histogram: ctx.pipeline_for(&histogram, "histogram")?,
        scan: ctx.pipeline_for(&histogram, "scan_histogram")?,
        pass: ctx.pipeline_for(&pass, "onesweep")?,
    })
}

/// The configurations of a OneSweep sort's histogram and digit pass with `shape` on an
/// adapter: how the digit pass finds peers follows `peers` and the adapter
/// (`peer_tables`: only with `SUBGROUP_BARRIER`, which WebGPU lacks).
pub(super) fn kernel_configs(
    info: &Info,
    shape: &OneSweepShape,
    (spin, peers): (u32, Peers),
    pairs: bool,
    keys_vec4: bool,
) -> (SortHistogramKernel, SortOneSweepKernel) {
    let histogram = SortHistogramKernel {
        workgroup_size: histogram_wg(info, shape),
        sg_min: shape.sg_min,
        sg_max: shape.sg_max,
        keys_vec4,
    };
    let one_word_masks = shape.sg_max <= 32 && peers != Peers::FourWordBallots;
    let pass = SortOneSweepKernel {
        shape: *shape,
        spin,
        pairs,
        one_word_masks,
        peer_tables: one_word_masks && peers == Peers::Auto && SortTuning::of(info).peer_tables,
    };
    (histogram, pass)
}

/// The tile shapes `tests/sort.rs` asks for (`Sort::tile`), rendered for CPU adapters
/// besides the default.
#[cfg(test)]
const TEST_TILES: [(u32, u32); 6] = [(128, 48), (128, 11), (64, 5), (32, 3), (16, 1), (32, 8)];

/// OneSweep's configurations on `info`'s adapter for the catalog (`ops/catalog.rs`):
/// the default tile (and on CPU adapters the tests' tiles), the adapter's probes and
/// none, every peer form, keys alone and pairs, vec4 and scalar loads. The peer tables
/// need `SUBGROUP_BARRIER`, which WebGPU lacks: always `add_native`.
#[cfg(test)]
pub(super) fn catalog(c: &mut crate::ops::catalog::Catalog, info: &Info, native: bool) {
    if !info.features.contains(wgpu::Features::SUBGROUP) {
        return;
    }
    let cpu = info.device_type == wgpu::DeviceType::Cpu;
    let mut tiles = vec![None];
    if cpu {
        tiles.extend(TEST_TILES.map(Some));
    }
    let spin = SortTuning::of(info).spin;
    for shape in tiles
        .into_iter()
        .filter_map(|t| onesweep_shape(info, t).ok())
    {
        for spin in [spin, 0] {
            for peers in [Peers::Auto, Peers::Ballots, Peers::FourWordBallots] {
                for (pairs, keys_vec4) in [(false, true), (true, false)] {
                    let (histogram, pass) =
                        kernel_configs(info, &shape, (spin, peers), pairs, keys_vec4);
                    c.add_with(&histogram, native);
                    if native || pass.peer_tables {
                        c.add_native(&pass);
                    } else {
                        c.add(&pass);
                    }
                }
            }
        }
    }
}

/// The parameter layouts of the histogram and the digit pass, for the catalog.
#[cfg(test)]
pub(super) fn catalog_layouts(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::layout;
    use crate::runtime::cache::KernelSource;
    let shape = OneSweepShape {
        wg: 128,
        kpt: 8,
        sg_min: 8,
        sg_max: 8,
        apart: true,
    };
    let (histogram, pass) = (
        SortHistogramKernel {
            workgroup_size: 256,
            sg_min: 8,
            sg_max: 8,
            keys_vec4: true,
        },
        SortOneSweepKernel {
            shape,
            spin: 64,
            pairs: true,
            one_word_masks: true,
            peer_tables: false,
        },
    );
    layout!(
        c,
        HistParams,
        "HistParams",
        histogram.wgsl().expect("the histogram renders"),
        [
            n, units, passes, key_xor, neg_mask, _pad0, _pad1, _pad2, shifts, masks
        ]
    );
    layout!(
        c,
        PassParams,
        "PassParams",
        pass.wgsl().expect("the digit pass renders"),
        [
            n,
            tiles,
            tile_base,
            first,
            shift,
            mask,
            key_xor,
            neg_mask,
            pass_index,
            indices,
            write_keys,
            out_lo,
            out_hi,
            window_base,
            _pad1,
            _pad2
        ]
    );
}
