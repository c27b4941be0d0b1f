//! Binary search of a sorted table: [`Ctx::lower_bound`], [`Ctx::upper_bound`] and their
//! `_into` forms.
//!
//! `wgsl/search.wgsl`, two passes per binding window of the table. The first copies up
//! to `MAX_PIVOTS` (4096) evenly spaced table elements ("pivots") into a small buffer. In the
//! second, each workgroup loads them into workgroup memory once and then answers queries
//! in a grid-stride loop: a binary search over the pivots in workgroup memory takes the
//! top levels of the search off global memory, and the few levels left search the
//! table. Each invocation searches four queries side by side (one vec4 unit), so four
//! independent loads are in flight at every step, and every invocation takes the same
//! number of steps (no divergence).
//!
//! Many random queries in a large table take a bucketed search instead
//! (`wgsl/search_buckets.wgsl`): an unstable counting sort of the queries by which of
//! 257 table ranges they fall in (count, offsets, scatter into (query, index) pairs),
//! then the search above over the pairs, each answer written at its query's index.
//! Queries in random order touch the whole table at every step and miss the cache at
//! most of them; grouped by range, the queries that run at one time touch a few ranges,
//! which stay in the cache. Queries whose ranges are in order already (sorted queries)
//! are noticed by the counting pass: then no pairs are written and the search reads the
//! queries where they stand. GPUs take it from 2^18 queries in 2^22 table elements
//! (`SearchTuning`, `bucketing_pays`), where the table, the queries and the pairs each fit one storage
//! binding.
//!
//! Keys are compared as `u32` words in key order, as the sorts compare them
//! ([`SortKey`](crate::SortKey)): `f32` in the order of [`f32::total_cmp`]. The other
//! [`RadixKey`]s (8-byte keys, `f16`) take a plain binary search per query over the
//! table bound whole (`wide.rs`), which must then fit one storage binding.

use crate::error::{Error, Result};
use crate::ops::sort::{RadixKey, word_masks};
use crate::runtime::cache::{KernelSource, Pipeline, render};
use crate::runtime::context::{Ctx, Info, check_len};
use crate::runtime::dispatch::{
    chunks, pow2_workgroup_size_within, units_per_window, workgroup_grid,
};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::GpuVec;
use crate::runtime::view::{View, units_wgsl};
use std::sync::Arc;

mod kernels;
mod merge;
mod plan;
pub(crate) mod tuning;
mod wide;

use kernels::*;
use plan::*;
use tuning::SearchTuning;

/// How a search meets its queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
enum QueryOrder {
    /// Bucketed where [`bucketing_pays`] says so and the vectors allow it, else direct.
    Auto,
    /// Each query searched where it stands.
    Direct,
    /// Queries grouped by table range first (`wgsl/search_buckets.wgsl`).
    Bucketed,
}

