//! The sorts' kernels, their shapes per adapter, and the recording of the passes.

use bytemuck::{Pod, Zeroable};

use super::{Sort, SortAlgorithm, SortKey, check_bits};
use crate::context::Ctx;
use crate::dispatch::{Chunk, chunks, units_per_window, workgroup_grid};
use crate::error::{Error, Limit, Result};
use crate::ops::copy::record_copy;
use crate::pipeline::{Kernel, PipelineKey, render};
use crate::record::{Res, Work};
use crate::vec::{GpuVec, LANES};
use crate::view::{View, units_wgsl};
use std::sync::Arc;

const KEYS_WGSL: &str = include_str!("../../../wgsl/sort_keys.wgsl");
const SUBGROUP_WGSL: &str = include_str!("../../../wgsl/sort_subgroup.wgsl");
const HISTOGRAM_WGSL: &str = include_str!("../../../wgsl/sort_histogram.wgsl");
const ONESWEEP_WGSL: &str = include_str!("../../../wgsl/sort_onesweep.wgsl");
const RTS_WGSL: &str = include_str!("../../../wgsl/sort_rts.wgsl");

/// Digits per pass (8 bits each).
const RADIX: u32 = 256;

/// OneSweep's status words hold a 30-bit count.
pub(crate) const ONESWEEP_MAX_KEYS: u64 = (1 << 30) - 1;

/// OneSweep's digit-pass tiles on GPUs, best first: invocations per workgroup and keys
/// per invocation; the first the adapter's limits allow is taken (1024 x 11 needs 47 KiB
/// of workgroup memory with subgroups of 32). Larger tiles are faster, since each tile
/// has a fixed cost that more keys share; the order is the measured one
/// (docs/PERFORMANCE.md, its history in docs/perf-journal.md; `lab/src/bin/sort_lab.rs`
/// with `GP_SORT_TILE`).
const ONESWEEP_TILES_GPU: [(u32, u32); 4] = [(1024, 11), (1024, 8), (512, 15), (256, 12)];
/// On CPU adapters: small tiles, so the tests reach many tiles and the look-back.
const ONESWEEP_TILE_CPU: (u32, u32) = (128, 8);
/// Probes of a predecessor's status before the look-back counts that tile itself.
const SPIN: u32 = 64;
/// On CPU adapters: fewer probes (see `dispatch_tiles`).
const SPIN_CPU: u32 = 8;
/// The loop iterations an invocation of the digit pass may spend looking back on a CPU
/// adapter (see `dispatch_tiles`): a quarter of llvmpipe's 65535.
const LOOK_BACK_ITERATIONS_CPU: u64 = 16384;
/// Words of a subgroup's peer table (`PEER_TABLES`): one per value of a digit's low
/// seven bits.
const PEER_TABLE_WORDS: u32 = 128;
/// The histogram pass: invocations per workgroup; at least 2048 vec4 units (8192 keys)
/// per workgroup and at most 1024 workgroups on a GPU (about one wave on a large GPU:
/// each workgroup adds its counts to the global histograms with up to 1024 atomics), 16 on a
/// CPU adapter. Untuned.
const HISTOGRAM_WG: u32 = 256;
const HISTOGRAM_UNITS_PER_GROUP: u64 = 2048;
const HISTOGRAM_GROUPS_GPU: u64 = 1024;
const HISTOGRAM_GROUPS_CPU: u64 = 16;
/// The most vec4 units an invocation of the histogram pass counts: each takes about 30
/// loop iterations where a compiler does not unroll, and llvmpipe ends every loop after
/// 65535 in all (`dispatch_tiles`).
const HISTOGRAM_UNITS_PER_INVOCATION: u64 = 512;

/// Reduce-then-scan tiles (TILE < 65536: the split's 16-bit counters).
const RTS_TILE_GPU: (u32, u32) = (256, 8);
const RTS_TILE_CPU: (u32, u32) = (128, 8);
/// Reduce-then-scan workgroups per pass (each owns a contiguous range of tiles): the
/// counts to scan are 256 per workgroup.
const RTS_GROUPS_GPU: u64 = 2048;
const RTS_GROUPS_CPU: u64 = 16;

/// `PassParams` in `wgsl/sort_onesweep.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct PassParams {
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
    _pad: [u32; 2],
}

/// `HistParams` in `wgsl/sort_histogram.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct HistParams {
    n: u32,
    units: u32,
    passes: u32,
    key_xor: u32,
    neg_mask: u32,
    _pad: [u32; 3],
    shifts: [u32; 4],
    masks: [u32; 4],
}

/// `RtsParams` in `wgsl/sort_rts.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct RtsParams {
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

