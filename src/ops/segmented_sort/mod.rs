//! Sorts of every segment or row on its own: [`Ctx::segmented_sort`],
//! [`Ctx::segmented_sort_by_key`], [`Ctx::segmented_argsort`] (segments from offsets) and
//! [`Ctx::sort_rows`], [`Ctx::sort_rows_by_key`], [`Ctx::argsort_rows`] (the rows of a
//! [`Grid2D`]), each with a `_with` form taking [`Sort`] options (descending, key bits).
//!
//! Stable, in the sorts' order ([`SortKey`]: `f32` in [`f32::total_cmp`] order), keys
//! seen as the same `u32` words the radix sorts use. Two ways (`wgsl/segmented_sort.wgsl`):
//!
//! - **Rows that fit a workgroup** (at most 4096 keys on a GPU with 32 KiB of workgroup
//!   memory, 2048 at WebGPU's 16 KiB, 256 on a CPU adapter): one workgroup takes as many
//!   rows as fit, each in a block of slots padded to a power of two, sorts all blocks at
//!   once in workgroup memory, each key with its index, and writes keys, indices and
//!   values straight back: one read and one write of the grid. Short rows go through a
//!   bitonic network (equal keys ordered by their indices; the steps inside an
//!   invocation's 16 slots in registers), long ones (from 512 keys on a GPU) through a
//!   stable radix sort of four bits a pass, over the bits sorted by only.
//! - **Any segments** (from offsets, and longer rows): each tile of consecutive keys of
//!   the vector (the same tile size) is sorted in workgroup memory by (segment, key,
//!   position), which sorts every segment's part of the tile and leaves keys outside the
//!   segments in place. A segment spanning several tiles is then merged: level `L` merges
//!   runs of `2^L` of its tiles pairwise, each key finding its place by a binary search
//!   in the other run. How many levels the longest segment needs is found on the device
//!   (nothing is read back; the passes past it dispatch no workgroups), so one call mixes
//!   lengths freely, and a segment of `m` keys costs `log2(m / tile)` merge passes.
//!
//! The segmented sorts take every [`RadixKey`]; the 8-byte and `f16` keys go another
//! way (`wide.rs`): a stable argsort of the whole vector by key, then a stable sort of
//! that order by each element's segment start (its own position outside the segments),
//! and a gather: three sorts, for keys that must fit one storage binding. The row calls
//! take one-word keys ([`SortKey`]).
//!
//! Offsets are read on the device, as [`Ctx::segmented_reduce`] reads them: keys before
//! the first offset or after the last belong to no segment and stay as they are (their
//! indices are `u32::MAX`); offsets that are not ascending or point past the keys give
//! unspecified results, and no call reads or writes outside its vectors.

mod kernel;
pub(crate) mod tuning;
mod wide;

use kernel::{Bindings, Call, Layout, Output};
use wide::WideOut;

use crate::error::{Error, Limit, Result};
use crate::ops::grid2d::{Grid2D, Grid2DMut};
use crate::ops::sort::{RadixKey, Sort, SortKey, SortValue, check_bits, word_masks};
use crate::runtime::context::check_apart;
use crate::runtime::context::{Ctx, check_len};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::GpuVec;
use crate::runtime::view::View;

/// Keys at most in one call: positions stay below `2^31` in the kernels' arithmetic.
pub(super) const MAX_KEYS: u64 = 1 << 31;

