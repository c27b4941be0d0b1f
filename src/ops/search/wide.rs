//! Searches of keys that are not one 32-bit word: the 8-byte keys (`u64`, `i64`,
//! `[u32; 2]`, `f64`) and `f16`.
//!
//! One element-wise kernel over the queries: each invocation makes its query's sortable
//! words, as the sorts make them (`sort/wide.rs`), and runs a plain binary search over
//! the table, which is bound whole (it must fit one storage binding). The pivots and
//! bucketing of the one-word search are left to one-word keys: a wide key's search costs
//! two loads a step where it has one.

use super::kernels::Side;
use crate::error::Result;
use crate::ops::kernel::{Access, Args, record_statements};
use crate::ops::sort::{KeyForm, half_bits, pair_sortable};
use crate::runtime::context::Ctx;
use crate::runtime::record::Work;
use crate::runtime::view::View;

/// WGSL statements that set `k` (a `vec2<u32>`: x the low sortable word, y the high)
/// to the sortable words of element `at` (a WGSL expression) of the words `w`.
fn sortable(form: KeyForm, w: &str, at: &str) -> String {
    match form {
        KeyForm::Pair { .. } => {
            let (read, sortable) = pair_sortable(form, |j| format!("{w}[2u * ({at}) + {j}u]"));
            format!("{read} k = {sortable};")
        }
        KeyForm::Half => format!(
            "let x = {}; k = vec2<u32>(x ^ select(0x8000u, 0xffffu, (x & 0x8000u) != 0u), 0u);",
            half_bits(w, at)
        ),
        KeyForm::Word { .. } => unreachable!("one-word keys take the pivoted search"),
    }
}

/// Records the search of `queries` in `table` (both of form `form`) into `out`.
pub(super) fn record_search_wide(
    ctx: &Ctx,
    work: &mut Work,
    form: KeyForm,
    side: Side,
    (table, queries, out): (View<'_>, View<'_>, View<'_>),
) -> Result<()> {
    let op = side.name();
    table.check_bound_whole(op, "table", "search")?;
    queries.check_bound_whole(op, "queries", "search")?;
    // Lexicographic, high word first: the table element `t` is before the answer.
    let before = match side {
        Side::Lower => "t.y < q.y || (t.y == q.y && t.x < q.x)",
        Side::Upper => "t.y < q.y || (t.y == q.y && t.x <= q.x)",
    };
    let code = format!(
        "var k: vec2<u32>; {{ {query} }} let q = k; \
         var lo = 0u; var hi = nt; \
         loop {{ if lo >= hi {{ break; }} let mid = lo + (hi - lo) / 2u; \
         {{ {element} }} let t = k; \
         if {before} {{ lo = mid + 1u; }} else {{ hi = mid; }} }} \
         at = lo;",
        query = sortable(form, "qw", "i"),
        element = sortable(form, "tw", "mid"),
    );
    let mut args = Args::new(op);
    args.vec("at", out, Access::Write);
    args.vec("qw", queries.exact_words(), Access::Raw);
    args.vec("tw", table.exact_words(), Access::Raw);
    args.scalar("nt", table.len as u32);
    record_statements(ctx, work, &code, args)
}
