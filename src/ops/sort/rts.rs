//! Reduce-then-scan: its tile shape on an adapter and the recording of its passes. Each
//! digit pass counts every workgroup's digits (`upsweep`), scans the counts with
//! gpuprim's exclusive scan, and scatters each workgroup's keys from its offsets
//! (`downsweep`): no workgroup waits on another, so it runs where OneSweep cannot (no
//! subgroups, or more keys than OneSweep's 30-bit counts). Its kernel is in `kernels.rs`.

use super::tuning::SortTuning;
use std::sync::Arc;

use bytemuck::{Pod, Zeroable};

use super::engine::{Plan, RADIX, Route, ScratchBuffers, Window, keys_out};
use super::kernels::{RtsKnockout, SortRtsKernel, rts_origin_words};
use crate::error::{Error, Result};
use crate::runtime::cache::Pipeline;
use crate::runtime::context::{Ctx, Info};
use crate::runtime::dispatch::workgroup_grid;
use crate::runtime::record::Work;
use crate::runtime::vec::{GpuVec, LANES};

/// `RtsParams` in `wgsl/sort_rts.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct RtsParams {
    n: u32,
    tiles: u32,
    tiles_per_group: u32,
    groups: u32,
    group_base: u32,
    total_groups: u32,
    first: u32,
    shift: u32,
    mask: u32,
    key_xor: u32,
    neg_mask: u32,
    indices: u32,
    write_keys: u32,
    out_lo: u32,
    out_hi: u32,
    _pad: u32,
}

