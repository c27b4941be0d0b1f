//! `wgsl/segmented_sort.wgsl`: its configurations, tuning and recording (see the parent
//! module's docs for the two ways).

use bytemuck::{Pod, Zeroable};

use super::tuning::SegmentedSortTuning;
use crate::error::{Error, Limit, Result};
use crate::ops::sort::{RadixKey, Sort, word_masks};
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::context::{Ctx, Info};
use crate::runtime::dispatch::{pow2_workgroup_size_within, workgroup_grid};
use crate::runtime::record::{Grid, Res, Work};

const SEGMENTED_SORT_WGSL: &str = include_str!("../../../wgsl/segmented_sort.wgsl");

/// [`SegmentedSortTuning::merge_items`] on the device `info` describes.
pub(super) fn merge_items(info: &Info) -> u32 {
    SegmentedSortTuning::of(info).merge_items
}

/// The tile and workgroup of a device: the largest power-of-two tile whose slots (8
/// bytes each) fit its workgroup memory, at most [`SegmentedSortTuning::tile`] or
/// `forced`; invocations at most half the slots.
pub(super) fn shape(info: &Info, forced: Option<u32>) -> Result<(u32, u32)> {
    let tuning = SegmentedSortTuning::of(info);
    let storage = info.limits.max_compute_workgroup_storage_size;
    let fits = (storage / 8).max(2);
    let fits = 1u32 << (31 - fits.leading_zeros());
    let tile = match forced {
        Some(t) => {
            if !t.is_power_of_two() || t < 2 || t > fits {
                return Err(Error::InvalidArgument {
                    op: "segmented_sort",
                    message: format!(
                        "a tile of {t} slots: a power of two from 2 to {fits} (8 bytes a slot \
                         in {storage} bytes of workgroup memory)"
                    ),
                });
            }
            t
        }
        None => tuning.tile.min(fits),
    };
    let wg = pow2_workgroup_size_within(&info.limits, tuning.workgroup).min((tile / 2).max(1));
    Ok((tile, wg))
}

/// How the segments are given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Layout {
    /// Segment s is `offsets[s]..offsets[s + 1]`.
    Offsets,
    /// Segment s is `s * pitch..s * pitch + width`.
    Rows,
}

/// What a call writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Output {
    /// The keys, in place.
    Keys,
    /// The keys and the values, in place.
    KeysValues,
    /// The indices within the segments; the keys are only read.
    Indices,
}

/// `wgsl/segmented_sort.wgsl` for one layout, output and shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct SegmentedSortKernel {
    pub(super) layout: Layout,
    pub(super) output: Output,
    pub(super) tile: u32,
    pub(super) workgroup_size: u32,
    /// Places per invocation of a merge level.
    pub(super) merge_items: u32,
    /// rows_main: the radix sort instead of the bitonic network (the workgroup is then
    /// `tile / 16`).
    pub(super) radix: bool,
}

impl SegmentedSortKernel {
    /// The same rows kernel with the radix sort in place of the network.
    pub(super) fn radix_rows(&self) -> SegmentedSortKernel {
        SegmentedSortKernel {
            workgroup_size: self.tile / RADIX_CHUNK,
            radix: true,
            ..self.clone()
        }
    }
}

impl KernelSource for SegmentedSortKernel {
    fn name(&self) -> &'static str {
        "segmented_sort"
    }

    fn wgsl(&self) -> Result<String> {
        let flag = |b: bool| b.to_string();
        // The radix sort's scan: invocations whose totals one of them scans.
        let group = self.workgroup_size.min(16);
        render(
            SEGMENTED_SORT_WGSL,
            &[
                ("TILE", self.tile.to_string()),
                ("TILE_BITS", self.tile.trailing_zeros().to_string()),
                ("WG", self.workgroup_size.to_string()),
                ("ITEMS", self.merge_items.to_string()),
                ("CHUNK", (self.tile / self.workgroup_size).to_string()),
                ("UNROLL", "true".to_string()),
                (
                    "REGISTER_STEPS",
                    register_steps(self.tile / self.workgroup_size),
                ),
                ("WRITE_KEYS", flag(self.output != Output::Indices)),
                ("ARGSORT", flag(self.output == Output::Indices)),
                ("VALUES", flag(self.output == Output::KeysValues)),
                ("OFFSETS", flag(self.layout == Layout::Offsets)),
                ("ROWS", flag(self.layout == Layout::Rows)),
                ("RADIX", flag(self.radix)),
                ("NETWORK", flag(!self.radix)),
                ("DIGITS", "16".to_string()),
                ("GROUP", group.to_string()),
                ("GROUPS", (self.workgroup_size / group).to_string()),
            ],
        )
    }
}

