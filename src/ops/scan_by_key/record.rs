//! A scan by key's checks and recording: the arguments, the kernel for their layouts,
//! the tile statuses, and the single pass over every binding window.

use super::kernel::{SPIN, ScanByKeyKernel, ScanByKeyParams, default_shape};
use crate::element::GpuElement;
use crate::error::{Error, Limit, Result};
use crate::ops::scan::{Scan, ScanAlgorithm, ScanOp};
use crate::ops::sort::{RadixKey, word_masks};
use crate::runtime::cache::Pipeline;
use crate::runtime::context::{Ctx, check_len};
use crate::runtime::dispatch::{
    Chunk, chunks, storage_alignment, units_per_window, workgroup_grid,
};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::{GpuVec, LANES};
use crate::runtime::view::View;
use std::sync::Arc;

/// How a scan by key runs: its operator and form, the algorithm asked for, the probes a
/// look-back makes of a predecessor before it reduces that tile itself (at least 1), and
/// a (workgroup, units) tile shape instead of the adapter's.
pub(super) struct Pass<'a, T> {
    pub(super) scan_op: &'a ScanOp<T>,
    pub(super) exclusive: bool,
    pub(super) algorithm: ScanAlgorithm,
    pub(super) spin: u32,
    pub(super) shape: Option<(u32, u32)>,
}

impl<'a, T> Pass<'a, T> {
    /// `scan_op`, inclusive or `exclusive`, with the usual probes and the adapter's shape.
    pub(super) fn new(scan_op: &'a ScanOp<T>, exclusive: bool) -> Self {
        Pass {
            scan_op,
            exclusive,
            algorithm: ScanAlgorithm::Auto,
            spin: SPIN,
            shape: None,
        }
    }

    /// The pass `scan` asks for.
    pub(super) fn of(scan: &'a Scan<T>) -> Self {
        Pass {
            algorithm: scan.requested_algorithm(),
            ..Pass::new(scan.op(), scan.is_exclusive())
        }
    }
}

/// Checks the arguments, compiles the kernel and records the single pass over every
/// binding window.
pub(super) fn scan_by_key_impl<K: RadixKey, T: GpuElement>(
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
    // One algorithm: the single pass, which falls back safely on every adapter.
    if pass.algorithm == ScanAlgorithm::ReduceThenScan {
        return Err(Error::InvalidArgument {
            op,
            message: "ScanAlgorithm::ReduceThenScan: a scan by key has one algorithm, a single \
                      pass with decoupled look-back (ScanAlgorithm::SinglePass), on every \
                      adapter; use ScanAlgorithm::Auto or SinglePass"
                .to_string(),
        });
    }
    if word_masks::<K>().is_none() {
        // 8-byte and f16 keys: each element's run number (a scan of where runs of equal
        // bits start) is a one-word key with the same runs.
        ctx.freely_indexed_len(op, "keys", keys)?;
        let ids = if keys.is_empty() {
            ctx.zeros::<u32>(0)?
        } else {
            ctx.scan(&ctx.run_heads(op, keys)?)?
        };
        return scan_by_key_impl(ctx, op, &ids, values, out, pass);
    }
    let keys_view = View::of(keys);
    let values_view = View::of(values);
    let out_view = View::of(out);
    let layouts = [&keys_view, &values_view, &out_view];
    let (wg, v) = pass.shape.unwrap_or_else(|| default_shape(ctx.info()));
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

/// The compiled single pass of `pass` for the layouts of the keys, values and output,
/// in tiles of `wg` x `v` units.
fn kernel<T: GpuElement>(
    ctx: &Ctx,
    op: &'static str,
    pass: &Pass<'_, T>,
    [keys, values, out]: [&View<'_>; 3],
    (wg, v): (u32, u32),
) -> Result<Arc<Pipeline>> {
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
    ctx.pipeline_for(&config, "chained")
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