impl Ctx {
    /// For each query `q`, the index of the first element of `sorted` that is not less
    /// than `q` (C++'s `std::lower_bound`, NumPy's `searchsorted(side="left")`):
    /// `sorted.len()` when every element is less. Equal elements: the first of them. An
    /// empty table answers 0 to every query; no queries, an empty vector.
    ///
    /// `sorted` must be in ascending order: for `f32` the order of [`f32::total_cmp`]
    /// that [`Ctx::sort`] produces (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf <
    /// +NaN), in which `-0.0` is less than `+0.0` and NaNs have places. Queries may
    /// come in any order. On a table that is not sorted the answers are unspecified but
    /// each lies in `0..=sorted.len()`, and nothing outside the table is read.
    ///
    /// On a GPU, many queries (2^18 or more) in a large table (2^22 elements or more)
    /// are first grouped by the range of the table they fall in, so that the searches
    /// running at one time share the cache: that takes a scratch buffer of 8 bytes per
    /// query, which the context keeps for the next call of that size (as a sort's
    /// scratch). Queries that come sorted are noticed and searched where they stand.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let sorted = ctx.upload(&[10u32, 20, 20, 30])?;
    /// let queries = ctx.upload(&[20u32, 5, 25, 99])?;
    /// assert_eq!(ctx.lower_bound(&sorted, &queries)?.to_vec()?, vec![1, 0, 3, 4]);
    /// // Every sort key: 64-bit Morton codes, say.
    /// let codes = ctx.upload(&[3u64, 1 << 40, 1 << 41])?;
    /// let q = ctx.upload(&[1u64 << 40, 1 << 50])?;
    /// assert_eq!(ctx.lower_bound(&codes, &q)?.to_vec()?, vec![1, 3]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for prefix views ([`GpuVec::prefix`]) or a table of
    /// more than `u32::MAX` elements (answers are `u32`). A table of one-word keys
    /// larger than one binding works: each binding window of it is searched in turn (one
    /// search per window and query). For other keys (8-byte, `f16`) a table or queries
    /// past one binding are [`Error::TooLarge`], which names the most keys per call.
    pub fn lower_bound<K: RadixKey>(
        &self,
        sorted: &GpuVec<K>,
        queries: &GpuVec<K>,
    ) -> Result<GpuVec<u32>> {
        let mut out = self.zeros::<u32>(queries.len())?;
        self.search_into(sorted, queries, Side::Lower, &mut out)?;
        Ok(out)
    }

