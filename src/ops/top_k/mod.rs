//! The `k` largest or smallest elements with their indices: [`Ctx::top_k`],
//! [`Ctx::smallest_k`] and their `_into` forms; per row of a grid, [`Ctx::top_k_rows`]
//! and [`Ctx::smallest_k_rows`] (module [`rows`], its own kernel).
//!
//! Elements are ordered as the sorts order keys ([`SortKey`](crate::SortKey): `f32` in
//! [`f32::total_cmp`] order), ties by index, lower first. For `k` up to 8192 (1024 on a
//! CPU adapter) or up to half the vector this is a radix select that never sorts the
//! vector (`wgsl/top_k.wgsl`):
//!
//! 1. Each element is a 64-bit composite of its ordered word `w` (every bit flipped for
//!    `smallest_k`) and its inverted index, so the wanted elements are exactly the `k`
//!    largest composites, all distinct.
//! 2. Per 11-bit digit of `w`, most significant first, one pass over the vector counts
//!    the digits of the elements that match the prefix selected so far (a histogram in
//!    workgroup memory), and one workgroup picks the digit whose bucket holds the
//!    `k`-th largest. Selecting stops as soon as that bucket's elements fit the
//!    candidate slots (`k` plus 8192 on a GPU). Three passes at most give the `k`-th
//!    largest word `T` exactly.
//! 3. When more elements equal `T` than the slots hold, the digits of the index are
//!    selected the same way among them (up to three more passes, which otherwise return
//!    at once).
//! 4. The pass after selecting stops (the next digit's, or one more) appends every
//!    candidate (above the bucket, or in it and selected) to the slots with
//!    workgroup-aggregated atomics, in no fixed order; the passes after it return at
//!    once. Random `u32` or uniform floats at 2^26 elements take three reads in all.
//! 5. For `k` up to 8192 (1024 on a CPU adapter), each candidate's rank is the number
//!    of candidates with a larger composite (a comparison of every pair, in slices
//!    spread over workgroups); those ranked below `k` are written at their rank. For
//!    larger `k` (the pairs grow as k^2) the slots, with sentinels that sort last in
//!    those left over, are sorted stably by index and then by value
//!    ([`Ctx::sort_by_key_with`]), and the first `k` copied out. Neither depends on the
//!    order of step 4, so the result is the same on every run.
//!
//! Keys that are not one word (the 8-byte keys, `f16`: any [`RadixKey`]) take a stable
//! sort of `(key, index)` pairs, descending for the largest, of which the first `k` are
//! copied out: the same order and ties, at the cost of a full sort.
//!
//! Everything stays on the device: no count is read back, the passes read the state
//! the previous ones left. For larger `k`, past half the vector (where sorting the candidates
//! twice costs about what sorting everything once does), or candidate slots past one
//! storage binding, the call is a full stable sort of `(value, index)` pairs of which
//! the first `k` are copied out.

use crate::error::{Error, Limit, Result};
use crate::ops::sort::{RadixKey, word_masks};
use crate::runtime::context::{Ctx, Info, check_apart, check_len};
use crate::runtime::dispatch::pow2_workgroup_size_within;
use crate::runtime::vec::GpuVec;
use crate::runtime::view::View;

pub mod rows;
mod select;
mod sorted;
pub(crate) mod tuning;

use select::record_select;
use sorted::{full_sort, sort_candidates};
use tuning::TopKTuning;