/// `GpSegSortParams` in `wgsl/segmented_sort.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct SegSortParams {
    pub(super) n: u32,
    pub(super) segments: u32,
    pub(super) width: u32,
    pub(super) pitch: u32,
    pub(super) key_xor: u32,
    pub(super) neg_mask: u32,
    pub(super) flip: u32,
    pub(super) mask: u32,
    pub(super) block: u32,
    pub(super) level: u32,
    pub(super) groups: u32,
    pub(super) value_pitch: u32,
    pub(super) grid_x: u32,
    pub(super) grid_y: u32,
    pub(super) grid_z: u32,
    pub(super) levels_max: u32,
    pub(super) finish_x: u32,
    pub(super) finish_y: u32,
    pub(super) finish_z: u32,
    pub(super) _pad: u32,
}

/// One call's buffers, as bindings.
pub(super) struct Bindings {
    /// The keys: `n` words (rows: the grid's span).
    pub(super) keys: Res,
    /// Offsets mode: the offsets.
    pub(super) offsets: Option<Res>,
    /// Indices: where they go.
    pub(super) indices: Option<Res>,
    /// Keys and values: the values (rows: their grid's span) and their bytes to copy.
    pub(super) values: Option<(wgpu::Buffer, u64, u64)>,
}

/// The shape of one call.
pub(super) struct Call {
    pub(super) layout: Layout,
    pub(super) output: Output,
    pub(super) n: u32,
    pub(super) segments: u32,
    /// Rows: width, pitch, and the values' pitch.
    pub(super) width: u32,
    pub(super) pitch: u32,
    pub(super) value_pitch: u32,
}

