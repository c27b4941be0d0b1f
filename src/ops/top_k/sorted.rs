//! The paths that sort: the candidates of the select for large `k`, or everything.

use super::select::{Params, kernel, record_select, windows};
use super::{End, Shape};
use crate::error::Result;
use crate::ops::copy::record_copy;
use crate::ops::sort::{RadixKey, Sort};
use crate::runtime::context::Ctx;
use crate::runtime::dispatch::workgroup_grid;
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

/// Copies the first `values.len()` elements of `from` into `(values, indices)`.
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
        },
        &View::of(values),
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

/// Large `k`: a stable sort of every `(value, index)` pair, then the first `k` copied
/// out. Each step reads and writes the vectors window by window.
pub(super) fn full_sort<T: RadixKey>(
    ctx: &Ctx,
    op: &'static str,
    v: &GpuVec<T>,
    values: &GpuVec<T>,
    indices: &GpuVec<u32>,
    end: End,
) -> Result<()> {
    let (n, k) = (v.len(), values.len());
    let mut keys = ctx.zeros::<T>(n)?;
    let mut order = ctx.zeros::<u32>(n)?;
    let shape = Shape::new(ctx.info(), n, k);
    let src = View::of(v);
    let iota = kernel::<T>(ctx, &shape, "iota", &src)?;
    let mut work = Work::new(ctx, op);
    record_copy(&mut work, &src, &View::of(&keys))?;
    let max_dim = ctx.info().max_workgroups_per_dimension;
    let out = View::of(&order);
    for (chunk, first, len) in windows(ctx, n) {
        let block = work.params(&Params {
            n: len,
            first,
            ..Params::default()
        });
        let groups = u64::from(len).div_ceil(u64::from(shape.wg));
        work.dispatch(&iota, workgroup_grid(groups, max_dim)?)
            .bind(0, block)
            .bind(15, out.window(&chunk));
    }
    work.submit()?;
    ctx.sort_by_key_with(&mut keys, &mut order, &sort_of(end))?;
    copy_first(ctx, op, (&keys, &order), (values, indices))
}

/// Keys that are not one word (8-byte, `f16`): a stable sort of the keys with their
/// indices (`Ctx::sort_by_key_with`, descending for the largest, so equal keys keep the
/// lower index first), and the first `k` of both copied out as words.
pub(super) fn full_sort_wide<T: RadixKey>(
    ctx: &Ctx,
    op: &'static str,
    v: &GpuVec<T>,
    values: &GpuVec<T>,
    indices: &GpuVec<u32>,
    end: End,
) -> Result<()> {
    let k = values.len();
    let mut keys = v.try_clone()?;
    let mut order = ctx.iota(op, v.len())?;
    ctx.sort_by_key_with(&mut keys, &mut order, &sort_of(end))?;
    let mut work = Work::new(ctx, op);
    // (An odd number of f16 keys ends in half a word: the other half is the padding of
    // gpuprim's vectors, which a borrowed one holds whole.)
    let first_k = View {
        len: k,
        ..View::of(&keys)
    };
    record_copy(&mut work, &first_k.words(), &View::of(values).words())?;
    let first_k = View {
        len: k,
        ..View::of(&order)
    };
    record_copy(&mut work, &first_k, &View::of(indices))?;
    work.submit()
}
