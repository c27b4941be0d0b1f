//! [`Ctx::top_k_rows`], [`Ctx::smallest_k_rows`] and their `_into` forms: the `k`
//! largest or smallest elements of each row of a [`Grid2D`], in [`Ctx::top_k`]'s order.
//!
//! One workgroup per row (`wgsl/top_k_rows.wgsl`) selects without sorting the row: a
//! radix select of the row's ordered words, 8 bits at a time from the top (histograms in
//! workgroup memory), stops as soon as the elements at or above the selected prefix
//! number at most `k` plus a workgroup's worth, or once the `k`-th largest word `T` is
//! known. Those candidates go to workgroup memory (where more than the slots hold are
//! equal to `T`, the lowest-index ones, found by a workgroup scan in index order), and
//! each candidate's rank among them (larger word, or equal word and lower column) places
//! the first `k` in the output. Rows of up to 16 vec4 units per invocation are read
//! once into registers, wider ones again at each step.
//!
//! The candidate slots live in workgroup memory, so `k` is at most what the device's
//! workgroup memory holds (1776 at WebGPU's 16 KiB); past it, or where a row (with the
//! alignment of a storage binding's offset) does not fit one binding, the call is a
//! stable sort of every `(value, position)` pair by value, then two stable sorts by row
//! (one carrying the values, one the columns), and the first `k` of each row copied out.
//! That path copies rows one by one where the pitch is not the width, or `k` not the
//! width (a command per row): correct, not fast.

use crate::error::{Error, Limit, Result};
use crate::ops::grid2d::Grid2D;
use crate::ops::sort::{Sort, SortKey};
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::context::{Ctx, Info, check_apart, check_len};
use crate::runtime::dispatch::{pow2_workgroup_size_within, storage_alignment, workgroup_grid};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::GpuVec;
use crate::runtime::view::View;

use super::End;
use super::tuning::TopKTuning;

const TOP_K_ROWS_WGSL: &str = include_str!("../../../wgsl/top_k_rows.wgsl");
const KEYS_WGSL: &str = include_str!("../../../wgsl/sort_keys.wgsl");

/// Invocations per workgroup (at most).
const WG: u32 = 256;
/// vec4 units an invocation holds in registers, by row width: the smallest that holds
/// the row; rows wider than the last are read again at each step.
const HOLDS: [u32; 3] = [1, 4, 16];
/// Candidate slots for `k` up to `SMALL_CAP - wg`: less workgroup memory, more
/// workgroups per compute unit.
const SMALL_CAP: u32 = 1024;
/// Workgroup memory of the kernel besides the candidate slots (8 bytes each) and the
/// tie scan (4 per invocation), each variable rounded up to 16 bytes as Dawn counts:
/// `hist` (1024), `group_sums` (64), `chosen`, `slot_count` and `ties_taken` (16 each).
const OTHER_BYTES: u64 = 1024 + 64 + 3 * 16;

/// `Params` in `wgsl/top_k_rows.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    width: u32,
    rows: u32,
    pitch: u32,
    k: u32,
    in_base: u32,
    out_base: u32,
    key_xor: u32,
    neg_mask: u32,
    stop: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

/// `wgsl/top_k_rows.wgsl` at one shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct TopKRowsKernel {
    workgroup_size: u32,
    /// Candidate slots.
    cap: u32,
    /// vec4 units an invocation holds, or 0: rows read again at each step.
    hold: u32,
    /// Whether rows are read as vec4 units (every row starts at a whole unit).
    vec4: bool,
}

impl KernelSource for TopKRowsKernel {
    fn name(&self) -> &'static str {
        "top_k_rows"
    }

    fn element(&self) -> &'static str {
        "u32"
    }

    fn wgsl(&self) -> Result<String> {
        render(
            TOP_K_ROWS_WGSL,
            &[
                ("WG", self.workgroup_size.to_string()),
                ("CAP", self.cap.to_string()),
                ("HOLD", self.hold.max(1).to_string()),
                ("VEC4", self.vec4.to_string()),
                ("HELD", (self.hold > 0).to_string()),
                ("KEYS", KEYS_WGSL.to_string()),
            ],
        )
    }

    /// The kernel writes every workgroup word it reads first.
    fn initializes_workgroup_memory(&self) -> bool {
        true
    }
}

