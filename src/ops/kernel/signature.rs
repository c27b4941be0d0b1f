//! A kernel's argument signature ([`Signature`]: names, uses, element types and layouts,
//! what the WGSL depends on) and the WGSL pieces a template takes from it ([`Pieces`]).

use std::fmt::Write as _;

use super::args::{Access, ArgValue, Plan};
use crate::error::Result;
use crate::runtime::cache::render;
use crate::runtime::view::units_wgsl;

/// `gp_n()` cut at a device count at `{{BINDING}}`.
const COUNT_WGSL: &str = include_str!("../../../wgsl/kernel_count.wgsl");

/// The WGSL pieces a template takes from a [`Signature`].
#[derive(Default)]
pub(crate) struct Pieces {
    pub(crate) enable: String,
    pub(crate) scalar_fields: String,
    pub(crate) bindings: String,
    pub(crate) in_params: String,
    pub(crate) prelude: String,
    pub(crate) out_fields: String,
    pub(crate) out_values: String,
    pub(crate) loads: String,
    pub(crate) lane_args: String,
    pub(crate) lane_stores: String,
    pub(crate) stores: String,
    /// Element vectors as vec4 lane values for an expression kernel (transform-reduce):
    /// arguments of `gp_user_expr` for lane `.x`, `.y`, ... (with `{L}` for the lane).
    pub(crate) expr_lane_args: String,
    /// `gp_n()`, and the count's binding for a prefix view.
    pub(crate) count: String,
}

/// Everything about a kernel's arguments that its WGSL depends on: per argument, in
/// order, its name, use and element type (and a vector's layout); and whether a device
/// count is bound. Values (scalars, a device scalar's index) travel in the parameter
/// block and are not part of it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Signature {
    args: Vec<ArgShape>,
    /// A device count (prefix views), bound after the vectors.
    count: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ArgShape {
    name: String,
    kind: ArgKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum ArgKind {
    Scalar {
        wgsl: &'static str,
    },
    Vector {
        /// With a device scalar's index left out ([`Access::shape`]).
        access: Access,
        wgsl: &'static str,
        /// The element type's `enable` directive, or "".
        enable: &'static str,
        /// The layout ([`View::vec4`](crate::runtime::view::View::vec4)).
        vec4: bool,
        /// Declared read_write because another binding of its buffer writes.
        shared: bool,
    },
}

impl Plan<'_> {
    /// The signature of the arguments: what a kernel's WGSL depends on.
    pub(crate) fn signature(&self) -> Signature {
        let args = self
            .items
            .iter()
            .zip(&self.shared)
            .map(|(a, &shared)| ArgShape {
                name: a.name.clone(),
                kind: match &a.value {
                    ArgValue::Vec(v, access) => ArgKind::Vector {
                        access: access.shape(),
                        wgsl: v.wgsl,
                        enable: v.enable,
                        vec4: v.vec4(),
                        shared,
                    },
                    ArgValue::Scalar { wgsl, .. } => ArgKind::Scalar { wgsl },
                },
            })
            .collect();
        Signature {
            args,
            count: self.count.is_some(),
        }
    }
}

impl Signature {
    /// How many vector arguments (bindings) there are.
    pub(crate) fn vectors(&self) -> u32 {
        self.args
            .iter()
            .filter(|a| matches!(a.kind, ArgKind::Vector { .. }))
            .count() as u32
    }

