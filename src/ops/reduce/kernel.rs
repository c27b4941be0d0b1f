//! `wgsl/reduce.wgsl`'s configuration ([`ReduceKernel`]): both passes of a reduction,
//! for one operator, element type and input, and the WGSL pieces it renders its inputs
//! and bounds with.

use super::spec::Spec;
use crate::error::Result;
use crate::ops::kernel::{Pieces, Signature};
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::view::units_wgsl;

const REDUCE_WGSL: &str = include_str!("../../../wgsl/reduce.wgsl");
const TREE_WGSL: &str = include_str!("../../../wgsl/reduce_tree.wgsl");
const SUBGROUP_WGSL: &str = include_str!("../../../wgsl/reduce_subgroup.wgsl");
/// `{{BOUNDS}}` without a device count, and with one.
const BOUNDS_WGSL: &str = include_str!("../../../wgsl/reduce_bounds.wgsl");
const BOUNDS_COUNT_WGSL: &str = include_str!("../../../wgsl/reduce_bounds_count.wgsl");
/// `gp_unit` of reduce and of dot, after their inputs.
const UNIT_WGSL: &str = include_str!("../../../wgsl/reduce_unit.wgsl");
const UNIT_DOT_WGSL: &str = include_str!("../../../wgsl/reduce_unit_dot.wgsl");
/// `{{INPUTS}}` of a transform-reduce.
const EXPRESSION_WGSL: &str = include_str!("../../../wgsl/reduce_expression.wgsl");

/// The first binding of a transform-reduce's arguments (after the reduction's own).
pub(super) const EXPRESSION_FIRST_BINDING: u32 = 5;

/// `wgsl/reduce.wgsl`: its partials and finishing passes for one operator, element type
/// and input.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct ReduceKernel {
    /// The element type (`T`) and its `enable` directive, or "".
    pub(super) element: &'static str,
    pub(super) enable: &'static str,
    pub(super) spec: Spec,
    pub(super) inputs: Inputs,
    /// A device count (prefix views) bounds the elements.
    pub(super) count: bool,
    pub(super) workgroup_size: u32,
    pub(super) finish_workgroup_size: u32,
}

/// What a reduction kernel reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Inputs {
    /// `x` (reduce) or `x * y` (dot), with their layouts ([`View::vec4`](crate::runtime::view::View::vec4)).
    Vectors { x_vec4: bool, y_vec4: Option<bool> },
    /// An expression over kernel arguments (transform_reduce).
    Expression { expr: String, signature: Signature },
}

impl ReduceKernel {
    /// The binding of the device count: after the inputs and, for an expression, its
    /// parameter block.
    pub(super) fn count_binding(&self) -> u32 {
        match &self.inputs {
            Inputs::Vectors { .. } => 5,
            Inputs::Expression { signature, .. } => {
                EXPRESSION_FIRST_BINDING + signature.vectors() + 1
            }
        }
    }
}

impl KernelSource for ReduceKernel {
    fn name(&self) -> &'static str {
        match self.inputs {
            Inputs::Vectors { y_vec4: None, .. } => "reduce",
            Inputs::Vectors {
                y_vec4: Some(_), ..
            } => "dot",
            Inputs::Expression { .. } => "transform_reduce",
        }
    }

    fn element(&self) -> &'static str {
        self.element
    }

    fn wgsl(&self) -> Result<String> {
        let bounds = bounds_wgsl(self.count.then(|| self.count_binding()))?;
        let (enable, inputs) = match &self.inputs {
            Inputs::Vectors { x_vec4, y_vec4 } => (
                self.enable.to_string(),
                vector_inputs(self.element, *x_vec4, *y_vec4)?,
            ),
            Inputs::Expression { expr, signature } => {
                let pieces = signature.pieces(EXPRESSION_FIRST_BINDING)?;
                (
                    [self.enable, pieces.enable.as_str()].join("\n"),
                    expression_inputs(&pieces, signature.vectors(), expr)?,
                )
            }
        };
        let workgroup_reduce = match self.spec.subgroup_op() {
            Some(op) => render(SUBGROUP_WGSL, &[("SUBGROUP_OP", op)])?,
            None => TREE_WGSL.to_string(),
        };
        render(
            REDUCE_WGSL,
            &[
                ("ENABLE", enable.as_str()),
                ("T", self.element),
                ("A", self.spec.accumulator),
                ("OP", &self.spec.functions()?),
                ("INPUTS", &inputs),
                ("BOUNDS", &bounds),
                ("WORKGROUP_REDUCE", &workgroup_reduce),
                ("WG", &self.workgroup_size.to_string()),
                ("FINISH_WG", &self.finish_workgroup_size.to_string()),
            ],
        )
    }

    /// The expression of a transform-reduce, else a custom operator.
    fn user_code(&self) -> &str {
        match &self.inputs {
            Inputs::Vectors { .. } => &self.spec.code,
            Inputs::Expression { expr, .. } => expr,
        }
    }

    /// A transform-reduce's expression is checked against `T()`.
    fn plain(&self) -> Option<Self> {
        match &self.inputs {
            Inputs::Vectors { .. } => None,
            Inputs::Expression { signature, .. } => Some(ReduceKernel {
                inputs: Inputs::Expression {
                    expr: "T()".to_string(),
                    signature: signature.clone(),
                },
                ..self.clone()
            }),
        }
    }
}