/// Invocations per workgroup (at most; fewer where the device allows fewer).
const WG: u32 = 256;
/// Bits per digit of the select: three passes cover a 32-bit word, and the workgroup
/// histogram (2048 counters, 8 KiB) fits any device's workgroup memory.
const DIGIT_BITS: u32 = 11;
/// Histograms per workgroup at most (invocation `i` counts in copy `i % 2`): uniform
/// floats in [0, 1) put half the elements in four bins of the first digit (one
/// exponent), and invocations of a subgroup adding to one counter wait for each other.
/// Two copies (16 KiB) still let 8 workgroups of 256 share a 228 KiB SM, so 1024 of them
/// run in one wave on a GPU of 128 SMs or more; four would not. One where the device
/// grants 16 KiB (WebGPU's default), which two and the pass's other words exceed.
const HISTOGRAM_COPIES: u32 = 2;
/// Workgroup memory the histogram pass holds besides its histograms (`wg_count` and
/// `wg_base` of the gather it may do, in `wgsl/top_k.wgsl`), each word counted as 16
/// bytes, as Dawn counts it.
const HISTOGRAM_OTHER_BYTES: u64 = 2 * 16;
/// Which end of the order a call takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum End {
    Largest,
    Smallest,
}

impl Ctx {
    /// The `k` largest elements of `v`, largest first, and their indices in `v`.
    /// Elements that compare equal come in index order, lower first. Without waiting.
    ///
    /// Elements are ordered as [`Ctx::sort`] orders them: `f32` in [`f32::total_cmp`]
    /// order, so a NaN with its sign bit clear (what `f32::NAN` and most operations give)
    /// is larger than `+inf` and comes first, -NaN is smaller than `-inf`, and `+0.0` is
    /// larger than `-0.0`. `k` may be 0 (two empty vectors) up to `v.len()`.
    ///
    /// For `k` up to 8192 or half the vector a radix select that reads the vector two to four
    /// times (more where many elements equal the `k`-th) and orders only the candidates; above, a stable sort of all pairs (see the
    /// [module docs](self)). The 8-byte and `f16` keys always take that sort. The
    /// result is the same on every run.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `k > v.len()` or `v` is a prefix view
    /// ([`GpuVec::prefix`]); [`Error::TooLarge`] for `2^32 - 1` elements or more (the
    /// indices are `u32`), and where a sort it uses meets [`Ctx::sort`]'s limits.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[0.5f32, 3.0, -1.0, 3.0, f32::NAN, 2.0])?;
    /// let (values, indices) = ctx.top_k(&v, 3)?;
    /// let values = values.to_vec()?;
    /// assert!(values[0].is_nan()); // NaN is the largest
    /// assert_eq!(&values[1..], &[3.0, 3.0]);
    /// assert_eq!(indices.to_vec()?, vec![4, 1, 3]); // equal values: lower index first
    /// let ids = ctx.upload(&[7u64 << 40, 9, 8 << 40])?; // any sort key
    /// assert_eq!(ctx.top_k(&ids, 2)?.1.to_vec()?, vec![2, 0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn top_k<T: RadixKey>(&self, v: &GpuVec<T>, k: usize) -> Result<(GpuVec<T>, GpuVec<u32>)> {
        self.select_new("top_k", v, k, End::Largest)
    }

    /// [`Ctx::top_k`] into `values` and `indices`, whose length is `k`. Without waiting.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `values` and `indices` have one length;
    /// [`Error::InvalidArgument`] if it is more than `v.len()`, if any two of the three
    /// vectors are views of one buffer whose bytes overlap, or for prefix views; as
    /// [`Ctx::top_k`] otherwise.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[7i32, -2, 9, 7, 0])?;
    /// let mut values = ctx.zeros::<i32>(2)?;
    /// let mut indices = ctx.zeros::<u32>(2)?;
    /// ctx.top_k_into(&v, &mut values, &mut indices)?;
    /// assert_eq!(values.to_vec()?, vec![9, 7]);
    /// assert_eq!(indices.to_vec()?, vec![2, 0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn top_k_into<T: RadixKey>(
        &self,
        v: &GpuVec<T>,
        values: &mut GpuVec<T>,
        indices: &mut GpuVec<u32>,
    ) -> Result<()> {
        select_into(self, "top_k_into", v, values, indices, End::Largest)
    }

    /// The `k` smallest elements of `v`, smallest first, and their indices in `v`.
    /// Elements that compare equal come in index order, lower first. Without waiting.
    ///
    /// The order is [`Ctx::top_k`]'s reversed except for ties: `f32` in
    /// [`f32::total_cmp`] order, so -NaN comes before `-inf`, and NaN (sign bit clear)
    /// after `+inf`, last.
    ///
    /// # Errors
    /// As [`Ctx::top_k`].
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[5u32, 1, 4, 1, 3])?;
    /// let (values, indices) = ctx.smallest_k(&v, 3)?;
    /// assert_eq!(values.to_vec()?, vec![1, 1, 3]);
    /// assert_eq!(indices.to_vec()?, vec![1, 3, 4]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn smallest_k<T: RadixKey>(
        &self,
        v: &GpuVec<T>,
        k: usize,
    ) -> Result<(GpuVec<T>, GpuVec<u32>)> {
        self.select_new("smallest_k", v, k, End::Smallest)
    }

    /// [`Ctx::smallest_k`] into `values` and `indices`, whose length is `k`. Without
    /// waiting.
    ///
    /// # Errors
    /// As [`Ctx::top_k_into`].
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[0.0f32, -0.0, 2.5, -7.0])?;
    /// let mut values = ctx.zeros::<f32>(3)?;
    /// let mut indices = ctx.zeros::<u32>(3)?;
    /// ctx.smallest_k_into(&v, &mut values, &mut indices)?;
    /// assert_eq!(values.to_vec()?, vec![-7.0, -0.0, 0.0]); // -0.0 < +0.0
    /// assert_eq!(indices.to_vec()?, vec![3, 1, 0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn smallest_k_into<T: RadixKey>(
        &self,
        v: &GpuVec<T>,
        values: &mut GpuVec<T>,
        indices: &mut GpuVec<u32>,
    ) -> Result<()> {
        select_into(self, "smallest_k_into", v, values, indices, End::Smallest)
    }

    fn select_new<T: RadixKey>(
        &self,
        op: &'static str,
        v: &GpuVec<T>,
        k: usize,
        end: End,
    ) -> Result<(GpuVec<T>, GpuVec<u32>)> {
        self.check_owned(op, &[&v.ctx])?;
        check_k(op, k, v.len())?;
        let mut values = self.zeros::<T>(k)?;
        let mut indices = self.zeros::<u32>(k)?;
        select_into(self, op, v, &mut values, &mut indices, end)?;
        Ok((values, indices))
    }
}

