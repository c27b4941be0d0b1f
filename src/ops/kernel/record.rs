//! The recording of element-wise kernels (`wgsl/kernel.wgsl`): [`Ctx::elementwise`]'s
//! statements, and map's and zip's expressions ([`record_expression`]), with their
//! binding windows and, for prefix views, workgroups counted on the device.

use super::{Args, ElementwiseTuning, Signature};
use crate::error::Result;
use crate::ops::random::RANDOM_WGSL;
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::context::Ctx;
use crate::runtime::dispatch::{
    chunks, elementwise_workgroup_size, units_per_window, workgroup_grid,
};
use crate::runtime::record::{Grid, Work};
use crate::runtime::vec::LANES;

const KERNEL_WGSL: &str = include_str!("../../../wgsl/kernel.wgsl");

/// `wgsl/kernel.wgsl`: one element-wise kernel, for a signature and user code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ElementwiseKernel {
    /// The op it is named after in labels and errors (`elementwise`, `map`, `zip`, ...).
    name: &'static str,
    body: Body,
    /// The user's statements or expression.
    code: String,
    signature: Signature,
    workgroup_size: u32,
}

/// What the user's code is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Body {
    /// Statements, the body itself.
    Statements,
    /// An expression, stored into the output `gp_out`.
    Expression,
}

impl KernelSource for ElementwiseKernel {
    fn name(&self) -> &'static str {
        self.name
    }

    fn wgsl(&self) -> Result<String> {
        let p = self.signature.pieces(1)?;
        let body = match self.body {
            _ if self.code.is_empty() => String::new(),
            Body::Statements => self.code.clone(),
            Body::Expression => format!("gp_out = ({});", self.code),
        };
        render(
            KERNEL_WGSL,
            &[
                ("ENABLE", p.enable.as_str()),
                ("LIB", RANDOM_WGSL),
                ("SCALAR_FIELDS", &p.scalar_fields),
                ("BINDINGS", &p.bindings),
                ("OUT_FIELDS", &p.out_fields),
                ("IN_PARAMS", &p.in_params),
                ("PRELUDE", &p.prelude),
                ("BODY", &body),
                ("OUT_VALUES", &p.out_values),
                ("WG", &self.workgroup_size.to_string()),
                ("LOADS", &p.loads),
                ("LANE_ARGS", &p.lane_args),
                ("LANE_STORES", &p.lane_stores),
                ("STORES", &p.stores),
                ("COUNT", &p.count),
            ],
        )
    }

    fn user_code(&self) -> &str {
        &self.code
    }

    /// An empty body: user code that declares items of its own is refused.
    fn plain(&self) -> Option<Self> {
        Some(ElementwiseKernel {
            code: String::new(),
            ..self.clone()
        })
    }
}

/// Compiles (once) and adds to `work` an element-wise kernel of `body` over `args`.
pub(crate) fn record_elementwise(
    ctx: &Ctx,
    work: &mut Work,
    body: &str,
    args: Args<'_>,
) -> Result<()> {
    record(ctx, work, "elementwise", Body::Statements, body, args)
}

/// [`record_elementwise`] of gpuprim's own statements `code`, named as `work`'s op
/// (gather and scatter).
pub(crate) fn record_statements(
    ctx: &Ctx,
    work: &mut Work,
    code: &str,
    args: Args<'_>,
) -> Result<()> {
    record(ctx, work, work.op(), Body::Statements, code, args)
}

/// [`record_elementwise`] of `gp_out = (expr);`, with `expr` as the user code (the
/// output `gp_out` is one of `args`): map and zip.
pub(crate) fn record_expression(
    ctx: &Ctx,
    work: &mut Work,
    expr: &str,
    args: Args<'_>,
) -> Result<()> {
    record(ctx, work, work.op(), Body::Expression, expr, args)
}

/// The recording of an element-wise kernel named `name` whose user code is `code`.
fn record(
    ctx: &Ctx,
    work: &mut Work,
    name: &'static str,
    body: Body,
    code: &str,
    args: Args<'_>,
) -> Result<()> {
    let plan = args.plan(ctx)?;
    let wg = elementwise_workgroup_size(ctx);
    let config = ElementwiseKernel {
        name,
        body,
        code: code.to_string(),
        signature: plan.signature(),
        workgroup_size: wg,
    };
    let kernel = ctx.pipeline_for(&config, "main")?;
    let n = plan.n as u64;
    let units = n.div_ceil(LANES as u64);
    if units == 0 {
        return Ok(());
    }
    let unit_sizes = plan.unit_sizes();
    let per_window = if unit_sizes.is_empty() {
        units
    } else {
        units_per_window(ctx, &unit_sizes)
    };
    let max_per_dim = ctx.info().max_workgroups_per_dimension;
    // A grid-stride loop: at most the tuning's workgroups, and never more than one
    // dispatch can launch.
    let groups = ElementwiseTuning::of(ctx.info())
        .groups
        .min(u64::from(max_per_dim).pow(3));
    let windows: Vec<_> = chunks(units, per_window).collect();
    // A device count: the workgroups of each window are worked out on the GPU.
    let args = match plan.count {
        Some(&(ref count, offset)) => {
            let max_groups = groups as u32;
            let bytes = 12 * windows.len() as u64;
            let args = work.keep(ctx.scratch(
                "indirect arguments",
                bytes,
                wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::STORAGE,
            )?);
            crate::ops::indirect::record_args(
                work,
                (count, offset),
                &crate::ops::indirect::IndirectParams {
                    windows: windows.len() as u32,
                    units_per_window: per_window.min(u64::from(u32::MAX)) as u32,
                    elems_per_unit: LANES as u32,
                    per_group: wg,
                    max_groups,
                    max_per_dim,
                    n_cap: n as u32,
                    _pad: 0,
                },
                crate::runtime::record::Res::range(&args, 0, bytes),
            )?;
            Some(args)
        }
        None => None,
    };
    for (k, chunk) in windows.iter().enumerate() {
        let grid = match &args {
            Some(args) => Grid::Indirect(args.clone(), 12 * k as u64),
            None => {
                let groups = chunk.units.div_ceil(u64::from(wg)).min(groups);
                Grid::Direct(workgroup_grid(groups, max_per_dim)?)
            }
        };
        let words = plan.params([
            (chunk.offset_units * LANES as u64) as u32,
            n as u32,
            chunk.units as u32,
            0,
        ]);
        let block = work.params_words(&words);
        let d = work.dispatch_grid(&kernel, grid);
        d.bind(0, block);
        plan.bind(d, 1, chunk);
        if let Some(count) = plan.count_binding() {
            d.bind(1 + plan.vectors(), count);
        }
    }
    Ok(())
}

/// The element-wise kernels for the catalog test (`ops/catalog.rs`): statements and
/// expressions over every kind of signature, and the empty body a kernel is checked
/// against.
#[cfg(test)]
pub(super) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    for signature in super::signature::catalog_signatures() {
        for (name, body, code) in [
            ("elementwise", Body::Statements, "y = alpha * y;"),
            ("elementwise", Body::Statements, ""),
            ("map", Body::Expression, "y + alpha"),
        ] {
            // Only the signatures whose names the code uses.
            if code.contains("alpha") && !signature_has(&signature, "alpha") {
                continue;
            }
            c.add(&ElementwiseKernel {
                name,
                body,
                code: code.to_string(),
                signature: signature.clone(),
                workgroup_size: 256,
            });
        }
    }
}

#[cfg(test)]
fn signature_has(signature: &Signature, name: &str) -> bool {
    format!("{signature:?}").contains(&format!("name: \"{name}\""))
}