impl Ctx {
    /// Sorts each segment of `keys` in place, ascending and stable, without waiting:
    /// segment `s` is `keys[offsets[s]..offsets[s + 1]]`, so `offsets` holds
    /// `segments + 1` ascending entries (see the [module docs](self) for keys outside
    /// them and offsets that are not ascending).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty `offsets` (one entry is zero segments) or a
    /// prefix view; [`Error::TooLarge`] when the keys or offsets do not fit one storage
    /// binding or number `2^31` or more.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut keys = ctx.upload(&[5u32, 1, 4, 9, 9, 2, 7, 3])?;
    /// let offsets = ctx.upload(&[0u32, 3, 3, 8])?; // [5 1 4], [], [9 9 2 7 3]
    /// ctx.segmented_sort(&mut keys, &offsets)?;
    /// assert_eq!(keys.to_vec()?, vec![1, 4, 5, 2, 3, 7, 9, 9]);
    /// let mut ids = ctx.upload(&[3u64 << 40, 1, 2, 7 << 33])?; // any sort key
    /// ctx.segmented_sort(&mut ids, &ctx.upload(&[0u32, 2, 4])?)?;
    /// assert_eq!(ids.to_vec()?, vec![1, 3 << 40, 2, 7 << 33]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn segmented_sort<K: RadixKey>(
        &self,
        keys: &mut GpuVec<K>,
        offsets: &GpuVec<u32>,
    ) -> Result<()> {
        self.segmented_sort_with(keys, offsets, &Sort::ascending())
    }

    /// [`Ctx::segmented_sort`] with options ([`Sort::descending`], [`Sort::bits`]; the
    /// algorithm options of the radix sorts do not apply).
    ///
    /// ```
    /// use gpuprim::Sort;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut keys = ctx.upload(&[0.5f32, -1.0, 2.0, 3.0, -4.0])?;
    /// let offsets = ctx.upload(&[0u32, 3, 5])?;
    /// ctx.segmented_sort_with(&mut keys, &offsets, &Sort::descending())?;
    /// assert_eq!(keys.to_vec()?, vec![2.0, 0.5, -1.0, 3.0, -4.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn segmented_sort_with<K: RadixKey>(
        &self,
        keys: &mut GpuVec<K>,
        offsets: &GpuVec<u32>,
        sort: &Sort,
    ) -> Result<()> {
        let op = "segmented_sort";
        self.check_owned(op, &[&keys.ctx, &offsets.ctx])?;
        if word_masks::<K>().is_none() {
            return self.segmented_sort_wide::<K, u32>(op, keys, offsets, sort, WideOut::Keys);
        }
        let call = self.offsets_call(op, keys, offsets, Output::Keys, sort)?;
        let mut work = Work::new(self, op);
        self.record_segmented_sort::<K>(
            &mut work,
            &call,
            Bindings {
                keys: View::of(keys).exact(),
                offsets: Some(View::of(offsets).exact()),
                indices: None,
                values: None,
            },
            sort,
        )?;
        work.submit()
    }

    /// Sorts each segment of `keys` in place and moves `values` with them (stable), without
    /// waiting.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `keys` and `values` have the same length;
    /// [`Error::InvalidArgument`] if they overlap in one buffer; as
    /// [`Ctx::segmented_sort`] otherwise.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut keys = ctx.upload(&[3i32, -1, 3, 8, 0])?;
    /// let mut values = ctx.upload(&[10u32, 11, 12, 13, 14])?;
    /// let offsets = ctx.upload(&[0u32, 3, 5])?;
    /// ctx.segmented_sort_by_key(&mut keys, &mut values, &offsets)?;
    /// assert_eq!(keys.to_vec()?, vec![-1, 3, 3, 0, 8]);
    /// assert_eq!(values.to_vec()?, vec![11, 10, 12, 14, 13]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn segmented_sort_by_key<K: RadixKey, V: SortValue>(
        &self,
        keys: &mut GpuVec<K>,
        values: &mut GpuVec<V>,
        offsets: &GpuVec<u32>,
    ) -> Result<()> {
        self.segmented_sort_by_key_with(keys, values, offsets, &Sort::ascending())
    }

    /// [`Ctx::segmented_sort_by_key`] with options (see [`Ctx::segmented_sort_with`]).
    ///
    /// ```
    /// use gpuprim::Sort;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut keys = ctx.upload(&[1u32, 2, 2, 7])?;
    /// let mut values = ctx.upload(&[0.5f32, 1.5, 2.5, 3.5])?;
    /// let offsets = ctx.upload(&[0u32, 4])?;
    /// ctx.segmented_sort_by_key_with(&mut keys, &mut values, &offsets, &Sort::descending())?;
    /// assert_eq!(keys.to_vec()?, vec![7, 2, 2, 1]);
    /// assert_eq!(values.to_vec()?, vec![3.5, 1.5, 2.5, 0.5]); // equal keys keep their order
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn segmented_sort_by_key_with<K: RadixKey, V: SortValue>(
        &self,
        keys: &mut GpuVec<K>,
        values: &mut GpuVec<V>,
        offsets: &GpuVec<u32>,
        sort: &Sort,
    ) -> Result<()> {
        let op = "segmented_sort_by_key";
        self.check_owned(op, &[&keys.ctx, &values.ctx, &offsets.ctx])?;
        values.require_host_len(op)?;
        keys.require_host_len(op)?;
        check_len(op, ("keys", keys.len()), ("values", values.len()))?;
        check_apart(
            op,
            &[("keys", View::of(keys)), ("values", View::of(values))],
        )?;
        if word_masks::<K>().is_none() {
            let out = WideOut::KeysValues(values);
            return self.segmented_sort_wide(op, keys, offsets, sort, out);
        }
        let call = self.offsets_call(op, keys, offsets, Output::KeysValues, sort)?;
        let (kv, vv) = (View::of(keys), View::of(values));
        let mut work = Work::new(self, op);
        self.record_segmented_sort::<K>(
            &mut work,
            &call,
            Bindings {
                keys: kv.exact(),
                offsets: Some(View::of(offsets).exact()),
                indices: None,
                values: Some(values_binding(&vv)),
            },
            sort,
        )?;
        work.submit()
    }

    /// The permutation that sorts each segment, as indices within the segment: element
    /// `offsets[s] + i` is the index (from the segment's start) of the segment's `i`-th
    /// smallest key, equal keys in index order. Elements outside every segment are
    /// `u32::MAX`. `keys` is left as it is.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[30u32, 10, 20, 5, 5])?;
    /// let offsets = ctx.upload(&[0u32, 3, 5])?;
    /// assert_eq!(ctx.segmented_argsort(&keys, &offsets)?.to_vec()?, vec![1, 2, 0, 0, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn segmented_argsort<K: RadixKey>(
        &self,
        keys: &GpuVec<K>,
        offsets: &GpuVec<u32>,
    ) -> Result<GpuVec<u32>> {
        self.segmented_argsort_with(keys, offsets, &Sort::ascending())
    }

    /// [`Ctx::segmented_argsort`] with options (see [`Ctx::segmented_sort_with`]).
    pub fn segmented_argsort_with<K: RadixKey>(
        &self,
        keys: &GpuVec<K>,
        offsets: &GpuVec<u32>,
        sort: &Sort,
    ) -> Result<GpuVec<u32>> {
        keys.require_host_len("segmented_argsort")?;
        let mut out = self.zeros::<u32>(keys.len())?;
        self.segmented_argsort_into(keys, offsets, sort, &mut out)?;
        Ok(out)
    }

    /// [`Ctx::segmented_argsort_with`] into `out` (the keys' length), without waiting.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `out` has the keys' length;
    /// [`Error::InvalidArgument`] if `keys` and `out` are views of one buffer; as
    /// [`Ctx::segmented_sort`] otherwise.
    ///
    /// ```
    /// use gpuprim::Sort;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[1.0f32, 3.0, 2.0])?;
    /// let offsets = ctx.upload(&[0u32, 3])?;
    /// let mut order = ctx.zeros::<u32>(3)?;
    /// ctx.segmented_argsort_into(&keys, &offsets, &Sort::descending(), &mut order)?;
    /// assert_eq!(order.to_vec()?, vec![1, 2, 0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn segmented_argsort_into<K: RadixKey>(
        &self,
        keys: &GpuVec<K>,
        offsets: &GpuVec<u32>,
        sort: &Sort,
        out: &mut GpuVec<u32>,
    ) -> Result<()> {
        let op = "segmented_argsort";
        self.check_owned(op, &[&keys.ctx, &offsets.ctx, &out.ctx])?;
        out.require_host_len(op)?;
        keys.require_host_len(op)?;
        check_len(op, ("out", out.len()), ("keys", keys.len()))?;
        check_separate(op, &keys.buffer, &out.buffer)?;
        if word_masks::<K>().is_none() {
            let out = WideOut::<u32>::Indices(out);
            return self.segmented_sort_wide(op, keys, offsets, sort, out);
        }
        let call = self.offsets_call(op, keys, offsets, Output::Indices, sort)?;
        let mut work = Work::new(self, op);
        self.record_segmented_sort::<K>(
            &mut work,
            &call,
            Bindings {
                keys: View::of(keys).exact(),
                offsets: Some(View::of(offsets).exact()),
                indices: Some(View::of(out).exact()),
                values: None,
            },
            sort,
        )?;
        work.submit()
    }

    /// Sorts each row of `grid` in place, ascending and stable, without waiting. Elements
    /// between a row's width and the pitch are left as they are.
    ///
    /// Rows of up to 4096 keys (on a GPU with 32 KiB of workgroup memory) are sorted in
    /// one pass, several rows per workgroup; longer rows as [`Ctx::segmented_sort`] sorts
    /// segments (see the [module docs](self)).
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the grid does not fit one storage binding or spans `2^31`
    /// elements or more.
    ///
    /// ```
    /// use gpuprim::Grid2DMut;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut m = ctx.upload(&[3u32, 1, 2, 9, 6, 5, 4, 9])?; // 2 rows of 3, pitch 4
    /// ctx.sort_rows(&mut Grid2DMut::with_pitch(&mut m, 3, 2, 4)?)?;
    /// assert_eq!(m.to_vec()?, vec![1, 2, 3, 9, 4, 5, 6, 9]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn sort_rows<K: SortKey>(&self, grid: &mut Grid2DMut<'_, K>) -> Result<()> {
        self.sort_rows_with(grid, &Sort::ascending())
    }

    /// [`Ctx::sort_rows`] with options (see [`Ctx::segmented_sort_with`]).
    ///
    /// ```
    /// use gpuprim::{Grid2DMut, Sort};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut m = ctx.upload(&[0.5f32, 2.0, -1.0, 7.0])?;
    /// ctx.sort_rows_with(&mut Grid2DMut::new(&mut m, 2, 2)?, &Sort::descending())?;
    /// assert_eq!(m.to_vec()?, vec![2.0, 0.5, 7.0, -1.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn sort_rows_with<K: SortKey>(
        &self,
        grid: &mut Grid2DMut<'_, K>,
        sort: &Sort,
    ) -> Result<()> {
        let op = "sort_rows";
        let shape = (grid.width(), grid.height(), grid.pitch());
        let keys = grid.vec();
        self.check_owned(op, &[&keys.ctx])?;
        let call = self.rows_call(op, shape, Output::Keys, sort, shape.2)?;
        let mut work = Work::new(self, op);
        self.record_segmented_sort::<K>(
            &mut work,
            &call,
            Bindings {
                keys: rows_binding(&View::of(keys), call.n),
                offsets: None,
                indices: None,
                values: None,
            },
            sort,
        )?;
        work.submit()
    }

    /// Sorts each row of `keys` in place and moves the same row of `values` with it
    /// (stable), without waiting. Both grids have one width and height; their pitches
    /// may differ.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if the grids' widths or heights differ or they overlap
    /// in one buffer; as [`Ctx::sort_rows`] otherwise.
    ///
    /// ```
    /// use gpuprim::Grid2DMut;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut k = ctx.upload(&[2u32, 1, 1, 0])?;
    /// let mut v = ctx.upload(&[10i32, 11, 12, 13])?;
    /// ctx.sort_rows_by_key(&mut Grid2DMut::new(&mut k, 2, 2)?, &mut Grid2DMut::new(&mut v, 2, 2)?)?;
    /// assert_eq!(k.to_vec()?, vec![1, 2, 0, 1]);
    /// assert_eq!(v.to_vec()?, vec![11, 10, 13, 12]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn sort_rows_by_key<K: SortKey, V: SortValue>(
        &self,
        keys: &mut Grid2DMut<'_, K>,
        values: &mut Grid2DMut<'_, V>,
    ) -> Result<()> {
        self.sort_rows_by_key_with(keys, values, &Sort::ascending())
    }

    /// [`Ctx::sort_rows_by_key`] with options (see [`Ctx::segmented_sort_with`]).
    pub fn sort_rows_by_key_with<K: SortKey, V: SortValue>(
        &self,
        keys: &mut Grid2DMut<'_, K>,
        values: &mut Grid2DMut<'_, V>,
        sort: &Sort,
    ) -> Result<()> {
        let op = "sort_rows_by_key";
        let shape = (keys.width(), keys.height(), keys.pitch());
        if (values.width(), values.height()) != (shape.0, shape.1) {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "the keys are {} x {} and the values {} x {} (width x height): give both \
                     grids one shape (their pitches may differ)",
                    shape.0,
                    shape.1,
                    values.width(),
                    values.height()
                ),
            });
        }
        let value_pitch = values.pitch();
        let (kv, vv) = (View::of(keys.vec()), View::of(values.vec()));
        self.check_owned(op, &[&keys.vec().ctx, &values.vec().ctx])?;
        check_apart(op, &[("keys", kv), ("values", vv)])?;
        let call = self.rows_call(op, shape, Output::KeysValues, sort, value_pitch)?;
        let value_span = u64::from(value_pitch) * u64::from(shape.1 - 1) + u64::from(shape.0);
        let mut work = Work::new(self, op);
        self.record_segmented_sort::<K>(
            &mut work,
            &call,
            Bindings {
                keys: rows_binding(&kv, call.n),
                offsets: None,
                indices: None,
                values: Some((vv.buffer.clone(), vv.offset, 4 * value_span)),
            },
            sort,
        )?;
        work.submit()
    }

    /// The permutation that sorts each row of `grid`: a `width x height` vector (packed,
    /// whatever the grid's pitch) whose row `r` holds, for each place, the column of the
    /// row's key that goes there, equal keys in column order. `grid` is left as it is.
    ///
    /// ```
    /// use gpuprim::Grid2D;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let m = ctx.upload(&[0.5f32, -2.0, 3.0, 1.0, 1.0, 0.0])?;
    /// let order = ctx.argsort_rows(&Grid2D::new(&m, 3, 2)?)?;
    /// assert_eq!(order.to_vec()?, vec![1, 0, 2, 2, 0, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn argsort_rows<K: SortKey>(&self, grid: &Grid2D<'_, K>) -> Result<GpuVec<u32>> {
        self.argsort_rows_with(grid, &Sort::ascending())
    }

    /// [`Ctx::argsort_rows`] with options (see [`Ctx::segmented_sort_with`]).
    pub fn argsort_rows_with<K: SortKey>(
        &self,
        grid: &Grid2D<'_, K>,
        sort: &Sort,
    ) -> Result<GpuVec<u32>> {
        let len = u64::from(grid.width()) * u64::from(grid.height());
        let mut out = self.zeros::<u32>(len as usize)?;
        self.argsort_rows_into(grid, sort, &mut out)?;
        Ok(out)
    }

    /// [`Ctx::argsort_rows_with`] into `out` (`width * height` elements), without waiting.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `out` has `width * height` elements;
    /// [`Error::InvalidArgument`] if `out` is a view of the grid's buffer; as
    /// [`Ctx::sort_rows`] otherwise.
    ///
    /// ```
    /// use gpuprim::{Grid2D, Sort};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let m = ctx.upload(&[4u32, 8, 6])?;
    /// let mut order = ctx.zeros::<u32>(3)?;
    /// ctx.argsort_rows_into(&Grid2D::new(&m, 3, 1)?, &Sort::descending(), &mut order)?;
    /// assert_eq!(order.to_vec()?, vec![1, 2, 0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn argsort_rows_into<K: SortKey>(
        &self,
        grid: &Grid2D<'_, K>,
        sort: &Sort,
        out: &mut GpuVec<u32>,
    ) -> Result<()> {
        let op = "argsort_rows";
        let shape = (grid.width(), grid.height(), grid.pitch());
        self.check_owned(op, &[&grid.vec().ctx, &out.ctx])?;
        out.require_host_len(op)?;
        let cells = u64::from(shape.0) * u64::from(shape.1);
        check_len(op, ("out", out.len()), ("width * height", cells as usize))?;
        check_separate(op, &grid.vec().buffer, &out.buffer)?;
        let kv = View::of(grid.vec());
        let call = self.rows_call(op, shape, Output::Indices, sort, shape.2)?;
        let mut work = Work::new(self, op);
        self.record_segmented_sort::<K>(
            &mut work,
            &call,
            Bindings {
                keys: rows_binding(&kv, call.n),
                offsets: None,
                indices: Some(View::of(out).exact()),
                values: None,
            },
            sort,
        )?;
        work.submit()
    }

    /// The checks of a call on segments from offsets, and its shape.
    fn offsets_call<K: RadixKey>(
        &self,
        op: &'static str,
        keys: &GpuVec<K>,
        offsets: &GpuVec<u32>,
        output: Output,
        sort: &Sort,
    ) -> Result<Call> {
        keys.require_host_len(op)?;
        offsets.require_host_len(op)?;
        check_bits(op, &sort.key_bits())?;
        check_offsets(op, offsets)?;
        let info = self.info();
        for (what, len) in [("keys", keys.len()), ("offsets", offsets.len())] {
            let bytes = 4 * len as u64;
            if bytes > info.max_binding_bytes {
                return Err(Error::TooLarge {
                    what: format!("the {what} of {op} (one storage binding)"),
                    kind: Limit::BindingBytes,
                    requested: bytes,
                    limit: info.max_binding_bytes,
                });
            }
            if len as u64 >= MAX_KEYS {
                return Err(too_many(op, what, len as u64));
            }
        }
        Ok(Call {
            layout: Layout::Offsets,
            output,
            n: keys.len() as u32,
            segments: (offsets.len() - 1) as u32,
            width: 0,
            pitch: 1,
            value_pitch: 0,
        })
    }

    /// The checks of a call on the rows of a grid, and its shape.
    fn rows_call(
        &self,
        op: &'static str,
        (width, height, pitch): (u32, u32, u32),
        output: Output,
        sort: &Sort,
        value_pitch: u32,
    ) -> Result<Call> {
        check_bits(op, &sort.key_bits())?;
        let span = u64::from(pitch) * u64::from(height - 1) + u64::from(width);
        let value_span = u64::from(value_pitch) * u64::from(height - 1) + u64::from(width);
        let info = self.info();
        for (what, len) in [("grid", span), ("values' grid", value_span)] {
            if 4 * len > info.max_binding_bytes {
                return Err(Error::TooLarge {
                    what: format!("the {what} of {op} (one storage binding)"),
                    kind: Limit::BindingBytes,
                    requested: 4 * len,
                    limit: info.max_binding_bytes,
                });
            }
            if len >= MAX_KEYS {
                return Err(too_many(op, what, len));
            }
        }
        Ok(Call {
            layout: Layout::Rows,
            output,
            n: span as u32,
            segments: height,
            width,
            pitch,
            value_pitch,
        })
    }
}

