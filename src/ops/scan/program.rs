//! The program builder: the kernels of one scan or compaction on an adapter ([`Program`]),
//! with the workgroup shapes chosen for it, compiled per algorithm and layout
//! ([`Program::kernels`]).

use std::sync::Arc;

use super::kernel::{OperatorWgsl, PartitionWrite, ScanIo, ScanKernel, ScanOut};
use super::tuning::ScanTuning;
use super::{ScanAlgorithm, ScanOp};
use crate::element::GpuElement;
use crate::error::Result;
use crate::runtime::cache::Pipeline;
use crate::runtime::context::Ctx;
use crate::runtime::view::View;

/// The kernels of one scan or compaction, as configurations; compiled by
/// [`Program::kernels`] once the vectors' layouts are known.
pub(super) struct Program {
    /// The upsweep and downsweep (vectors bound as vec4 units until `kernels`).
    tiles: ScanKernel,
    /// The single pass, for 32-bit scanned types.
    chained: Option<ScanKernel>,
    /// The spine: the template again, as an exclusive scan of the partials (its `load`
    /// and `store` read `partials` and write `offsets`) in tiles of its own shape.
    spine: ScanKernel,
    /// Elements per tile (/ 4) of reduce-then-scan and of the single pass.
    tile_units: u32,
    pub(super) chained_tile_units: u32,
    a_bytes: u64,
    /// Compaction: the scan's total (the kept count) is wanted after the run.
    counts: bool,
}

/// What a scan or compaction computes, before the adapter's shapes are chosen.
pub(super) struct Form {
    name: &'static str,
    operator: OperatorWgsl,
    builtin: Option<&'static str>,
    commutative: bool,
    exclusive: bool,
    io: ScanIo,
    out: ScanOut,
    counts: bool,
}

impl Form {
    pub(super) fn scan<T: GpuElement>(op: &ScanOp<T>, exclusive: bool) -> Result<Form> {
        Ok(Form {
            name: "scan",
            operator: op.wgsl("scan")?,
            builtin: op.subgroup_builtin(),
            commutative: !matches!(op, ScanOp::Custom { .. }),
            exclusive,
            io: ScanIo::Scan,
            out: ScanOut::Units { vec4: true },
            counts: false,
        })
    }

    pub(super) fn compact<T: GpuElement>(
        op: &'static str,
        predicate: &str,
        indices: bool,
    ) -> Result<Form> {
        Ok(Form {
            name: op,
            operator: ScanOp::<u32>::Sum.wgsl(op)?,
            builtin: ScanOp::<u32>::Sum.subgroup_builtin(),
            commutative: true,
            exclusive: true,
            io: ScanIo::Compact {
                predicate: predicate.to_string(),
                indices,
            },
            out: ScanOut::Elements(if indices { "u32" } else { T::WGSL }),
            counts: true,
        })
    }

    /// A partition: kept elements first, then the rest, each in order (the downsweep
    /// writes those `write` says).
    pub(super) fn partition<T: GpuElement>(
        op: &'static str,
        predicate: &str,
        write: PartitionWrite,
    ) -> Result<Form> {
        Ok(Form {
            io: ScanIo::Partition {
                predicate: predicate.to_string(),
                write,
            },
            out: ScanOut::Elements(T::WGSL),
            ..Form::compact::<T>(op, predicate, false)?
        })
    }
}

/// What the shapes of a scan depend on: the adapter's kind, workgroup limit and
/// subgroups (from [`Ctx::info`], or the catalog's adapters).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Adapter {
    /// A CPU adapter (lavapipe, llvmpipe): few invocations run at once.
    pub(crate) cpu: bool,
    /// Invocations a workgroup may have (and its x size).
    pub(crate) max_invocations: u32,
    /// The largest subgroup size, where the device has subgroup operations.
    pub(crate) subgroup_max: Option<u32>,
}