    /// The WGSL pieces, with vector bindings numbered from `first_binding` in argument
    /// order.
    pub(crate) fn pieces(&self, first_binding: u32) -> Result<Pieces> {
        let mut p = Pieces::default();
        let mut enables: Vec<&str> = Vec::new();
        let mut binding = first_binding;
        let mut element = 0;
        let mut device = 0;
        for a in &self.args {
            let name = &a.name;
            let (access, t, enable, vec4, shared) = match a.kind {
                ArgKind::Scalar { wgsl } => {
                    let _ = writeln!(p.scalar_fields, "    {name}: {wgsl},");
                    let _ = writeln!(p.prelude, "    let {name} = gp_params.{name};");
                    continue;
                }
                ArgKind::Vector {
                    access,
                    wgsl,
                    enable,
                    vec4,
                    shared,
                } => (access, wgsl, enable, vec4, shared),
            };
            if !enable.is_empty() && !enables.contains(&enable) {
                enables.push(enable);
            }
            let mode = if shared || access.writes() {
                "read_write"
            } else {
                "read"
            };
            match access {
                Access::Read | Access::ReadWrite | Access::Write => {
                    let k = element;
                    element += 1;
                    let writable = mode == "read_write";
                    p.bindings += &units_wgsl(&format!("gp_e{k}"), binding, t, writable, vec4)?;
                    if access != Access::Write {
                        let _ = write!(p.in_params, ", gp_in_{name}: {t}");
                        let _ = write!(p.lane_args, ", gp_v{k}[k]");
                        let _ = write!(p.expr_lane_args, ", gp_v{k}.{{L}}");
                    }
                    let declare = if access == Access::Read { "let" } else { "var" };
                    match access {
                        Access::Write => {
                            let _ = writeln!(p.prelude, "    var {name}: {t};");
                            let _ = writeln!(p.loads, "        var gp_v{k} = vec4<{t}>();");
                        }
                        _ => {
                            let _ = writeln!(p.prelude, "    {declare} {name} = gp_in_{name};");
                            let _ =
                                writeln!(p.loads, "        {declare} gp_v{k} = gp_e{k}_load(u);");
                        }
                    }
                    if access != Access::Read {
                        let _ = writeln!(p.out_fields, "    {name}: {t},");
                        let _ = write!(p.out_values, ", {name}");
                        let _ = writeln!(p.lane_stores, "                gp_v{k}[k] = r.{name};");
                        let _ = writeln!(p.stores, "        gp_e{k}_store(u, gp_v{k});");
                    }
                }
                Access::Raw | Access::RawReadWrite => {
                    let _ = writeln!(
                        p.bindings,
                        "@group(0) @binding({binding}) var<storage, {mode}> {name}: array<{t}>;"
                    );
                }
                Access::Atomic | Access::AtomicFloat => {
                    let atom = match (access, t) {
                        (Access::AtomicFloat, _) => "f32",
                        (_, "i32") => "i32",
                        _ => "u32",
                    };
                    let _ = writeln!(
                        p.bindings,
                        "@group(0) @binding({binding}) var<storage, read_write> {name}: array<atomic<{atom}>>;"
                    );
                }
                Access::DeviceScalar(_) => {
                    let k = device;
                    device += 1;
                    let _ = writeln!(
                        p.bindings,
                        "@group(0) @binding({binding}) var<storage, {mode}> gp_d{k}: array<{t}>;"
                    );
                    let _ = writeln!(p.scalar_fields, "    gp_d{k}_index: u32,");
                    let _ = writeln!(
                        p.prelude,
                        "    let {name} = gp_d{k}[gp_params.gp_d{k}_index];"
                    );
                }
            }
            binding += 1;
        }
        p.enable = enables.join("\n");
        p.count = if self.count {
            render(COUNT_WGSL, &[("BINDING", binding.to_string())])?
        } else {
            "fn gp_n() -> u32 { return gp_params.n; }\n".to_string()
        };
        Ok(p)
    }
}

/// Signatures of every kind of argument, for the catalog test (`ops/catalog.rs`): each
/// use of a vector in both layouts, 32-bit and f16 elements, scalars, raw vectors, a
/// device scalar, a buffer shared by two bindings, with and without a device count.
#[cfg(test)]
pub(crate) fn catalog_signatures() -> Vec<Signature> {
    let vector = |name: &str, access, wgsl, vec4, shared| ArgShape {
        name: name.to_string(),
        kind: ArgKind::Vector {
            access,
            wgsl,
            enable: if wgsl == "f16" { "enable f16;" } else { "" },
            vec4,
            shared,
        },
    };
    let scalar = |name: &str, wgsl| ArgShape {
        name: name.to_string(),
        kind: ArgKind::Scalar { wgsl },
    };
    let mut out = Vec::new();
    for vec4 in [true, false] {
        for count in [false, true] {
            for t in ["f32", "i32", "u32", "f16"] {
                let mut args = vec![
                    vector("x", Access::Read, t, vec4, false),
                    vector("y", Access::ReadWrite, t, vec4, false),
                    vector("gp_out", Access::Write, t, vec4, false),
                    scalar("alpha", t),
                ];
                // Scatter-reduce's atomics (u32, i32, and f32 as u32 bits).
                if t != "f16" {
                    args.push(vector("acc", Access::Atomic, t, vec4, false));
                }
                out.push(Signature { args, count });
            }
            out.push(Signature {
                args: vec![
                    vector("x", Access::Read, "f32", vec4, true),
                    vector("table", Access::Raw, "u32", vec4, false),
                    vector("hist", Access::RawReadWrite, "u32", vec4, false),
                    vector("s", Access::DeviceScalar(0), "f32", vec4, false),
                    vector("gp_out", Access::Write, "f32", vec4, true),
                ],
                count,
            });
        }
    }
    out
}
