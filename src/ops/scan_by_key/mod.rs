//! Scans by key: [`Ctx::scan_by_key`], [`Ctx::scan_by_key_exclusive`] (sums),
//! [`Ctx::scan_by_key_with`] (any [`Scan`]) and their `_into` forms
//! (`wgsl/scan_by_key.wgsl`).
//!
//! A scan of the values that starts again wherever the key differs from the previous
//! element's, like Thrust's `inclusive_scan_by_key` / `exclusive_scan_by_key`. Keys are
//! compared by their bits (as [`Ctx::unique`] compares them: for `f32`, `-0.0` and
//! `+0.0` are different keys and NaNs with the same bits one key). Keys are any
//! [`RadixKey`]: the 8-byte keys and `f16` first become each element's run number (a
//! pass that marks where runs start and a scan of the marks), which must fit one
//! storage binding.
//!
//! It is one single pass with decoupled look-back, the design of
//! [`ScanAlgorithm::SinglePass`] carried over `(head, value)` pairs: each tile finds its
//! elements' heads while it loads the keys, scans its pairs in the workgroup and takes
//! the carry from its predecessors' published values. A tile that holds a head publishes
//! its inclusive prefix at once, so with short runs a look-back ends at the tile before.
//! A workgroup that waits too long for a predecessor reduces that tile itself, so it runs
//! on every adapter (with or without subgroups) without relying on workgroups being
//! scheduled fairly. It is the family's only algorithm: [`ScanAlgorithm::Auto`] and
//! `SinglePass` run it whatever the context's [`Ctx::scan_algorithm`], and
//! [`ScanAlgorithm::ReduceThenScan`] is refused.
//!
//! In the source: this file holds the public API; `record` the checks and the recording
//! of the pass over the binding windows; `kernel` the kernel's configuration
//! (`ScanByKeyKernel`), its parameter block and its tile shape; `tuning` the numbers
//! chosen per adapter (`ScanByKeyTuning`).
//!
//! [`ScanAlgorithm::SinglePass`]: crate::ScanAlgorithm::SinglePass
//! [`ScanAlgorithm::Auto`]: crate::ScanAlgorithm::Auto
//! [`ScanAlgorithm::ReduceThenScan`]: crate::ScanAlgorithm::ReduceThenScan

mod kernel;
mod record;
pub(crate) mod tuning;

#[cfg(test)]
pub(crate) use kernel::catalog;

use crate::element::GpuElement;
use crate::error::Result;
use crate::ops::scan::{Scan, ScanOp};
use crate::ops::sort::RadixKey;
use crate::runtime::context::Ctx;
use crate::runtime::vec::GpuVec;
use record::{Pass, scan_by_key_impl};