impl Ctx {
    /// Records a segmented sort of `call` into `work`.
    pub(super) fn record_segmented_sort<K: RadixKey>(
        &self,
        work: &mut Work,
        call: &Call,
        b: Bindings,
        sort: &Sort,
    ) -> Result<()> {
        if call.n == 0 || call.segments == 0 {
            return Ok(());
        }
        let info = self.info();
        let (tile, wg) = shape(info, sort.segment_tile_forced())?;
        let config = SegmentedSortKernel {
            layout: call.layout,
            output: call.output,
            tile,
            workgroup_size: wg,
            merge_items: merge_items(info),
            radix: false,
        };
        let bits = sort.key_bits();
        let width = bits.end - bits.start;
        let mask = if width == 0 {
            0
        } else {
            (u32::MAX >> (32 - width)) << bits.start
        };
        let (key_xor, neg_mask) =
            word_masks::<K>().expect("keys of other forms take the segmented sort of wide.rs");
        let base = SegSortParams {
            n: call.n,
            segments: call.segments,
            width: call.width,
            pitch: call.pitch,
            key_xor,
            neg_mask,
            flip: if sort.is_descending() { u32::MAX } else { 0 },
            mask,
            value_pitch: call.value_pitch,
            ..SegSortParams::default()
        };
        let max_per_dim = info.max_workgroups_per_dimension;
        if call.layout == Layout::Rows && call.width <= tile && !sort.rows_by_tiles_forced() {
            let block = call.width.next_power_of_two();
            let groups = call.segments.div_ceil(tile / block);
            let radix = rows_by_radix(info, tile, block, sort.rows_radix_forced());
            let kernel = if radix {
                self.pipeline_for(&config.radix_rows(), "rows_main")?
            } else {
                self.pipeline_for(&config, "rows_main")?
            };
            let block_params = work.params(&SegSortParams {
                block,
                groups,
                ..base
            });
            let d = work
                .dispatch(&kernel, capped_grid(groups, max_per_dim)?)
                .bind(0, block_params)
                .bind(1, b.keys);
            if let Some(idx) = b.indices {
                d.bind(7, idx);
            }
            if let Some((values, offset, bytes)) = b.values {
                d.bind(8, Res::range(&values, offset, bytes));
            }
            return Ok(());
        }

        // Any segments: tiles, merges, finish.
        let bytes = 4 * u64::from(call.n);
        if bytes > info.max_binding_bytes {
            return Err(Error::TooLarge {
                what: "the segmented sort's scratch (one storage binding of 4 bytes a key)".into(),
                kind: Limit::BindingBytes,
                requested: bytes,
                limit: info.max_binding_bytes,
            });
        }
        let tiles = call.n.div_ceil(tile);
        let levels_max = 32 - (tiles - 1).leading_zeros().min(32);
        let levels_max = if tiles <= 1 { 0 } else { levels_max };
        let storage = wgpu::BufferUsages::STORAGE;
        let mut scratch = |what: &str| -> Result<wgpu::Buffer> {
            Ok(work.keep(self.large_scratch(what, call.n as usize)?))
        };
        let a_w = scratch("segmented sort words")?;
        let a_p = scratch("segmented sort positions")?;
        let (b_w, b_p) = if levels_max > 0 {
            (
                scratch("segmented sort words (merged)")?,
                scratch("segmented sort positions (merged)")?,
            )
        } else {
            (a_w.clone(), a_p.clone())
        };
        let values_copy = match &b.values {
            Some((_, _, vbytes)) => {
                Some(self.large_scratch("segmented sort values (copy)", (*vbytes / 4) as usize)?)
            }
            None => None,
        };
        let values_copy = values_copy.map(|s| work.keep(s));
        if let (Some((values, offset, vbytes)), Some(copy)) = (&b.values, &values_copy) {
            work.copy((values, *offset), (copy, 0), *vbytes);
        }
        let whole = |buf: &wgpu::Buffer| Res::range(buf, 0, bytes);
        let tiles_kernel = self.pipeline_for(&config, "tiles_main")?;
        let tiles_params = work.params(&SegSortParams {
            groups: tiles,
            ..base
        });
        let d = work
            .dispatch(&tiles_kernel, capped_grid(tiles, max_per_dim)?)
            .bind(0, tiles_params)
            .bind(1, b.keys.clone())
            .bind(5, whole(&a_w))
            .bind(6, whole(&a_p));
        if let Some(o) = &b.offsets {
            d.bind(2, o.clone());
        }
        let elements_grid = capped_grid(call.n.div_ceil(wg), max_per_dim)?;
        let finish_kernel = self.pipeline_for(&config, "finish_main")?;
        let finish = |work: &mut Work, grid: Grid, (w, p): (&wgpu::Buffer, &wgpu::Buffer)| {
            let block = work.params(&base);
            let d = work
                .dispatch_grid(&finish_kernel, grid)
                .bind(0, block)
                .bind(4, whole(p));
            if call.output != Output::Indices {
                // The words are read only to write the keys.
                d.bind(1, b.keys.clone()).bind(3, whole(w));
            }
            if let Some(o) = &b.offsets {
                d.bind(2, o.clone());
            }
            if let Some(idx) = &b.indices {
                d.bind(7, idx.clone());
            }
            if let (Some((values, offset, vbytes)), Some(copy)) = (&b.values, &values_copy) {
                d.bind(8, Res::range(values, *offset, *vbytes))
                    .bind(9, Res::range(copy, 0, *vbytes));
            }
        };
        if levels_max == 0 {
            finish(work, Grid::Direct(elements_grid), (&a_w, &a_p));
            return Ok(());
        }

        // The levels: span and grids on the device, then every merge pass indirectly.
        let state_words = 4 + 3 * (levels_max + 2);
        let state = work.keep(self.scratch(
            "segmented sort levels",
            4 * u64::from(state_words),
            storage | wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
        )?);
        work.clear(&state, 0, Some(4 * u64::from(state_words)));
        let state_res = Res::range(&state, 0, 4 * u64::from(state_words));
        let merge_grid = capped_grid(
            call.n.div_ceil(config.merge_items).div_ceil(wg),
            max_per_dim,
        )?;
        let grid_params = SegSortParams {
            grid_x: merge_grid[0],
            grid_y: merge_grid[1],
            grid_z: merge_grid[2],
            levels_max,
            finish_x: elements_grid[0],
            finish_y: elements_grid[1],
            finish_z: elements_grid[2],
            ..base
        };
        let span_kernel = self.pipeline_for(&config, "span_main")?;
        let span_params = work.params(&grid_params);
        let d = work
            .dispatch(
                &span_kernel,
                capped_grid(call.segments.div_ceil(wg), max_per_dim)?,
            )
            .bind(0, span_params)
            .bind(10, state_res.clone());
        if let Some(o) = &b.offsets {
            d.bind(2, o.clone());
        }
        let args_kernel = self.pipeline_for(&config, "args_main")?;
        let args_params = work.params(&grid_params);
        work.dispatch(&args_kernel, [1, 1, 1])
            .bind(0, args_params)
            .bind(10, state_res);
        let merge_kernel = self.pipeline_for(&config, "merge_main")?;
        let mut from = (&a_w, &a_p);
        let mut to = (&b_w, &b_p);
        for level in 0..levels_max {
            let block = work.params(&SegSortParams { level, ..base });
            let d = work
                .dispatch_grid(
                    &merge_kernel,
                    Grid::Indirect(state.clone(), 4 * u64::from(4 + 3 * level)),
                )
                .bind(0, block)
                .bind(3, whole(from.0))
                .bind(4, whole(from.1))
                .bind(5, whole(to.0))
                .bind(6, whole(to.1));
            if let Some(o) = &b.offsets {
                d.bind(2, o.clone());
            }
            std::mem::swap(&mut from, &mut to);
        }
        // After an even number of levels the result is in A, else in B; the grid of
        // the other finishing pass is zero.
        for (parity, bufs) in [(0, (&a_w, &a_p)), (1, (&b_w, &b_p))] {
            let at = 4 * u64::from(4 + 3 * (levels_max + parity));
            finish(work, Grid::Indirect(state.clone(), at), bufs);
        }
        Ok(())
    }
}

