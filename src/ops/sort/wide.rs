//! Sorts of keys that are not one 32-bit word, 8-byte keys ([`KeyForm::Pair`]) and
//! `f16` ([`KeyForm::Half`], two to a word), and of values of 8 or 16 bytes.
//!
//! An 8-byte key sort is LSD over words: a split kernel writes each key's two sortable
//! words (`lo`, `hi`), the engine sorts by `lo`, then stably by `hi`, and one last kernel
//! writes the keys back from both. Keys alone: each sort carries the other word as its
//! value, so every access is in order. With values or for argsort: the first sort makes
//! the keys' order, a gather puts `hi` in that order, the second sort carries the order,
//! and the last kernel gathers the low words and values by it. Key bits in one word
//! ([`Sort::bits`]) skip the other word's sort. Wide values move
//! once, in that last kernel (one-word keys: after the engine sorts the keys with their
//! indices), where moving them in every digit pass would cost a read and a write of
//! them per pass.

use std::ops::Range;

use super::engine::{Buffers, Plan, Values};
use super::{KeyForm, Sort, check_key_bits};
use crate::error::Result;
use crate::ops::copy::record_copy;
use crate::ops::kernel::{Access, Args, record_statements};
use crate::runtime::context::Ctx;
use crate::runtime::record::Work;
use crate::runtime::vec::{GpuVec, Scratch};
use crate::runtime::view::View;