    /// For each query `q`, the index of the first element of `sorted` that is greater
    /// than `q` (C++'s `std::upper_bound`, NumPy's `searchsorted(side="right")`):
    /// `sorted.len()` when none is. Table order, queries and errors as
    /// [`Ctx::lower_bound`].
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let sorted = ctx.upload(&[-1.5f32, 0.0, 0.0, 2.0])?;
    /// let queries = ctx.upload(&[0.0f32, -9.0, 2.0, -0.0])?;
    /// // -0.0 comes before +0.0 in the total order.
    /// assert_eq!(ctx.upper_bound(&sorted, &queries)?.to_vec()?, vec![3, 0, 4, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn upper_bound<K: RadixKey>(
        &self,
        sorted: &GpuVec<K>,
        queries: &GpuVec<K>,
    ) -> Result<GpuVec<u32>> {
        let mut out = self.zeros::<u32>(queries.len())?;
        self.search_into(sorted, queries, Side::Upper, &mut out)?;
        Ok(out)
    }

    /// [`Ctx::lower_bound`] into `out` (the queries' length), without waiting.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let sorted = ctx.upload(&[-7i32, -7, 0, 3])?;
    /// let queries = ctx.upload(&[-7i32, 1, 4])?;
    /// let mut at = ctx.zeros::<u32>(3)?;
    /// ctx.lower_bound_into(&sorted, &queries, &mut at)?;
    /// assert_eq!(at.to_vec()?, vec![0, 3, 4]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::lower_bound`], and [`Error::LengthMismatch`] unless `out` has the
    /// queries' length; [`Error::InvalidArgument`] if `out` shares a buffer with an
    /// input.
    pub fn lower_bound_into<K: RadixKey>(
        &self,
        sorted: &GpuVec<K>,
        queries: &GpuVec<K>,
        out: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.search_into(sorted, queries, Side::Lower, out)
    }

    /// [`Ctx::upper_bound`] into `out` (the queries' length), without waiting.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let sorted = ctx.upload(&[-7i32, -7, 0, 3])?;
    /// let queries = ctx.upload(&[-7i32, 1, 4])?;
    /// let mut at = ctx.zeros::<u32>(3)?;
    /// ctx.upper_bound_into(&sorted, &queries, &mut at)?;
    /// assert_eq!(at.to_vec()?, vec![2, 3, 4]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::lower_bound_into`].
    pub fn upper_bound_into<K: RadixKey>(
        &self,
        sorted: &GpuVec<K>,
        queries: &GpuVec<K>,
        out: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.search_into(sorted, queries, Side::Upper, out)
    }

    /// [`Ctx::lower_bound_into`] (`upper: false`) or [`Ctx::upper_bound_into`] with the
    /// queries searched where they stand (`bucketed: false`) or grouped by table range
    /// first (`bucketed: true`), whatever the automatic choice would be. For tests and
    /// tuning (`lab/src/bin/bandwidth`'s `search` section).
    ///
    /// # Errors
    /// As [`Ctx::lower_bound_into`]; [`Error::InvalidArgument`] for `bucketed` where the
    /// table, the queries or their (query, index) pairs do not fit one storage binding.
    #[cfg(feature = "internals")]
    pub fn search_order_into<K: RadixKey>(
        &self,
        sorted: &GpuVec<K>,
        queries: &GpuVec<K>,
        upper: bool,
        bucketed: bool,
        out: &mut GpuVec<u32>,
    ) -> Result<()> {
        let side = if upper { Side::Upper } else { Side::Lower };
        let order = if bucketed {
            QueryOrder::Bucketed
        } else {
            QueryOrder::Direct
        };
        self.search_order(sorted, queries, side, order, out)
    }

    fn search_into<K: RadixKey>(
        &self,
        sorted: &GpuVec<K>,
        queries: &GpuVec<K>,
        side: Side,
        out: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.search_order(sorted, queries, side, QueryOrder::Auto, out)
    }

    fn search_order<K: RadixKey>(
        &self,
        sorted: &GpuVec<K>,
        queries: &GpuVec<K>,
        side: Side,
        order: QueryOrder,
        out: &mut GpuVec<u32>,
    ) -> Result<()> {
        let op = side.name();
        self.check_owned(op, &[&sorted.ctx, &queries.ctx, &out.ctx])?;
        sorted.require_host_len(op)?;
        queries.require_host_len(op)?;
        out.require_host_len(op)?;
        check_len(op, ("out", out.len()), ("queries", queries.len()))?;
        let n = sorted.len();
        if n > u32::MAX as usize {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "the table has {n} elements; answers are u32 indices up to the table's \
                     length, so it may have at most {}",
                    u32::MAX
                ),
            });
        }
        let fits = bucketing_fits(self, n, queries.len());
        let bucketed = match order {
            QueryOrder::Auto => fits && bucketing_pays(self, n, queries.len()),
            QueryOrder::Direct => false,
            QueryOrder::Bucketed if fits => true,
            QueryOrder::Bucketed => {
                return Err(Error::InvalidArgument {
                    op,
                    message: format!(
                        "a bucketed search needs the table ({n} elements), the queries and \
                         their (query, index) pairs ({} elements of 8 bytes) each in one \
                         storage binding of {} bytes",
                        queries.len(),
                        self.info().max_binding_bytes
                    ),
                });
            }
        };
        if queries.is_empty() {
            return Ok(());
        }
        let mut work = Work::new(self, op);
        if word_masks::<K>().is_none() {
            let views = (View::of(sorted), View::of(queries), View::of(out));
            wide::record_search_wide(self, &mut work, K::FORM, side, views)?;
        } else if bucketed {
            self.record_bucketed_search(&mut work, sorted, queries, side, out)?;
        } else {
            self.record_search(&mut work, sorted, queries, side, out)?;
        }
        work.submit()
    }

    /// Adds the pivot and search passes of every (table window, query window) to `work`.
    fn record_search<K: RadixKey>(
        &self,
        work: &mut Work,
        sorted: &GpuVec<K>,
        queries: &GpuVec<K>,
        side: Side,
        out: &GpuVec<u32>,
    ) -> Result<()> {
        let (table, qv, ov) = (View::of(sorted), View::of(queries), View::of(out));
        let config = SearchKernel::new::<K>(
            self.info(),
            side,
            Io::Direct {
                queries_vec4: qv.vec4(),
                out_vec4: ov.vec4(),
            },
        );
        let (wg, max_pivots) = (config.workgroup_size, config.pivots);
        let pivots_kernel = self.pipeline_for(&config, "pivots_main")?;
        let search_kernel = self.pipeline_for(&config, "search_main")?;

        let max_per_dim = self.info().max_workgroups_per_dimension;
        let n = sorted.len() as u64;
        // The table as windows of whole elements; an empty table is one empty window.
        let table_windows: Vec<(u64, u64)> = if n == 0 {
            vec![(0, 0)]
        } else {
            chunks(n, units_per_window(self, &[4]))
                .map(|c| (c.offset_units, c.units))
                .collect()
        };
        let pivots = work.keep(self.scratch(
            "lower_bound/upper_bound pivots",
            4 * u64::from(max_pivots) * table_windows.len() as u64,
            wgpu::BufferUsages::STORAGE,
        )?);
        let query_windows: Vec<_> =
            chunks(qv.units(), units_per_window(self, &[qv.unit_bytes()])).collect();
        let cap = search_groups_cap(self);
        for (t, &(first, count)) in table_windows.iter().enumerate() {
            let window = Window::new(count as u32, max_pivots);
            let table_binding = if count == 0 {
                // Never read (no pivots, no steps), but a binding must have bytes: the
                // first queries, also bound read-only.
                qv.window(&query_windows[0])
            } else {
                Res::range(table.buffer, table.offset + 4 * first, 4 * count)
            };
            let pivot_base = t as u32 * max_pivots;
            record_pivots(
                work,
                &pivots_kernel,
                &pivots,
                table_binding.clone(),
                window,
                pivot_base,
                wg,
            )?;
            for q in &query_windows {
                let units = q.units as u32;
                let groups = units.div_ceil(wg).clamp(1, cap);
                let block = work.params(&SearchParams {
                    accumulate: u32::from(t > 0),
                    units,
                    groups,
                    ..window.params(pivot_base)
                });
                let grid = workgroup_grid(u64::from(groups), max_per_dim)?;
                work.dispatch(&search_kernel, grid)
                    .bind(0, block)
                    .bind(1, Res::whole(&pivots))
                    .bind(2, table_binding.clone())
                    .bind(3, qv.window(q))
                    .bind(4, ov.window(q));
            }
        }
        Ok(())
    }

    /// Adds a bucketed search to `work`: the pivots, the three bucketing passes of
    /// `wgsl/search_buckets.wgsl` (count, offsets, scatter into (query, index) pairs
    /// grouped by table range) and the search of the pairs, which writes each answer at
    /// its query's index. The table, the queries and the pairs each fit one binding
    /// ([`bucketing_fits`]).
    fn record_bucketed_search<K: RadixKey>(
        &self,
        work: &mut Work,
        sorted: &GpuVec<K>,
        queries: &GpuVec<K>,
        side: Side,
        out: &GpuVec<u32>,
    ) -> Result<()> {
        let (table, qv, ov) = (View::of(sorted), View::of(queries), View::of(out));
        let search = SearchKernel::new::<K>(
            self.info(),
            side,
            Io::Bucketed {
                queries_vec4: qv.vec4(),
            },
        );
        let (wg, max_pivots) = (search.workgroup_size, search.pivots);
        let buckets = BucketKernel::new::<K>(&search, qv.vec4());
        let max_per_dim = self.info().max_workgroups_per_dimension;
        let n = sorted.len() as u32;
        let count = queries.len() as u32;
        let units = count.div_ceil(4);
        let window = Window::new(n, max_pivots);
        // An empty table: never read, but a binding must have bytes.
        let table_binding = if n == 0 {
            qv.whole()
        } else {
            Res::range(table.buffer, table.offset, 4 * u64::from(n))
        };
        let pivots = work.keep(self.scratch(
            "lower_bound/upper_bound pivots",
            4 * u64::from(max_pivots),
            wgpu::BufferUsages::STORAGE,
        )?);
        let pivots_kernel = self.pipeline_for(&search, "pivots_main")?;
        record_pivots(
            work,
            &pivots_kernel,
            &pivots,
            table_binding.clone(),
            window,
            0,
            wg,
        )?;

        let bucket_pivots = window.pivots.min(MAX_BUCKETS);
        let bins = u64::from(bucket_pivots + 1);
        // Counts, then slots, then the word that says the queries were not in order.
        let bins_bytes = 4 * (2 * bins + 1);
        let bins_buffer = work.keep(self.scratch(
            "lower_bound/upper_bound bucket counts",
            bins_bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        )?);
        work.clear(&bins_buffer, 0, Some(bins_bytes));
        let pairs_bytes = 8 * u64::from(count);
        // Kept for the next call of this size, as a sort's scratch is: allocating tens of
        // MiB for each call costs more than the search.
        let pairs = work.keep(self.scratch_kept(
            "lower_bound/upper_bound (query, index) pairs",
            pairs_bytes,
            wgpu::BufferUsages::STORAGE,
        )?);
        let cap = search_groups_cap(self);
        let params = |work: &mut Work, groups: u32| {
            work.params(&BucketParams {
                count,
                buckets: bucket_pivots,
                stride: window.pivots.checked_div(bucket_pivots).unwrap_or(0),
                pivot_base: 0,
                groups,
                ..BucketParams::default()
            })
        };
        let bins_binding = Res::range(&bins_buffer, 0, bins_bytes);
        let query_binding = qv.whole();
        let pairs_binding = Res::range(&pairs, 0, pairs_bytes);

        let groups = units.div_ceil(wg).clamp(1, cap);
        let block = params(work, groups);
        work.dispatch(
            &self.pipeline_for(&buckets, "count_main")?,
            workgroup_grid(u64::from(groups), max_per_dim)?,
        )
        .bind(0, block)
        .bind(1, Res::whole(&pivots))
        .bind(2, bins_binding.clone())
        .bind(3, query_binding.clone());

        let block = params(work, 1);
        work.dispatch(&self.pipeline_for(&buckets, "offsets_main")?, [1, 1, 1])
            .bind(0, block)
            .bind(2, bins_binding.clone());

        let groups = units.div_ceil(wg * SCATTER_UNITS).clamp(1, cap);
        let block = params(work, groups);
        work.dispatch(
            &self.pipeline_for(&buckets, "scatter_main")?,
            workgroup_grid(u64::from(groups), max_per_dim)?,
        )
        .bind(0, block)
        .bind(1, Res::whole(&pivots))
        .bind(2, bins_binding.clone())
        .bind(3, query_binding.clone())
        .bind(4, pairs_binding.clone());

        let groups = units.div_ceil(wg).clamp(1, cap);
        let block = work.params(&SearchParams {
            units,
            groups,
            unsorted_at: 2 * (bucket_pivots + 1),
            ..window.params(0)
        });
        work.dispatch(
            &self.pipeline_for(&search, "search_main")?,
            workgroup_grid(u64::from(groups), max_per_dim)?,
        )
        .bind(0, block)
        .bind(1, Res::whole(&pivots))
        .bind(2, table_binding)
        .bind(3, pairs_binding)
        .bind(4, ov.exact())
        .bind(5, query_binding)
        .bind(6, bins_binding);
        Ok(())
    }
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`): both sides, every key type, every layout of the queries and the
/// answers, direct and bucketed, and the bucketing passes, as each catalog device would
/// choose them.
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::{Catalog, Device, devices, layout};
    fn add<K: RadixKey>(c: &mut Catalog, d: &Device) {
        for side in [Side::Lower, Side::Upper] {
            for queries_vec4 in [true, false] {
                for out_vec4 in [true, false] {
                    let io = Io::Direct {
                        queries_vec4,
                        out_vec4,
                    };
                    c.add_for(d, &SearchKernel::new::<K>(&d.info, side, io));
                }
                let io = Io::Bucketed { queries_vec4 };
                let search = SearchKernel::new::<K>(&d.info, side, io);
                c.add_for(d, &search);
                c.add_for(d, &BucketKernel::new::<K>(&search, queries_vec4));
            }
        }
    }
    for d in devices() {
        add::<u32>(c, &d);
        add::<i32>(c, &d);
        add::<f32>(c, &d);
    }
    merge::catalog(c);
    let info = &devices()[0].info;
    let search = SearchKernel::new::<u32>(info, Side::Lower, Io::Bucketed { queries_vec4: true });
    let wgsl = search.wgsl().expect("search renders");
    layout!(
        c,
        SearchParams,
        "GpSearchParams",
        wgsl,
        [
            n,
            pivots,
            gap,
            extra,
            steps,
            pivot_base,
            accumulate,
            units,
            groups,
            unsorted_at,
            _pad1,
            _pad2
        ]
    );
    let wgsl = BucketKernel::new::<u32>(&search, true)
        .wgsl()
        .expect("buckets render");
    layout!(
        c,
        BucketParams,
        "GpBucketParams",
        wgsl,
        [
            count, buckets, stride, pivot_base, groups, _pad0, _pad1, _pad2
        ]
    );
}

#[cfg(test)]
mod tests {
    use super::Window;

    /// The kernel's search on the CPU, step for step: pivots narrow `q` to a range,
    /// `steps` halvings finish it.
    fn search(table: &[u32], w: &Window, q: u32, upper: bool) -> u32 {
        let before = |t: u32| if upper { t <= q } else { t < q };
        let mut c = 0;
        let mut step = w.pivots;
        while step > 0 {
            let probe = c + step;
            if probe <= w.pivots && before(table[w.pivot_at(probe.min(w.pivots) - 1) as usize]) {
                c = probe;
            }
            step >>= 1;
        }
        let mut lo = c * w.gap + c.min(w.extra);
        let hi = if c == w.pivots { w.n } else { w.pivot_at(c) };
        let mut len = hi - lo;
        for _ in 0..w.steps {
            let half = len >> 1;
            let mid = (lo + half).min(w.n.max(1) - 1);
            if len > 0 && before(table[mid as usize]) {
                lo = mid + 1;
                len -= half + 1;
            } else {
                len = half;
            }
        }
        lo
    }

    /// Pivots are increasing and inside the table, every range fits the steps, and the
    /// search finds std's answers.
    #[test]
    fn windows_cover_their_ranges() {
        for max in [1u32, 2, 8, 4096] {
            for n in (0..300u32).chain([1 << 20, 1 << 24, (1 << 24) + 7, u32::MAX]) {
                let w = Window::new(n, max);
                assert!(w.pivots <= max && (w.pivots == 0 || w.pivots.is_power_of_two()));
                let mut prev: i64 = -1;
                for j in 0..w.pivots {
                    let p = w.pivot_at(j);
                    let range = (i64::from(p) - prev - 1) as u64;
                    assert!(
                        i64::from(p) > prev && range < 1 << w.steps,
                        "{n} {max}: {w:?}"
                    );
                    prev = i64::from(p);
                }
                assert!((i64::from(n) - prev - 1) < 1 << w.steps, "{n} {max}: {w:?}");
            }
        }
        // 12 steps after 4096 pivots in 2^24 elements.
        assert_eq!(Window::new(1 << 24, 4096).steps, 12);
    }

    #[test]
    fn search_matches_partition_point() {
        let mut s = 0x9e37_79b9u32;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        };
        for n in [0usize, 1, 2, 3, 5, 17, 64, 100, 1000, 5000] {
            let mut table: Vec<u32> = (0..n).map(|_| next() % 64).collect();
            table.sort();
            for max in [1, 4, 16, 4096] {
                let w = Window::new(n as u32, max);
                for q in 0..70 {
                    let lower = table.partition_point(|&t| t < q) as u32;
                    let upper = table.partition_point(|&t| t <= q) as u32;
                    assert_eq!(search(&table, &w, q, false), lower, "n {n} max {max} q {q}");
                    assert_eq!(search(&table, &w, q, true), upper, "n {n} max {max} q {q}");
                }
            }
        }
    }
}
