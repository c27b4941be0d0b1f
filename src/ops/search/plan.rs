//! How a search is laid out: the table windows and their pivots, whether queries are
//! bucketed first, and how many workgroups a pass takes.

use super::*;

/// Adds the pass that copies a table window's pivots to `pivots` at `pivot_base`, if it
/// has any.
pub(super) fn record_pivots(
    work: &mut Work,
    kernel: &Arc<Pipeline>,
    pivots: &wgpu::Buffer,
    table: Res,
    window: Window,
    pivot_base: u32,
    wg: u32,
) -> Result<()> {
    if window.pivots == 0 {
        return Ok(());
    }
    let block = work.params(&window.params(pivot_base));
    let max_per_dim = work.ctx().info().max_workgroups_per_dimension;
    let grid = workgroup_grid(u64::from(window.pivots.div_ceil(wg)), max_per_dim)?;
    work.dispatch(kernel, grid)
        .bind(0, block)
        .bind(1, Res::whole(pivots))
        .bind(2, table);
    Ok(())
}

/// Whether a bucketed search can run: the table, the queries and their (query, index)
/// pairs each fit one storage binding (the answers are scattered over the whole output,
/// and the pairs over the whole pair buffer).
pub(super) fn bucketing_fits(ctx: &Ctx, n: usize, queries: usize) -> bool {
    let max = ctx.info().max_binding_bytes;
    (n as u64) * 4 <= max && (queries as u64).div_ceil(4) * 16 <= max && (queries as u64) * 8 <= max
}

/// Whether grouping the queries by table range first is worth its passes: on a GPU,
/// for many queries in a table larger than its cache, where random queries miss the
/// cache at most steps of their search.
pub(super) fn bucketing_pays(ctx: &Ctx, n: usize, queries: usize) -> bool {
    let tuning = SearchTuning::of(ctx.info());
    tuning.bucketing && queries >= tuning.bucketed_min_queries && n >= tuning.bucketed_min_table
}

/// How one table window is searched: `pivots` elements split the others into
/// `pivots + 1` ranges of `gap - 1` or `gap` elements (the first `extra` ranges are the
/// longer ones), so a query narrowed to one range needs `steps` binary-search steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Window {
    pub(super) n: u32,
    pub(super) pivots: u32,
    pub(super) gap: u32,
    pub(super) extra: u32,
    pub(super) steps: u32,
}

impl Window {
    pub(super) fn new(n: u32, max_pivots: u32) -> Window {
        // As many pivots as fit (a power of two, for the search over them), at most
        // n - 1 so that no range is empty by construction.
        let pivots = if n >= 2 {
            max_pivots.min(1 << (n - 1).ilog2())
        } else {
            0
        };
        let (gap, extra, longest) = if pivots == 0 {
            (0, 0, n)
        } else {
            let rest = n - pivots;
            let (g, r) = (rest / (pivots + 1), rest % (pivots + 1));
            (g + 1, r, g + u32::from(r > 0))
        };
        Window {
            n,
            pivots,
            gap,
            extra,
            steps: u32::BITS - longest.leading_zeros(),
        }
    }

    /// The parameters that describe this window, its pivots at `pivot_base`.
    pub(super) fn params(&self, pivot_base: u32) -> SearchParams {
        SearchParams {
            n: self.n,
            pivots: self.pivots,
            gap: self.gap,
            extra: self.extra,
            steps: self.steps,
            pivot_base,
            ..SearchParams::default()
        }
    }

    /// Table index of pivot `j` (`gp_pivot_at` in `wgsl/search.wgsl`).
    #[cfg(test)]
    pub(super) fn pivot_at(&self, j: u32) -> u32 {
        (j + 1) * self.gap - 1 + (j + 1).min(self.extra)
    }
}

/// Pivots per workgroup: `MAX_PIVOTS`, or the largest power of two whose `u32`s fit the
/// device's workgroup memory (the search pass's only workgroup variable).
pub(super) fn max_pivots(limits: &wgpu::Limits) -> u32 {
    let words = (limits.max_compute_workgroup_storage_size / 4).max(1);
    MAX_PIVOTS.min(1 << words.ilog2())
}

/// Workgroups per search dispatch: [`SearchTuning::groups`] within the device's grid.
pub(super) fn search_groups_cap(ctx: &Ctx) -> u32 {
    SearchTuning::of(ctx.info())
        .groups
        .min(ctx.info().max_workgroups_per_dimension.saturating_pow(3))
}
