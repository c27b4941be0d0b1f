//! The radix select: its parameter block, digit passes, kernels and recording (see the
//! parent module's docs for the steps).

use std::sync::Arc;

use super::{End, Shape};
use crate::error::Result;
use crate::ops::sort::RadixKey;
use crate::runtime::cache::{KernelSource, Pipeline, render};
use crate::runtime::context::Ctx;
use crate::runtime::dispatch::{
    Chunk, chunks, storage_alignment, units_per_binding, workgroup_grid,
};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::{GpuVec, LANES};
use crate::runtime::view::{View, units_wgsl};

const TOP_K_WGSL: &str = include_str!("../../../wgsl/top_k.wgsl");
const KEYS_WGSL: &str = include_str!("../../../wgsl/sort_keys.wgsl");

/// Candidates a `rank_count` workgroup compares its candidates with: the pairs of
/// 8192 candidates are spread over 32 x 8 workgroups of 256, 1024 comparisons each.
const SLICE: u32 = 1024;
/// vec4 units an invocation of `histogram` and `gather` loads per step (`UPL` in the
/// template): several loads in flight per invocation.
const STEP_UNITS: u64 = 4;

/// The select's state (`state_r` in `wgsl/top_k.wgsl`): 6 words, rounded up.
const STATE_BYTES: u64 = 32;

/// `Params` in `wgsl/top_k.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub(super) struct Params {
    pub(super) n: u32,
    pub(super) first: u32,
    pub(super) key_xor: u32,
    pub(super) neg_mask: u32,
    pub(super) shift: u32,
    pub(super) bins: u32,
    pub(super) on_lo: u32,
    pub(super) mask_hi: u32,
    pub(super) mask_lo: u32,
    pub(super) idx_mask: u32,
    pub(super) k: u32,
    pub(super) cap: u32,
    pub(super) last_key: u32,
    pub(super) first_pass: u32,
    pub(super) groups: u32,
    pub(super) sentinel: u32,
    pub(super) pass_index: u32,
    pub(super) _pad0: u32,
    pub(super) _pad1: u32,
    pub(super) _pad2: u32,
}

/// One digit pass of the select: its digit is bits `shift..shift + width` of `w`, or of
/// the index word when `on_lo`.
#[derive(Clone, Copy, Debug)]
struct Digit {
    shift: u32,
    width: u32,
    on_lo: bool,
}

impl Digit {
    /// The bits above the digit (already selected), within 32 bits.
    fn above(&self) -> u32 {
        u32::MAX.checked_shl(self.shift + self.width).unwrap_or(0)
    }
}

/// The digits of a `bits`-bit word, most significant first, at most `width` bits each.
fn digits(bits: u32, width: u32, on_lo: bool) -> Vec<Digit> {
    let mut out = Vec::new();
    let mut top = bits;
    while top > 0 {
        let w = width.min(top);
        out.push(Digit {
            shift: top - w,
            width: w,
            on_lo,
        });
        top -= w;
    }
    out
}

/// `wgsl/top_k.wgsl`: every pass of the radix select and of its candidates' sort.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct TopKKernel {
    /// The keys' WGSL type.
    key: &'static str,
    /// Whether the keys are read as vec4 units.
    src_vec4: bool,
    workgroup_size: u32,
    /// Bits of the widest digit.
    digit_bits: u32,
    /// Histograms per workgroup.
    copies: u32,
}

impl TopKKernel {
    /// The kernel for keys of type `T` read as vec4 units (`src_vec4`) or not, at `shape`.
    pub(super) fn new<T: RadixKey>(shape: &Shape, src_vec4: bool) -> TopKKernel {
        TopKKernel {
            key: T::WGSL,
            src_vec4,
            workgroup_size: shape.wg,
            digit_bits: shape.digit_bits,
            copies: shape.copies,
        }
    }
}

impl KernelSource for TopKKernel {
    fn name(&self) -> &'static str {
        "top_k"
    }

    fn element(&self) -> &'static str {
        self.key
    }

    fn wgsl(&self) -> Result<String> {
        let bins = 1u32 << self.digit_bits;
        render(
            TOP_K_WGSL,
            &[
                ("WG", self.workgroup_size.to_string()),
                ("BINS", bins.to_string()),
                ("COPIES", self.copies.to_string()),
                ("HIST_WORDS", (self.copies * bins).to_string()),
                ("SLICE", SLICE.to_string()),
                ("SRC", units_wgsl("src", 1, self.key, false, self.src_vec4)?),
                ("KEYS", KEYS_WGSL.to_string()),
            ],
        )
    }

    /// Every entry writes the workgroup memory it reads first (see the template).
    fn initializes_workgroup_memory(&self) -> bool {
        true
    }
}