/// The largest candidate count the device's workgroup memory holds for workgroups of
/// `wg` (a multiple of 4, so the slot arrays are whole 16-byte words).
fn cap_max(info: &Info, wg: u32) -> u32 {
    let bytes = u64::from(info.limits.max_compute_workgroup_storage_size);
    let free = bytes.saturating_sub(OTHER_BYTES + 4 * u64::from(wg));
    (free / 8 / 4 * 4) as u32
}

/// The largest `k` [`Ctx::top_k_rows`] selects in workgroup memory on the device `info`
/// describes; above it the call sorts. (Read by the `internals` hook and the catalog.)
#[cfg(any(test, feature = "internals"))]
fn max_k_of(info: &Info) -> usize {
    cap_max(info, pow2_workgroup_size_within(&info.limits, WG)) as usize
}

/// The kernel shape of a call with rows of `width` elements and `k`, or `None` where
/// `k` is past the candidate slots.
fn shape(info: &Info, width: u32, k: u32, vec4: bool) -> Option<(TopKRowsKernel, u32)> {
    let wg = pow2_workgroup_size_within(&info.limits, WG);
    let max = cap_max(info, wg);
    if k > max || k == 0 {
        return None;
    }
    let cap = if k + wg <= SMALL_CAP && SMALL_CAP <= max {
        SMALL_CAP
    } else {
        max
    };
    let units = width.div_ceil(4);
    let hold = HOLDS
        .iter()
        .copied()
        .find(|&h| u64::from(units) <= u64::from(h) * u64::from(wg))
        .unwrap_or(0);
    let stop = (k + wg).min(cap);
    Some((
        TopKRowsKernel {
            workgroup_size: wg,
            cap,
            hold,
            vec4,
        },
        stop,
    ))
}

/// One dispatch's rows `first..first + rows`, with the element of the grid's vector and
/// of the outputs its bindings start at.
#[derive(Clone, Copy, Debug)]
struct Window {
    first: u32,
    rows: u32,
    in_start: u64,
    out_start: u64,
}

/// The windows of a grid's rows for bindings of at most `max_words` 4-byte elements at
/// offsets that are multiples of `align_words`, or `None` where one row does not fit.
fn row_windows(
    (width, height, pitch): (u32, u32, u32),
    k: u32,
    vec4: bool,
    max_words: u64,
    align_words: u64,
) -> Option<Vec<Window>> {
    let (width, pitch, k) = (u64::from(width), u64::from(pitch), u64::from(k));
    let row_end = if vec4 {
        width.next_multiple_of(4)
    } else {
        width
    };
    let max_words = if vec4 { max_words / 4 * 4 } else { max_words };
    let mut out = Vec::new();
    let mut r0 = 0u64;
    while r0 < u64::from(height) {
        let in_start = r0 * pitch / align_words * align_words;
        let out_start = r0 * k / align_words * align_words;
        let room_in = (in_start + max_words).checked_sub(r0 * pitch + row_end)?;
        let room_out = (out_start + max_words).checked_sub((r0 + 1) * k)?;
        let more_in = room_in / pitch.max(1);
        let more_out = room_out / k;
        let rows = (1 + more_in.min(more_out))
            .min(u64::from(height) - r0)
            .min(u64::from(u32::MAX));
        // The bases the kernel adds must stay u32.
        if r0 * pitch - in_start + rows * pitch > u64::from(u32::MAX) {
            return None;
        }
        out.push(Window {
            first: r0 as u32,
            rows: rows as u32,
            in_start,
            out_start,
        });
        r0 += rows;
    }
    Some(out)
}

impl Ctx {
    /// The `k` largest elements of each row of `grid`, largest first, and their columns:
    /// `grid.height() * k` of each, row after row. Elements that compare equal come in
    /// column order, lower first. Without waiting.
    ///
    /// Each row is ordered as [`Ctx::top_k`] orders a vector: `f32` in
    /// [`f32::total_cmp`] order (NaN with its sign bit clear largest, -NaN smallest,
    /// `+0.0` above `-0.0`). `k` may be 0 (two empty vectors) up to `grid.width()`.
    ///
    /// For `k` up to what workgroup memory holds (1776 at WebGPU's limits) one
    /// workgroup per row selects the `k` by a radix select in workgroup memory and ranks
    /// only them; above it, and for rows wider than a storage binding, a stable sort of
    /// every element, then by row (see the [module docs](crate::ops::top_k::rows)). The
    /// result is the same on every run.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `k > grid.width()`; [`Error::TooLarge`] where the
    /// sorting path meets a grid of `2^32` elements or more, or [`Ctx::sort`]'s limits.
    ///
    /// ```
    /// use gpuprim::Grid2D;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let m = ctx.upload(&[1.0f32, 5.0, 3.0, 5.0, /* row 1 */ -1.0, f32::NAN, 0.0, 2.0])?;
    /// let (values, indices) = ctx.top_k_rows(&Grid2D::new(&m, 4, 2)?, 2)?;
    /// let values = values.to_vec()?;
    /// assert_eq!(&values[..2], &[5.0, 5.0]);
    /// assert!(values[2].is_nan() && values[3] == 2.0); // NaN is the largest
    /// assert_eq!(indices.to_vec()?, vec![1, 3, 1, 3]); // ties: lower column first
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn top_k_rows<T: SortKey>(
        &self,
        grid: &Grid2D<'_, T>,
        k: usize,
    ) -> Result<(GpuVec<T>, GpuVec<u32>)> {
        self.rows_new("top_k_rows", grid, k, End::Largest)
    }