/// What moves with the keys.
pub(super) enum Values<'a> {
    None,
    /// Values sorted in place along with the keys.
    InPlace(View<'a>),
    /// The keys' indices, written here (argsort).
    Indices(View<'a>),
}

/// The vectors of one sort, each exactly `n` elements of 4 bytes (gpuprim's padded
/// vectors or views of an application's buffer). When not `keys_writable` the keys are
/// only read (argsort).
pub(super) struct Buffers<'a> {
    pub(super) keys: View<'a>,
    pub(super) keys_writable: bool,
    pub(super) values: Values<'a>,
}

/// A checked sort: its length, key words, digit passes, algorithm and binding windows.
pub(super) struct Plan {
    op: &'static str,
    n: u64,
    key_xor: u32,
    neg_mask: u32,
    /// (shift, mask) of each digit pass, least significant first.
    passes: Vec<(u32, u32)>,
    algorithm: SortAlgorithm,
    spin: u32,
    peers: Peers,
    tile: Option<(u32, u32)>,
    /// The binding windows every vector is cut into: a pass reads each input window and
    /// writes each output window in a dispatch of its own.
    windows: Vec<Window>,
}

/// One binding window of the keys (and of every other vector of `n` 4-byte elements).
#[derive(Clone, Copy, Debug)]
struct Window {
    /// Its first element.
    first: u64,
    /// Its elements.
    len: u64,
    /// Its vec4 units (`len` rounded up), as [`View::window`] cuts them.
    chunk: Chunk,
}

impl Plan {
    /// Checks a sort of `n` keys of type `K` with `sort`'s options on `ctx`, and picks
    /// the algorithm.
    pub(super) fn new<K: SortKey>(
        ctx: &Ctx,
        op: &'static str,
        n: usize,
        sort: &Sort,
    ) -> Result<Plan> {
        check_bits(op, &sort.bits)?;
        let n = n as u64;
        let (start, end) = (sort.bits.start, sort.bits.end);
        let passes = if start == end {
            // No bits: one pass with every digit 0 keeps the order (and writes argsort's
            // indices).
            vec![(0, 0)]
        } else {
            (start..end)
                .step_by(8)
                .map(|shift| (shift, (1u32 << (end - shift).min(8)) - 1))
                .collect()
        };
        let windows: Vec<Window> = chunks(
            n.div_ceil(LANES as u64),
            units_per_window(ctx, &[4 * LANES as u64]),
        )
        .map(|c| {
            let first = c.offset_units * LANES as u64;
            Window {
                first,
                len: (n - first).min(c.units * LANES as u64),
                chunk: c,
            }
        })
        .collect();
        let max_binding = ctx.info().max_binding_bytes;
        let tile = sort.tile;
        // Why OneSweep cannot sort this here, if it cannot.
        let onesweep = || -> Result<()> {
            ctx.require(wgpu::Features::SUBGROUP, || {
                format!("`{op}` with SortAlgorithm::OneSweep")
            })?;
            let shape = onesweep_shape(ctx, tile)
                .map_err(|message| Error::InvalidArgument { op, message })?;
            if n > ONESWEEP_MAX_KEYS {
                return Err(Error::TooLarge {
                    what: format!(
                        "`{op}` with SortAlgorithm::OneSweep (its tile counts have 30 bits; \
                         Auto and ReduceThenScan sort more)"
                    ),
                    kind: Limit::Elements,
                    requested: n,
                    limit: ONESWEEP_MAX_KEYS,
                });
            }
            let status = status_bytes(&windows, shape.tile());
            if status > max_binding {
                return Err(Error::TooLarge {
                    what: format!(
                        "the tile statuses of `{op}` with SortAlgorithm::OneSweep over {n} keys \
                         (1 KiB per tile of {} keys, in one storage binding)",
                        shape.tile()
                    ),
                    kind: Limit::BindingBytes,
                    requested: status,
                    limit: max_binding,
                });
            }
            Ok(())
        };
        let algorithm = match sort.algorithm {
            SortAlgorithm::Auto if onesweep().is_ok() => SortAlgorithm::OneSweep,
            SortAlgorithm::Auto => SortAlgorithm::ReduceThenScan,
            SortAlgorithm::OneSweep => {
                onesweep()?;
                SortAlgorithm::OneSweep
            }
            other => other,
        };
        if algorithm == SortAlgorithm::ReduceThenScan {
            let shape =
                rts_shape(ctx, tile).map_err(|message| Error::InvalidArgument { op, message })?;
            let counts = 4 * u64::from(RADIX) * rts_groups(ctx, &windows, &shape).1;
            if counts > max_binding {
                return Err(Error::TooLarge {
                    what: format!(
                        "the digit counts of `{op}` over {n} keys in {} binding windows (1 KiB \
                         per workgroup, in one storage binding)",
                        windows.len()
                    ),
                    kind: Limit::BindingBytes,
                    requested: counts,
                    limit: max_binding,
                });
            }
        }
        Ok(Plan {
            op,
            n,
            key_xor: K::KEY_XOR ^ if sort.descending { u32::MAX } else { 0 },
            neg_mask: K::NEG_MASK,
            passes,
            algorithm,
            spin: sort.spin.unwrap_or(match ctx.info().device_type {
                wgpu::DeviceType::Cpu => SPIN_CPU,
                _ => SPIN,
            }),
            peers: sort.peers,
            tile,
            windows,
        })
    }
    /// Records the sort and queues it (or keeps it for [`Ctx::record`]'s encoder).
    pub(super) fn run(&self, ctx: &Ctx, buffers: Buffers<'_>) -> Result<()> {
        if self.n == 0 {
            return Ok(());
        }
        let mut work = Work::new(ctx, self.op);
        let scratch = self.scratch(&mut work, ctx, &buffers)?;
        let routes = self.routes(&buffers, &scratch);
        match self.algorithm {
            SortAlgorithm::ReduceThenScan => self.record_rts(&mut work, ctx, &routes, &scratch)?,
            _ => self.record_onesweep(&mut work, ctx, &buffers.keys, &routes, &scratch)?,
        }
        // An odd number of passes leaves an in-place sort in the scratch buffers.
        let last = routes.last().expect("at least one pass");
        if buffers.keys_writable && self.passes.len() % 2 == 1 {
            let keys_out = last.keys_out.as_ref().expect("in-place passes write keys");
            record_copy(&mut work, keys_out, &buffers.keys)?;
            if let (Values::InPlace(v), Some(out)) = (&buffers.values, &last.values_out) {
                record_copy(&mut work, out, v)?;
            }
        }
        work.submit()
    }

