//! [`Ctx::segmented_reduce`] of short segments (`wgsl/segmented_short.wgsl`): a few
//! invocations of one subgroup per segment, meeting by shuffles, instead of the
//! segmented kernel's tiles, whose marking and scan cost more than the values of
//! segments this short do. A segment too long for it hands the call to the segmented
//! kernel, dispatched indirectly after it (zero workgroups unless that happens).

use bytemuck::{Pod, Zeroable};

use super::tuning::SegmentedTuning;
use crate::error::Result;
use crate::ops::reduce::Spec;
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::context::{Ctx, Info};
use crate::runtime::dispatch::{Chunk, pow2_workgroup_size_within, workgroup_grid};
use crate::runtime::record::{Res, Work};
use crate::runtime::view::View;

const SHORT_WGSL: &str = include_str!("../../../wgsl/segmented_short.wgsl");

/// Mean values per segment (values over segments) up to which `Auto` takes this kernel.
pub(super) const SHORT_MEAN: u64 = 1024;

/// vec4 units an invocation reads of a segment at most: a longer segment goes to the
/// segmented kernel.
const PIECES: u32 = 32;

/// Units per invocation wanted for a segment of the mean length: four, so each has four
/// loads in flight.
const PIECES_WANTED: u64 = 4;

/// `GpShortParams` in `wgsl/segmented_short.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct ShortParams {
    n: u32,
    segments: u32,
    groups: u32,
    opaque_zero: u32,
    tiles: [u32; 4],
    fixup: [u32; 4],
}

/// `wgsl/segmented_short.wgsl` for one operator, element type and shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ShortKernel {
    element: &'static str,
    enable: &'static str,
    spec: Spec,
    workgroup_size: u32,
    /// Invocations per segment.
    across: u32,
    /// The values' layout ([`View::vec4`]).
    values_vec4: bool,
}

impl KernelSource for ShortKernel {
    fn name(&self) -> &'static str {
        "segmented_short"
    }

    fn element(&self) -> &'static str {
        self.element
    }

    fn wgsl(&self) -> Result<String> {
        render(
            SHORT_WGSL,
            &[
                ("ENABLE", self.enable.to_string()),
                ("T", self.element.to_string()),
                ("A", self.spec.accumulator.to_string()),
                ("OP", self.spec.functions()?),
                ("WG", self.workgroup_size.to_string()),
                ("ACROSS", self.across.to_string()),
                ("PIECES", PIECES.to_string()),
                (
                    "VALUES",
                    crate::runtime::view::units_wgsl(
                        "gp_x",
                        2,
                        self.element,
                        false,
                        self.values_vec4,
                    )?,
                ),
            ],
        )
    }

    fn user_code(&self) -> &str {
        &self.spec.code
    }
}

/// What the short kernel is told of the segmented kernel it may hand the call to.
pub(super) struct Handover {
    /// tiles_main's grid.
    pub(super) tiles: [u32; 3],
    /// fixup_main's grid.
    pub(super) fixup: [u32; 3],
}

impl Ctx {
    /// Whether the short kernel can take a segmented reduction of `n` values (in one
    /// storage binding) with this operator: it needs subgroups and an accumulator
    /// shuffles can move.
    pub(super) fn short_segments_apply(&self, spec: &Spec, n: u64, element_bytes: u64) -> bool {
        super::shuffles_apply(self.info(), spec, short_workgroup(self.info()))
            && n.div_ceil(4) * 4 * element_bytes <= self.info().max_binding_bytes
    }