    /// The `k` smallest elements of each row of `grid`, smallest first, and their
    /// columns, row after row; ties in column order. Without waiting.
    ///
    /// The order is [`Ctx::smallest_k`]'s within each row.
    ///
    /// # Errors
    /// As [`Ctx::top_k_rows`].
    ///
    /// ```
    /// use gpuprim::Grid2D;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let m = ctx.upload(&[4u32, 1, 4, 0, /* row 1 */ 7, 7, 2, 9])?;
    /// let (values, indices) = ctx.smallest_k_rows(&Grid2D::new(&m, 4, 2)?, 3)?;
    /// assert_eq!(values.to_vec()?, vec![0, 1, 4, 2, 7, 7]);
    /// assert_eq!(indices.to_vec()?, vec![3, 1, 0, 2, 0, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn smallest_k_rows<T: SortKey>(
        &self,
        grid: &Grid2D<'_, T>,
        k: usize,
    ) -> Result<(GpuVec<T>, GpuVec<u32>)> {
        self.rows_new("smallest_k_rows", grid, k, End::Smallest)
    }

    /// [`Ctx::top_k_rows`] into `values` and `indices`, which have one length, a
    /// multiple of `grid.height()`: `k` is that length divided by the rows. Without
    /// waiting.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `values` and `indices` have one length;
    /// [`Error::InvalidArgument`] if it is not a multiple of `grid.height()`, if `k`
    /// is more than `grid.width()`, or if any two of the grid's vector, `values` and
    /// `indices` are views of one buffer whose bytes overlap; as [`Ctx::top_k_rows`]
    /// otherwise.
    ///
    /// ```
    /// use gpuprim::Grid2D;
    /// let ctx = gpuprim::Ctx::new()?;
    /// // Two rows of 3 in a pitch of 4 (the 4th element of each row is not in the grid).
    /// let m = ctx.upload(&[3i32, -8, 6, 99, /* row 1 */ 0, 0, -1, 99])?;
    /// let mut values = ctx.zeros::<i32>(4)?;
    /// let mut indices = ctx.zeros::<u32>(4)?;
    /// ctx.top_k_rows_into(&Grid2D::with_pitch(&m, 3, 2, 4)?, &mut values, &mut indices)?;
    /// assert_eq!(values.to_vec()?, vec![6, 3, 0, 0]);
    /// assert_eq!(indices.to_vec()?, vec![2, 0, 0, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn top_k_rows_into<T: SortKey>(
        &self,
        grid: &Grid2D<'_, T>,
        values: &mut GpuVec<T>,
        indices: &mut GpuVec<u32>,
    ) -> Result<()> {
        rows_into(self, "top_k_rows_into", grid, values, indices, End::Largest)
    }

    /// [`Ctx::smallest_k_rows`] into `values` and `indices` (as [`Ctx::top_k_rows_into`]).
    /// Without waiting.
    ///
    /// # Errors
    /// As [`Ctx::top_k_rows_into`].
    ///
    /// ```
    /// use gpuprim::Grid2D;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let m = ctx.upload(&[0.5f32, -0.0, 0.0, -2.0])?;
    /// let mut values = ctx.zeros::<f32>(2)?;
    /// let mut indices = ctx.zeros::<u32>(2)?;
    /// ctx.smallest_k_rows_into(&Grid2D::new(&m, 4, 1)?, &mut values, &mut indices)?;
    /// assert_eq!(values.to_vec()?, vec![-2.0, -0.0]);
    /// assert_eq!(indices.to_vec()?, vec![3, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn smallest_k_rows_into<T: SortKey>(
        &self,
        grid: &Grid2D<'_, T>,
        values: &mut GpuVec<T>,
        indices: &mut GpuVec<u32>,
    ) -> Result<()> {
        rows_into(
            self,
            "smallest_k_rows_into",
            grid,
            values,
            indices,
            End::Smallest,
        )
    }

    /// The largest `k` that [`Ctx::top_k_rows`] and [`Ctx::smallest_k_rows`] select in
    /// workgroup memory on this device (above it they sort; feature `internals`).
    #[cfg(feature = "internals")]
    pub fn top_k_rows_max_k(&self) -> usize {
        max_k_of(self.info())
    }

    fn rows_new<T: SortKey>(
        &self,
        op: &'static str,
        grid: &Grid2D<'_, T>,
        k: usize,
        end: End,
    ) -> Result<(GpuVec<T>, GpuVec<u32>)> {
        self.check_owned(op, &[&grid.vec().ctx])?;
        check_k(op, k, grid.width())?;
        // At most the grid's elements: no overflow.
        let len = k * grid.height() as usize;
        let mut values = self.zeros::<T>(len)?;
        let mut indices = self.zeros::<u32>(len)?;
        rows_into(self, op, grid, &mut values, &mut indices, end)?;
        Ok((values, indices))
    }
}

