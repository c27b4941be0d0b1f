//! [`Ctx::merge`], [`Ctx::merge_into`] and [`Ctx::merge_by_key`]: two sorted vectors
//! into one, stably, along the merge path (`wgsl/merge.wgsl`).
//!
//! The output is cut into tiles ([`SearchTuning`]'s `merge_workgroup` times
//! `merge_keys_per_invocation` keys); one pass finds where each tile's first diagonal
//! crosses the merge path (a binary search per tile), a second merges each tile in
//! workgroup memory and writes it out in order, values beside their keys. Ties keep `a`'s
//! elements first. The inputs and the result are bound whole (each within one storage
//! binding). Keys are any [`RadixKey`]: one-word keys as `u32` words ordered by their
//! masks, 8-byte keys as `vec2<u32>` compared high word first, and `f16` keys widened
//! into the high half of a word (ordered as `f32` bits are), merged, and packed back.

use std::sync::Arc;

use super::tuning::SearchTuning;
use crate::element::{Element, GpuElement};
use crate::error::{Error, Limit, Result};
use crate::ops::kernel::{Access, Args, record_statements};
use crate::ops::sort::{KeyForm, RadixKey, half_bits, pair_sortable};
use crate::runtime::cache::{KernelSource, Pipeline, render};
use crate::runtime::context::{Ctx, check_len};
use crate::runtime::dispatch::workgroup_grid;
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::{GpuVec, Scratch};
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
    /// 8-byte keys: their form ([`KeyForm::Pair`]); one-word keys: `None` (their masks
    /// are parameters).
    pair: Option<KeyForm>,
}