/// The kernel for `entry` of the template, for element type `T` and `src`'s layout.
fn kernel<T: RadixKey>(
    ctx: &Ctx,
    shape: &Shape,
    entry: &'static str,
    src: &View<'_>,
) -> Result<Arc<Pipeline>> {
    ctx.pipeline_for(&TopKKernel::new::<T>(shape, src.vec4()), entry)
}

/// The binding windows of a vector of `n` 4-byte elements: its vec4 units, first element
/// and length.
fn windows(ctx: &Ctx, n: usize) -> Vec<(Chunk, u32, u32)> {
    chunks(
        n.div_ceil(LANES) as u64,
        units_per_binding(ctx, 4 * LANES as u64),
    )
    .map(|c| {
        let first = c.offset_units * LANES as u64;
        let len = (n as u64 - first).min(c.units * LANES as u64);
        (c, first as u32, len as u32)
    })
    .collect()
}

/// A one-word key's masks: other keys take the full sort and never reach the select.
fn word_masks<T: RadixKey>() -> (u32, u32) {
    crate::ops::sort::word_masks::<T>().expect("keys of other forms take the full sort")
}

fn key_xor<T: RadixKey>(end: End) -> u32 {
    word_masks::<T>().0
        ^ match end {
            End::Largest => 0,
            End::Smallest => u32::MAX,
        }
}

/// The value bits whose ordered word (flipped for `smallest_k`) is `word`: the inverse of
/// [`SortKey::ordered_bits`](crate::SortKey::ordered_bits).
fn bits_of_word<T: RadixKey>(word: u32, end: End) -> u32 {
    let (kx, nm) = word_masks::<T>();
    let o = word ^ (key_xor::<T>(end) ^ kx);
    o ^ kx ^ if o >> 31 == 0 { nm } else { 0 }
}