fn check_k(op: &'static str, k: usize, n: usize) -> Result<()> {
    if k > n {
        return Err(Error::InvalidArgument {
            op,
            message: format!(
                "k = {k} is more than the vector's {n} elements; pass k <= {n} (k = {n} takes \
                 every element, in order)"
            ),
        });
    }
    Ok(())
}

/// Checks the call and records it on the path its sizes take ([`Path`]).
fn select_into<T: RadixKey>(
    ctx: &Ctx,
    op: &'static str,
    v: &GpuVec<T>,
    values: &mut GpuVec<T>,
    indices: &mut GpuVec<u32>,
    end: End,
) -> Result<()> {
    ctx.check_owned(op, &[&v.ctx, &values.ctx, &indices.ctx])?;
    v.require_host_len(op)?;
    values.require_host_len(op)?;
    indices.require_host_len(op)?;
    check_len(op, ("values", values.len()), ("indices", indices.len()))?;
    let (n, k) = (v.len(), values.len());
    check_k(op, k, n)?;
    check_apart(
        op,
        &[
            ("v", View::of(v)),
            ("values", View::of(values)),
            ("indices", View::of(indices)),
        ],
    )?;
    let limit = u64::from(u32::MAX) - 1;
    if n as u64 > limit {
        return Err(Error::TooLarge {
            what: format!("`{op}` (its indices are u32)"),
            kind: Limit::Elements,
            requested: n as u64,
            limit,
        });
    }
    if k == 0 {
        return Ok(());
    }
    if word_masks::<T>().is_none() {
        return full_sort(ctx, op, v, values, indices, end);
    }
    let shape = Shape::new(ctx.info(), n, k);
    match shape.path {
        Path::Rank => record_select(ctx, op, v, (values, indices), end, &shape, None),
        Path::SortCandidates => sort_candidates(ctx, op, v, (values, indices), end, &shape),
        Path::FullSort => full_sort(ctx, op, v, values, indices, end),
    }
}

