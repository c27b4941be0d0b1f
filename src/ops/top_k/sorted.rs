//! The paths that sort: the candidates of the select for large `k`, or everything.

use super::select::record_select;
use super::{End, Shape};
use crate::error::Result;
use crate::ops::copy::record_copy;
use crate::ops::sort::{RadixKey, Sort};
use crate::runtime::context::Ctx;
use crate::runtime::record::Work;
use crate::runtime::vec::GpuVec;
use crate::runtime::view::View;

/// `k` past the rank step: the select's candidates (and sentinels, which sort last) in
/// vectors of their own, sorted stably by index and then by value, and the first `k`
/// copied out.
pub(super) fn sort_candidates<T: RadixKey>(
    ctx: &Ctx,
    op: &'static str,
    v: &GpuVec<T>,
    (values, indices): (&GpuVec<T>, &GpuVec<u32>),
    end: End,
    shape: &Shape,
) -> Result<()> {
    // The values as bits (what the first sort carries), and as `T` (the second's keys).
    let mut cand_bits = ctx.zeros::<u32>(shape.cap)?;
    let mut cand_val = GpuVec::<T>::over_scratch(ctx, cand_bits.buffer.clone(), shape.cap);
    let mut cand_idx = ctx.zeros::<u32>(shape.cap)?;
    record_select(
        ctx,
        op,
        v,
        (values, indices),
        end,
        shape,
        Some((&cand_bits, &cand_idx)),
    )?;
    ctx.sort_by_key(&mut cand_idx, &mut cand_bits)?;
    ctx.sort_by_key_with(&mut cand_val, &mut cand_idx, &sort_of(end))?;
    copy_first(ctx, op, (&cand_val, &cand_idx), (values, indices))
}

fn sort_of(end: End) -> Sort {
    match end {
        End::Largest => Sort::descending(),
        End::Smallest => Sort::ascending(),
    }
}

/// Copies the first `values.len()` elements of `from` into `(values, indices)`, the
/// values as their words (an odd number of `f16` ends in half a word: the other half is
/// the padding of gpuprim's vectors, which a borrowed one holds whole).
fn copy_first<T: RadixKey>(
    ctx: &Ctx,
    op: &'static str,
    from: (&GpuVec<T>, &GpuVec<u32>),
    (values, indices): (&GpuVec<T>, &GpuVec<u32>),
) -> Result<()> {
    let k = values.len();
    let mut work = Work::new(ctx, op);
    record_copy(
        &mut work,
        &View {
            len: k,
            ..View::of(from.0)
        }
        .words(),
        &View::of(values).words(),
    )?;
    record_copy(
        &mut work,
        &View {
            len: k,
            ..View::of(from.1)
        },
        &View::of(indices),
    )?;
    work.submit()
}

/// Large `k`, and keys of any form but one word: a stable sort of every `(value,
/// index)` pair (descending for the largest, so equal keys keep the lower index first),
/// then the first `k` copied out. Each step reads and writes the vectors window by
/// window.
pub(super) fn full_sort<T: RadixKey>(
    ctx: &Ctx,
    op: &'static str,
    v: &GpuVec<T>,
    values: &GpuVec<T>,
    indices: &GpuVec<u32>,
    end: End,
) -> Result<()> {
    let mut keys = v.try_clone()?;
    let mut order = ctx.iota(op, v.len())?;
    ctx.sort_by_key_with(&mut keys, &mut order, &sort_of(end))?;
    copy_first(ctx, op, (&keys, &order), (values, indices))
}