/// `Err(InvalidArgument)` for offsets that cannot describe a segment (none at all).
pub(super) fn check_offsets(op: &'static str, offsets: &GpuVec<u32>) -> Result<()> {
    if offsets.is_empty() {
        return Err(Error::InvalidArgument {
            op,
            message: "`offsets` is empty: it needs segments + 1 entries (segment s is \
                      keys[offsets[s]..offsets[s + 1]]; one entry is zero segments)"
                .into(),
        });
    }
    Ok(())
}

pub(super) fn too_many(op: &'static str, what: &str, len: u64) -> Error {
    Error::TooLarge {
        what: format!("the {what} of {op} (elements)"),
        kind: Limit::Elements,
        requested: len,
        limit: MAX_KEYS - 1,
    }
}

/// The binding of the first `n` keys of a grid's vector.
fn rows_binding(keys: &View<'_>, n: u32) -> Res {
    Res::range(keys.buffer, keys.offset, (4 * u64::from(n)).max(4))
}

/// A values vector as the kernel binds it and copies it: buffer, offset, bytes.
fn values_binding(values: &View<'_>) -> (wgpu::Buffer, u64, u64) {
    (
        values.buffer.clone(),
        values.offset,
        (4 * values.len as u64).max(4),
    )
}

/// `Err(InvalidArgument)` if the keys and the output are views of one buffer.
fn check_separate(op: &'static str, keys: &wgpu::Buffer, out: &wgpu::Buffer) -> Result<()> {
    if keys == out {
        return Err(Error::InvalidArgument {
            op,
            message: "`keys` and `out` are views of one buffer: the call reads the keys while \
                      it writes the order (wgpu cannot bind one buffer read-only and writable \
                      in one dispatch); give `out` a buffer of its own"
                .into(),
        });
    }
    Ok(())
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`): both layouts and the three outputs, as each catalog device
/// would choose them.
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::{devices, layout};
    use crate::runtime::cache::KernelSource;
    for d in devices() {
        let (tile, workgroup_size) = kernel::shape(&d.info, None).expect("a shape");
        for layout in [Layout::Offsets, Layout::Rows] {
            for output in [Output::Keys, Output::KeysValues, Output::Indices] {
                let config = kernel::SegmentedSortKernel {
                    layout,
                    output,
                    tile,
                    workgroup_size,
                    merge_items: kernel::merge_items(&d.info),
                    radix: false,
                };
                c.add_for(&d, &config);
                if layout == Layout::Rows && kernel::rows_by_radix(&d.info, tile, tile, Some(true))
                {
                    c.add_for(&d, &config.radix_rows());
                }
            }
        }
    }
    let wgsl = kernel::SegmentedSortKernel {
        layout: Layout::Offsets,
        output: Output::Keys,
        tile: 256,
        workgroup_size: 64,
        merge_items: 4,
        radix: false,
    }
    .wgsl()
    .expect("segmented_sort renders");
    layout!(
        c,
        kernel::SegSortParams,
        "GpSegSortParams",
        wgsl,
        [
            n,
            segments,
            width,
            pitch,
            key_xor,
            neg_mask,
            flip,
            mask,
            block,
            level,
            groups,
            value_pitch,
            grid_x,
            grid_y,
            grid_z,
            levels_max,
            finish_x,
            finish_y,
            finish_z,
            _pad
        ]
    );
}