impl Plan {
    /// Records every digit pass (upsweep, scan of the counts, downsweep) into `work`.
    pub(super) fn record_rts(
        &self,
        work: &mut Work,
        ctx: &Ctx,
        routes: &[Route<'_>],
        scratch: &ScratchBuffers,
    ) -> Result<()> {
        let pairs = routes[0].values_in.is_some();
        let op = self.op;
        let shape = rts_shape(ctx.info(), self.tile, pairs)
            .map_err(|message| Error::InvalidArgument { op, message })?;
        let kernels = rts_kernels(ctx, &shape, pairs)?;
        let windows = &self.windows;
        let (layout, total_groups) = rts_groups(ctx, windows, &shape);
        // Digit-major counts of every workgroup, and their exclusive scan: each pass
        // writes all of them before reading.
        let len = total_groups as usize * RADIX as usize;
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let bytes = (len.next_multiple_of(LANES) * 4) as u64;
        let counts = GpuVec::<u32>::over_scratch(
            ctx,
            work.keep(ctx.scratch_kept("sort digit counts", bytes, usage)?),
            len,
        );
        let offsets = GpuVec::<u32>::over_scratch(
            ctx,
            work.keep(ctx.scratch_kept("sort digit offsets", bytes, usage)?),
            len,
        );
        let unused = scratch.unused.as_ref();
        let max_dim = ctx.info().max_workgroups_per_dimension;
        for (&(shift, mask), route) in self.passes.iter().zip(routes) {
            // One parameter block per input window and output window.
            let params = |wi: &Window, g: &RtsGroups, wo: &Window| RtsParams {
                n: wi.len as u32,
                tiles: g.tiles as u32,
                tiles_per_group: g.per_group as u32,
                groups: g.groups as u32,
                group_base: g.base as u32,
                total_groups: total_groups as u32,
                first: wi.first as u32,
                shift,
                mask,
                key_xor: self.key_xor,
                neg_mask: self.neg_mask,
                indices: u32::from(route.indices),
                write_keys: u32::from(route.keys_out.is_some()),
                out_lo: wo.first as u32,
                out_hi: (wo.first + wo.len) as u32,
                _pad: 0,
            };
            for (wi, g) in windows.iter().zip(&layout) {
                let block = work.params(&params(wi, g, wi));
                work.dispatch(&kernels.upsweep, workgroup_grid(g.groups, max_dim)?)
                    .bind(0, block)
                    .bind(1, route.keys_in.window(&wi.chunk))
                    .bind(5, counts.whole_binding());
            }
            ctx.record_scan_exclusive(work, &counts, &offsets)?;
            for (wi, g) in windows.iter().zip(&layout) {
                for wo in windows {
                    let block = work.params(&params(wi, g, wo));
                    let d = work.dispatch(&kernels.downsweep, workgroup_grid(g.groups, max_dim)?);
                    d.bind(0, block)
                        .bind(1, route.keys_in.window(&wi.chunk))
                        .bind(2, keys_out(route, wo, unused))
                        .bind(5, offsets.whole_binding());
                    if pairs {
                        d.bind(3, route.values_in.expect("pairs").window(&wi.chunk))
                            .bind(4, route.values_out.expect("pairs").window(&wo.chunk));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Reduce-then-scan's workgroups in one window.
pub(super) struct RtsGroups {
    tiles: u64,
    per_group: u64,
    groups: u64,
    /// The window's first workgroup over all windows.
    base: u64,
}

/// Each window's workgroups (each owns a contiguous range of its tiles), and their total.
pub(super) fn rts_groups(ctx: &Ctx, windows: &[Window], shape: &RtsShape) -> (Vec<RtsGroups>, u64) {
    let cap = SortTuning::of(ctx.info()).rts_groups;
    let tile = u64::from(shape.wg * shape.kpt);
    let mut base = 0;
    let layout = windows
        .iter()
        .map(|w| {
            let tiles = w.len.div_ceil(tile);
            let per_group = tiles.div_ceil(cap.min(tiles).max(1)).max(1);
            let groups = tiles.div_ceil(per_group);
            let g = RtsGroups {
                tiles,
                per_group,
                groups,
                base,
            };
            base += groups;
            g
        })
        .collect();
    (layout, base)
}

/// Reduce-then-scan's shape on an adapter.
pub(super) struct RtsShape {
    wg: u32,
    kpt: u32,
}

pub(super) fn rts_shape(
    info: &Info,
    tile: Option<(u32, u32)>,
    pairs: bool,
) -> std::result::Result<RtsShape, String> {
    let limits = &info.limits;
    let max_wg = limits
        .max_compute_invocations_per_workgroup
        .min(limits.max_compute_workgroup_size_x);
    // The tile's keys (padded) and origins, the split's cells with their padding, its
    // raking totals and blocks, the digits' runs and next positions.
    let bytes = |wg: u32, kpt: u32| {
        let origins = u64::from(rts_origin_words(wg, kpt, pairs));
        let (wg, kpt) = (u64::from(wg), u64::from(kpt));
        4 * (wg * kpt
            + wg * kpt / 32
            + origins
            + 8 * wg
            + wg / 4
            + wg
            + wg / 16
            + 3 * u64::from(RADIX))
    };
    let storage = u64::from(limits.max_compute_workgroup_storage_size);
    let (wg, kpt) = match tile {
        Some(asked) => asked,
        None => {
            // The first default that fits; with the last, the workgroup halved while it
            // is more than the device allows or its tile does not fit workgroup memory
            // (WebGPU's default 16 KiB holds 128 x 8, not 256 x 8).
            let tuning = SortTuning::of(info);
            let tiles = match pairs {
                true => tuning.rts_tiles_pairs,
                false => tuning.rts_tiles_keys,
            };
            let most = 1 << max_wg.max(1).ilog2();
            let fits = |&&(wg, kpt): &&(u32, u32)| wg <= most && bytes(wg, kpt) <= storage;
            match tiles.iter().find(fits) {
                Some(&tile) => tile,
                None => {
                    let (mut wg, kpt) = tiles[tiles.len() - 1];
                    wg = wg.min(most);
                    while wg > 32 && bytes(wg, kpt) > storage {
                        wg /= 2;
                    }
                    (wg, kpt)
                }
            }
        }
    };
    if !wg.is_power_of_two()
        || !(16..=max_wg).contains(&wg)
        || kpt == 0
        || u64::from(wg) * u64::from(kpt) >= 65536
    {
        return Err(format!(
            "a reduce-then-scan tile of {wg} x {kpt}: the workgroup must be a power of two from \
             16 to {max_wg} invocations (the split scans its totals in blocks of 16), the tile \
             under 65536 keys"
        ));
    }
    let bytes = bytes(wg, kpt);
    if bytes > storage {
        return Err(format!(
            "a reduce-then-scan tile of {wg} x {kpt} needs {bytes} bytes of workgroup memory, \
             more than this adapter's {}",
            limits.max_compute_workgroup_storage_size
        ));
    }
    Ok(RtsShape { wg, kpt })
}

/// The counting and the scattering pass.
struct RtsKernels {
    upsweep: Arc<Pipeline>,
    downsweep: Arc<Pipeline>,
}

fn rts_kernels(ctx: &Ctx, shape: &RtsShape, pairs: bool) -> Result<RtsKernels> {
    let knockout = ctx.option::<RtsKnockout>().map_or(0, |k| k.0);
    let config = rts_config(ctx.info(), shape, pairs, knockout);
    Ok(RtsKernels {
        upsweep: ctx.pipeline_for(&config, "upsweep")?,
        downsweep: ctx.pipeline_for(&config, "downsweep")?,
    })
}

/// The configuration of reduce-then-scan's kernels with `shape` on an adapter, with the
/// phases `knockout` left out (0: none; see [`RtsKnockout`]).
pub(super) fn rts_config(
    info: &Info,
    shape: &RtsShape,
    pairs: bool,
    knockout: u32,
) -> SortRtsKernel {
    SortRtsKernel {
        workgroup_size: shape.wg,
        kpt: shape.kpt,
        pairs,
        unrolled: SortTuning::of(info).rts_unrolled,
        knockout,
    }
}

/// The tile shapes `tests/sort.rs` asks for (`Sort::tile`), rendered for CPU adapters
/// besides the default.
#[cfg(test)]
const TEST_TILES: [(u32, u32); 9] = [
    (512, 8),
    (256, 32),
    (256, 16),
    (256, 8),
    (128, 8),
    (64, 32),
    (128, 16),
    (32, 4),
    (16, 1),
];

/// Reduce-then-scan's configurations on `info`'s adapter for the catalog
/// (`ops/catalog.rs`): the default tile (and on CPU adapters the tests' tiles), keys
/// alone and pairs. Any adapter may run it (`SortAlgorithm::ReduceThenScan`).
#[cfg(test)]
pub(super) fn catalog(c: &mut crate::ops::catalog::Catalog, info: &Info, native: bool) {
    let mut tiles = vec![None];
    if info.device_type == wgpu::DeviceType::Cpu {
        tiles.extend(TEST_TILES.map(Some));
    }
    for tile in tiles {
        for pairs in [false, true] {
            if let Ok(shape) = rts_shape(info, tile, pairs) {
                let config = rts_config(info, &shape, pairs, 0);
                c.add_with(&config, native);
            }
        }
    }
}

/// The parameter layout of reduce-then-scan's kernels, for the catalog.
#[cfg(test)]
pub(super) fn catalog_layouts(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::layout;
    use crate::runtime::cache::KernelSource;
    let config = SortRtsKernel {
        workgroup_size: 128,
        kpt: 8,
        pairs: true,
        unrolled: false,
        knockout: 0,
    };
    layout!(
        c,
        RtsParams,
        "RtsParams",
        config.wgsl().expect("reduce-then-scan renders"),
        [
            n,
            tiles,
            tiles_per_group,
            groups,
            group_base,
            total_groups,
            first,
            shift,
            mask,
            key_xor,
            neg_mask,
            indices,
            write_keys,
            out_lo,
            out_hi,
            _pad
        ]
    );
}
