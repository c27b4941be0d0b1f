//! [`Ctx::merge`] and [`Ctx::merge_by_key`]: two sorted vectors into one, stably.
//!
//! Each element's place in the output is its index plus the number of elements of the
//! other vector that go before it: for `a[i]`, the elements of `b` less than it
//! ([`Ctx::lower_bound`]); for `b[j]`, the elements of `a` not greater than it
//! ([`Ctx::upper_bound`]), so ties keep `a`'s elements first. Both searches run on
//! sorted queries, which the search family notices and answers where they stand; then
//! one element-wise kernel per input writes its elements (and values) to their places.

use crate::element::GpuElement;
use crate::error::{Error, Limit, Result};
use crate::ops::kernel::{Access, Args, View, record_statements};
use crate::ops::sort::SortKey;
use crate::runtime::context::{Ctx, check_len};
use crate::runtime::record::Work;
use crate::runtime::vec::{GpuVec, Scratch};

impl Ctx {
    /// The elements of the sorted vectors `a` and `b` in one sorted vector, stably:
    /// equal elements keep their order, `a`'s before `b`'s (merge path, as Thrust's
    /// `merge` and `std::merge`). Order as [`Ctx::sort`]'s (for `f32`,
    /// [`f32::total_cmp`]). Recorded without waiting.
    ///
    /// On inputs that are not sorted the order of the result is unspecified (elements
    /// may be lost or doubled), but nothing is written outside it.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[1u32, 4, 4, 9])?;
    /// let b = ctx.upload(&[0u32, 4, 10])?;
    /// assert_eq!(ctx.merge(&a, &b)?.to_vec()?, vec![0, 1, 4, 4, 4, 9, 10]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::TooLarge`] if the result does not fit one storage binding;
    /// [`Error::InvalidArgument`] for prefix views; [`Error::ContextMismatch`].
    pub fn merge<K: SortKey>(&self, a: &GpuVec<K>, b: &GpuVec<K>) -> Result<GpuVec<K>> {
        let op = "merge";
        self.check_owned(op, &[&a.ctx, &b.ctx])?;
        let mut out = self.merged(op, a, b)?;
        self.merge_into(a, b, &mut out)?;
        Ok(out)
    }

    /// [`Ctx::merge`] into `out`, whose length must be `a.len() + b.len()`: no new
    /// vector for the result (a large allocation costs about as much as the merge).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[-2i32, 5])?;
    /// let b = ctx.upload(&[-3i32, 5, 6])?;
    /// let mut out = ctx.zeros::<i32>(5)?;
    /// ctx.merge_into(&a, &b, &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![-3, -2, 5, 5, 6]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::merge`], and [`Error::LengthMismatch`] unless `out` has the length of
    /// both inputs; [`Error::InvalidArgument`] if `out` shares a buffer with an input.
    pub fn merge_into<K: SortKey>(
        &self,
        a: &GpuVec<K>,
        b: &GpuVec<K>,
        out: &mut GpuVec<K>,
    ) -> Result<()> {
        let op = "merge_into";
        self.check_owned(op, &[&a.ctx, &b.ctx, &out.ctx])?;
        out.require_host_len(op)?;
        self.merged_len::<K>(op, a, b)?;
        check_len(op, ("out", out.len()), ("a and b", a.len() + b.len()))?;
        let places = self.merge_places(a, b)?;
        let mut work = Work::new(self, op);
        place(self, &mut work, &places.a, a, out)?;
        place(self, &mut work, &places.b, b, out)?;
        work.submit()
    }

