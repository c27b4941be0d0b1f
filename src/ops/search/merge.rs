//! [`Ctx::merge`], [`Ctx::merge_into`] and [`Ctx::merge_by_key`]: two sorted vectors
//! into one, stably, along the merge path (`wgsl/merge.wgsl`).
//!
//! The output is cut into tiles ([`SearchTuning`]'s `merge_workgroup` times
//! `merge_keys_per_invocation` keys); one pass finds where each tile's first diagonal
//! crosses the merge path (a binary search per tile), a second merges each tile in
//! workgroup memory and writes it out in order, values beside their keys. Ties keep `a`'s
//! elements first. The inputs and the result are bound whole (each within one storage
//! binding).

use std::sync::Arc;

use super::tuning::SearchTuning;
use crate::element::GpuElement;
use crate::error::{Error, Limit, Result};
use crate::ops::sort::SortKey;
use crate::runtime::cache::{KernelSource, Pipeline, render};
use crate::runtime::context::{Ctx, check_len};
use crate::runtime::dispatch::workgroup_grid;
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::GpuVec;
use crate::runtime::view::View;

const MERGE_WGSL: &str = include_str!("../../../wgsl/merge.wgsl");
const KEYS_WGSL: &str = include_str!("../../../wgsl/sort_keys.wgsl");

/// `Params` in `wgsl/merge.wgsl`.
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct MergeParams {
    na: u32,
    nb: u32,
    tiles: u32,
    key_xor: u32,
    neg_mask: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

/// `wgsl/merge.wgsl` for one tile shape, with or without values of one type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct MergeKernel {
    workgroup_size: u32,
    keys_per_invocation: u32,
    /// The values' WGSL type and its `enable` directive (merge_by_key).
    values: Option<(&'static str, &'static str)>,
}

impl MergeKernel {
    fn new(
        info: &crate::runtime::context::Info,
        values: Option<(&'static str, &'static str)>,
    ) -> Self {
        let t = SearchTuning::of(info);
        MergeKernel {
            workgroup_size: t.merge_workgroup,
            keys_per_invocation: t.merge_keys_per_invocation,
            values,
        }
    }

    fn tile(&self) -> u32 {
        self.workgroup_size * self.keys_per_invocation
    }
}

impl KernelSource for MergeKernel {
    fn name(&self) -> &'static str {
        "merge"
    }

    fn element(&self) -> &'static str {
        self.values.map_or("u32", |v| v.0)
    }

    fn wgsl(&self) -> Result<String> {
        let (enable, bindings, write) = match self.values {
            None => ("", String::new(), ""),
            Some((t, enable)) => (
                enable,
                format!(
                    "@group(0) @binding(5) var<storage, read> a_values: array<{t}>;\n\
                     @group(0) @binding(6) var<storage, read> b_values: array<{t}>;\n\
                     @group(0) @binding(7) var<storage, read_write> out_values: array<{t}>;"
                ),
                "        if q < la {\n            out_values[d0 + p] = a_values[i0 + q];\n        } \
                 else {\n            out_values[d0 + p] = b_values[j0 + q - la];\n        }",
            ),
        };
        render(
            MERGE_WGSL,
            &[
                ("ENABLE", enable.to_string()),
                ("WG", self.workgroup_size.to_string()),
                ("V", self.keys_per_invocation.to_string()),
                ("VALUE_BINDINGS", bindings),
                ("KEYS", KEYS_WGSL.to_string()),
                ("WRITE_VALUE", write.to_string()),
            ],
        )
    }
}

