//! Scans by key: [`Ctx::scan_by_key`], [`Ctx::scan_by_key_exclusive`], their `_with`
//! forms (any [`ScanOp`]) and `_into` forms (`wgsl/scan_by_key.wgsl`).
//!
//! A scan of the values that starts again wherever the key differs from the previous
//! element's, like Thrust's `inclusive_scan_by_key` / `exclusive_scan_by_key`. Keys are
//! compared by their bits (as [`Ctx::unique`] compares them: for `f32`, `-0.0` and
//! `+0.0` are different keys and NaNs with the same bits one key).
//!
//! It is one single pass with decoupled look-back, the design of
//! [`ScanAlgorithm::SinglePass`](crate::ScanAlgorithm::SinglePass) carried over
//! `(head, value)` pairs: each tile finds its elements' heads while it loads the keys,
//! scans its pairs in the workgroup and takes the carry from its predecessors'
//! published values. A tile that holds a head publishes its inclusive prefix at once,
//! so with short runs a look-back ends at the tile before. A workgroup that waits too
//! long for a predecessor reduces that tile itself, so it runs on every adapter (with or
//! without subgroups) without relying on workgroups being scheduled fairly; the
//! context's [`Ctx::scan_algorithm`](crate::Ctx::scan_algorithm) does not apply.

use crate::element::GpuElement;
use crate::error::{Error, Limit, Result};
use crate::ops::scan::{Adapter, OperatorWgsl, ScanOp};
use crate::ops::sort::SortKey;
use crate::runtime::cache::{Kernel, KernelSource, render};
use crate::runtime::context::{Ctx, check_len};
use crate::runtime::dispatch::{
    Chunk, chunks, storage_alignment, units_per_window, workgroup_grid,
};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::{GpuVec, LANES};
use crate::runtime::view::{View, units_wgsl};
use std::sync::Arc;

const SCAN_BY_KEY_WGSL: &str = include_str!("../../wgsl/scan_by_key.wgsl");

/// Probes of a predecessor's status before a workgroup reduces that tile itself (as the
/// scan's single pass).
const SPIN: u32 = 64;
/// Predecessors whose published values the subgroup look-back keeps in workgroup memory
/// (as the scan's single pass).
const STASH: u32 = 256;

/// Invocations per workgroup and vec4 units per invocation. On a GPU the scan's
/// single-pass tile, 256 x 8 units (8192 elements; `V` is at most 8: an invocation
/// keeps 4 bits per unit in one word); untuned for pairs. On a CPU adapter 64 x 2 units,
/// 512 elements, so the tests cross many tiles cheaply.
const SHAPE_GPU: (u32, u32) = (256, 8);
const SHAPE_CPU: (u32, u32) = (64, 2);