impl Adapter {
    pub(crate) fn of(ctx: &Ctx) -> Adapter {
        let info = ctx.info();
        let l = &info.limits;
        Adapter {
            cpu: info.device_type == wgpu::DeviceType::Cpu,
            max_invocations: l
                .max_compute_invocations_per_workgroup
                .min(l.max_compute_workgroup_size_x),
            subgroup_max: (ctx.has_features(wgpu::Features::SUBGROUP)
                && info.subgroup_min_size >= 1)
                .then_some(info.subgroup_max_size),
        }
    }

    /// As `pow2_workgroup_size`: `wanted`, or the largest power of two the device allows.
    pub(crate) fn pow2_workgroup_size(&self, wanted: u32) -> u32 {
        1 << wanted.min(self.max_invocations).max(1).ilog2()
    }

    /// As `Ctx::subgroups_within`: subgroup operations, every subgroup within `wg`.
    pub(crate) fn subgroups_within(&self, wg: u32) -> bool {
        self.subgroup_max.is_some_and(|max| max <= wg)
    }
}

/// How a scan's kernels bind the input and the output.
pub(super) struct Layouts {
    src_vec4: bool,
    out: ScanOut,
}

/// The compiled kernels of a [`Program`] for one algorithm.
pub(super) struct Kernels {
    pub(super) upsweep: Arc<Pipeline>,
    pub(super) spine: Arc<Pipeline>,
    pub(super) downsweep: Arc<Pipeline>,
    /// Compiled for [`ScanAlgorithm::SinglePass`] only.
    pub(super) chained: Option<Arc<Pipeline>>,
    pub(super) tile_units: u32,
    pub(super) a_bytes: u64,
    pub(super) counts: bool,
}

impl Program {
    pub(super) fn scan<T: GpuElement>(
        ctx: &Ctx,
        op: &ScanOp<T>,
        exclusive: bool,
    ) -> Result<Program> {
        ctx.check_element::<T>()?;
        Ok(Program::build::<T, T>(
            &Adapter::of(ctx),
            Form::scan(op, exclusive)?,
        ))
    }

    pub(super) fn compact<T: GpuElement>(
        ctx: &Ctx,
        op: &'static str,
        predicate: &str,
        indices: bool,
    ) -> Result<Program> {
        ctx.check_element::<T>()?;
        crate::expr::check_expression(op, "predicate", predicate)?;
        Ok(Program::build::<T, u32>(
            &Adapter::of(ctx),
            Form::compact::<T>(op, predicate, indices)?,
        ))
    }

    pub(super) fn partition<T: GpuElement>(
        ctx: &Ctx,
        op: &'static str,
        predicate: &str,
        write: PartitionWrite,
    ) -> Result<Program> {
        ctx.check_element::<T>()?;
        crate::expr::check_expression(op, "predicate", predicate)?;
        Ok(Program::build::<T, u32>(
            &Adapter::of(ctx),
            Form::partition::<T>(op, predicate, write)?,
        ))
    }