impl Ctx {
    /// The elements of the sorted vectors `a` and `b` in one sorted vector, stably:
    /// equal elements keep their order, `a`'s before `b`'s (merge path, as Thrust's
    /// `merge` and `std::merge`). Order as [`Ctx::sort`]'s (for `f32`,
    /// [`f32::total_cmp`]). Recorded without waiting.
    ///
    /// On inputs that are not sorted the order of the result is unspecified (elements
    /// may be lost or doubled), but nothing is read or written outside the vectors.
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
        let mut out = self.zeros(self.merged_len::<K>(op, a, b)?)?;
        self.merge_into(a, b, &mut out)?;
        Ok(out)
    }

    /// [`Ctx::merge`] into `out`, whose length must be `a.len() + b.len()`: no new
    /// vector for the result (a large allocation costs more than the merge).
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
        check_apart(op, &View::of(out), &[View::of(a), View::of(b)])?;
        self.record_merge::<K, u32>(op, [a, b], out, None)
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
        let mut keys = self.zeros(self.merged_len::<K>(op, a_keys, b_keys)?)?;
        let mut values = self.zeros(self.merged_len::<V>(op, a_values, b_values)?)?;
        self.record_merge(
            op,
            [a_keys, b_keys],
            &mut keys,
            Some(([a_values, b_values], &mut values)),
        )?;
        Ok((keys, values))
    }

    /// The length of a merge of `a` and `b`, checked: within one storage binding (the
    /// result is bound whole).
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

    /// The split and merge passes.
    fn record_merge<K: SortKey, V: GpuElement>(
        &self,
        op: &'static str,
        [a, b]: [&GpuVec<K>; 2],
        out: &mut GpuVec<K>,
        values: Option<([&GpuVec<V>; 2], &mut GpuVec<V>)>,
    ) -> Result<()> {
        let config = MergeKernel::new(self.info(), values.as_ref().map(|_| (V::WGSL, V::ENABLE)));
        if values.is_some() {
            self.check_element::<V>()?;
        }
        let split: Arc<Pipeline> = self.pipeline_for(&config, "split_main")?;
        let merge: Arc<Pipeline> = self.pipeline_for(&config, "merge_main")?;
        let total = a.len() as u64 + b.len() as u64;
        if total == 0 {
            return Ok(());
        }
        let tile = u64::from(config.tile());
        let tiles = total.div_ceil(tile);
        let max_dim = self.info().max_workgroups_per_dimension;
        let split_grid = workgroup_grid(
            (tiles + 1).div_ceil(u64::from(config.workgroup_size)),
            max_dim,
        )?;
        let merge_grid = workgroup_grid(tiles, max_dim)?;
        let params = MergeParams {
            na: a.len() as u32,
            nb: b.len() as u32,
            tiles: tiles as u32,
            key_xor: K::KEY_XOR,
            neg_mask: K::NEG_MASK,
            ..MergeParams::default()
        };
        let mut work = Work::new(self, op);
        let splits = work.keep(self.scratch(
            "merge splits",
            4 * (tiles + 1),
            wgpu::BufferUsages::STORAGE,
        )?);
        let block = work.params(&params);
        // An empty input is bound as its (padded or empty) buffer's first word; the
        // kernel reads none of it.
        let (av, bv, ov) = (View::of(a), View::of(b), View::of(&*out));
        work.dispatch(&split, split_grid)
            .bind(0, block)
            .bind(1, av.whole())
            .bind(2, bv.whole())
            .bind(4, Res::whole(&splits));
        let d = work.dispatch(&merge, merge_grid);
        d.bind(0, block)
            .bind(1, av.whole())
            .bind(2, bv.whole())
            .bind(3, ov.whole())
            .bind(4, Res::whole(&splits));
        if let Some(([va, vb], vo)) = &values {
            d.bind(5, View::of(*va).whole())
                .bind(6, View::of(*vb).whole())
                .bind(7, View::of(&**vo).whole());
        }
        work.submit()
    }
}

/// `out` must not share a buffer with an input: it is written at free places.
fn check_apart(op: &'static str, out: &View<'_>, inputs: &[View<'_>]) -> Result<()> {
    if inputs.iter().any(|v| v.buffer == out.buffer) {
        return Err(Error::InvalidArgument {
            op,
            message: "`out` shares a buffer with an input; give it a vector of its own".into(),
        });
    }
    Ok(())
}

/// Every configuration of the merge kernel, for the catalog test (`ops/catalog.rs`).
#[cfg(test)]
pub(super) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::{devices, layout};
    for d in devices() {
        for values in [
            None,
            Some(("u32", "")),
            Some(("f32", "")),
            Some(("f16", "enable f16;")),
        ] {
            c.add_for(&d, &MergeKernel::new(&d.info, values));
        }
        c.add_native(&MergeKernel::new(&d.info, Some(("f64", ""))));
    }
    let wgsl = MergeKernel::new(&devices()[0].info, None)
        .wgsl()
        .expect("merge renders");
    layout!(
        c,
        MergeParams,
        "Params",
        wgsl,
        [na, nb, tiles, key_xor, neg_mask, _pad0, _pad1, _pad2]
    );
}