/// How a call finds its `k` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// The radix select, then the rank step over the candidates.
    Rank,
    /// The radix select, then two stable sorts of the candidate slots (by index, then by
    /// value): for `k` past the rank step's limit and at most half the vector.
    SortCandidates,
    /// A stable sort of every `(value, index)` pair.
    FullSort,
}

/// The sizes of one call on one device.
struct Shape {
    path: Path,
    /// Invocations per workgroup.
    wg: u32,
    /// Bits of the widest digit.
    digit_bits: u32,
    /// Histograms per workgroup in the histogram pass.
    copies: u32,
    /// Candidate slots.
    cap: usize,
    /// Workgroups of the passes over the vector, per binding window.
    max_groups: u64,
}

/// The radix select's largest k (above it, a full sort of pairs) and its candidate slots
/// past k, on the device `info` describes (before a small binding lowers the slots).
pub(crate) fn select_limits(info: &Info) -> (usize, usize) {
    let tuning = TopKTuning::of(info);
    (tuning.rank_max, tuning.slack)
}

impl Shape {
    /// The shape of a call on `n` elements for `k` on the device `info` describes.
    fn new(info: &Info, n: usize, k: usize) -> Shape {
        let (rank_max, slack) = select_limits(info);
        let max_groups = TopKTuning::of(info).groups;
        let words = (info.max_binding_bytes / 4).max(1);
        let shared = u64::from(info.limits.max_compute_workgroup_storage_size)
            .saturating_sub(HISTOGRAM_OTHER_BYTES)
            / 4;
        // A pass's histogram must fit one binding and workgroup memory.
        let digit_bits = DIGIT_BITS.min(words.ilog2()).min(shared.max(1).ilog2());
        let copies = (shared >> digit_bits).clamp(1, u64::from(HISTOGRAM_COPIES)) as u32;
        // The candidates are bound whole: fewer slack slots where a binding is small.
        let cap = (k + slack)
            .min(n)
            .min(usize::try_from(words).unwrap_or(usize::MAX).max(k));
        // Past half the vector, sorting the candidates twice costs about as much as
        // sorting everything once.
        let path = if cap as u64 > words || digit_bits == 0 {
            Path::FullSort
        } else if k <= rank_max {
            Path::Rank
        } else if 2 * k <= n {
            Path::SortCandidates
        } else {
            Path::FullSort
        };
        Shape {
            path,
            wg: pow2_workgroup_size_within(&info.limits, WG),
            digit_bits,
            copies,
            cap,
            max_groups,
        }
    }
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`): every key type and input layout at the shape each catalog device
/// chooses (the text depends on the device, not on `n` or `k`).
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::devices;
    use crate::runtime::cache::KernelSource;
    use select::TopKKernel;
    for mut d in devices() {
        // Narrow bindings (`CtxBuilder::max_binding_bytes`, at least 256 bytes) narrow
        // the digits too.
        let widest = d.info.max_binding_bytes;
        for bytes in (8..=13).map(|b| 1u64 << b).chain([widest]) {
            d.info.max_binding_bytes = bytes.min(widest);
            let shape = Shape::new(&d.info, 1 << 20, 100);
            for vec4 in [true, false] {
                c.add_for(&d, &TopKKernel::new::<u32>(&shape, vec4));
                c.add_for(&d, &TopKKernel::new::<i32>(&shape, vec4));
                c.add_for(&d, &TopKKernel::new::<f32>(&shape, vec4));
            }
        }
    }
    let shape = Shape::new(&devices()[0].info, 1 << 20, 100);
    let wgsl = TopKKernel::new::<u32>(&shape, true)
        .wgsl()
        .expect("top_k renders");
    select::catalog_layout(c, wgsl);
    rows::catalog(c);
}
