//! The recording of a reduction's two passes: the binding windows of the first pass
//! ([`partial_windows`], shared with `arg_reduce`), their parameter blocks and bindings,
//! and the finishing pass.

use super::Reduce;
use super::kernel::{EXPRESSION_FIRST_BINDING, Inputs, ReduceKernel};
use super::spec::Spec;
use super::tuning::ReduceTuning;
use crate::element::GpuElement;
use crate::error::{Error, Result};
use crate::ops::kernel::{Plan, View};
use crate::runtime::context::{Ctx, check_len};
use crate::runtime::dispatch::{
    Chunk, chunks, pow2_workgroup_size, units_per_window, workgroup_grid,
};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::{GpuVec, LANES};

impl Ctx {
    /// Adds both passes to `work`; the result lands in element 0 of `result`.
    pub(super) fn record_reduce<T: GpuElement>(
        &self,
        work: &mut Work,
        input: Input<'_, T>,
        reduce: &Reduce<T>,
        result: Res,
    ) -> Result<()> {
        let op = work.op();
        let spec = Spec::new(self, reduce)?;
        let wg = pow2_workgroup_size(self, 256);
        let finish_wg = finish_workgroup_size(self, wg);
        // A device count (prefix views) is bound after the inputs.
        let count = input.count(op)?;
        let inputs = match &input {
            Input::Vectors(x, y) => {
                let mut owners = vec![&x.ctx];
                if let Some(y) = y {
                    check_len(op, ("a", x.len()), ("b", y.len()))?;
                    owners.push(&y.ctx);
                }
                self.check_owned(op, &owners)?;
                // The layouts change the WGSL of a borrowed vector of ragged length only.
                Inputs::Vectors {
                    x_vec4: View::of(*x).vec4(),
                    y_vec4: y.map(|y| View::of(y).vec4()),
                }
            }
            Input::Expression { expr, plan } => Inputs::Expression {
                expr: expr.to_string(),
                signature: plan.signature(),
            },
        };
        let config = ReduceKernel {
            element: T::WGSL,
            enable: T::ENABLE,
            spec,
            inputs,
            count: count.is_some(),
            workgroup_size: wg,
            finish_workgroup_size: finish_wg,
        };
        let count_binding = config.count_binding();
        let partials_kernel = self.pipeline_for(&config, "partials_main")?;
        let finish_kernel = self.pipeline_for(&config, "finish_main")?;
        let spec = &config.spec;

        // One parameter block per binding window, then one for the finishing pass.
        let n = input.len() as u64;
        let units = n.div_ceil(LANES as u64);
        let unit_sizes = input.unit_sizes();
        let per_window = if unit_sizes.is_empty() {
            units.max(1)
        } else {
            units_per_window(self, &unit_sizes)
        };
        let windows = partial_windows(self, n, per_window, wg, finish_wg);
        let base: u32 = windows.iter().map(|w| w.groups).sum();
        let mut params: Vec<_> = windows
            .iter()
            .map(|w| ReduceParams {
                full_units: w.full_units,
                tail: w.tail,
                groups: w.groups,
                base: w.base,
                first_unit: w.chunk.offset_units as u32,
                n_cap: n as u32,
                ..ReduceParams::default()
            })
            .collect();
        // One workgroup in all: it writes the result, and there is no second pass.
        let direct = base == 1;
        if direct {
            params[0].direct = 1;
        }
        let partials = work.keep(self.scratch(
            "reduce partials",
            spec.accumulator_bytes() * u64::from(base.max(1)),
            wgpu::BufferUsages::STORAGE,
        )?);
        for (w, p) in windows.iter().map(|w| &w.chunk).zip(&params) {
            let grid = workgroup_grid(
                u64::from(p.groups),
                self.info().max_workgroups_per_dimension,
            )?;
            let block = work.params(p);
            let expression_block = match &input {
                Input::Expression { plan, .. } => Some(work.params_words(&plan.params([
                    (w.offset_units * LANES as u64) as u32,
                    n as u32,
                    w.units as u32,
                    0,
                ]))),
                Input::Vectors(..) => None,
            };
            let d = work.dispatch(&partials_kernel, grid);
            d.bind(0, block)
                .bind(1, Res::whole(&partials))
                .bind(4, result.clone());
            if let Some((buffer, offset)) = count {
                d.bind(count_binding, Res::range(buffer, *offset, 4));
            }
            match &input {
                Input::Vectors(x, y) => {
                    d.bind(2, View::of(*x).window(w));
                    if let Some(y) = y {
                        d.bind(3, View::of(*y).window(w));
                    }
                }
                Input::Expression { plan, .. } => {
                    plan.bind(d, EXPRESSION_FIRST_BINDING, w);
                    if let Some(b) = expression_block {
                        d.bind(EXPRESSION_FIRST_BINDING + plan.vectors(), b);
                    }
                }
            }
        }
        if !direct {
            let block = work.params(&ReduceParams {
                full_units: base,
                groups: 1,
                ..ReduceParams::default()
            });
            work.dispatch(&finish_kernel, [1, 1, 1])
                .bind(0, block)
                .bind(1, Res::whole(&partials))
                .bind(4, result.clone());
        }
        Ok(())
    }
}

