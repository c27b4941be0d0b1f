//! The kernels of `wgsl/scan.wgsl` as typed configurations ([`ScanKernel`]), and a scan
//! operator's WGSL ([`OperatorWgsl`], which scans by key use as well).

use crate::element::GpuElement;
use crate::error::Result;
use crate::ops::scan::ScanOp;
use crate::runtime::cache::{KernelSource, render, section};
use crate::runtime::view::units_wgsl;

const SCAN_WGSL: &str = include_str!("../../../wgsl/scan.wgsl");
const PARTS_WGSL: &str = include_str!("../../../wgsl/scan_parts.wgsl");
const CHAINED_WGSL: &str = include_str!("../../../wgsl/scan_chained.wgsl");
const SUBGROUP_WGSL: &str = include_str!("../../../wgsl/scan_subgroup.wgsl");
const TREE_WGSL: &str = include_str!("../../../wgsl/scan_tree.wgsl");
const LOOK_BACK_WGSL: &str = include_str!("../../../wgsl/scan_lookback.wgsl");
const LOOK_BACK_SUBGROUP_WGSL: &str = include_str!("../../../wgsl/scan_lookback_subgroup.wgsl");

/// Probes of a predecessor's status before a workgroup reduces that tile itself.
const SPIN: u32 = 64;
/// Predecessors whose published values the single pass's look-back keeps in workgroup
/// memory (4 bytes each); a walk further back loads them again. On a large GPU walks
/// often reach past 64 tiles, so smaller stashes were much slower, and 256 was as fast
/// as 1024 (see lab/perf-journal.md).
const STASH: u32 = 256;

/// A scan operator as WGSL.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct OperatorWgsl {
    /// `combine(a, b)`'s expression (`a` before `b`).
    pub(crate) combine: String,
    /// `identity()`'s body: statements that return the identity (through a `let` of
    /// its bits for floats, so an infinity is no constant expression).
    pub(crate) identity: String,
    /// A custom operator and its identity as compile errors quote them
    /// (`"max(a, b) | identity 0u"`); empty for the built-in operators.
    pub(crate) code: String,
}

impl<T: GpuElement> ScanOp<T> {
    /// The operator's WGSL for elements `T`; a custom operator must be one WGSL
    /// expression (an [`Error::InvalidArgument`](crate::Error::InvalidArgument) of `op`
    /// otherwise).
    pub(crate) fn wgsl(&self, op: &'static str) -> Result<OperatorWgsl> {
        let (combine, identity) = match self {
            ScanOp::Sum => ("a + b".to_string(), T::ZERO),
            ScanOp::Product => ("a * b".to_string(), T::ONE),
            ScanOp::Min => ("min(a, b)".to_string(), T::HIGHEST),
            ScanOp::Max => ("max(a, b)".to_string(), T::LOWEST),
            ScanOp::Custom { op: text, identity } => {
                crate::expr::check_expression(op, "operator", text)?;
                (format!("({text})"), *identity)
            }
        };
        let code = match self {
            ScanOp::Custom { op, identity } => {
                format!("{op} | identity {}", identity.wgsl_literal())
            }
            _ => String::new(),
        };
        Ok(OperatorWgsl {
            combine,
            identity: identity.wgsl_return(),
            code,
        })
    }

    /// The subgroup built-in for an inclusive scan with this operator, if there is one.
    pub(super) fn subgroup_builtin(&self) -> Option<&'static str> {
        match self {
            ScanOp::Sum => Some("subgroupInclusiveAdd"),
            ScanOp::Product => Some("subgroupInclusiveMul"),
            _ => None,
        }
    }
}

/// What a kernel of `wgsl/scan.wgsl` reads and writes (its `load` and `store`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum ScanIo {
    /// A scan: the input's units, scanned into the output's.
    Scan,
    /// A compaction: the flags of `predicate` (a WGSL `bool` expression in `x`), scanned
    /// to each kept element's position, where the element (or with `indices`, its index)
    /// is written.
    Compact { predicate: String, indices: bool },
    /// A partition: as a compaction, and the rejected elements after all kept ones, in
    /// their order; `write` says which of the two a kernel writes. Reduce-then-scan only:
    /// the downsweep reads the kept count from `offsets[params.total_at]`.
    Partition {
        predicate: String,
        write: PartitionWrite,
    },
    /// The spine of reduce-then-scan: `partials`, scanned into `offsets`.
    Spine,
}

/// Which elements a partition's downsweep writes: both (the output is one binding), or
/// the kept or the rejected ones (each has a binding range of its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum PartitionWrite {
    Both,
    Kept,
    Rest,
}

/// The output binding of a kernel of `wgsl/scan.wgsl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum ScanOut {
    /// A scan's: vec4 units of the input type, bound as `vec4`s or as its elements.
    Units { vec4: bool },
    /// A compaction's: elements of this WGSL type.
    Elements(&'static str),
}

