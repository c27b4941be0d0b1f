//! Counts on the device driving later work: [`Ctx::indirect_args`] turns a count that
//! earlier work wrote (a compaction's) into indirect dispatch arguments for kernels of
//! your own, and gpuprim's element-wise kernels use the same kernel (`wgsl/indirect.wgsl`)
//! to dispatch over a [`GpuVec::prefix`] view with as many workgroups as its count needs.

use std::sync::Arc;

use crate::element::Element;
use crate::error::{Error, Result};
use crate::runtime::cache::{KernelSource, Pipeline};
use crate::runtime::context::Ctx;
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::GpuVec;

const INDIRECT_WGSL: &str = include_str!("../../wgsl/indirect.wgsl");

/// The parameter block of `wgsl/indirect.wgsl`.
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct IndirectParams {
    pub(crate) windows: u32,
    pub(crate) units_per_window: u32,
    pub(crate) elems_per_unit: u32,
    pub(crate) per_group: u32,
    pub(crate) max_groups: u32,
    pub(crate) max_per_dim: u32,
    pub(crate) n_cap: u32,
    pub(crate) _pad: u32,
}

impl Ctx {
    /// Indirect dispatch arguments for your own kernel over the first `count[0]`
    /// elements of something (a compaction's kept elements): three `u32`, the layout of
    /// `wgpu::util::DispatchIndirectArgs`, for `ceil(count[0] / per_workgroup)`
    /// workgroups, folded into y and z past the device's per-dimension limit (recover
    /// the linear index as `x + nx * (y + ny * z)` and skip the few surplus groups).
    /// Computed on the GPU, without a read-back; the vector's buffer has `INDIRECT`
    /// usage: pass `args.buffer()` to `dispatch_workgroups_indirect`.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&(0..1000u32).collect::<Vec<_>>())?;
    /// let mut kept = ctx.zeros::<u32>(1000)?;
    /// let mut count = ctx.zeros::<u32>(1)?;
    /// ctx.compact_into(&v, "x % 3u == 0u", &mut kept, &mut count)?; // 334 kept
    /// let args = ctx.indirect_args(&count, 64)?;
    /// assert_eq!(args.to_vec()?, vec![6, 1, 1]); // ceil(334 / 64) workgroups
    /// // your pass: pass.dispatch_workgroups_indirect(args.buffer(), args.offset());
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty `count` or `per_workgroup` 0.
    pub fn indirect_args(&self, count: &GpuVec<u32>, per_workgroup: u32) -> Result<GpuVec<u32>> {
        let args = self.alloc_with::<u32>(3, wgpu::BufferUsages::INDIRECT)?;
        let op = "indirect_args";
        self.check_owned(op, &[&count.ctx])?;
        if count.is_empty() || per_workgroup == 0 {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "the count vector has {} elements and per_workgroup is {per_workgroup}; the \
                     count is element 0 of a non-empty vector, and a workgroup takes at least 1",
                    count.len()
                ),
            });
        }
        let max_per_dim = self.info().max_workgroups_per_dimension;
        let mut work = Work::new(self, op);
        record_args(
            &mut work,
            (&count.buffer, count.offset),
            &IndirectParams {
                windows: 1,
                units_per_window: u32::MAX,
                elems_per_unit: 1,
                per_group: per_workgroup,
                max_groups: u32::MAX,
                max_per_dim,
                n_cap: u32::MAX,
                _pad: 0,
            },
            Res::range(&args.buffer, 0, 12),
        )?;
        work.submit()?;
        Ok(args)
    }
}

/// Adds to `work` the dispatch that writes `params.windows` argument triples into `args`
/// from the count at `count`.
pub(crate) fn record_args(
    work: &mut Work,
    (count, offset): (&wgpu::Buffer, u64),
    params: &IndirectParams,
    args: Res,
) -> Result<()> {
    let kernel = count_kernel(work.ctx())?;
    let block = work.params(params);
    work.dispatch(&kernel, [params.windows.div_ceil(64), 1, 1])
        .bind(0, block)
        .bind(1, Res::range(count, offset, 4))
        .bind(2, args);
    Ok(())
}

/// `wgsl/indirect.wgsl`, which has one form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct IndirectKernel;

impl KernelSource for IndirectKernel {
    fn name(&self) -> &'static str {
        "indirect"
    }

    fn element(&self) -> &'static str {
        u32::WGSL
    }

    fn wgsl(&self) -> Result<String> {
        Ok(INDIRECT_WGSL.to_string())
    }
}

fn count_kernel(ctx: &Ctx) -> Result<Arc<Pipeline>> {
    ctx.pipeline_for(&IndirectKernel, "main")
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`).
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::layout;
    c.add(&IndirectKernel);
    let wgsl = IndirectKernel.wgsl().expect("indirect renders");
    layout!(
        c,
        IndirectParams,
        "Params",
        wgsl,
        [
            windows,
            units_per_window,
            elems_per_unit,
            per_group,
            max_groups,
            max_per_dim,
            n_cap,
            _pad
        ]
    );
}