    /// Records the short kernel over all `segments` (see the module docs) and returns
    /// the indirect arguments the segmented kernel's two passes must be dispatched with,
    /// recorded next. The caller checked [`Ctx::short_segments_apply`].
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record_short_segments(
        &self,
        work: &mut Work,
        view: &View<'_>,
        offsets: Res,
        (n, segments): (u64, u64),
        spec: &Spec,
        out: Res,
        handover: Handover,
    ) -> Result<wgpu::Buffer> {
        let info = self.info();
        let wg = short_workgroup(info);
        let across = short_across(info, n, segments);
        let config = ShortKernel {
            element: view.wgsl,
            enable: view.enable,
            spec: spec.clone(),
            workgroup_size: wg,
            across,
            values_vec4: view.vec4(),
        };
        let kernel = self.pipeline_for(&config, "short_main")?;
        let cap = SegmentedTuning::of(info).short_groups;
        let max_per_dim = info.max_workgroups_per_dimension;
        let groups = segments
            .div_ceil(u64::from(wg / across))
            .clamp(1, cap.min(u64::from(max_per_dim).saturating_pow(3)));
        let [tx, ty, tz] = handover.tiles;
        let [fx, fy, fz] = handover.fixup;
        let block = work.params(&ShortParams {
            n: n as u32,
            segments: segments as u32,
            groups: groups as u32,
            opaque_zero: 0,
            tiles: [tx, ty, tz, 0],
            fixup: [fx, fy, fz, 0],
        });
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::COPY_DST;
        let args = work.keep(self.scratch("segmented dispatch arguments", 24, usage)?);
        work.clear(&args, 0, Some(24));
        let values = view.window(&Chunk {
            offset_units: 0,
            units: n.div_ceil(4).max(1),
        });
        work.dispatch(&kernel, workgroup_grid(groups, max_per_dim)?)
            .bind(0, block)
            .bind(2, values)
            .bind(4, out)
            .bind(5, offsets)
            .bind(6, Res::range(&args, 0, 24));
        Ok(args)
    }
}

/// Invocations per workgroup of the short-segments kernel.
fn short_workgroup(info: &Info) -> u32 {
    pow2_workgroup_size_within(&info.limits, 256)
}

/// Invocations per segment for `n` values in `segments` segments: a power of two, for
/// about `PIECES_WANTED` units of a segment of the mean length each, at most the
/// smallest subgroup.
fn short_across(info: &Info, n: u64, segments: u64) -> u32 {
    let mean_units = (n / segments.max(1)).div_ceil(4) + 1;
    let across = (mean_units / PIECES_WANTED).max(1);
    (1u32 << across.ilog2()).min(info.subgroup_min_size.max(1).min(short_workgroup(info)))
}

/// The short-segments kernel of `T` in each shape it takes on `info` (see `catalog` in
/// `mod.rs`): every mean length it takes, values as vec4 units or not.
#[cfg(test)]
pub(super) fn catalog_short<T: crate::element::GpuElement>(
    c: &mut crate::ops::catalog::Catalog,
    info: &Info,
    spec: &Spec,
) {
    let wg = short_workgroup(info);
    if !super::shuffles_apply(info, spec, wg) {
        return;
    }
    let mut seen = Vec::new();
    for n in 0..=SHORT_MEAN {
        let across = short_across(info, n, 1);
        if !seen.contains(&across) {
            seen.push(across);
        }
    }
    for across in seen {
        for values_vec4 in [true, false] {
            let config = ShortKernel {
                element: T::WGSL,
                enable: T::ENABLE,
                spec: spec.clone(),
                workgroup_size: wg,
                across,
                values_vec4,
            };
            let native = super::catalog::native(wg, 0, spec, T::WGSL);
            super::catalog::add(c, &config, native);
        }
    }
}

#[cfg(test)]
pub(super) fn catalog_layout(c: &mut crate::ops::catalog::Catalog) {
    let config = ShortKernel {
        element: "f32",
        enable: "",
        spec: Spec::with_subgroups(true, &crate::Reduce::<f32>::Sum).expect("a sum"),
        workgroup_size: 256,
        across: 4,
        values_vec4: true,
    };
    let wgsl = config.wgsl().expect("short renders");
    crate::ops::catalog::layout!(
        c,
        ShortParams,
        "GpShortParams",
        wgsl,
        [n, segments, groups, opaque_zero, tiles, fixup]
    );
}
