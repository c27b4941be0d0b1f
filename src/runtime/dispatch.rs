//! How a length becomes bindings and workgroups (how recorded work reaches the queue:
//! `runtime/submit.rs`).
//!
//! - A vector larger than the largest storage binding is processed in *chunks*: each
//!   chunk is a binding window (offset aligned to the device's storage offset alignment)
//!   and one dispatch.
//! - A dispatch that needs more than `max_compute_workgroups_per_dimension` workgroups is
//!   folded into 2D (and 3D); kernels compute their linear workgroup index from
//!   `workgroup_id` and `num_workgroups` and skip the few surplus groups.

use crate::error::{Error, Limit, Result};
use crate::runtime::cache::Pipeline;
use crate::runtime::context::Ctx;
use crate::runtime::record::Work;
use crate::runtime::view::View;
use std::sync::Arc;

/// One binding window: `units` elements of `unit_bytes` starting at `offset_units`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub(crate) offset_units: u64,
    pub(crate) units: u64,
}

/// Units of `unit_bytes` that fit in one binding with every chunk start aligned.
pub(crate) fn units_per_binding(ctx: &Ctx, unit_bytes: u64) -> u64 {
    units_per_window(ctx, &[unit_bytes])
}

/// Units per binding window when unit `u` is the `u`-th unit of several buffers with
/// different unit sizes: every buffer's window start stays aligned and its window
/// within one binding.
pub(crate) fn units_per_window(ctx: &Ctx, unit_bytes: &[u64]) -> u64 {
    units_within(ctx, unit_bytes, ctx.info().max_binding_bytes)
}

/// Like [`units_per_window`], with windows of at most `max_bytes` per buffer.
pub(crate) fn units_within(ctx: &Ctx, unit_bytes: &[u64], max_bytes: u64) -> u64 {
    let align = storage_alignment(ctx);
    let step = unit_bytes
        .iter()
        .fold(1, |m, &ub| lcm(m, align / gcd(align, ub)));
    let largest = unit_bytes.iter().copied().max().unwrap_or(1).max(1);
    (max_bytes / largest / step * step).max(step)
}

/// Bytes a storage binding's offset must be a multiple of.
pub(crate) fn storage_alignment(ctx: &Ctx) -> u64 {
    u64::from(ctx.info().limits.min_storage_buffer_offset_alignment).max(1)
}

/// Splits `units` into chunks of at most `per_chunk`.
pub(crate) fn chunks(units: u64, per_chunk: u64) -> impl Iterator<Item = Chunk> {
    (0..units.div_ceil(per_chunk)).map(move |i| {
        let offset_units = i * per_chunk;
        Chunk {
            offset_units,
            units: per_chunk.min(units - offset_units),
        }
    })
}

/// A dispatch of `groups` workgroups folded to fit `max_per_dim` per dimension.
pub(crate) fn workgroup_grid(groups: u64, max_per_dim: u32) -> Result<[u32; 3]> {
    let max = u64::from(max_per_dim);
    let x = groups.min(max);
    let rest = groups.div_ceil(x.max(1));
    let y = rest.min(max);
    let z = rest.div_ceil(y.max(1));
    if z > max {
        return Err(Error::TooLarge {
            what: format!("a dispatch ({max_per_dim} workgroups per dimension, 3 dimensions)"),
            kind: Limit::Workgroups,
            requested: groups,
            limit: max * max * max,
        });
    }
    Ok([x as u32, y as u32, z as u32])
}

/// The greatest common divisor of `a` and `b`.
pub(crate) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The least common multiple of `a` and `b` (not both 0).
pub(crate) fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b) * b
}

/// The largest power of two up to `wanted` invocations that a workgroup of the device may
/// have (for kernels whose trees halve or double the workgroup).
pub(crate) fn pow2_workgroup_size(ctx: &Ctx, wanted: u32) -> u32 {
    pow2_workgroup_size_within(&ctx.info().limits, wanted)
}

/// [`pow2_workgroup_size`] for a device's limits (for policies the CPU catalog evaluates
/// without a device).
pub(crate) fn pow2_workgroup_size_within(l: &wgpu::Limits, wanted: u32) -> u32 {
    let max = wanted
        .min(l.max_compute_invocations_per_workgroup)
        .min(l.max_compute_workgroup_size_x)
        .max(1);
    1 << max.ilog2()
}