/// What a reduction reads.
pub(super) enum Input<'v, T: GpuElement> {
    /// `x` (reduce) or `x * y` (dot).
    Vectors(&'v GpuVec<T>, Option<&'v GpuVec<T>>),
    /// An expression over kernel arguments (transform_reduce).
    Expression { expr: &'v str, plan: Plan<'v> },
}

impl<'v, T: GpuElement> Input<'v, T> {
    /// The device count of prefix-view inputs (one count for all).
    fn count(&self, op: &'static str) -> Result<Option<&'v (wgpu::Buffer, u64)>> {
        match self {
            Input::Vectors(x, y) => match (&x.count, y.and_then(|y| y.count.as_ref())) {
                (Some(a), Some(b)) if a.0 != b.0 || a.1 != b.1 => Err(Error::InvalidArgument {
                    op,
                    message: "a and b are prefix views of different counts; give them the \
                              same count vector"
                        .into(),
                }),
                (Some(a), _) => Ok(Some(a)),
                (None, b) => Ok(b),
            },
            Input::Expression { plan, .. } => Ok(plan.count),
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Input::Vectors(x, _) => x.len(),
            Input::Expression { plan, .. } => plan.n,
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of a vec4 unit of each windowed input.
    fn unit_sizes(&self) -> Vec<u64> {
        match self {
            Input::Vectors(..) => vec![(LANES * size_of::<T>()) as u64],
            Input::Expression { plan, .. } => plan.unit_sizes(),
        }
    }
}

/// The parameter block of `wgsl/reduce.wgsl` (`struct Params` there).
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct ReduceParams {
    /// Whole vec4 units in this binding window (the finishing pass: partials to combine).
    full_units: u32,
    /// Valid elements (0..3) in the unit after them.
    tail: u32,
    /// Workgroups that take part; the surplus ones of a folded grid return.
    groups: u32,
    /// Where this window's partials go.
    base: u32,
    /// Always 0, which the compiler cannot know (see the compensated sum).
    opaque_zero: u32,
    /// 1: the only workgroup of the first pass writes the result.
    direct: u32,
    /// The window's first vec4 unit (for a device count).
    first_unit: u32,
    /// Elements at most (for a device count).
    n_cap: u32,
}

/// Threads of the finishing pass, which combines the partials: as many as the device
/// allows, up to 1024. The pass is one workgroup and its time is latency, so fewer
/// partials per invocation is faster.
fn finish_workgroup_size(ctx: &Ctx, wg: u32) -> u32 {
    pow2_workgroup_size(ctx, 1024).max(wg)
}

/// Workgroups in the first pass ([`ReduceTuning`]), never more than a 3D grid of the
/// allowed size holds: the loop strides past the rest.
fn partial_groups_cap(ctx: &Ctx, finish_wg: u32) -> u32 {
    ReduceTuning::of(ctx.info())
        .partial_groups(finish_wg)
        .min(ctx.info().max_workgroups_per_dimension.saturating_pow(3))
}

/// One binding window of a two-level reduction's first pass (`reduce`, `argmax`).
pub(crate) struct PartialWindow {
    /// The window: its first vec4 unit in the vector and its units.
    pub(crate) chunk: Chunk,
    /// Its whole units (the last window leaves out a partial last unit).
    pub(crate) full_units: u32,
    /// Elements of the partial last unit (last window only; 0 elsewhere).
    pub(crate) tail: u32,
    /// Its workgroups, each writing one partial.
    pub(crate) groups: u32,
    /// The first partial its workgroups write.
    pub(crate) base: u32,
}

/// The first pass's windows over `n` elements of `per_window` units each, with
/// workgroups of `wg` invocations, as many as [`partial_groups_cap`] allows each.
pub(crate) fn partial_windows(
    ctx: &Ctx,
    n: u64,
    per_window: u64,
    wg: u32,
    finish_wg: u32,
) -> Vec<PartialWindow> {
    let units = n.div_ceil(LANES as u64);
    let tail = (n % LANES as u64) as u32;
    let cap = partial_groups_cap(ctx, finish_wg);
    let windows: Vec<_> = chunks(units, per_window).collect();
    let mut base = 0u32;
    let mut out = Vec::with_capacity(windows.len());
    for (i, w) in windows.iter().enumerate() {
        let last = i + 1 == windows.len();
        let full_units = w.units as u32 - u32::from(last && tail != 0);
        let groups = full_units.div_ceil(wg).clamp(1, cap);
        out.push(PartialWindow {
            chunk: *w,
            full_units,
            tail: if last { tail } else { 0 },
            groups,
            base,
        });
        base += groups;
    }
    out
}