    fn padded_bytes(&self) -> u64 {
        self.n.next_multiple_of(LANES as u64) * 4
    }

    /// The scratch buffers the passes ping-pong through, kept by `work`. The large ones
    /// are kept by the context for the next sort of the same size ([`Ctx::scratch_kept`]).
    fn scratch(&self, work: &mut Work, ctx: &Ctx, buffers: &Buffers<'_>) -> Result<ScratchBuffers> {
        let p = self.passes.len();
        let bytes = self.padded_bytes();
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let mut make = |what: &str, bytes: u64| -> Result<_> {
            Ok(work.keep(ctx.scratch_kept(what, bytes, usage)?))
        };
        let argsort = !buffers.keys_writable;
        Ok(ScratchBuffers {
            // argsort writes keys in every pass but the last
            keys: if !argsort || p >= 2 {
                Some(make("sort keys (scratch)", bytes)?)
            } else {
                None
            },
            keys2: if argsort && p >= 3 {
                Some(make("argsort keys (scratch)", bytes)?)
            } else {
                None
            },
            // argsort's last pass binds an output for keys it does not write
            unused: if argsort {
                Some(make("argsort keys (not written)", 256)?)
            } else {
                None
            },
            values: match buffers.values {
                Values::InPlace(_) => Some(make("sort values (scratch)", bytes)?),
                Values::Indices(_) if p >= 2 => Some(make("argsort indices (scratch)", bytes)?),
                _ => None,
            },
        })
    }

    /// Each pass's input and output vectors.
    fn routes<'a>(&self, buffers: &Buffers<'a>, scratch: &'a ScratchBuffers) -> Vec<Route<'a>> {
        let p = self.passes.len();
        let keys = buffers.keys;
        let mut routes = Vec::with_capacity(p);
        for i in 0..p {
            let (keys_in, keys_out) = if buffers.keys_writable {
                let alt = over(
                    &keys,
                    scratch.keys.as_ref().expect("allocated for in-place sorts"),
                );
                if i % 2 == 0 {
                    (keys, Some(alt))
                } else {
                    (alt, Some(keys))
                }
            } else {
                // argsort: the input is only read; passes alternate between two scratch
                // buffers, and the last writes no keys.
                let alt = |j: usize| {
                    let b = if j.is_multiple_of(2) {
                        &scratch.keys
                    } else {
                        &scratch.keys2
                    };
                    over(
                        &keys,
                        b.as_ref()
                            .expect("allocated for the passes that write keys"),
                    )
                };
                let keys_in = if i == 0 { keys } else { alt(i - 1) };
                let keys_out = (i + 1 < p).then(|| alt(i));
                (keys_in, keys_out)
            };
            let (values_in, values_out, indices) = match &buffers.values {
                Values::None => (None, None, false),
                Values::InPlace(v) => {
                    let alt = over(v, scratch.values.as_ref().expect("allocated for pairs"));
                    if i % 2 == 0 {
                        (Some(*v), Some(alt), false)
                    } else {
                        (Some(alt), Some(*v), false)
                    }
                }
                Values::Indices(out) => {
                    // The last pass writes `out`; passes before alternate with scratch.
                    let dst = |j: usize| {
                        if (p - 1 - j).is_multiple_of(2) {
                            *out
                        } else {
                            over(
                                out,
                                scratch.values.as_ref().expect("allocated for 2+ passes"),
                            )
                        }
                    };
                    // The first pass makes the indices: its values input is never read.
                    let src = if i == 0 { keys } else { dst(i - 1) };
                    (Some(src), Some(dst(i)), i == 0)
                }
            };
            routes.push(Route {
                keys_in,
                keys_out,
                values_in,
                values_out,
                indices,
            });
        }
        routes
    }