/// Records the radix select (the parent module's docs) and queues it. With `sorted`, the candidates
/// go to those vectors (`shape.cap` each), sentinels in the slots left over, for
/// [`super::sorted::sort_candidates`]; without, the rank step writes the outputs.
pub(super) fn record_select<T: RadixKey>(
    ctx: &Ctx,
    op: &'static str,
    v: &GpuVec<T>,
    (values, indices): (&GpuVec<T>, &GpuVec<u32>),
    end: End,
    shape: &Shape,
    sorted: Option<(&GpuVec<u32>, &GpuVec<u32>)>,
) -> Result<()> {
    let (n, k, cap) = (v.len(), values.len(), shape.cap);
    let src = View::of(v);
    let histogram = kernel::<T>(ctx, shape, "histogram", &src)?;
    let select = kernel::<T>(ctx, shape, "select_digit", &src)?;
    let gather = kernel::<T>(ctx, shape, "gather", &src)?;

    let index_bits = if n <= 1 {
        0
    } else {
        32 - ((n - 1) as u32).leading_zeros()
    };
    let idx_mask = u32::MAX.checked_shl(index_bits).map_or(u32::MAX, |m| !m);
    let mut passes = digits(32, shape.digit_bits, false);
    let key_passes = passes.len();
    passes.extend(digits(index_bits, shape.digit_bits, true));

    let mut work = Work::new(ctx, op);
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
    let hist_stride = (4u64 << shape.digit_bits).next_multiple_of(storage_alignment(ctx));
    let hist_bytes = hist_stride * passes.len() as u64;
    let cap_bytes = 4 * cap as u64;
    let hist = work.keep(ctx.scratch("top_k histograms", hist_bytes, usage)?);
    let state = work.keep(ctx.scratch("top_k state", STATE_BYTES, usage)?);
    let counter = work.keep(ctx.scratch("top_k candidate count", 4, usage)?);
    // Pooled slots for the rank step; the caller's vectors when sorts follow (a pooled
    // buffer could be taken by another call between this work and theirs).
    let (cand_val, cand_idx) = match sorted {
        Some((a, b)) => (a.buffer.clone(), b.buffer.clone()),
        None => (
            work.keep(ctx.scratch("top_k candidate values", cap_bytes, usage)?),
            work.keep(ctx.scratch("top_k candidate indices", cap_bytes, usage)?),
        ),
    };
    work.clear(&hist, 0, Some(hist_bytes));
    work.clear(&state, 0, Some(STATE_BYTES));
    work.clear(&counter, 0, Some(4));

    let base = Params {
        key_xor: key_xor::<T>(end),
        neg_mask: word_masks::<T>().1,
        idx_mask,
        k: k as u32,
        cap: cap as u32,
        ..Params::default()
    };
    let max_dim = ctx.info().max_workgroups_per_dimension;
    let wg = u64::from(shape.wg);
    let windows = windows(ctx, n);
    if sorted.is_some() {
        // Before any pass gathers.
        let fill = kernel::<T>(ctx, shape, "fill", &src)?;
        let block = work.params(&Params {
            sentinel: bits_of_word::<T>(0, end),
            ..base
        });
        let groups = (cap as u64).div_ceil(wg);
        work.dispatch(&fill, workgroup_grid(groups, max_dim)?)
            .bind(0, block)
            .bind(8, Res::range(&cand_val, 0, cap_bytes))
            .bind(9, Res::range(&cand_idx, 0, cap_bytes));
    }
    for (p, d) in passes.iter().enumerate() {
        let bins = 1u32 << d.width;
        let pass = Params {
            shift: d.shift,
            bins,
            on_lo: u32::from(d.on_lo),
            mask_hi: if d.on_lo { u32::MAX } else { d.above() },
            mask_lo: if d.on_lo { d.above() } else { 0 },
            last_key: u32::from(p + 1 == key_passes),
            first_pass: u32::from(p == 0),
            pass_index: p as u32,
            ..base
        };
        let hist_range = Res::range(&hist, hist_stride * p as u64, 4 * u64::from(bins));
        for &(chunk, first, len) in &windows {
            // At least as many elements per workgroup as bins: each merges its bins.
            let groups = chunk
                .units
                .div_ceil(wg * STEP_UNITS)
                .min(shape.max_groups)
                .min((u64::from(len) / u64::from(bins)).max(1));
            let block = work.params(&Params {
                n: len,
                first,
                ..pass
            });
            work.dispatch(&histogram, workgroup_grid(groups, max_dim)?)
                .bind(0, block)
                .bind(1, src.window(&chunk))
                .bind(2, hist_range.clone())
                .bind(4, Res::range(&state, 0, STATE_BYTES))
                .bind(6, Res::range(&counter, 0, 4))
                .bind(8, Res::range(&cand_val, 0, cap_bytes))
                .bind(9, Res::range(&cand_idx, 0, cap_bytes));
        }
        let block = work.params(&pass);
        work.dispatch(&select, [1, 1, 1])
            .bind(0, block)
            .bind(3, hist_range)
            .bind(5, Res::range(&state, 0, STATE_BYTES));
    }
    for &(chunk, first, len) in &windows {
        let groups = chunk.units.div_ceil(wg * STEP_UNITS).min(shape.max_groups);
        let block = work.params(&Params {
            n: len,
            first,
            pass_index: key_passes as u32,
            ..base
        });
        work.dispatch(&gather, workgroup_grid(groups, max_dim)?)
            .bind(0, block)
            .bind(1, src.window(&chunk))
            .bind(4, Res::range(&state, 0, STATE_BYTES))
            .bind(6, Res::range(&counter, 0, 4))
            .bind(8, Res::range(&cand_val, 0, cap_bytes))
            .bind(9, Res::range(&cand_idx, 0, cap_bytes));
    }
    if sorted.is_some() {
        return work.submit();
    }
    let rank_count = kernel::<T>(ctx, shape, "rank_count", &src)?;
    let rank_scatter = kernel::<T>(ctx, shape, "rank_scatter", &src)?;
    let ranks = work.keep(ctx.scratch("top_k candidate ranks", cap_bytes, usage)?);
    work.clear(&ranks, 0, Some(cap_bytes));
    let i_groups = (cap as u64).div_ceil(wg);
    let slices = (cap as u64).div_ceil(u64::from(SLICE));
    let block = work.params(&Params {
        groups: i_groups as u32,
        ..base
    });
    work.dispatch(&rank_count, workgroup_grid(i_groups * slices, max_dim)?)
        .bind(0, block)
        .bind(7, Res::range(&counter, 0, 4))
        .bind(10, Res::range(&cand_val, 0, cap_bytes))
        .bind(11, Res::range(&cand_idx, 0, cap_bytes))
        .bind(12, Res::range(&ranks, 0, cap_bytes));
    let block = work.params(&base);
    work.dispatch(&rank_scatter, workgroup_grid(i_groups, max_dim)?)
        .bind(0, block)
        .bind(7, Res::range(&counter, 0, 4))
        .bind(10, Res::range(&cand_val, 0, cap_bytes))
        .bind(11, Res::range(&cand_idx, 0, cap_bytes))
        .bind(13, Res::range(&ranks, 0, cap_bytes))
        .bind(14, View::of(values).exact())
        .bind(15, View::of(indices).exact());
    work.submit()
}

/// The catalog's check of [`Params`] against `struct Params` in `wgsl`, a rendering of
/// `wgsl/top_k.wgsl`.
#[cfg(test)]
pub(super) fn catalog_layout(c: &mut crate::ops::catalog::Catalog, wgsl: String) {
    use crate::ops::catalog::layout;
    layout!(
        c,
        Params,
        "Params",
        wgsl,
        [
            n, first, key_xor, neg_mask, shift, bins, on_lo, mask_hi, mask_lo, idx_mask, k, cap,
            last_key, first_pass, groups, sentinel, pass_index, _pad0, _pad1, _pad2
        ]
    );
}