impl Ctx {
    /// Inclusive prefix sums of `values` within each run of equal consecutive `keys`:
    /// element `i` is the sum of the values from the start of its run through `i`.
    /// Integers wrap.
    ///
    /// Keys are equal when their bits are (for `f32`, `-0.0` and `+0.0` differ, NaNs with
    /// the same bits are equal). Values are combined in their order, in groups that
    /// depend only on the adapter and the length, so float results are the same bits on
    /// every run.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) unless `keys` and `values`
    /// have the same length; [`Error::InvalidArgument`](crate::Error::InvalidArgument) for
    /// 16- or 64-bit values (the look-back publishes 32-bit words);
    /// [`Error::TooLarge`](crate::Error::TooLarge) if the tile statuses do not fit one
    /// storage binding (4 words per 8192 elements on a GPU).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[1u32, 1, 1, 7, 7, 1])?;
    /// let values = ctx.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    /// let sums = ctx.scan_by_key(&keys, &values)?;
    /// assert_eq!(sums.to_vec()?, vec![1.0, 3.0, 6.0, 4.0, 9.0, 6.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_by_key<K: RadixKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
    ) -> Result<GpuVec<T>> {
        self.scan_by_key_with(keys, values, &Scan::inclusive(ScanOp::Sum))
    }

    /// Exclusive prefix sums within each run of equal consecutive `keys`: element `i` is
    /// the sum of the values of its run before `i`, 0 at each run's first element. See
    /// [`Ctx::scan_by_key`].
    ///
    /// # Errors
    /// Those of [`Ctx::scan_by_key`].
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[-1i32, -1, -1, 4, 4])?;
    /// let values = ctx.upload(&[5u32, 1, 2, 8, 3])?;
    /// let before = ctx.scan_by_key_exclusive(&keys, &values)?;
    /// assert_eq!(before.to_vec()?, vec![0, 5, 6, 0, 8]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_by_key_exclusive<K: RadixKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
    ) -> Result<GpuVec<T>> {
        self.scan_by_key_with(keys, values, &Scan::exclusive(ScanOp::Sum))
    }

    /// [`Ctx::scan_by_key`] into `out` (same length), recorded without waiting.
    ///
    /// # Errors
    /// Those of [`Ctx::scan_by_key`], and
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) unless `out` has the
    /// values' length.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[9u32, 9, 8])?;
    /// let values = ctx.upload(&[1u32, 1, 1])?;
    /// let mut out = ctx.zeros::<u32>(3)?;
    /// ctx.scan_by_key_into(&keys, &values, &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![1, 2, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_by_key_into<K: RadixKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        self.scan_by_key_with_into(keys, values, &Scan::inclusive(ScanOp::Sum), out)
    }

    /// [`Ctx::scan_by_key_exclusive`] into `out` (same length), without waiting.
    ///
    /// # Errors
    /// Those of [`Ctx::scan_by_key_into`].
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[9u32, 9, 8])?;
    /// let values = ctx.upload(&[1u32, 1, 1])?;
    /// let mut out = ctx.zeros::<u32>(3)?;
    /// ctx.scan_by_key_exclusive_into(&keys, &values, &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![0, 1, 0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_by_key_exclusive_into<K: RadixKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        self.scan_by_key_with_into(keys, values, &Scan::exclusive(ScanOp::Sum), out)
    }

    /// A scan by key with any operator ([`ScanOp::Sum`], `Product`, `Min`, `Max` or a
    /// custom WGSL operator in `a` and `b`), inclusive or exclusive (see [`Scan`]): an
    /// exclusive scan starts each run with the operator's identity. See
    /// [`Ctx::scan_by_key`].
    ///
    /// As for [`Ctx::scan_with`], a custom operator must be associative (it need not be
    /// commutative: `a` is always the earlier part) and its identity must leave every
    /// value unchanged on either side: elements are combined with partial results
    /// that may be the identity.
    ///
    /// A scan by key has one algorithm, a single pass with decoupled look-back that runs
    /// on every adapter: [`ScanAlgorithm::Auto`](crate::ScanAlgorithm::Auto) and
    /// [`ScanAlgorithm::SinglePass`](crate::ScanAlgorithm::SinglePass) run it (whatever
    /// the context's [`Ctx::scan_algorithm`]).
    ///
    /// # Errors
    /// Those of [`Ctx::scan_by_key`];
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for
    /// [`ScanAlgorithm::ReduceThenScan`](crate::ScanAlgorithm::ReduceThenScan), which a
    /// scan by key does not have (use `Auto` or `SinglePass`); for a custom operator
    /// also [`Error::InvalidArgument`](crate::Error::InvalidArgument) if it is not
    /// exactly one WGSL expression and [`Error::Compile`](crate::Error::Compile) if it is
    /// not a valid one of the value type.
    ///
    /// ```
    /// use gpuprim::{Error, Scan, ScanAlgorithm, ScanOp};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[0.5f32, 0.5, 0.5, -2.0, -2.0])?;
    /// let values = ctx.upload(&[3i32, 9, 4, -1, -7])?;
    /// let best = ctx.scan_by_key_with(&keys, &values, &Scan::inclusive(ScanOp::Max))?;
    /// assert_eq!(best.to_vec()?, vec![3, 9, 9, -1, -1]);
    /// let xor = Scan::inclusive(ScanOp::custom("a ^ b", 0));
    /// let xor = ctx.scan_by_key_with(&keys, &values, &xor)?;
    /// assert_eq!(xor.to_vec()?, vec![3, 10, 14, -1, 6]);
    /// let low = Scan::exclusive(ScanOp::Min).algorithm(ScanAlgorithm::SinglePass);
    /// let before = ctx.scan_by_key_with(&keys, &values, &low)?;
    /// assert_eq!(before.to_vec()?, vec![i32::MAX, 3, 3, i32::MAX, -1]);
    /// let three = Scan::inclusive(ScanOp::Sum).algorithm(ScanAlgorithm::ReduceThenScan);
    /// assert!(matches!(
    ///     ctx.scan_by_key_with(&keys, &values, &three),
    ///     Err(Error::InvalidArgument { .. })
    /// ));
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_by_key_with<K: RadixKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
        scan: &Scan<T>,
    ) -> Result<GpuVec<T>> {
        let mut out = self.zeros::<T>(values.len())?;
        self.scan_by_key_with_into(keys, values, scan, &mut out)?;
        Ok(out)
    }

    /// [`Ctx::scan_by_key_with`] into `out` (same length), without waiting.
    ///
    /// # Errors
    /// Those of [`Ctx::scan_by_key_with`], and
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) unless `out` has the
    /// values' length.
    ///
    /// ```
    /// use gpuprim::{Scan, ScanOp};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[0u32, 0, 1, 1])?;
    /// let values = ctx.upload(&[2.0f32, 3.0, 4.0, 0.5])?;
    /// let mut out = ctx.zeros::<f32>(4)?;
    /// ctx.scan_by_key_with_into(&keys, &values, &Scan::inclusive(ScanOp::Product), &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![2.0, 6.0, 4.0, 2.0]);
    /// ctx.scan_by_key_with_into(&keys, &values, &Scan::exclusive(ScanOp::Min), &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![f32::INFINITY, 2.0, f32::INFINITY, 4.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_by_key_with_into<K: RadixKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
        scan: &Scan<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        let op = if scan.is_exclusive() {
            "scan_by_key_exclusive"
        } else {
            "scan_by_key"
        };
        scan_by_key_impl(self, op, keys, values, out, Pass::of(scan))
    }
}