fn check_k(op: &'static str, k: usize, width: u32) -> Result<()> {
    if k > width as usize {
        return Err(Error::InvalidArgument {
            op,
            message: format!(
                "k = {k} is more than the grid's {width} columns; pass k <= {width} (k = \
                 {width} takes every element of each row, in order)"
            ),
        });
    }
    Ok(())
}

/// Checks the call and records it on the path its sizes take.
fn rows_into<T: SortKey>(
    ctx: &Ctx,
    op: &'static str,
    grid: &Grid2D<'_, T>,
    values: &mut GpuVec<T>,
    indices: &mut GpuVec<u32>,
    end: End,
) -> Result<()> {
    let v = grid.vec();
    ctx.check_owned(op, &[&v.ctx, &values.ctx, &indices.ctx])?;
    values.require_host_len(op)?;
    indices.require_host_len(op)?;
    check_len(op, ("values", values.len()), ("indices", indices.len()))?;
    let (width, height) = (grid.width(), grid.height());
    let len = values.len();
    if !len.is_multiple_of(height as usize) {
        return Err(Error::InvalidArgument {
            op,
            message: format!(
                "`values` and `indices` have {len} elements, not a multiple of the grid's \
                 {height} rows; give them k * {height} elements for the k of each row"
            ),
        });
    }
    let k = len / height as usize;
    check_k(op, k, width)?;
    check_apart(
        op,
        &[
            ("grid", View::of(v)),
            ("values", View::of(values)),
            ("indices", View::of(indices)),
        ],
    )?;
    if k == 0 {
        return Ok(());
    }
    let vec4 = grid.pitch().is_multiple_of(4) && View::of(v).vec4();
    let info = ctx.info();
    let windows = row_windows(
        (width, height, grid.pitch()),
        k as u32,
        vec4,
        info.max_binding_bytes / 4,
        (storage_alignment(ctx) / 4).max(1),
    );
    match (shape(info, width, k as u32, vec4), windows) {
        (Some((kernel, stop)), Some(windows)) => record_rows(
            ctx,
            op,
            grid,
            (values, indices),
            end,
            &kernel,
            stop,
            &windows,
        ),
        _ => {
            let span = u64::from(grid.pitch()) * u64::from(height - 1) + u64::from(width);
            if 4 * span <= info.max_binding_bytes && span < 1 << 31 {
                sorted_rows(ctx, grid, (values, indices), k, end)
            } else {
                sort_rows(ctx, op, grid, (values, indices), end)
            }
        }
    }
}

fn key_xor<T: SortKey>(end: End) -> u32 {
    T::KEY_XOR
        ^ match end {
            End::Largest => 0,
            End::Smallest => u32::MAX,
        }
}