/// Invocations per workgroup for element-wise kernels: 256, or the device's maximum if lower.
pub(crate) fn elementwise_workgroup_size(ctx: &Ctx) -> u32 {
    let l = &ctx.info().limits;
    256.min(l.max_compute_invocations_per_workgroup)
        .min(l.max_compute_workgroup_size_x)
}

/// Records and submits a kernel over `units` units that needs the *global* index of its
/// units (random fills: element `i` of a chunk is element `offset + i` of the vector).
///
/// - `buffers[i]` is `(vector, unit_bytes)`: unit `u` of the dispatch is the `u`-th
///   `unit_bytes`-sized unit of every buffer, so buffers may have different unit sizes
///   (e.g. 4 output elements and their 4 x 4 words of generator state). Each chunk binds
///   the same range of units in every buffer, at offsets aligned for all of them.
/// - Binding `buffers.len()` is the kernel's parameter block, `params(first)` for the
///   chunk whose first unit is `first` (so the kernel's global unit is `first + local
///   unit`).
/// - One thread per unit; the kernel skips threads past `arrayLength` of its binding.
pub(crate) fn run_indexed<P: bytemuck::Pod>(
    ctx: &Ctx,
    op: &'static str,
    kernel: &Arc<Pipeline>,
    workgroup_size: u32,
    units: u64,
    buffers: &[(View<'_>, u64)],
    params: impl Fn(u32) -> P,
) -> Result<()> {
    if units > u64::from(u32::MAX) {
        return Err(Error::TooLarge {
            what: format!("`{op}` over 4-element units (the kernel's unit index is a u32)"),
            kind: Limit::Elements,
            requested: units,
            limit: u64::from(u32::MAX),
        });
    }
    let mut work = Work::new(ctx, op);
    record_windows(&mut work, kernel, workgroup_size, units, buffers, params)?;
    work.submit()
}

/// Adds to `work` one dispatch per binding window over `units` units: each binds its
/// window of every buffer (bindings `0..buffers.len()`) and the parameter block
/// `params(first unit of the window)` after them. One thread per unit.
fn record_windows<P: bytemuck::Pod>(
    work: &mut Work,
    kernel: &Arc<Pipeline>,
    units_per_group: u32,
    units: u64,
    buffers: &[(View<'_>, u64)],
    params: impl Fn(u32) -> P,
) -> Result<()> {
    let ctx = work.ctx();
    let max_per_dim = ctx.info().max_workgroups_per_dimension;
    let unit_sizes: Vec<u64> = buffers.iter().map(|&(_, ub)| ub).collect();
    for chunk in chunks(units, units_per_window(ctx, &unit_sizes)) {
        let groups = chunk.units.div_ceil(u64::from(units_per_group));
        let grid = workgroup_grid(groups, max_per_dim)?;
        let block = work.params(&params(chunk.offset_units as u32));
        let d = work.dispatch(kernel, grid);
        for (i, (view, unit_bytes)) in buffers.iter().enumerate() {
            d.bind(i as u32, view.window_of(&chunk, *unit_bytes));
        }
        d.bind(buffers.len() as u32, block);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_covers_groups_within_limits() {
        for max in [1u32, 2, 7, 65535] {
            for groups in [1u64, 2, 3, 7, 8, 49, 50, 65535, 65536, 1 << 20] {
                match workgroup_grid(groups, max) {
                    Ok([x, y, z]) => {
                        assert!(x <= max && y <= max && z <= max);
                        let total = u64::from(x) * u64::from(y) * u64::from(z);
                        assert!(total >= groups, "{groups} groups, max {max}: {x}x{y}x{z}");
                        // surplus groups stay under one x-y plane plus one row
                        assert!(total - groups < u64::from(x) * u64::from(y) + u64::from(x));
                    }
                    Err(_) => assert!(groups > u64::from(max).pow(3)),
                }
            }
        }
    }

    #[test]
    fn chunks_tile_exactly() {
        for (units, per) in [(1u64, 1u64), (10, 3), (9, 3), (100, 1000)] {
            let c: Vec<_> = chunks(units, per).collect();
            assert_eq!(c.iter().map(|c| c.units).sum::<u64>(), units);
            for w in c.windows(2) {
                assert_eq!(w[0].offset_units + w[0].units, w[1].offset_units);
            }
        }
        assert_eq!(chunks(0, 4).count(), 0);
    }

    #[test]
    fn lcm_small() {
        assert_eq!(lcm(256, 16), 256);
        assert_eq!(lcm(256, 48), 768);
    }
}