impl Ctx {
    /// [`Ctx::scan_by_key_into`] in tiles of `workgroup` invocations (a power of two) with
    /// `units` vec4 units each (1 to 8), instead of the adapter's default. For tuning
    /// (`lab/src/bin/bandwidth`'s `scan_by_key` section); a shape the adapter cannot run is
    /// an `InvalidArgument` naming it.
    #[cfg(feature = "internals")]
    pub fn scan_by_key_tile_into<K: RadixKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
        out: &mut GpuVec<T>,
        workgroup: u32,
        units: u32,
    ) -> Result<()> {
        let op = "scan_by_key";
        let l = &self.info().limits;
        let most = l
            .max_compute_invocations_per_workgroup
            .min(l.max_compute_workgroup_size_x);
        if !workgroup.is_power_of_two() || workgroup > most || !(1..=8).contains(&units) {
            return Err(crate::error::Error::InvalidArgument {
                op,
                message: format!(
                    "tile of {workgroup} invocations x {units} units: the workgroup must be a \
                     power of two up to the device's {most} invocations, units 1 to 8"
                ),
            });
        }
        let pass = Pass {
            shape: Some((workgroup, units)),
            ..Pass::new(&ScanOp::Sum, false)
        };
        scan_by_key_impl(self, op, keys, values, out, pass)
    }
}

/// Elements per tile of [`Ctx::scan_by_key`] on `ctx`'s adapter (for the tests, through
/// `internals`).
#[cfg(feature = "internals")]
pub(crate) fn default_tile(ctx: &Ctx) -> usize {
    let (wg, v) = kernel::default_shape(ctx.info());
    (wg * v) as usize * crate::runtime::vec::LANES
}