/// Records the per-row select, one dispatch per window, and queues it.
#[allow(clippy::too_many_arguments)]
fn record_rows<T: SortKey>(
    ctx: &Ctx,
    op: &'static str,
    grid: &Grid2D<'_, T>,
    (values, indices): (&GpuVec<T>, &GpuVec<u32>),
    end: End,
    config: &TopKRowsKernel,
    stop: u32,
    windows: &[Window],
) -> Result<()> {
    let kernel = ctx.pipeline_for(config, "rows_main")?;
    let info = ctx.info();
    let (width, pitch) = (grid.width(), grid.pitch());
    let k = (values.len() / grid.height() as usize) as u32;
    // At most what one dispatch launches: the rows are grid-strided over them.
    let cap = TopKTuning::of(info)
        .row_groups
        .min(u64::from(info.max_workgroups_per_dimension).pow(3));
    let src = View::of(grid.vec());
    let (out_v, out_i) = (View::of(values), View::of(indices));
    let row_end = if config.vec4 {
        u64::from(width).next_multiple_of(4)
    } else {
        u64::from(width)
    };
    let mut work = Work::new(ctx, op);
    for w in windows {
        let first = u64::from(w.first);
        let rows = u64::from(w.rows);
        let in_base = first * u64::from(pitch) - w.in_start;
        let in_end = (first + rows - 1) * u64::from(pitch) + row_end;
        let out_base = first * u64::from(k) - w.out_start;
        let out_end = (first + rows) * u64::from(k);
        let block = work.params(&Params {
            width,
            rows: w.rows,
            pitch,
            k,
            in_base: in_base as u32,
            out_base: out_base as u32,
            key_xor: key_xor::<T>(end),
            neg_mask: T::NEG_MASK,
            stop,
            ..Params::default()
        });
        let groups = rows.min(cap);
        let range = |view: &View<'_>, start: u64, end: u64| {
            Res::range(view.buffer, view.offset + 4 * start, 4 * (end - start))
        };
        work.dispatch(
            &kernel,
            workgroup_grid(groups, info.max_workgroups_per_dimension)?,
        )
        .bind(0, block)
        .bind(1, range(&src, w.in_start, in_end))
        .bind(2, range(&out_v, w.out_start, out_end))
        .bind(3, range(&out_i, w.out_start, out_end));
    }
    work.submit()
}

fn sort_of(end: End) -> Sort {
    match end {
        End::Largest => Sort::descending(),
        End::Smallest => Sort::ascending(),
    }
}

/// `k` past the candidate slots (a grid in one binding): each row's order by
/// [`Ctx::argsort_rows_with`], then the first `k` columns of each row and their values
/// gathered by one element-wise kernel.
fn sorted_rows<T: SortKey>(
    ctx: &Ctx,
    grid: &Grid2D<'_, T>,
    (values, indices): (&mut GpuVec<T>, &mut GpuVec<u32>),
    k: usize,
    end: End,
) -> Result<()> {
    let order = ctx.argsort_rows_with(grid, &sort_of(end))?;
    ctx.elementwise(
        "let r = i / k; let c = order[r * width + i % k]; column = c; value = src[r * pitch + c];",
    )
    .raw("order", &order)
    .raw("src", grid.vec())
    .scalar("k", k as u32)
    .scalar("width", grid.width())
    .scalar("pitch", grid.pitch())
    .write("column", indices)
    .write("value", values)
    .run()
}