/// `Params` in `wgsl/scan_by_key.wgsl`.
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct ScanByKeyParams {
    n: u32,
    units: u32,
    tiles: u32,
    base: u32,
    window: u32,
    counters: u32,
    before: u32,
    first: u32,
}

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
    /// [`Error::LengthMismatch`] unless `keys` and `values` have the same length;
    /// [`Error::InvalidArgument`] for 16- or 64-bit values (the look-back publishes
    /// 32-bit words); [`Error::TooLarge`] if the tile statuses do not fit one storage
    /// binding (4 words per 8192 elements on a GPU).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[1u32, 1, 1, 7, 7, 1])?;
    /// let values = ctx.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    /// let sums = ctx.scan_by_key(&keys, &values)?;
    /// assert_eq!(sums.to_vec()?, vec![1.0, 3.0, 6.0, 4.0, 9.0, 6.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_by_key<K: SortKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
    ) -> Result<GpuVec<T>> {
        self.scan_by_key_with(keys, values, &ScanOp::Sum)
    }

    /// Exclusive prefix sums within each run of equal consecutive `keys`: element `i` is
    /// the sum of the values of its run before `i`, 0 at each run's first element. See
    /// [`Ctx::scan_by_key`].
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[-1i32, -1, -1, 4, 4])?;
    /// let values = ctx.upload(&[5u32, 1, 2, 8, 3])?;
    /// let before = ctx.scan_by_key_exclusive(&keys, &values)?;
    /// assert_eq!(before.to_vec()?, vec![0, 5, 6, 0, 8]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_by_key_exclusive<K: SortKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
    ) -> Result<GpuVec<T>> {
        self.scan_by_key_exclusive_with(keys, values, &ScanOp::Sum)
    }

    /// An inclusive scan by key with any operator ([`ScanOp::Sum`], `Product`, `Min`,
    /// `Max` or a custom WGSL operator in `a` and `b`); see [`Ctx::scan_by_key`].
    ///
    /// As for [`Ctx::scan_with`], a custom operator must be associative (it need not be
    /// commutative: `a` is always the earlier part) and its identity must leave every
    /// value unchanged on either side: elements are combined with partial results
    /// that may be the identity.
    ///
    /// # Errors
    /// Those of [`Ctx::scan_by_key`]; for a custom operator also
    /// [`Error::InvalidArgument`] if it is not exactly one WGSL expression and
    /// [`Error::Compile`] if it is not a valid one of the value type.
    ///
    /// ```
    /// use gpuprim::ScanOp;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[0.5f32, 0.5, 0.5, -2.0, -2.0])?;
    /// let values = ctx.upload(&[3i32, 9, 4, -1, -7])?;
    /// let best = ctx.scan_by_key_with(&keys, &values, &ScanOp::Max)?;
    /// assert_eq!(best.to_vec()?, vec![3, 9, 9, -1, -1]);
    /// let xor = ctx.scan_by_key_with(&keys, &values, &ScanOp::custom("a ^ b", 0))?;
    /// assert_eq!(xor.to_vec()?, vec![3, 10, 14, -1, 6]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_by_key_with<K: SortKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
        op: &ScanOp<T>,
    ) -> Result<GpuVec<T>> {
        let mut out = self.zeros::<T>(values.len())?;
        self.scan_by_key_with_into(keys, values, op, &mut out)?;
        Ok(out)
    }

    /// An exclusive scan by key with any operator: each run starts with the operator's
    /// identity. See [`Ctx::scan_by_key_with`].
    ///
    /// ```
    /// use gpuprim::ScanOp;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[2u32, 2, 2, 3])?;
    /// let values = ctx.upload(&[4.0f32, 1.0, 6.0, 5.0])?;
    /// let low = ctx.scan_by_key_exclusive_with(&keys, &values, &ScanOp::Min)?;
    /// assert_eq!(low.to_vec()?, vec![f32::INFINITY, 4.0, 1.0, f32::INFINITY]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_by_key_exclusive_with<K: SortKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
        op: &ScanOp<T>,
    ) -> Result<GpuVec<T>> {
        let mut out = self.zeros::<T>(values.len())?;
        self.scan_by_key_exclusive_with_into(keys, values, op, &mut out)?;
        Ok(out)
    }

    /// [`Ctx::scan_by_key`] into `out` (same length), recorded without waiting.
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
    pub fn scan_by_key_into<K: SortKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        self.scan_by_key_with_into(keys, values, &ScanOp::Sum, out)
    }

    /// [`Ctx::scan_by_key_exclusive`] into `out` (same length), without waiting.
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
    pub fn scan_by_key_exclusive_into<K: SortKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        self.scan_by_key_exclusive_with_into(keys, values, &ScanOp::Sum, out)
    }

    /// [`Ctx::scan_by_key_with`] into `out` (same length), without waiting.
    ///
    /// ```
    /// use gpuprim::ScanOp;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[0u32, 0, 1, 1])?;
    /// let values = ctx.upload(&[2.0f32, 3.0, 4.0, 0.5])?;
    /// let mut out = ctx.zeros::<f32>(4)?;
    /// ctx.scan_by_key_with_into(&keys, &values, &ScanOp::Product, &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![2.0, 6.0, 4.0, 2.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_by_key_with_into<K: SortKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
        op: &ScanOp<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        scan_by_key_impl(self, "scan_by_key", keys, values, out, Pass::new(op, false))
    }

    /// [`Ctx::scan_by_key_exclusive_with`] into `out` (same length), without waiting.
    ///
    /// ```
    /// use gpuprim::ScanOp;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[0u32, 0, 1, 1])?;
    /// let values = ctx.upload(&[6i32, 3, 4, 5])?;
    /// let mut out = ctx.zeros::<i32>(4)?;
    /// ctx.scan_by_key_exclusive_with_into(&keys, &values, &ScanOp::Max, &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![i32::MIN, 6, i32::MIN, 4]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn scan_by_key_exclusive_with_into<K: SortKey, T: GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
        op: &ScanOp<T>,
        out: &mut GpuVec<T>,
    ) -> Result<()> {
        scan_by_key_impl(
            self,
            "scan_by_key_exclusive",
            keys,
            values,
            out,
            Pass::new(op, true),
        )
    }
}

