//! A reduction operator as kernels need it ([`Spec`]): its accumulator, its WGSL
//! functions (`gp_identity`, `gp_lift`, `gp_combine`, `gp_finish`) and the subgroup
//! built-in that combines across a subgroup, shared by reduce, dot, transform-reduce and
//! the segmented reductions.

use super::Reduce;
use crate::element::{GpuElement, ScalarKind};
use crate::error::{Error, Result};
use crate::runtime::cache::render;
use crate::runtime::context::Ctx;

/// The functions of an operator that accumulates in the element type.
const PLAIN_WGSL: &str = include_str!("../../../wgsl/reduce_plain.wgsl");
/// The functions of the compensated f32 sum (Knuth's two-sum).
const COMPENSATED_WGSL: &str = include_str!("../../../wgsl/reduce_compensated.wgsl");
/// The functions of a sum accumulated in f64.
const WIDE_WGSL: &str = include_str!("../../../wgsl/reduce_wide.wgsl");

/// One reduction operator, as the WGSL needs it (also rendered by `ops::segmented`, whose
/// templates declare `gp_reduce.opaque_zero` as `wgsl/reduce.wgsl` does).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Spec {
    operator: Operator,
    /// The accumulator type.
    pub(crate) accumulator: &'static str,
    /// The subgroup built-in that performs `combine` across a subgroup, if any.
    subgroup_op: Option<&'static str>,
    /// The user's code (custom operator and identity), or "".
    pub(crate) code: String,
}

/// How an operator accumulates.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Operator {
    /// In the element type: `combine`, an expression in `a` and `b`, from `identity`
    /// (statements that return it: [`GpuElement::wgsl_return`]).
    Plain { identity: String, combine: String },
    /// An f32 sum with its rounding error carried along (two-sum).
    Compensated,
    /// A sum in f64.
    Wide,
}

impl Spec {
    pub(crate) fn new<T: GpuElement>(ctx: &Ctx, reduce: &Reduce<T>) -> Result<Spec> {
        Self::build(reduce, ctx.has_features(wgpu::Features::SUBGROUP), |what| {
            ctx.require(wgpu::Features::SHADER_F64, what)
        })
    }

    /// [`Spec::new`] without a context, for the catalog (`ops/catalog.rs`): an adapter
    /// with subgroups or without, and with `SHADER_F64`.
    #[cfg(test)]
    pub(crate) fn offline<T: GpuElement>(reduce: &Reduce<T>, subgroups: bool) -> Result<Spec> {
        Self::build(reduce, subgroups, |_| Ok(()))
    }

    /// The spec, `subgroups` saying whether the adapter has them and `require_f64`
    /// checking `SHADER_F64` (for `SumWide`).
    fn build<T: GpuElement>(
        reduce: &Reduce<T>,
        subgroups: bool,
        require_f64: impl FnOnce(fn() -> String) -> Result<()>,
    ) -> Result<Spec> {
        let t = T::WGSL;
        let float = T::KIND == ScalarKind::Float;
        let plain = |identity: T, combine: &str, subgroup| Spec {
            operator: Operator::Plain {
                identity: identity.wgsl_return(),
                combine: combine.to_string(),
            },
            accumulator: t,
            // Subgroup arithmetic is defined for the 32-bit types.
            subgroup_op: (subgroups && size_of::<T>() == 4).then_some(subgroup),
            code: String::new(),
        };
        Ok(match reduce {
            Reduce::Sum => plain(T::ZERO, "a + b", "subgroupAdd"),
            // Shader compilers may treat float arithmetic as associative (SPIR-V has no
            // "precise" from WGSL) and fold (a + b) - a into b, which turns two-sum into
            // a plain sum. The template passes the intermediates through an identity the
            // compiler cannot see (xor with a uniform zero), which keeps them.
            Reduce::SumCompensated if t == "f32" => Spec {
                operator: Operator::Compensated,
                accumulator: "vec2<f32>",
                subgroup_op: None,
                code: String::new(),
            },
            Reduce::SumCompensated if float => {
                return Err(Error::InvalidArgument {
                    op: "reduce_with",
                    message: format!(
                        "Reduce::SumCompensated is implemented for f32, not {t}; use Reduce::Sum for f64 \
                         or Reduce::SumWide (f64 accumulation) for f16"
                    ),
                });
            }
            Reduce::SumWide if float && T::WGSL != "f64" => {
                require_f64(|| format!("Reduce::SumWide of {}", T::WGSL))?;
                Spec {
                    operator: Operator::Wide,
                    accumulator: "f64",
                    subgroup_op: None,
                    code: String::new(),
                }
            }
            // Integer sums are exact already; f64 has nothing wider.
            Reduce::SumCompensated | Reduce::SumWide => plain(T::ZERO, "a + b", "subgroupAdd"),
            Reduce::Product => plain(T::ONE, "a * b", "subgroupMul"),
            Reduce::Min => plain(T::HIGHEST, "min(a, b)", "subgroupMin"),
            Reduce::Max => plain(T::LOWEST, "max(a, b)", "subgroupMax"),
            Reduce::Custom { op, identity } => {
                crate::expr::check_expression("reduce_with", "operator", op)?;
                let mut spec = plain(*identity, &format!("({op})"), "");
                spec.subgroup_op = None;
                spec.code = format!("{op} | identity {}", identity.wgsl_literal());
                spec
            }
        })
    }

    /// Bytes of one accumulator.
    pub(crate) fn accumulator_bytes(&self) -> u64 {
        match self.accumulator {
            "f16" => 2,
            "f64" | "vec2<f32>" => 8,
            _ => 4,
        }
    }

    /// `gp_identity()`, `gp_lift()`, `gp_combine()` and `gp_finish()`, over the
    /// accumulator `A` and the element type `T`.
    pub(crate) fn functions(&self) -> Result<String> {
        match &self.operator {
            Operator::Plain { identity, combine } => render(
                PLAIN_WGSL,
                &[("IDENTITY", identity.as_str()), ("COMBINE", combine)],
            ),
            Operator::Compensated => Ok(COMPENSATED_WGSL.to_string()),
            Operator::Wide => Ok(WIDE_WGSL.to_string()),
        }
    }

    /// The subgroup built-in that performs `combine` across a subgroup, if any.
    pub(crate) fn subgroup_op(&self) -> Option<&'static str> {
        self.subgroup_op
    }
}