/// Slots an invocation of the rows' radix sort holds (its workgroup is `tile / 16`).
const RADIX_CHUNK: u32 = 16;

/// Whether rows in blocks of `block` slots of a `tile` are sorted by the radix sort: by
/// [`SegmentedSortTuning::radix_rows_from`], or as `forced`, where the tile can run it
/// (blocks of at least 16 slots, tiles of 32 to 4096 whose workgroup the adapter has).
pub(super) fn rows_by_radix(info: &Info, tile: u32, block: u32, forced: Option<bool>) -> bool {
    let wg = tile / RADIX_CHUNK;
    let runs = block >= RADIX_CHUNK
        && (32..=4096).contains(&tile)
        && pow2_workgroup_size_within(&info.limits, wg) == wg;
    runs && forced.unwrap_or(block >= SegmentedSortTuning::of(info).radix_rows_from)
}

/// The grid of `groups` workgroups, at most as many as the device dispatches at once (the
/// kernels loop over the rest).
fn capped_grid(groups: u32, max_per_dim: u32) -> Result<[u32; 3]> {
    let most = u64::from(max_per_dim).pow(3);
    workgroup_grid(u64::from(groups).min(most), max_per_dim)
}

/// `{{REGISTER_STEPS}}` of `wgsl/segmented_sort.wgsl` for chunks of `chunk` slots: the
/// bitonic steps whose pairs lie inside one invocation's chunk, written out pair by pair
/// (`gp_mirror_K`: slot m against m ^ (K - 1); `gp_half_J`: slot m against m + J), and
/// `gp_mirror(k, tiles)` / `gp_half(j, tiles)` choosing among them.
fn register_steps(chunk: u32) -> String {
    use std::fmt::Write;
    let ce = |s: &mut String, lo: u32, hi: u32| {
        let _ = writeln!(
            s,
            "    {{ let wl = rw[{lo}]; let bl = rb[{lo}]; let wh = rw[{hi}]; let bh = rb[{hi}]; \
             let sw = before(wh, bh, wl, bl, tiles); rw[{lo}] = select(wl, wh, sw); \
             rb[{lo}] = select(bl, bh, sw); rw[{hi}] = select(wh, wl, sw); rb[{hi}] = select(bh, bl, sw); }}"
        );
    };
    let mut s = String::new();
    let mut mirror = String::from("fn gp_mirror(k: u32, tiles: bool) {\n    switch k {\n");
    let mut half = String::from("fn gp_half(j: u32, tiles: bool) {\n    switch j {\n");
    let mut k = 2;
    while k <= chunk {
        let _ = writeln!(s, "fn gp_mirror_{k}(tiles: bool) {{");
        for m in (0..chunk).filter(|m| m & (k / 2) == 0) {
            ce(&mut s, m, m ^ (k - 1));
        }
        s.push_str("}\n");
        let _ = writeln!(mirror, "        case {k}u: {{ gp_mirror_{k}(tiles); }}");
        k *= 2;
    }
    let mut j = 1;
    while j < chunk {
        let _ = writeln!(s, "fn gp_half_{j}(tiles: bool) {{");
        for m in (0..chunk).filter(|m| m & j == 0) {
            ce(&mut s, m, m + j);
        }
        s.push_str("}\n");
        let _ = writeln!(half, "        case {j}u: {{ gp_half_{j}(tiles); }}");
        j *= 2;
    }
    mirror.push_str("        default: {}\n    }\n}\n");
    half.push_str("        default: {}\n    }\n}\n");
    s + &mirror + &half
}