    /// [`Ctx::merge`] of the sorted keys `a_keys` and `b_keys`, each value moved with its
    /// key: Thrust's `merge_by_key`. Values may be any element type.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let (ak, av) = (ctx.upload(&[1.5f32, 3.0])?, ctx.upload(&[10u32, 11])?);
    /// let (bk, bv) = (ctx.upload(&[1.5f32, 2.0, 8.0])?, ctx.upload(&[20u32, 21, 22])?);
    /// let (k, v) = ctx.merge_by_key(&ak, &av, &bk, &bv)?;
    /// assert_eq!(k.to_vec()?, vec![1.5, 1.5, 2.0, 3.0, 8.0]);
    /// assert_eq!(v.to_vec()?, vec![10, 20, 21, 11, 22]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::merge`], and [`Error::LengthMismatch`] unless each key vector has its
    /// values' length.
    pub fn merge_by_key<K: SortKey, V: GpuElement>(
        &self,
        a_keys: &GpuVec<K>,
        a_values: &GpuVec<V>,
        b_keys: &GpuVec<K>,
        b_values: &GpuVec<V>,
    ) -> Result<(GpuVec<K>, GpuVec<V>)> {
        let op = "merge_by_key";
        self.check_owned(
            op,
            &[&a_keys.ctx, &a_values.ctx, &b_keys.ctx, &b_values.ctx],
        )?;
        check_len(op, ("a_keys", a_keys.len()), ("a_values", a_values.len()))?;
        check_len(op, ("b_keys", b_keys.len()), ("b_values", b_values.len()))?;
        let keys = self.merged(op, a_keys, b_keys)?;
        let values = self.merged(op, a_values, b_values)?;
        let places = self.merge_places(a_keys, b_keys)?;
        let mut work = Work::new(self, op);
        for (before, k, v) in [(&places.a, a_keys, a_values), (&places.b, b_keys, b_values)] {
            place(self, &mut work, before, k, &keys)?;
            place(self, &mut work, before, v, &values)?;
        }
        work.submit()?;
        Ok((keys, values))
    }

    /// The output of a merge of `a` and `b`, checked: within one storage binding (it is
    /// written at free places).
    fn merged<T: GpuElement>(
        &self,
        op: &'static str,
        a: &GpuVec<T>,
        b: &GpuVec<T>,
    ) -> Result<GpuVec<T>> {
        let n = self.merged_len::<T>(op, a, b)?;
        self.zeros::<T>(n)
    }

    /// The length of a merge of `a` and `b`, checked as [`Ctx::merged`] says.
    fn merged_len<T: GpuElement>(
        &self,
        op: &'static str,
        a: &GpuVec<T>,
        b: &GpuVec<T>,
    ) -> Result<usize> {
        a.require_host_len(op)?;
        b.require_host_len(op)?;
        let n = a.len() as u64 + b.len() as u64;
        let bytes = n * size_of::<T>() as u64;
        let limit = self.info().max_binding_bytes;
        if bytes > limit {
            return Err(Error::TooLarge {
                what: format!(
                    "{op}'s result of {n} {} ({bytes} bytes), which is bound whole",
                    T::WGSL
                ),
                kind: Limit::BindingBytes,
                requested: bytes,
                limit,
            });
        }
        Ok(n as usize)
    }

    /// For each element of `a`, the elements of `b` that go before it, and for each of
    /// `b`, those of `a`.
    /// In buffers the context keeps for the next merge of this size.
    fn merge_places<K: SortKey>(&self, a: &GpuVec<K>, b: &GpuVec<K>) -> Result<Places> {
        let vec = |what: &str, n: usize| -> Result<(Scratch, GpuVec<u32>)> {
            let s = self.scratch_kept(what, 4 * n.max(1) as u64, wgpu::BufferUsages::STORAGE)?;
            let v = GpuVec::from_buffer(self, (*s).clone(), n)?;
            Ok((s, v))
        };
        let (sa, mut pa) = vec("merge places of a", a.len())?;
        let (sb, mut pb) = vec("merge places of b", b.len())?;
        self.lower_bound_into(b, a, &mut pa)?;
        self.upper_bound_into(a, b, &mut pb)?;
        Ok(Places {
            a: pa,
            b: pb,
            _kept: [sa, sb],
        })
    }
}

/// For each element of `a`, the elements of `b` that go before it, and for each of `b`,
/// those of `a`; the scratch buffers they live in go back to the context when dropped
/// (after the placing kernels are recorded: later work runs after them).
struct Places {
    a: GpuVec<u32>,
    b: GpuVec<u32>,
    _kept: [Scratch; 2],
}

/// `out[i + before[i]] = src[i]` for every `i`.
fn place<T: GpuElement>(
    ctx: &Ctx,
    work: &mut Work,
    before: &GpuVec<u32>,
    src: &GpuVec<T>,
    out: &GpuVec<T>,
) -> Result<()> {
    if src.is_empty() {
        return Ok(());
    }
    let mut args = Args::new(work.op());
    args.vec("before", View::of(before), Access::Read);
    args.vec("src", View::of(src), Access::Read);
    args.vec("dst", View::of(out), Access::RawReadWrite);
    record_statements(ctx, work, "dst[i + before] = src;", args)
}
