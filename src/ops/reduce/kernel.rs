//! `wgsl/reduce.wgsl`'s configuration ([`ReduceKernel`]): both passes of a reduction,
//! for one operator, element type and input, and the WGSL pieces it renders its inputs
//! and bounds with.

use super::spec::Spec;
use crate::ops::kernel::{Pieces, Signature};
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::view::units_wgsl;

const REDUCE_WGSL: &str = include_str!("../../../wgsl/reduce.wgsl");
const TREE_WGSL: &str = include_str!("../../../wgsl/reduce_tree.wgsl");
const SUBGROUP_WGSL: &str = include_str!("../../../wgsl/reduce_subgroup.wgsl");

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

    fn wgsl(&self) -> String {
        let bounds = bounds_wgsl(self.count.then(|| self.count_binding()));
        let (enable, inputs) = match &self.inputs {
            Inputs::Vectors { x_vec4, y_vec4 } => (
                self.enable.to_string(),
                vector_inputs(self.element, *x_vec4, *y_vec4),
            ),
            Inputs::Expression { expr, signature } => {
                let pieces = signature.pieces(EXPRESSION_FIRST_BINDING);
                (
                    [self.enable, pieces.enable.as_str()].join("\n"),
                    expression_inputs(&pieces, signature.vectors(), expr),
                )
            }
        };
        let workgroup_reduce = match self.spec.subgroup_op() {
            Some(op) => render(SUBGROUP_WGSL, &[("SUBGROUP_OP", op)]),
            None => TREE_WGSL.to_string(),
        };
        render(
            REDUCE_WGSL,
            &[
                ("ENABLE", enable.as_str()),
                ("T", self.element),
                ("A", self.spec.accumulator),
                ("OP", &self.spec.functions()),
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
fn bounds_wgsl(count: Option<u32>) -> String {
    match count {
        None => "fn gp_window() -> vec2<u32> { return vec2<u32>(gp_reduce.full_units, gp_reduce.tail); }\n\
                 fn gp_n() -> u32 { return gp_reduce.n_cap; }\n"
            .to_string(),
        Some(binding) => format!(
            "@group(0) @binding({binding}) var<storage, read> gp_count: array<u32>;\n\
             fn gp_n() -> u32 {{ return min(gp_count[0], gp_reduce.n_cap); }}\n\
             fn gp_window() -> vec2<u32> {{\n\
             \x20   let cap = 4u * gp_reduce.full_units + gp_reduce.tail;\n\
             \x20   let n = gp_n();\n\
             \x20   let first = 4u * gp_reduce.first_unit;\n\
             \x20   var e = 0u;\n\
             \x20   if n > first {{\n\
             \x20       e = min(n - first, cap);\n\
             \x20   }}\n\
             \x20   return vec2<u32>(e / 4u, e % 4u);\n\
             }}\n"
        ),
    }
}

/// The inputs of reduce and dot: `x` at binding 2, `y` at 3, of element type `t` with
/// their layouts.
fn vector_inputs(t: &str, x_vec4: bool, y_vec4: Option<bool>) -> String {
    let mut s = units_wgsl("gp_x", 2, t, false, x_vec4);
    match y_vec4 {
        Some(y_vec4) => {
            s += &units_wgsl("gp_y", 3, t, false, y_vec4);
            s += "fn gp_unit(u: u32) -> vec4<T> {\n    return gp_x_load(u) * gp_y_load(u);\n}\n";
        }
        None => s += "fn gp_unit(u: u32) -> vec4<T> {\n    return gp_x_load(u);\n}\n",
    }
    s
}

/// The inputs of a transform-reduce: the arguments' bindings, their parameter block
/// after them, the user's expression as `gp_user_expr` and `gp_unit` evaluating it on the
/// four elements of a unit.
fn expression_inputs(p: &Pieces, vectors: u32, expr: &str) -> String {
    let lane = |l: &str, offset: &str| {
        format!(
            "gp_user_expr(base{offset}, gp_n(){})",
            p.expr_lane_args.replace("{L}", l)
        )
    };
    format!(
        "{bindings}\
         struct GpParams {{\n    first: u32,\n    n: u32,\n    units: u32,\n    _pad: u32,\n{fields}}}\n\
         @group(0) @binding({params}) var<uniform> gp_params: GpParams;\n\
         fn gp_user_expr(i: u32, n: u32{in_params}) -> T {{\n{prelude}    return ({expr});\n}}\n\
         fn gp_unit(u: u32) -> vec4<T> {{\n{loads}    let base = gp_params.first + 4u * u;\n    \
         return vec4<T>({x}, {y}, {z}, {w});\n}}\n",
        bindings = p.bindings,
        fields = p.scalar_fields,
        params = EXPRESSION_FIRST_BINDING + vectors,
        in_params = p.in_params,
        prelude = p.prelude,
        loads = p.loads,
        x = lane("x", ""),
        y = lane("y", " + 1u"),
        z = lane("z", " + 2u"),
        w = lane("w", " + 3u"),
    )
}