    /// The configurations for input elements `T` scanned as `A` on `adapter`.
    pub(super) fn build<T: GpuElement, A: GpuElement>(adapter: &Adapter, form: Form) -> Program {
        let tuning = ScanTuning::for_kind(adapter.cpu);
        let wg = adapter.pow2_workgroup_size(tuning.workgroup);
        let subgroups = adapter.subgroups_within(wg) && size_of::<A>() == 4;
        let v = if size_of::<A>() > 4 {
            tuning.units_wide
        } else {
            tuning.units
        };
        let v_chained = match form.io {
            ScanIo::Compact { .. } | ScanIo::Partition { .. } => tuning.single_pass_compact_units,
            _ => tuning.single_pass_units,
        };
        let spine_wg = adapter.pow2_workgroup_size(tuning.spine_workgroup).max(wg);
        let spine_v = tuning.spine_units;
        let tiles = ScanKernel {
            name: form.name,
            element: T::WGSL,
            enable: T::ENABLE,
            scanned: A::WGSL,
            workgroup_size: wg,
            units: v,
            exclusive: form.exclusive,
            operator: form.operator,
            builtin: form.builtin,
            commutative: form.commutative,
            subgroups,
            io: form.io,
            src_vec4: true,
            out: form.out,
            single_pass: false,
        };
        // A partition's downsweep needs the total before it writes: no single pass.
        let partition = matches!(tiles.io, ScanIo::Partition { .. });
        let chained = (size_of::<A>() == 4 && !partition).then(|| ScanKernel {
            workgroup_size: wg,
            units: v_chained,
            single_pass: true,
            ..tiles.clone()
        });
        // The spine reads and writes its own buffers: the same text for every layout.
        let spine = ScanKernel {
            workgroup_size: spine_wg,
            units: spine_v,
            exclusive: true,
            io: ScanIo::Spine,
            ..tiles.clone()
        };
        Program {
            tiles,
            chained,
            spine,
            tile_units: wg * v,
            chained_tile_units: wg * v_chained,
            a_bytes: size_of::<A>() as u64,
            counts: form.counts,
        }
    }

    /// Whether this is a partition's (reduce-then-scan only).
    pub(super) fn partitions(&self) -> bool {
        matches!(self.tiles.io, ScanIo::Partition { .. })
    }

    /// The layouts of the input and output vectors (gpuprim's padded vec4 units where a
    /// vector is not given).
    pub(super) fn layouts(&self, src: Option<&View<'_>>, out: Option<&View<'_>>) -> Layouts {
        let out = match (self.tiles.out, out) {
            (ScanOut::Elements(t), _) => ScanOut::Elements(t),
            (ScanOut::Units { .. }, out) => ScanOut::Units {
                vec4: out.is_none_or(View::vec4),
            },
        };
        Layouts {
            src_vec4: src.is_none_or(View::vec4),
            out,
        }
    }

    /// Every configuration of this program, for the catalog: the tiles' and the single
    /// pass's for every layout of the vectors, and the spine's.
    #[cfg(test)]
    pub(super) fn configs(&self) -> Vec<ScanKernel> {
        let outs = match self.tiles.out {
            ScanOut::Elements(t) => vec![ScanOut::Elements(t)],
            ScanOut::Units { .. } => vec![
                ScanOut::Units { vec4: true },
                ScanOut::Units { vec4: false },
            ],
        };
        let mut all = vec![self.spine.clone()];
        for src_vec4 in [true, false] {
            for &out in &outs {
                for config in std::iter::once(&self.tiles).chain(&self.chained) {
                    all.push(ScanKernel {
                        src_vec4,
                        out,
                        ..config.clone()
                    });
                }
            }
        }
        all
    }

    /// The kernels for `algorithm` with the vectors bound as `layouts` says.
    pub(super) fn kernels(
        &self,
        ctx: &Ctx,
        algorithm: ScanAlgorithm,
        layouts: &Layouts,
    ) -> Result<Kernels> {
        let with_layouts = |config: &ScanKernel| ScanKernel {
            src_vec4: layouts.src_vec4,
            out: layouts.out,
            ..config.clone()
        };
        let chained = match (&self.chained, algorithm) {
            (Some(chained), ScanAlgorithm::SinglePass) => {
                Some(ctx.pipeline_for(&with_layouts(chained), "chained")?)
            }
            _ => None,
        };
        let spine = ctx.pipeline_for(&self.spine, "spine")?;
        let tiles = with_layouts(&self.tiles);
        Ok(Kernels {
            upsweep: ctx.pipeline_for(&tiles, "upsweep")?,
            spine,
            downsweep: ctx.pipeline_for(&tiles, "downsweep")?,
            tile_units: if chained.is_some() {
                self.chained_tile_units
            } else {
                self.tile_units
            },
            chained,
            a_bytes: self.a_bytes,
            counts: self.counts,
        })
    }
}