impl MergeKernel {
    fn new(
        info: &crate::runtime::context::Info,
        values: Option<(&'static str, &'static str)>,
        pair: Option<KeyForm>,
    ) -> Self {
        let t = SearchTuning::of(info);
        MergeKernel {
            workgroup_size: t.merge_workgroup,
            keys_per_invocation: t.merge_keys_per_invocation,
            values,
            pair,
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
        let (key_word, key_order) = match self.pair {
            None => (
                "u32",
                "fn le(x: u32, y: u32) -> bool {\n    \
                 return ordered(x, params.key_xor, params.neg_mask) <= \
                 ordered(y, params.key_xor, params.neg_mask);\n}"
                    .to_string(),
            ),
            Some(form) => {
                let (read, sortable) = pair_sortable(form, |j| format!("x[{j}u]"));
                (
                    "vec2<u32>",
                    format!(
                        "// (low, high) sortable words, as the sorts make them.\n\
                         fn key(x: vec2<u32>) -> vec2<u32> {{\n    {read}\n    \
                         return {sortable};\n}}\n\n\
                         fn le(x: vec2<u32>, y: vec2<u32>) -> bool {{\n    \
                         let p = key(x);\n    let q = key(y);\n    \
                         return p.y < q.y || (p.y == q.y && p.x <= q.x);\n}}"
                    ),
                )
            }
        };
        render(
            MERGE_WGSL,
            &[
                ("ENABLE", enable.to_string()),
                ("KEY_WORD", key_word.to_string()),
                ("KEY_ORDER", key_order),
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
    /// let (a, b) = (ctx.upload(&[-1i64 << 40, 7])?, ctx.upload(&[3i64])?); // 8-byte keys
    /// assert_eq!(ctx.merge(&a, &b)?.to_vec()?, vec![-1 << 40, 3, 7]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::TooLarge`] if the result does not fit one storage binding;
    /// [`Error::InvalidArgument`] for prefix views; [`Error::ContextMismatch`].
    pub fn merge<K: RadixKey>(&self, a: &GpuVec<K>, b: &GpuVec<K>) -> Result<GpuVec<K>> {
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
    pub fn merge_into<K: RadixKey>(
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
    pub fn merge_by_key<K: RadixKey, V: GpuElement>(
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
    fn merged_len<T: Element>(
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

    /// The split and merge passes; `f16` keys around them, widened and packed back.
    fn record_merge<K: RadixKey, V: GpuElement>(
        &self,
        op: &'static str,
        [a, b]: [&GpuVec<K>; 2],
        out: &mut GpuVec<K>,
        values: Option<([&GpuVec<V>; 2], &mut GpuVec<V>)>,
    ) -> Result<()> {
        if values.is_some() {
            self.check_element::<V>()?;
        }
        let values = values
            .as_ref()
            .map(|([va, vb], vo)| [View::of(*va), View::of(*vb), View::of(&**vo)]);
        let value_type = values.map(|_| (V::WGSL, V::ENABLE));
        let (na, nb) = (a.len(), b.len());
        let (av, bv, ov) = (View::of(a), View::of(b), View::of(&*out));
        match K::FORM {
            KeyForm::Word { key_xor, neg_mask } => {
                let config = MergeKernel::new(self.info(), value_type, None);
                let work = Work::new(self, op);
                let keys = [av.whole(), bv.whole(), ov.whole()];
                self.record_split_merge(work, &config, (na, nb), keys, (key_xor, neg_mask), values)
            }
            KeyForm::Pair { .. } => {
                let config = MergeKernel::new(self.info(), value_type, Some(K::FORM));
                let work = Work::new(self, op);
                let keys = [av.whole(), bv.whole(), ov.whole()];
                self.record_split_merge(work, &config, (na, nb), keys, (0, 0), values)
            }
            KeyForm::Half => {
                // Each key's 16 bits in the high half of a word, ordered as f32's bits
                // are (a negative key's low zeros all flip alike); merged; packed.
                let config = MergeKernel::new(self.info(), value_type, None);
                let mut held: Vec<Scratch> = Vec::new();
                let mut wide = |what: &str, n: usize| -> Result<GpuVec<u32>> {
                    let s = self.large_scratch(what, n)?;
                    let v = GpuVec::over_scratch(self, (*s).clone(), n);
                    held.push(s);
                    Ok(v)
                };
                let (wa, wb, wo) = (
                    wide("merge keys a (f16 widened)", na)?,
                    wide("merge keys b (f16 widened)", nb)?,
                    wide("merge keys (f16 widened)", na + nb)?,
                );
                let mut work = Work::new(self, op);
                for (halves, words) in [(av, &wa), (bv, &wb)] {
                    if words.is_empty() {
                        continue;
                    }
                    let mut args = Args::new(op);
                    args.vec("x", View::of(words), Access::Write);
                    args.vec("w", halves.exact_words(), Access::Raw);
                    let code = format!("x = {} << 16u;", half_bits("w", "i"));
                    record_statements(self, &mut work, &code, args)?;
                }
                work.submit()?;
                let keys = [
                    View::of(&wa).whole(),
                    View::of(&wb).whole(),
                    View::of(&wo).whole(),
                ];
                self.record_split_merge(
                    Work::new(self, op),
                    &config,
                    (na, nb),
                    keys,
                    (0x8000_0000, 0x7fff_ffff),
                    values,
                )?;
                let mut work = Work::new(self, op);
                if na + nb > 0 {
                    let mut args = Args::new(op);
                    args.vec("w", ov.exact_words(), Access::Write);
                    args.vec("x", View::of(&wo), Access::Raw);
                    args.scalar("nk", (na + nb) as u32);
                    record_statements(
                        self,
                        &mut work,
                        "w = (x[2u * i] >> 16u) | select(0u, x[min(2u * i + 1u, nk - 1u)] & \
                         0xffff0000u, 2u * i + 1u < nk);",
                        args,
                    )?;
                }
                for s in held {
                    work.keep(s);
                }
                work.submit()
            }
        }
    }

    /// The split and merge passes over the keys bound as `[a, b, out]` (`na` and `nb`
    /// of them in `a` and `b`), one-word keys ordered by `(key_xor, neg_mask)`, into
    /// `work`, which is submitted.
    fn record_split_merge(
        &self,
        mut work: Work,
        config: &MergeKernel,
        (na, nb): (usize, usize),
        [a, b, out]: [Res; 3],
        (key_xor, neg_mask): (u32, u32),
        values: Option<[View<'_>; 3]>,
    ) -> Result<()> {
        let split: Arc<Pipeline> = self.pipeline_for(config, "split_main")?;
        let merge: Arc<Pipeline> = self.pipeline_for(config, "merge_main")?;
        let total = na as u64 + nb as u64;
        if total == 0 {
            return work.submit();
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
            na: na as u32,
            nb: nb as u32,
            tiles: tiles as u32,
            key_xor,
            neg_mask,
            ..MergeParams::default()
        };
        let splits = work.keep(self.scratch(
            "merge splits",
            4 * (tiles + 1),
            wgpu::BufferUsages::STORAGE,
        )?);
        let block = work.params(&params);
        // An empty input is bound as its (padded or empty) buffer's first word; the
        // kernel reads none of it.
        work.dispatch(&split, split_grid)
            .bind(0, block)
            .bind(1, a.clone())
            .bind(2, b.clone())
            .bind(4, Res::whole(&splits));
        let d = work.dispatch(&merge, merge_grid);
        d.bind(0, block)
            .bind(1, a)
            .bind(2, b)
            .bind(3, out)
            .bind(4, Res::whole(&splits));
        if let Some([va, vb, vo]) = &values {
            d.bind(5, va.whole())
                .bind(6, vb.whole())
                .bind(7, vo.whole());
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
            c.add_for(&d, &MergeKernel::new(&d.info, values, None));
            // u64 keys ([u32; 2] and i64 differ only in constants)
            c.add_for(&d, &MergeKernel::new(&d.info, values, Some(u64::FORM)));
        }
        c.add_native(&MergeKernel::new(&d.info, Some(("f64", "")), None));
        c.add_for(&d, &MergeKernel::new(&d.info, None, Some(f64::FORM)));
    }
    let wgsl = MergeKernel::new(&devices()[0].info, None, None)
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