impl Ctx {
    /// [`Ctx::scan_by_key_into`] in tiles of `workgroup` invocations (a power of two) with
    /// `units` vec4 units each (1 to 8), instead of the adapter's default. For tuning
    /// (`lab/src/bin/bandwidth`'s `scan_by_key` section); a shape the adapter cannot run is
    /// an `InvalidArgument` naming it.
    #[cfg(feature = "internals")]
    pub fn scan_by_key_tile_into<K: SortKey, T: GpuElement>(
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
            return Err(Error::InvalidArgument {
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

/// How a scan by key runs: its operator and form, the probes a look-back makes of a
/// predecessor before it reduces that tile itself (at least 1), and a (workgroup, units)
/// tile shape instead of the adapter's.
struct Pass<'a, T> {
    scan_op: &'a ScanOp<T>,
    exclusive: bool,
    spin: u32,
    shape: Option<(u32, u32)>,
}

impl<'a, T> Pass<'a, T> {
    /// `scan_op`, inclusive or `exclusive`, with the usual probes and the adapter's shape.
    fn new(scan_op: &'a ScanOp<T>, exclusive: bool) -> Self {
        Pass {
            scan_op,
            exclusive,
            spin: SPIN,
            shape: None,
        }
    }
}

/// Checks the arguments, compiles the kernel and records the single pass over every
/// binding window.
fn scan_by_key_impl<K: SortKey, T: GpuElement>(
    ctx: &Ctx,
    op: &'static str,
    keys: &GpuVec<K>,
    values: &GpuVec<T>,
    out: &mut GpuVec<T>,
    pass: Pass<'_, T>,
) -> Result<()> {
    ctx.check_owned(op, &[&keys.ctx, &values.ctx, &out.ctx])?;
    for len_on_host in [
        keys.require_host_len(op),
        values.require_host_len(op),
        out.require_host_len(op),
    ] {
        len_on_host?;
    }
    check_len(op, ("keys", keys.len()), ("values", values.len()))?;
    check_len(op, ("out", out.len()), ("values", values.len()))?;
    ctx.check_element::<T>()?;
    if size_of::<T>() != 4 {
        return Err(Error::InvalidArgument {
            op,
            message: format!(
                "scan by key works on 32-bit values (its look-back publishes 32-bit words), \
                 not {}",
                T::WGSL
            ),
        });
    }
    let keys_view = View::of(keys);
    let values_view = View::of(values);
    let out_view = View::of(out);
    let layouts = [&keys_view, &values_view, &out_view];
    let (wg, v) = pass
        .shape
        .unwrap_or_else(|| default_shape(&Adapter::of(ctx)));
    let kernel = kernel::<T>(ctx, op, &pass, layouts, (wg, v))?;
    if values.is_empty() {
        return Ok(());
    }
    let tile_units = u64::from(wg * v);
    // Unit u of each window is unit u of the keys, the values and the output.
    let unit_bytes = (LANES * 4) as u64;
    let windows: Vec<Chunk> = chunks(
        values.lanes4(),
        units_per_window(ctx, &[unit_bytes, unit_bytes]),
    )
    .collect();
    let tiles: u64 = windows.iter().map(|w| w.units.div_ceil(tile_units)).sum();
    let counters = (windows.len() as u64).next_multiple_of(4);
    let status_bytes = 4 * (counters + 4 * tiles);
    let max_binding = ctx.info().max_binding_bytes;
    if status_bytes > max_binding {
        return Err(Error::TooLarge {
            what: format!("scan by key's tile status for {tiles} tiles"),
            kind: Limit::BindingBytes,
            requested: status_bytes,
            limit: max_binding,
        });
    }
    let mut work = Work::new(ctx, op);
    let status = work.keep(ctx.scratch(
        "scan by key tile status",
        status_bytes,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    )?);
    work.clear(&status, 0, Some(status_bytes));
    let n = values.len() as u64;
    let align = storage_alignment(ctx);
    let mut first_tile = 0u64;
    for (i, w) in windows.iter().enumerate() {
        let window_tiles = w.units.div_ceil(tile_units);
        let grid = workgroup_grid(window_tiles, ctx.info().max_workgroups_per_dimension)?;
        let first = w.offset_units * LANES as u64;
        let count = (n - first).min(w.units * LANES as u64);
        // The key of the element before the window, in a small binding of its own
        // (aligned down from it); the first window binds its own first key, unread.
        let (before_res, before) = if first == 0 {
            (Res::range(keys_view.buffer, keys_view.offset, 4), 0)
        } else {
            let at = keys_view.offset + (first - 1) * 4;
            let start = (at / align * align).max(keys_view.offset);
            (
                Res::range(keys_view.buffer, start, at + 4 - start),
                ((at - start) / 4) as u32,
            )
        };
        let block = work.params(&ScanByKeyParams {
            n: count as u32,
            units: w.units as u32,
            tiles: window_tiles as u32,
            base: first_tile as u32,
            window: i as u32,
            counters: counters as u32,
            before,
            first: u32::from(first == 0),
        });
        first_tile += window_tiles;
        work.dispatch(&kernel, grid)
            .bind(0, block)
            .bind(1, keys_view.window(w))
            .bind(2, values_view.window(w))
            .bind(3, out_view.window(w))
            .bind(4, before_res)
            .bind(5, Res::range(&status, 0, status_bytes));
    }
    work.submit()
}

/// Elements per tile of [`Ctx::scan_by_key`] on `ctx`'s adapter (for the tests, through
/// `internals`).
#[cfg(feature = "internals")]
pub(crate) fn default_tile(ctx: &Ctx) -> usize {
    let (wg, v) = default_shape(&Adapter::of(ctx));
    (wg * v * 4) as usize
}

/// The workgroup size and vec4 units per invocation on `adapter`.
fn default_shape(adapter: &Adapter) -> (u32, u32) {
    let (wg, v) = if adapter.cpu { SHAPE_CPU } else { SHAPE_GPU };
    (adapter.pow2_workgroup_size(wg), v)
}

/// The compiled single pass of `pass` for the layouts of the keys, values and output,
/// in tiles of `wg` x `v` units.
fn kernel<T: GpuElement>(
    ctx: &Ctx,
    op: &'static str,
    pass: &Pass<'_, T>,
    [keys, values, out]: [&View<'_>; 3],
    (wg, v): (u32, u32),
) -> Result<Arc<Kernel>> {
    let subgroups = ctx.subgroups_within(wg);
    let config = ScanByKeyKernel {
        element: T::WGSL,
        workgroup_size: wg,
        units: v,
        exclusive: pass.exclusive,
        // 0 probes would never see an earlier window's tiles, which are only waited for.
        spin: pass.spin.max(1),
        subgroups,
        keys_vec4: keys.vec4(),
        values_vec4: values.vec4(),
        out_vec4: out.vec4(),
        operator: pass.scan_op.wgsl(op)?,
    };
    ctx.kernel_for(&config, "chained")
}

/// `wgsl/scan_by_key.wgsl`: its single pass for one value type, form, shape, layout and
/// operator.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ScanByKeyKernel {
    /// The values' WGSL type (32-bit).
    element: &'static str,
    workgroup_size: u32,
    /// vec4 units per invocation and tile row (`V`).
    units: u32,
    exclusive: bool,
    /// Probes of a predecessor's status before standing in for it (at least 1).
    spin: u32,
    /// The workgroup scans and looks back with subgroup operations.
    subgroups: bool,
    /// Whether the keys, values and output are bound as `vec4` units.
    keys_vec4: bool,
    values_vec4: bool,
    out_vec4: bool,
    operator: OperatorWgsl,
}

impl KernelSource for ScanByKeyKernel {
    fn name(&self) -> &'static str {
        "scan_by_key"
    }

    fn element(&self) -> &'static str {
        self.element
    }

    fn user_code(&self) -> &str {
        &self.operator.code
    }

    fn wgsl(&self) -> Result<String> {
        let t = self.element;
        render(
            SCAN_BY_KEY_WGSL,
            &[
                ("SUBGROUPS", self.subgroups.to_string()),
                ("KEYS", units_wgsl("keys", 1, "u32", false, self.keys_vec4)?),
                (
                    "VALUES",
                    units_wgsl("values", 2, t, false, self.values_vec4)?,
                ),
                ("OUT", units_wgsl("out", 3, t, true, self.out_vec4)?),
                ("T", t.to_string()),
                ("WG", self.workgroup_size.to_string()),
                ("V", self.units.to_string()),
                ("EXCLUSIVE", self.exclusive.to_string()),
                ("SPIN", self.spin.to_string()),
                ("STASH", STASH.to_string()),
                ("BY_ID", self.subgroups.to_string()),
                ("IDENTITY", self.operator.identity.clone()),
                ("COMBINE", self.operator.combine.clone()),
            ],
        )
    }
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`): every operator, inclusive and exclusive, of every 32-bit value
/// type, for every layout of the keys, values and output, in the default shape of each
/// of the scan's catalog adapters (and the tests' single probe).
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::layout;
    catalog_of::<f32>(c);
    catalog_of::<i32>(c);
    catalog_of::<u32>(c);
    let config = catalog_config::<u32>(&crate::ops::scan::catalog_adapters()[0], &ScanOp::Sum);
    let wgsl = config.wgsl().expect("scan by key renders");
    layout!(
        c,
        ScanByKeyParams,
        "Params",
        wgsl,
        [n, units, tiles, base, window, counters, before, first]
    );
}

#[cfg(test)]
fn catalog_config<T: GpuElement>(adapter: &Adapter, op: &ScanOp<T>) -> ScanByKeyKernel {
    let (wg, v) = default_shape(adapter);
    ScanByKeyKernel {
        element: T::WGSL,
        workgroup_size: wg,
        units: v,
        exclusive: false,
        spin: SPIN,
        subgroups: adapter.subgroups_within(wg),
        keys_vec4: true,
        values_vec4: true,
        out_vec4: true,
        operator: op.wgsl("scan_by_key").expect("a valid operator"),
    }
}

#[cfg(test)]
fn catalog_of<T: GpuElement>(c: &mut crate::ops::catalog::Catalog) {
    let ops = crate::ops::scan::catalog_ops::<T>();
    for adapter in crate::ops::scan::catalog_adapters() {
        for op in &ops {
            let base = catalog_config(&adapter, op);
            for exclusive in [false, true] {
                for layout in 0..8u32 {
                    for spin in [SPIN, 1] {
                        let config = ScanByKeyKernel {
                            exclusive,
                            spin,
                            keys_vec4: layout & 1 != 0,
                            values_vec4: layout & 2 != 0,
                            out_vec4: layout & 4 != 0,
                            ..base.clone()
                        };
                        if config.workgroup_size > 256 {
                            c.add_native(&config);
                        } else {
                            c.add(&config);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys in runs of 1..=`max_run` and values from a xorshift stream.
    fn inputs(len: usize, max_run: u64, seed: u64) -> (Vec<u32>, Vec<u32>) {
        let mut s = seed | 1;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let (mut keys, mut values) = (Vec::new(), Vec::new());
        let mut key = 0u32;
        while keys.len() < len {
            key += 1;
            for _ in 0..(1 + next() % max_run).min((len - keys.len()) as u64) {
                keys.push(key);
                values.push((next() >> 32) as u32);
            }
        }
        (keys, values)
    }

    /// With one probe before standing in, a look-back reduces every predecessor tile
    /// that has not published yet itself (the fallback that keeps the single pass from
    /// waiting on workgroups that are not scheduled): the results must be the CPU's,
    /// and float sums the same bits as with the usual waits (the stand-in folds a tile
    /// operation for operation as its owner does).
    #[test]
    fn look_back_fallback_gives_the_same_results() {
        let contexts = [
            Ctx::new(),
            Ctx::builder()
                .without_features(wgpu::Features::SUBGROUP)
                .build(),
            Ctx::builder()
                .max_binding_bytes(4096)
                .max_workgroups_per_dimension(3)
                .build(),
        ];
        for ctx in contexts {
            let ctx = ctx.expect("a context");
            for (len, max_run) in [(20_000, 40), (9_000, 3000)] {
                let (keys, values) = inputs(len, max_run, len as u64);
                let kv = ctx.upload(&keys).unwrap();
                let vv = ctx.upload(&values).unwrap();
                let mut out = ctx.upload(&vec![0xdead_beefu32; len]).unwrap();
                let once = Pass {
                    spin: 1,
                    ..Pass::new(&ScanOp::Sum, false)
                };
                scan_by_key_impl(&ctx, "test", &kv, &vv, &mut out, once).unwrap();
                let got = out.to_vec().unwrap();
                let mut acc = 0u32;
                for i in 0..len {
                    if i == 0 || keys[i] != keys[i - 1] {
                        acc = 0;
                    }
                    acc = acc.wrapping_add(values[i]);
                    assert_eq!(got[i], acc, "element {i} of {len} on {}", ctx.info());
                }
                let floats: Vec<f32> = values.iter().map(|&x| (x >> 8) as f32 - 8e6).collect();
                let fv = ctx.upload(&floats).unwrap();
                let mut a = ctx.zeros::<f32>(len).unwrap();
                let mut b = ctx.zeros::<f32>(len).unwrap();
                let sum = ScanOp::Sum;
                let once = Pass {
                    spin: 1,
                    ..Pass::new(&sum, true)
                };
                scan_by_key_impl(&ctx, "test", &kv, &fv, &mut a, once).unwrap();
                scan_by_key_impl(&ctx, "test", &kv, &fv, &mut b, Pass::new(&sum, true)).unwrap();
                let (a, b) = (a.to_vec().unwrap(), b.to_vec().unwrap());
                let differ = (0..len)
                    .filter(|&i| a[i].to_bits() != b[i].to_bits())
                    .count();
                assert_eq!(differ, 0, "f32 sums of {len} on {}", ctx.info());
            }
        }
    }
}