/// What an 8-byte key sort writes.
pub(super) enum Out<'a> {
    /// The keys, in place.
    Keys,
    /// The keys in place and these values with them.
    KeysValues(View<'a>),
    /// The order only, into this vector of `u32` (argsort); the keys are only read.
    Order(View<'a>),
}

/// `v`'s bytes as `len` elements of `words` 32-bit words each, bound as `array<T>`
/// with `T` the WGSL type of that many words (`u32`, `vec2<u32>`, `vec4<u32>`): bits
/// moved, never converted. Exactly those bytes (not padded), for raw bindings.
fn as_words(v: View<'_>, words: u64, len: usize) -> View<'_> {
    View {
        wgsl: match words {
            1 => "u32",
            2 => "vec2<u32>",
            _ => "vec4<u32>",
        },
        enable: "",
        features: wgpu::Features::empty(),
        size: 4 * words,
        len,
        padded: false,
        ..v
    }
}

/// `v`'s elements as whole-element word vectors (`vec2<u32>` for 8 bytes).
pub(super) fn elements(v: View<'_>) -> View<'_> {
    as_words(v, v.size / 4, v.len)
}

/// A scratch vector of `n` words; `held` keeps its buffer out of the pool until the
/// call's last work keeps it ([`release_with`]): the engine's passes in between take
/// scratch of their own.
fn words(ctx: &Ctx, held: &mut Vec<Scratch>, what: &str, n: usize) -> Result<GpuVec<u32>> {
    let scratch = ctx.large_scratch(what, n)?;
    let v = GpuVec::over_scratch(ctx, (*scratch).clone(), n);
    held.push(scratch);
    Ok(v)
}

/// Gives the call's scratch to `work`, its last, which returns it to the pool once
/// queued (or recorded into an encoder of [`Ctx::record`]'s), and submits it.
fn release_with(mut work: Work, held: Vec<Scratch>) -> Result<()> {
    for s in held {
        work.keep(s);
    }
    work.submit()
}

/// The sub-sort of one word by `bits` (a range within it), the options otherwise `sort`'s.
fn word_sort(sort: &Sort, bits: Range<u32>) -> Sort {
    Sort {
        bits: Some(bits),
        ..sort.clone()
    }
}

/// One engine sort of `keys`, words already sortable as `u32`, by `bits` (the other
/// options `sort`'s), carrying `values`; the keys are only read unless `keys_writable`.
fn sort_words(
    ctx: &Ctx,
    op: &'static str,
    sort: &Sort,
    bits: Range<u32>,
    (keys, keys_writable): (View<'_>, bool),
    values: Values<'_>,
) -> Result<()> {
    let pairs = !matches!(values, Values::None);
    Plan::new(ctx, op, keys.len, (0, 0), &word_sort(sort, bits), pairs)?.run(
        ctx,
        Buffers {
            keys,
            keys_writable,
            values,
        },
    )
}

/// Sorts keys of more or less than one word (`form`: [`KeyForm::Pair`] or
/// [`KeyForm::Half`]) by `sort`, writing what `out` says.
pub(super) fn sort_wide(
    ctx: &Ctx,
    op: &'static str,
    form: KeyForm,
    keys: View<'_>,
    sort: &Sort,
    out: Out<'_>,
) -> Result<()> {
    let width = if form == KeyForm::Half { 16 } else { 64 };
    check_key_bits(op, &sort.bits_of(width), width)?;
    keys.check_bound_whole(op, "keys", "sort")?;
    if let Out::KeysValues(v) = &out {
        v.check_bound_whole(op, "values", "sort")?;
    }
    if keys.len == 0 {
        return Ok(());
    }
    match form {
        KeyForm::Half => sort_halves(ctx, op, keys, sort, out),
        _ => sort_pairs(ctx, op, form, keys, sort, out),
    }
}

/// Sorts 8-byte keys of form `form` ([`KeyForm::Pair`]) by `sort`, writing what `out`
/// says. `keys` and `sort` are checked ([`sort_wide`]), and there are keys.
fn sort_pairs(
    ctx: &Ctx,
    op: &'static str,
    form: KeyForm,
    keys: View<'_>,
    sort: &Sort,
    out: Out<'_>,
) -> Result<()> {
    let KeyForm::Pair {
        high,
        key_xor,
        neg_mask,
        low_neg_mask,
    } = form
    else {
        unreachable!("one-word keys take the engine directly")
    };
    let bits = sort.bits_of(64);
    let n = keys.len;
    let words_of_keys = keys.exact_words();
    let mut held = Vec::new();
    let lo = words(ctx, &mut held, "sort low words", n)?;
    let hi = words(ctx, &mut held, "sort high words", n)?;
    let order_scratch = match out {
        Out::KeysValues(_) => Some(words(ctx, &mut held, "sort order", n)?),
        _ => None,
    };
    let mut work = Work::new(ctx, op);
    // The sortable words: the high one as a one-word key of its type, the low one
    // flipped where the high word's sign says the key is negative (f64).
    let mut args = Args::new(op);
    args.vec("lo", View::of(&lo), Access::Write);
    args.vec("hi", View::of(&hi), Access::Write);
    args.vec("w", words_of_keys, Access::Raw);
    args.scalar("hw", high);
    args.scalar("kx", key_xor);
    args.scalar("nm", neg_mask);
    args.scalar("ln", low_neg_mask);
    record_statements(
        ctx,
        &mut work,
        "let a = w[2u * i + hw]; let b = w[2u * i + 1u - hw]; \
         let neg = select(0u, 0xffffffffu, (a >> 31u) == 1u); \
         hi = a ^ kx ^ (neg & nm); lo = b ^ (neg & ln);",
        args,
    )?;
    work.submit()?;

    let lo_bits = bits.start.min(32)..bits.end.min(32);
    let hi_bits = bits.start.max(32) - 32..bits.end.max(32) - 32;
    // Sorted in place, except by an argsort's order (which only reads its keys).
    let sort_words = |bits: Range<u32>, keys: View<'_>, values: Values<'_>| -> Result<()> {
        let keys_writable = !matches!(values, Values::Indices(_));
        sort_words(ctx, op, sort, bits, (keys, keys_writable), values)
    };
    // The words back from sortable, into the keys: `a` the high word, `b` the low.
    let write_key = "let a = a0 ^ kx; let neg = select(0u, 0xffffffffu, (a >> 31u) == 1u); \
                     w[2u * i + hw] = a ^ (neg & nm); w[2u * i + 1u - hw] = b0 ^ (neg & ln);";
    let key_args = |args: &mut Args<'_>| {
        args.scalar("hw", high);
        args.scalar("kx", key_xor);
        args.scalar("nm", neg_mask);
        args.scalar("ln", low_neg_mask);
    };
    if let Out::Order(order) = out {
        // argsort: the order through both sorts (bits in one word: that word's sort).
        if lo_bits.is_empty() {
            sort_words(hi_bits, View::of(&hi), Values::Indices(order))?;
        } else {
            sort_words(lo_bits, View::of(&lo), Values::Indices(order))?;
            if !hi_bits.is_empty() {
                let hi_in_order = gathered(ctx, op, &mut held, &hi, order)?;
                sort_words(hi_bits, View::of(&hi_in_order), Values::InPlace(order))?;
            }
        }
        return release_with(Work::new(ctx, op), held);
    }
    let mut work = Work::new(ctx, op);
    let mut args = Args::new(op);
    let (Out::KeysValues(values), Some(order_scratch)) = (out, &order_scratch) else {
        // Keys alone: each word sort carries the other word, and the keys are written
        // from both in order; no order, no gather.
        if !lo_bits.is_empty() {
            sort_words(lo_bits, View::of(&lo), Values::InPlace(View::of(&hi)))?;
        }
        if !hi_bits.is_empty() {
            sort_words(hi_bits, View::of(&hi), Values::InPlace(View::of(&lo)))?;
        }
        args.vec("a0", View::of(&hi), Access::Read);
        args.vec("b0", View::of(&lo), Access::Read);
        args.vec("w", words_of_keys, Access::RawReadWrite);
        key_args(&mut args);
        record_statements(ctx, &mut work, write_key, args)?;
        return release_with(work, held);
    };
    let order = View::of(order_scratch);
    // Keys and values: the order through both sorts, the high words sorted with it
    // (read in order at the end), the low words and values gathered by it.
    let copy = words(
        ctx,
        &mut held,
        "sort values (copy)",
        values.exact_words().len,
    )?;
    let hi_in_order;
    let prefix = if !lo_bits.is_empty() && !hi_bits.is_empty() {
        sort_words(lo_bits, View::of(&lo), Values::Indices(order))?;
        hi_in_order = gathered(ctx, op, &mut held, &hi, order)?;
        sort_words(hi_bits, View::of(&hi_in_order), Values::InPlace(order))?;
        args.vec("a0", View::of(&hi_in_order), Access::Read);
        args.vec("lo", View::of(&lo), Access::Raw);
        args.vec("order", order, Access::Read);
        "let b0 = lo[order];"
    } else {
        // Bits in one word: one sort, of that word, writes the order.
        let (bits, word) = if lo_bits.is_empty() {
            (hi_bits, &hi)
        } else {
            (lo_bits, &lo)
        };
        sort_words(bits, View::of(word), Values::Indices(order))?;
        args.vec("hi", View::of(&hi), Access::Raw);
        args.vec("lo", View::of(&lo), Access::Raw);
        args.vec("order", order, Access::Read);
        "let a0 = hi[order]; let b0 = lo[order];"
    };
    key_args(&mut args);
    args.vec("w", words_of_keys, Access::RawReadWrite);
    record_copy(&mut work, &values.exact_words(), &View::of(&copy))?;
    args.vec(
        "src",
        as_words(View::of(&copy), values.size / 4, n),
        Access::Raw,
    );
    args.vec("dst", elements(values), Access::RawReadWrite);
    let code = format!("{prefix} {write_key} dst[i] = src[order];");
    record_statements(ctx, &mut work, &code, args)?;
    release_with(work, held)
}

/// `words[order[i]]` for every `i`: a scratch vector held by `held`.
fn gathered(
    ctx: &Ctx,
    op: &'static str,
    held: &mut Vec<Scratch>,
    words_in: &GpuVec<u32>,
    order: View<'_>,
) -> Result<GpuVec<u32>> {
    let out = words(ctx, held, "sort high words in order", words_in.len())?;
    let mut work = Work::new(ctx, op);
    let mut args = Args::new(op);
    args.vec("order", order, Access::Read);
    args.vec("h", View::of(&out), Access::Write);
    args.vec("hi", View::of(words_in), Access::Raw);
    record_statements(ctx, &mut work, "h = hi[order];", args)?;
    work.submit()?;
    Ok(out)
}

/// Sorts one-word keys (sortable as `ordered(x, key_xor, neg_mask)`) by `sort` and moves
/// `values` of 8 or 16 bytes with them: the engine sorts the keys with their indices,
/// then one kernel gathers the values in that order.
pub(super) fn sort_wide_values(
    ctx: &Ctx,
    op: &'static str,
    key: (u32, u32),
    keys: View<'_>,
    values: View<'_>,
    sort: &Sort,
) -> Result<()> {
    values.check_bound_whole(op, "values", "sort")?;
    let n = keys.len;
    let plan = Plan::new(ctx, op, n, key, sort, true)?;
    if n == 0 {
        return Ok(());
    }
    let mut held = Vec::new();
    let order = words(ctx, &mut held, "sort order", n)?;
    plan.run(
        ctx,
        Buffers {
            keys,
            keys_writable: true,
            values: Values::Indices(View::of(&order)),
        },
    )?;
    let mut work = Work::new(ctx, op);
    gather_values(ctx, &mut work, &mut held, values, View::of(&order))?;
    release_with(work, held)
}

/// Sorts `f16` keys ([`KeyForm::Half`]) by `sort`, writing what `out` says: a split
/// kernel widens each key to a sortable 16-bit word in a `u32` (sign bit flipped, every
/// bit of a negative one), the engine sorts those by bits within `0..16` (two digit
/// passes), carrying 4-byte values or the order (wider values are gathered by it), and a
/// last kernel packs the sorted words back into keys, two to a word.
fn sort_halves(
    ctx: &Ctx,
    op: &'static str,
    keys: View<'_>,
    sort: &Sort,
    out: Out<'_>,
) -> Result<()> {
    let bits = sort.bits_of(16);
    let n = keys.len;
    let packed = keys.exact_words(); // two keys a word; a padded vector's last half is its own
    let mut held = Vec::new();
    let k = words(ctx, &mut held, "sort half words", n)?;
    let mut work = Work::new(ctx, op);
    let mut args = Args::new(op);
    args.vec("k", View::of(&k), Access::Write);
    args.vec("w", packed, Access::Raw);
    let code = format!(
        "let x = {}; k = x ^ select(0x8000u, 0xffffu, (x & 0x8000u) != 0u);",
        super::half_bits("w", "i")
    );
    record_statements(ctx, &mut work, &code, args)?;
    work.submit()?;
    let mut work = Work::new(ctx, op);
    let run = |keys_writable: bool, values: Values<'_>| -> Result<()> {
        sort_words(
            ctx,
            op,
            sort,
            bits.clone(),
            (View::of(&k), keys_writable),
            values,
        )
    };
    match out {
        Out::Order(order) => {
            run(false, Values::Indices(order))?;
            return release_with(work, held);
        }
        Out::Keys => run(true, Values::None)?,
        Out::KeysValues(values) if values.size == 4 => run(true, Values::InPlace(values))?,
        Out::KeysValues(values) => {
            let order = words(ctx, &mut held, "sort order", n)?;
            run(true, Values::Indices(View::of(&order)))?;
            gather_values(ctx, &mut work, &mut held, values, View::of(&order))?;
        }
    }
    // The sorted words back into keys, two to a word (the second of an odd last word is
    // the padding of gpuprim's vector: a borrowed f16 vector holds whole words).
    let mut args = Args::new(op);
    args.vec("w", packed, Access::Write);
    args.vec("k", View::of(&k), Access::Raw);
    args.scalar("nk", n as u32);
    record_statements(
        ctx,
        &mut work,
        "let a = k[2u * i]; let b = k[min(2u * i + 1u, nk - 1u)]; \
         let x = a ^ select(0xffffu, 0x8000u, (a & 0x8000u) != 0u); \
         let y = b ^ select(0xffffu, 0x8000u, (b & 0x8000u) != 0u); \
         w = x | select(0u, y << 16u, 2u * i + 1u < nk);",
        args,
    )?;
    release_with(work, held)
}

/// `values[i] = values[order[i]]` (as they were) for every `i`, for elements of 4 bytes
/// or more, through a copy in scratch; queued.
pub(crate) fn gather_in_place(
    ctx: &Ctx,
    op: &'static str,
    values: View<'_>,
    order: View<'_>,
) -> Result<()> {
    let mut held = Vec::new();
    let mut work = Work::new(ctx, op);
    gather_values(ctx, &mut work, &mut held, values, order)?;
    release_with(work, held)
}

/// Records into `work` the copy of `values` into scratch held by `held` and the gather
/// of the copy by `order` back into `values`.
fn gather_values<'a>(
    ctx: &Ctx,
    work: &mut Work,
    held: &mut Vec<Scratch>,
    values: View<'a>,
    order: View<'a>,
) -> Result<()> {
    let n = values.len;
    let copy = words(ctx, held, "sort values (copy)", values.exact_words().len)?;
    record_copy(work, &values.exact_words(), &View::of(&copy))?;
    let mut args = Args::new(work.op());
    args.vec("order", order, Access::Read);
    args.vec(
        "src",
        as_words(View::of(&copy), values.size / 4, n),
        Access::Raw,
    );
    args.vec("dst", elements(values), Access::RawReadWrite);
    record_statements(ctx, work, "dst[i] = src[order];", args)
}