/// `gp_window()` and `gp_n()` of `wgsl/reduce.wgsl`: the window's whole units and tail
/// and the elements in all, from the parameters, or cut at the count bound at `count`.
fn bounds_wgsl(count: Option<u32>) -> Result<String> {
    match count {
        None => Ok(BOUNDS_WGSL.to_string()),
        Some(binding) => render(BOUNDS_COUNT_WGSL, &[("BINDING", binding.to_string())]),
    }
}

/// The inputs of reduce and dot: `x` at binding 2, `y` at 3, of element type `t` with
/// their layouts.
fn vector_inputs(t: &str, x_vec4: bool, y_vec4: Option<bool>) -> Result<String> {
    let mut s = units_wgsl("gp_x", 2, t, false, x_vec4)?;
    match y_vec4 {
        Some(y_vec4) => {
            s += &units_wgsl("gp_y", 3, t, false, y_vec4)?;
            s += UNIT_DOT_WGSL;
        }
        None => s += UNIT_WGSL,
    }
    Ok(s)
}

/// The inputs of a transform-reduce (`wgsl/reduce_expression.wgsl`): the arguments'
/// bindings, their parameter block after them, the user's expression as `gp_user_expr`
/// and `gp_unit` evaluating it on the four elements of a unit.
fn expression_inputs(p: &Pieces, vectors: u32, expr: &str) -> Result<String> {
    let lane = |l: &str, offset: &str| {
        format!(
            "gp_user_expr(base{offset}, gp_n(){})",
            p.expr_lane_args.replace("{L}", l)
        )
    };
    // The user's expression last, so that no other value is filled into it.
    render(
        EXPRESSION_WGSL,
        &[
            ("BINDINGS", p.bindings.clone()),
            ("FIELDS", p.scalar_fields.clone()),
            ("PARAMS", (EXPRESSION_FIRST_BINDING + vectors).to_string()),
            ("IN_PARAMS", p.in_params.clone()),
            ("PRELUDE", p.prelude.clone()),
            ("LOADS", p.loads.clone()),
            ("X", lane("x", "")),
            ("Y", lane("y", " + 1u")),
            ("Z", lane("z", " + 2u")),
            ("W", lane("w", " + 3u")),
            ("EXPR", expr.to_string()),
        ],
    )
}

/// The reductions for the catalog test (`ops/catalog.rs`): every operator and element
/// type, with subgroups and without, reduce, dot (both layouts) and transform-reduce,
/// counted or not, with the finishing pass of 256 invocations (WebGPU's limit) and of
/// 1024 (every other adapter here).
#[cfg(test)]
pub(super) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use super::Reduce;
    use crate::element::GpuElement;
    fn specs<T: GpuElement>(subgroups: bool) -> Vec<Spec> {
        let mut reduces = vec![
            Reduce::Sum,
            Reduce::SumCompensated,
            Reduce::SumWide,
            Reduce::Product,
            Reduce::Min,
            Reduce::Max,
            Reduce::Custom {
                op: "max(a, b) - min(a, b)".to_string(),
                identity: T::ZERO,
            },
        ];
        reduces.retain(|r| T::WGSL == "f32" || !matches!(r, Reduce::SumCompensated));
        reduces
            .iter()
            .map(|r| Spec::with_subgroups(subgroups, r).expect("a spec"))
            .collect()
    }
    fn kernels<T: GpuElement>(c: &mut crate::ops::catalog::Catalog) {
        for subgroups in [true, false] {
            for spec in specs::<T>(subgroups) {
                for inputs in [
                    Inputs::Vectors {
                        x_vec4: true,
                        y_vec4: None,
                    },
                    Inputs::Vectors {
                        x_vec4: false,
                        y_vec4: None,
                    },
                    Inputs::Vectors {
                        x_vec4: true,
                        y_vec4: Some(true),
                    },
                    Inputs::Vectors {
                        x_vec4: false,
                        y_vec4: Some(false),
                    },
                ] {
                    for count in [false, true] {
                        for finish in [256, 1024] {
                            let config = ReduceKernel {
                                element: T::WGSL,
                                enable: T::ENABLE,
                                spec: spec.clone(),
                                inputs: inputs.clone(),
                                count,
                                workgroup_size: 256,
                                finish_workgroup_size: finish,
                            };
                            // f64 (WebGPU has none) and more than 256 invocations are
                            // for native adapters alone.
                            if finish > 256 || spec.accumulator == "f64" || T::WGSL == "f64" {
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
    kernels::<f32>(c);
    kernels::<i32>(c);
    kernels::<u32>(c);
    kernels::<half::f16>(c);
    kernels::<f64>(c);
    for signature in crate::ops::kernel::catalog_signatures() {
        for count in [false, true] {
            let spec = Spec::with_subgroups(true, &Reduce::<f32>::Sum).expect("a spec");
            let config = ReduceKernel {
                element: "f32",
                enable: "",
                spec,
                inputs: Inputs::Expression {
                    expr: "f32(x) * 2.0".to_string(),
                    signature: signature.clone(),
                },
                count,
                workgroup_size: 256,
                finish_workgroup_size: 256,
            };
            c.add(&config);
        }
    }
}