/// Rows past a binding: every element's value and
/// position sorted stably by value; then by row twice (one sort carrying the values,
/// one the columns: equal keys, so the same order); then the first `k` of each row.
fn sort_rows<T: SortKey>(
    ctx: &Ctx,
    op: &'static str,
    grid: &Grid2D<'_, T>,
    (values, indices): (&GpuVec<T>, &GpuVec<u32>),
    end: End,
) -> Result<()> {
    let (width, height, pitch) = (grid.width(), grid.height(), grid.pitch());
    let n = u64::from(width) * u64::from(height);
    let limit = u64::from(u32::MAX);
    if n >= limit {
        return Err(Error::TooLarge {
            what: format!(
                "`{op}` of a {width} x {height} grid with k past the workgroup path (its \
                 positions are u32)"
            ),
            kind: Limit::Elements,
            requested: n,
            limit: limit - 1,
        });
    }
    let (w, n) = (width as usize, n as usize);
    let k = values.len() / height as usize;
    let mut keys = ctx.zeros::<T>(n)?;
    let src = View::of(grid.vec());
    let mut work = Work::new(ctx, op);
    if pitch == width {
        crate::ops::copy::record_copy(&mut work, &View { len: n, ..src }, &View::of(&keys))?;
    } else {
        require_copy(
            op,
            "the grid's vector",
            src.buffer,
            wgpu::BufferUsages::COPY_SRC,
        )?;
        for r in 0..u64::from(height) {
            work.copy(
                (src.buffer, src.offset + 4 * r * u64::from(pitch)),
                (&keys.buffer, keys.offset + 4 * r * u64::from(width)),
                4 * u64::from(width),
            );
        }
    }
    work.submit()?;
    // Positions 0..n: the exclusive sums of ones.
    let mut pos = ctx.scan_exclusive(&ctx.map(&ctx.zeros::<u32>(n)?, "1u")?)?;
    ctx.sort_by_key_with(&mut keys, &mut pos, &sort_of(end))?;
    let mut row_a: GpuVec<u32> = ctx.map(&pos, &format!("x / {w}u"))?;
    let mut row_b: GpuVec<u32> = ctx.map(&pos, &format!("x / {w}u"))?;
    let mut col: GpuVec<u32> = ctx.map(&pos, &format!("x % {w}u"))?;
    drop(pos);
    // The values as bits, which any sort carries.
    let mut bits = GpuVec::<u32>::over_scratch(ctx, keys.buffer.clone(), n);
    ctx.sort_by_key(&mut row_a, &mut bits)?;
    ctx.sort_by_key(&mut row_b, &mut col)?;
    let mut work = Work::new(ctx, op);
    if k == w {
        crate::ops::copy::record_copy(&mut work, &View::of(&keys), &View::of(values))?;
        crate::ops::copy::record_copy(&mut work, &View::of(&col), &View::of(indices))?;
        return work.submit();
    }
    // The first k of each row into vectors of ours, then whole into the outputs (which
    // may not take copies).
    let top_v = ctx.zeros::<T>(values.len())?;
    let top_i = ctx.zeros::<u32>(values.len())?;
    for r in 0..height as u64 {
        let (from, to, bytes) = (4 * r * w as u64, 4 * r * k as u64, 4 * k as u64);
        work.copy(
            (&keys.buffer, keys.offset + from),
            (&top_v.buffer, top_v.offset + to),
            bytes,
        );
        work.copy(
            (&col.buffer, col.offset + from),
            (&top_i.buffer, top_i.offset + to),
            bytes,
        );
    }
    crate::ops::copy::record_copy(&mut work, &View::of(&top_v), &View::of(values))?;
    crate::ops::copy::record_copy(&mut work, &View::of(&top_i), &View::of(indices))?;
    work.submit()
}

fn require_copy(
    op: &'static str,
    what: &str,
    buffer: &wgpu::Buffer,
    usage: wgpu::BufferUsages,
) -> Result<()> {
    if buffer.usage().contains(usage) {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        op,
        message: format!(
            "{what} is a buffer without {usage:?}, which this call needs for a grid whose \
             pitch is not its width with k past the workgroup path; create the buffer with \
             {usage:?}"
        ),
    })
}

/// Every shape of the kernel on each catalog device, for the catalog test.
#[cfg(test)]
pub(super) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::devices;
    for d in devices() {
        let mut seen: Vec<TopKRowsKernel> = Vec::new();
        for width in [1u32, 1000, 4000, 16000, 1 << 20] {
            for k in [1u32, 100, 1000, max_k_of(&d.info) as u32] {
                for vec4 in [true, false] {
                    if let Some((config, _)) = shape(&d.info, width, k, vec4) {
                        if !seen.contains(&config) {
                            c.add_for(&d, &config);
                            seen.push(config);
                        }
                    }
                }
            }
        }
    }
    let wgsl = TopKRowsKernel {
        workgroup_size: 256,
        cap: SMALL_CAP,
        hold: 4,
        vec4: true,
    }
    .wgsl()
    .expect("top_k_rows renders");
    crate::ops::catalog::layout!(
        c,
        Params,
        "Params",
        wgsl,
        [
            width, rows, pitch, k, in_base, out_base, key_xor, neg_mask, stop, _pad0, _pad1, _pad2
        ]
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cover_the_rows_within_bindings() {
        for (width, height, pitch, k) in
            [(900u32, 7u32, 900u32, 3u32), (5, 300, 7, 5), (1, 1, 1, 1)]
        {
            let ws = row_windows((width, height, pitch), k, false, 1024, 64).expect("fits");
            let mut next = 0;
            for w in &ws {
                assert_eq!(w.first, next);
                next += w.rows;
                let last = u64::from(w.first + w.rows - 1);
                assert!(last * u64::from(pitch) + u64::from(width) - w.in_start <= 1024);
                assert!(u64::from(w.first + w.rows) * u64::from(k) - w.out_start <= 1024);
                assert_eq!(w.in_start % 64, 0);
            }
            assert_eq!(next, height);
        }
        assert!(row_windows((1020, 2, 1020), 1, false, 1024, 64).is_none());
    }
}