/// `wgsl/scan.wgsl` for one operator, form, shape and layout. Its entries `upsweep`,
/// `spine` and `downsweep` are always there; `chained` (the single pass) only with
/// `single_pass`. Reduce-then-scan's passes, its spine and the single pass have shapes
/// of their own, so they are three configurations of one scan (see `Program`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct ScanKernel {
    /// "scan", or the compaction call's name.
    pub(super) name: &'static str,
    /// The input's WGSL element type (`T`) and the `enable` directive it needs.
    pub(super) element: &'static str,
    pub(super) enable: &'static str,
    /// The scanned type (`A`): the element type for scans, `u32` for compaction's flags.
    pub(super) scanned: &'static str,
    pub(super) workgroup_size: u32,
    /// vec4 units per invocation and tile row (`V`).
    pub(super) units: u32,
    pub(super) exclusive: bool,
    pub(super) operator: OperatorWgsl,
    /// The subgroup built-in for the operator's inclusive scan, if there is one.
    pub(super) builtin: Option<&'static str>,
    /// The upsweep may combine in any order (built-in operators; custom ones keep
    /// element order).
    pub(super) commutative: bool,
    /// The workgroup scans with subgroup operations (`wgsl/scan_subgroup.wgsl`), else
    /// through workgroup memory (`wgsl/scan_tree.wgsl`).
    pub(super) subgroups: bool,
    pub(super) io: ScanIo,
    /// Whether the input is bound as `vec4` units (else as its elements).
    pub(super) src_vec4: bool,
    pub(super) out: ScanOut,
    /// With the single pass's `chained` entry (`wgsl/scan_chained.wgsl`).
    pub(super) single_pass: bool,
}

impl KernelSource for ScanKernel {
    fn name(&self) -> &'static str {
        self.name
    }

    fn element(&self) -> &'static str {
        self.element
    }

    fn user_code(&self) -> &str {
        match &self.io {
            ScanIo::Compact { predicate, .. } | ScanIo::Partition { predicate, .. } => predicate,
            _ => &self.operator.code,
        }
    }

    fn wgsl(&self) -> Result<String> {
        // Every part is rendered whole before it goes into its placeholder.
        let workgroup_scan = if self.subgroups {
            let inclusive = match self.builtin {
                Some(f) => format!("    return {f}(x);"),
                None => part("shuffle_scan")?.to_string(),
            };
            render(SUBGROUP_WGSL, &[("SUBGROUP_INCLUSIVE", inclusive)])?
        } else {
            TREE_WGSL.to_string()
        };
        let io = match &self.io {
            ScanIo::Scan => part("scan_io")?.to_string(),
            ScanIo::Compact { predicate, indices } => {
                let kept = if *indices {
                    "params.first_elem + i"
                } else {
                    "v[k]"
                };
                let store_kept = format!("out[s[k] - params.out_base] = {kept};");
                render(
                    part("compact_io")?,
                    &[
                        ("STORE_KEPT", store_kept.as_str()),
                        ("STORE_REST", ""),
                        ("PREDICATE", predicate),
                    ],
                )?
            }
            ScanIo::Partition { predicate, write } => {
                let kept = "out[s[k] - params.out_base] = v[k];";
                // Element i has i - s[k] rejected elements before it.
                let rest = "out[offsets[params.total_at] + (params.first_elem + i - s[k]) - \
                            params.out_base] = v[k];";
                let (kept, rest) = match write {
                    PartitionWrite::Both => (kept, rest),
                    PartitionWrite::Kept => (kept, ""),
                    PartitionWrite::Rest => ("", rest),
                };
                render(
                    part("compact_io")?,
                    &[
                        ("STORE_KEPT", kept),
                        ("STORE_REST", rest),
                        ("PREDICATE", predicate),
                    ],
                )?
            }
            ScanIo::Spine => part("spine_io")?.to_string(),
        };
        let chained = if self.single_pass {
            let look_back = if self.subgroups {
                render(LOOK_BACK_SUBGROUP_WGSL, &[("STASH", STASH.to_string())])?
            } else {
                LOOK_BACK_WGSL.to_string()
            };
            // Tiles are numbered by workgroup id with the subgroup look-back (no
            // counter's round trip before the loads, so slightly faster), and by a
            // counter, in the order workgroups start, with the one-at-a-time look-back
            // (by id it was much slower there; see lab/perf-journal.md).
            render(
                CHAINED_WGSL,
                &[
                    ("BY_ID", self.subgroups.to_string()),
                    ("LOOK_BACK", look_back),
                ],
            )?
        } else {
            String::new()
        };
        let out = match self.out {
            ScanOut::Units { vec4 } => units_wgsl("out", 2, self.element, true, vec4)?,
            ScanOut::Elements(t) => {
                format!("@group(0) @binding(2) var<storage, read_write> out: array<{t}>;\n")
            }
        };
        render(
            SCAN_WGSL,
            &[
                (
                    "SRC",
                    units_wgsl("src", 1, self.element, false, self.src_vec4)?,
                ),
                ("OUT_DECL", out),
                ("ENABLE", self.enable.to_string()),
                ("T", self.element.to_string()),
                ("A", self.scanned.to_string()),
                ("WG", self.workgroup_size.to_string()),
                ("V", self.units.to_string()),
                ("EXCLUSIVE", self.exclusive.to_string()),
                ("COMMUTATIVE", self.commutative.to_string()),
                ("SPIN", SPIN.to_string()),
                ("IDENTITY", self.operator.identity.clone()),
                ("COMBINE", self.operator.combine.clone()),
                ("IO", io),
                ("WORKGROUP_SCAN", workgroup_scan),
                ("CHAINED", chained),
            ],
        )
    }
}

/// Section `name` of `wgsl/scan_parts.wgsl`, without its last line break.
fn part(name: &str) -> Result<&'static str> {
    let text = section(PARTS_WGSL, name)?;
    Ok(text.strip_suffix('\n').unwrap_or(text))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_part_is_found_and_ends_without_its_line_break() {
        for name in ["scan_io", "compact_io", "spine_io", "shuffle_scan"] {
            let text = super::part(name).unwrap();
            assert!(!text.is_empty() && !text.contains("//#section"), "{name}");
        }
        assert!(super::part("scan_io").unwrap().ends_with("}\n"));
        assert!(super::part("shuffle_scan").unwrap().ends_with("return v;"));
    }
}