    fn record_onesweep(
        &self,
        work: &mut Work,
        ctx: &Ctx,
        keys: &View<'_>,
        routes: &[Route<'_>],
        scratch: &ScratchBuffers,
    ) -> Result<()> {
        let pairs = routes[0].values_in.is_some();
        let op = self.op;
        let shape = onesweep_shape(ctx, self.tile)
            .map_err(|message| Error::InvalidArgument { op, message })?;
        let kernels = onesweep_kernels(ctx, &shape, (self.spin, self.peers), pairs, keys.vec4())?;
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
        let hist_cap = match ctx.info().device_type {
            wgpu::DeviceType::Cpu => HISTOGRAM_GROUPS_CPU,
            _ => HISTOGRAM_GROUPS_GPU,
        };
        // (at most HISTOGRAM_UNITS_PER_INVOCATION units an invocation: llvmpipe's loop limit,
        // see `dispatch_tiles`)
        let hist_wg = u64::from(histogram_wg(ctx, &shape));
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

    fn record_rts(
        &self,
        work: &mut Work,
        ctx: &Ctx,
        routes: &[Route<'_>],
        scratch: &ScratchBuffers,
    ) -> Result<()> {
        let pairs = routes[0].values_in.is_some();
        let op = self.op;
        let shape =
            rts_shape(ctx, self.tile).map_err(|message| Error::InvalidArgument { op, message })?;
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

/// Bytes of one pass's tile statuses: a word per digit per tile, over every window.
fn status_bytes(windows: &[Window], tile: u32) -> u64 {
    let tiles: u64 = windows
        .iter()
        .map(|w| w.len.div_ceil(u64::from(tile)))
        .sum();
    tiles * u64::from(RADIX) * 4
}

/// Reduce-then-scan's workgroups in one window.
struct RtsGroups {
    tiles: u64,
    per_group: u64,
    groups: u64,
    /// The window's first workgroup over all windows.
    base: u64,
}

/// Each window's workgroups (each owns a contiguous range of its tiles), and their total.
fn rts_groups(ctx: &Ctx, windows: &[Window], shape: &RtsShape) -> (Vec<RtsGroups>, u64) {
    let cap = match ctx.info().device_type {
        wgpu::DeviceType::Cpu => RTS_GROUPS_CPU,
        _ => RTS_GROUPS_GPU,
    };
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

/// A pass's keys output for output window `w`; argsort's last pass writes no keys and
/// binds a stand-in buffer whole.
fn keys_out(route: &Route<'_>, w: &Window, unused: Option<&wgpu::Buffer>) -> Res {
    match &route.keys_out {
        Some(v) => v.window(&w.chunk),
        None => Res::whole(unused.expect("allocated for argsort")),
    }
}

/// `v`'s shape over `buffer`, a scratch buffer of gpuprim's (offset 0, padded).
fn over<'a>(v: &View<'a>, buffer: &'a wgpu::Buffer) -> View<'a> {
    View {
        buffer,
        offset: 0,
        padded: true,
        count: None,
        ..*v
    }
}

/// The passes' scratch buffers (pooled or kept; the work keeps them until it is queued).
struct ScratchBuffers {
    keys: Option<wgpu::Buffer>,
    keys2: Option<wgpu::Buffer>,
    unused: Option<wgpu::Buffer>,
    values: Option<wgpu::Buffer>,
}

/// One pass's vectors.
struct Route<'a> {
    keys_in: View<'a>,
    /// `None`: no keys are written (argsort's last pass).
    keys_out: Option<View<'a>>,
    values_in: Option<View<'a>>,
    values_out: Option<View<'a>>,
    /// The values are the keys' indices (argsort's first pass).
    indices: bool,
}

/// How the digit pass finds a row's peers, the lanes of the subgroup with the same digit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Peers {
    /// Tables in workgroup memory where `peer_tables` allows them, else ballots.
    Auto,
    /// Eight ballots a row (one-word masks where subgroups have at most 32 lanes). `Auto`
    /// takes this form inside the kernel; only the `internals` hook forces it.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    Ballots,
    /// Eight ballots a row in four-word masks, as for subgroups of more than 32 lanes.
    FourWordBallots,
}

/// Whether the digit pass may find peers through its workgroup-memory tables
/// (`PEER_TABLES`): one-word masks, `subgroupBarrier`, and an adapter where that barrier
/// is known to keep the subgroup's workgroup-memory atomics in order. naga writes it for
/// Vulkan as a subgroup control barrier whose memory semantics (SubgroupMemory) Vulkan
/// ignores, so there the tables rest on the hardware keeping a converged subgroup's
/// workgroup-memory operations in order: used where that is checked, NVIDIA (CUB's
/// `__syncwarp` ranking relies on the same; `tests/sort.rs` on an NVIDIA GPU) and CPU devices
/// (lavapipe runs a subgroup in one thread; CI). For DX12 naga writes nothing; Metal's
/// `simdgroup_barrier` would order them but is not measured, so both keep the ballots.
fn peer_tables(ctx: &Ctx) -> bool {
    let info = ctx.info();
    ctx.has_features(wgpu::Features::SUBGROUP_BARRIER)
        && info.backend == wgpu::Backend::Vulkan
        && (info.vendor == 0x10de || info.device_type == wgpu::DeviceType::Cpu)
}

/// The histogram pass's workgroup size.
fn histogram_wg(ctx: &Ctx, shape: &OneSweepShape) -> u32 {
    crate::dispatch::pow2_workgroup_size(ctx, HISTOGRAM_WG).max(shape.sg_max)
}

/// The most tiles one dispatch of a digit pass may have on `ctx`'s adapter.
///
/// llvmpipe (lavapipe, Mesa's CPU device) ends every loop of a kernel once the loops of
/// an invocation have run 65535 iterations in all, silently. A tile whose predecessors
/// have published nothing counts them itself, one per round of `look_back`, and each
/// round probes every open digit again; lavapipe hands each of its threads a
/// contiguous run of tiles, so the first tile of a run has as many such predecessors
/// as there are tiles before it, and 2^22 keys were sorted wrong. A tile of an earlier
/// dispatch is complete (one probe finds its inclusive prefix), so on CPU adapters each
/// dispatch has only as many tiles as keep a look-back's rounds (each at most DPT x
/// (probes + 3) + KPT iterations) within `LOOK_BACK_ITERATIONS_CPU`. GPUs keep one
/// dispatch a binding window.
fn dispatch_tiles(ctx: &Ctx, shape: &OneSweepShape, spin: u32) -> u64 {
    if ctx.info().device_type != wgpu::DeviceType::Cpu {
        return u64::MAX;
    }
    let round = u64::from(shape.dpt()) * (u64::from(spin.max(1)) + 3) + u64::from(shape.kpt);
    (LOOK_BACK_ITERATIONS_CPU / round).max(1)
}

/// OneSweep's shape on an adapter.
pub(crate) struct OneSweepShape {
    wg: u32,
    kpt: u32,
    sg_min: u32,
    sg_max: u32,
    /// The staged tile has an array of its own (see `stage_apart`).
    apart: bool,
}

impl OneSweepShape {
    fn tile(&self) -> u32 {
        self.wg * self.kpt
    }
    fn max_subgroups(&self) -> u32 {
        self.wg / self.sg_min
    }
    /// Digits an invocation of the digit pass owns (`DPT`).
    fn dpt(&self) -> u32 {
        RADIX.div_ceil(self.wg)
    }
    /// Words of the subgroups' digit counters and, where masks can be one word, their
    /// peer tables (`PEER_TABLES`).
    fn counter_words(&self) -> u32 {
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
    fn staging_words(&self, apart: bool) -> u32 {
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
pub(crate) fn onesweep_shape(
    ctx: &Ctx,
    tile: Option<(u32, u32)>,
) -> std::result::Result<OneSweepShape, String> {
    let info = ctx.info();
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
            let candidates: &[(u32, u32)] = match info.device_type {
                wgpu::DeviceType::Cpu => &[ONESWEEP_TILE_CPU],
                _ => &ONESWEEP_TILES_GPU,
            };
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

struct OneSweepKernels {
    histogram: Arc<Kernel>,
    scan: Arc<Kernel>,
    pass: Arc<Kernel>,
}

/// `{{MASK}}` in `wgsl/sort_onesweep.wgsl` where subgroups have at most 32 lanes: the
/// ranking's ballots in one word (a quarter of the four-word form's work; ranking is
/// most of a digit pass).
const MASK_ONE_WORD: &str = "\
alias Mask = u32;
fn ballot(b: bool) -> Mask { return subgroupBallot(b).x; }
fn lanes_below(lane: u32) -> Mask { return (1u << lane) - 1u; }
fn bit_count(m: Mask) -> u32 { return countOneBits(m); }
// (bit 31 set: an empty mask gives a lane in range)
fn lowest_lane(m: Mask) -> u32 { return firstTrailingBit(m | 0x80000000u); }";

/// `{{MASK}}` for subgroups of up to 128 lanes: four words, those past the adapter's
/// largest subgroup masked off (`{words}`).
fn mask_four_words(sg_max: u32) -> String {
    let words = (0..4)
        .map(|w| if w * 32 < sg_max { "0xffffffffu" } else { "0u" })
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "\
alias Mask = vec4<u32>;
const WORDS: vec4<u32> = vec4<u32>({words});
fn ballot(b: bool) -> Mask {{ return subgroupBallot(b) & WORDS; }}
fn lanes_below(lane: u32) -> Mask {{
    var m = vec4<u32>(0u);
    for (var w = 0u; w < 4u; w++) {{
        let low = w * 32u;
        if lane >= low + 32u {{
            m[w] = 0xffffffffu;
        }} else if lane > low {{
            m[w] = (1u << (lane - low)) - 1u;
        }}
    }}
    return m & WORDS;
}}
fn bit_count(m: Mask) -> u32 {{
    let c = countOneBits(m & WORDS);
    return c.x + c.y + c.z + c.w;
}}
fn lowest_lane(m: Mask) -> u32 {{
    let w = m & WORDS;
    for (var i = 0u; i < 4u; i++) {{
        if w[i] != 0u {{
            return i * 32u + firstTrailingBit(w[i]);
        }}
    }}
    return 0u;
}}"
    )
}

fn onesweep_kernels(
    ctx: &Ctx,
    shape: &OneSweepShape,
    (spin, peers): (u32, Peers),
    pairs: bool,
    keys_vec4: bool,
) -> Result<OneSweepKernels> {
    let hist_wg = histogram_wg(ctx, shape);
    let hist_subgroups = hist_wg / shape.sg_min;
    // A workgroup's subgroups where the adapter has one subgroup size, else 0
    // (`subgroup_count` in wgsl/sort_subgroup.wgsl).
    let one_size = |wg: u32| {
        if shape.sg_min == shape.sg_max {
            wg / shape.sg_min
        } else {
            0
        }
    };
    // The histogram reads the caller's keys as vec4 units: scalar loads where they are a
    // borrowed vector of a length that is not a multiple of 4. (WGSL text is built only
    // when a kernel is not cached yet.)
    let hist_vars = || {
        vec![
            ("KEYS_DECL", units_wgsl("keys", 1, "u32", false, keys_vec4)),
            ("WG", hist_wg.to_string()),
            ("DPT", RADIX.div_ceil(hist_wg).to_string()),
            ("MAX_SUBGROUPS", hist_subgroups.to_string()),
            ("SUBGROUPS", one_size(hist_wg).to_string()),
            ("KEYS", KEYS_WGSL.to_string()),
            ("IDS", SUBGROUP_WGSL.to_string()),
        ]
    };
    let hist_key = PipelineKey {
        op: "sort_histogram",
        element: "u32",
        workgroup_size: hist_wg,
        variant: format!(
            "sg{}+{}",
            shape.sg_min,
            if keys_vec4 { "vec4" } else { "scalar" }
        ),
        code: String::new(),
    };
    let histogram = ctx.kernel_entry(hist_key.clone(), "histogram", || {
        render(HISTOGRAM_WGSL, &hist_vars())
    })?;
    let scan = ctx.kernel_entry(hist_key, "scan_histogram", || {
        render(HISTOGRAM_WGSL, &hist_vars())
    })?;
    let (value_bindings, values) = if pairs {
        (ONESWEEP_VALUE_BINDINGS, ONESWEEP_VALUES)
    } else {
        ("", "")
    };
    let one_word = shape.sg_max <= 32 && peers != Peers::FourWordBallots;
    let tables = one_word && peers == Peers::Auto && peer_tables(ctx);
    let vars = || {
        vec![
            ("WG", shape.wg.to_string()),
            ("KPT", shape.kpt.to_string()),
            ("DPT", shape.dpt().to_string()),
            ("MAX_SUBGROUPS", shape.max_subgroups().to_string()),
            ("SUBGROUPS", one_size(shape.wg).to_string()),
            ("STAGE", stage_wgsl(shape)),
            ("SPIN", spin.to_string()),
            ("LOADS_FIRST", (!pairs).to_string()),
            (
                "MASK",
                if one_word {
                    MASK_ONE_WORD.to_string()
                } else {
                    mask_four_words(shape.sg_max)
                },
            ),
            (
                "TABLE_WORDS",
                if tables {
                    (shape.max_subgroups() * PEER_TABLE_WORDS).to_string()
                } else {
                    "0".to_string()
                },
            ),
            (
                "PEERS",
                if tables { PEER_TABLES } else { PEER_BALLOTS }.to_string(),
            ),
            ("VALUE_BINDINGS", value_bindings.to_string()),
            ("VALUES", values.to_string()),
            ("KEYS", KEYS_WGSL.to_string()),
            ("IDS", SUBGROUP_WGSL.to_string()),
        ]
    };
    let key = PipelineKey {
        op: "sort_onesweep",
        element: "u32",
        workgroup_size: shape.wg,
        variant: format!(
            "{}x{}+sg{}-{}+spin{spin}{}{}{}{}",
            shape.wg,
            shape.kpt,
            shape.sg_min,
            shape.sg_max,
            if shape.apart { "+apart" } else { "" },
            if pairs { "+pairs" } else { "" },
            if one_word { "" } else { "+mask4" },
            if tables { "+tables" } else { "" }
        ),
        code: String::new(),
    };
    // The digit pass writes every word of workgroup memory it reads first (counters and
    // `fallback` cleared, `digit_base` and the stage written before a barrier).
    let pass = ctx.kernel_entry_initialized(key, "onesweep", || render(ONESWEEP_WGSL, &vars()))?;
    Ok(OneSweepKernels {
        histogram,
        scan,
        pass,
    })
}

/// The workgroup arrays of the digit counters and the staged tile (`{{STAGE}}`).
fn stage_wgsl(shape: &OneSweepShape) -> String {
    let counters = shape.counter_words();
    if shape.apart {
        format!(
            "var<workgroup> counts: array<atomic<u32>, {counters}u>;\n\
             var<workgroup> stage: array<u32, TILE>;\n\
             fn stage_store(i: u32, v: u32) {{ stage[i] = v; }}\n\
             fn stage_load(i: u32) -> u32 {{ return stage[i]; }}"
        )
    } else {
        format!(
            "var<workgroup> counts: array<atomic<u32>, {}u>;\n\
             fn stage_store(i: u32, v: u32) {{ atomicStore(&counts[i], v); }}\n\
             fn stage_load(i: u32) -> u32 {{ return atomicLoad(&counts[i]); }}",
            shape.staging_words(false)
        )
    }
}

/// `{{PEERS}}` in `wgsl/sort_onesweep.wgsl`: every row's peers by eight ballots (and
/// one of the valid lanes).
const PEER_BALLOTS: &str = "
    var peers: array<Mask, KPT>;
    for (var k = 0u; k < KPT; k++) {
        peers[k] = peers_of(row_digit(digits[k / 4u], k), row0 + k * ids.width < params.n);
    }";

/// `{{PEERS}}` where `peer_tables` allows (one-word masks): the lanes with the digit's top
/// bit by a ballot, every row first; then those with its low seven bits from the
/// subgroup's table of 128 words in `counts` (after the counters, cleared at the start):
/// each valid lane sets its bit in the word of its digit's low bits, after a subgroup
/// barrier the word holds the row's lanes with those bits, and after a second each lane
/// takes its bit out again. One ballot and three atomics a row instead of nine ballots
/// (nine ballots, or smaller tables with more ballots or barriers, made the sort slower;
/// see docs/perf-journal.md). The 16-bit counters leave room for the larger tables.
///
/// Lanes with one digit set bits in one word, and when a row's digits take only a few
/// values (the top byte of f32 keys in [0, 1)) those atomics queue: a subgroup whose
/// first row has a quarter of its lanes on the first lane's digit takes the ballots for
/// all its rows (tables throughout slowed such keys much more than the check costs
/// uniform keys; see docs/perf-journal.md).
const PEER_TABLES: &str = "
    var peers: array<Mask, KPT>;
    for (var k = 0u; k < KPT; k++) {
        let d = row_digit(digits[k / 4u], k);
        let top = (d & 0x80u) != 0u;
        let votes = ballot(top);
        peers[k] = select(~votes, votes, top);
    }
    let d0 = row_digit(digits[0], 0u);
    if bit_count(ballot(d0 == subgroupBroadcastFirst(d0))) >= max(ids.width / 4u, 2u) {
        // Crowded: the low seven bits by ballots too.
        for (var k = 0u; k < KPT; k++) {
            let d = row_digit(digits[k / 4u], k);
            var m = peers[k] & ballot(row0 + k * ids.width < params.n);
            for (var b = 0u; b < 7u; b++) {
                let one = ((d >> b) & 1u) != 0u;
                let votes = ballot(one);
                m &= select(~votes, votes, one);
            }
            peers[k] = m;
        }
    } else {
        let table = COUNTER_WORDS + ids.subgroup * 128u;
        let bit = 1u << ids.lane;
        for (var k = 0u; k < KPT; k++) {
            let valid = row0 + k * ids.width < params.n;
            let slot = table + (row_digit(digits[k / 4u], k) & 127u);
            if valid {
                atomicOr(&counts[slot], bit);
            }
            subgroupBarrier();
            peers[k] &= atomicLoad(&counts[slot]);
            subgroupBarrier();
            if valid {
                atomicAnd(&counts[slot], ~bit);
            }
        }
    }";

const ONESWEEP_VALUE_BINDINGS: &str = "\
@group(0) @binding(3) var<storage, read> values_in: array<u32>;
@group(0) @binding(4) var<storage, read_write> values_out: array<u32>;";

const ONESWEEP_VALUES: &str = "
    // The values, the same way (the stage's keys are all read: `dst` holds where
    // each goes).
    // Every value is loaded before the first is staged, as the keys were, so no load
    // waits on a store (each load followed by its store was slower for pairs).
    var vals: array<u32, KPT>;
    for (var k = 0u; k < KPT; k++) {
        let i = row0 + k * ids.width;
        vals[k] = params.first + i;
        if i < params.n && params.indices == 0u {
            vals[k] = values_in[i];
        }
    }
    workgroupBarrier();
    for (var k = 0u; k < KPT; k++) {
        if row0 + k * ids.width < params.n {
            stage_store(pos[k], vals[k]);
        }
    }
    workgroupBarrier();
    for (var k = 0u; k < KPT; k++) {
        let j = k * WG + me;
        if j < kept {
            let to = dst[k];
            if to >= params.out_lo && to < params.out_hi {
                values_out[to - params.out_lo] = stage_load(j);
            }
        }
    }";

/// Reduce-then-scan's shape on an adapter.
pub(crate) struct RtsShape {
    wg: u32,
    kpt: u32,
}

pub(crate) fn rts_shape(
    ctx: &Ctx,
    tile: Option<(u32, u32)>,
) -> std::result::Result<RtsShape, String> {
    let info = ctx.info();
    let limits = &info.limits;
    let max_wg = limits
        .max_compute_invocations_per_workgroup
        .min(limits.max_compute_workgroup_size_x);
    let bytes = |wg: u32, kpt: u32| 4 * (2 * wg * kpt + 8 * wg + 3 * RADIX);
    let (wg, kpt) = match tile {
        Some(asked) => asked,
        None => {
            // The default, with the workgroup halved while it is more than the device
            // allows or its tile does not fit workgroup memory (WebGPU's default 16 KiB
            // holds 128 x 8, not 256 x 8).
            let (mut wg, kpt) = match info.device_type {
                wgpu::DeviceType::Cpu => RTS_TILE_CPU,
                _ => RTS_TILE_GPU,
            };
            wg = wg.min(1 << max_wg.max(1).ilog2());
            while wg > 32 && bytes(wg, kpt) > limits.max_compute_workgroup_storage_size {
                wg /= 2;
            }
            (wg, kpt)
        }
    };
    let bytes = bytes(wg, kpt);
    if !wg.is_power_of_two() || wg > max_wg || kpt == 0 || wg * kpt >= 65536 {
        return Err(format!(
            "a reduce-then-scan tile of {wg} x {kpt}: the workgroup must be a power of two up \
             to {max_wg} invocations, the tile under 65536 keys"
        ));
    }
    if bytes > limits.max_compute_workgroup_storage_size {
        return Err(format!(
            "a reduce-then-scan tile of {wg} x {kpt} needs {bytes} bytes of workgroup memory, \
             more than this adapter's {}",
            limits.max_compute_workgroup_storage_size
        ));
    }
    Ok(RtsShape { wg, kpt })
}

struct RtsKernels {
    upsweep: Arc<Kernel>,
    downsweep: Arc<Kernel>,
}

fn rts_kernels(ctx: &Ctx, shape: &RtsShape, pairs: bool) -> Result<RtsKernels> {
    let (value_bindings, values) = if pairs {
        (ONESWEEP_VALUE_BINDINGS, RTS_VALUES)
    } else {
        ("", "")
    };
    let vars = || {
        vec![
            ("WG", shape.wg.to_string()),
            ("KPT", shape.kpt.to_string()),
            ("VALUE_BINDINGS", value_bindings.to_string()),
            ("VALUES", values.to_string()),
            ("KEYS", KEYS_WGSL.to_string()),
        ]
    };
    let key = PipelineKey {
        op: "sort_rts",
        element: "u32",
        workgroup_size: shape.wg,
        variant: format!(
            "{}x{}{}",
            shape.wg,
            shape.kpt,
            if pairs { "+pairs" } else { "" }
        ),
        code: String::new(),
    };
    let source = || render(RTS_WGSL, &vars());
    Ok(RtsKernels {
        upsweep: ctx.kernel_entry(key.clone(), "upsweep", source)?,
        downsweep: ctx.kernel_entry(key, "downsweep", source)?,
    })
}

const RTS_VALUES: &str = "\
                    let origin = base + tile_origin[p];
                    var v = params.first + origin;
                    if params.indices == 0u {
                        v = values_in[origin];
                    }
                    values_out[to - params.out_lo] = v;";
