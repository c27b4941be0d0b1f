//! The 2D kernels' configuration ([`Grid2dKernel`]: template, element type, workgroup
//! side, user body and workgroup order), their parameter blocks, and the recording of
//! one dispatch (`run2d`).

use super::remap::Remap;
use super::{MAP2D_ROWS, SWIZZLE_WGSL, Shape, SwizzleShape};
use crate::element::GpuElement;
use crate::error::Result;
use crate::ops::random::RANDOM_WGSL;
use crate::runtime::cache::{KernelSource, Pipeline, render};
use crate::runtime::context::Ctx;
use crate::runtime::record::Work;
use crate::runtime::vec::GpuVec;
use std::sync::Arc;

const MAP2D_WGSL: &str = include_str!("../../../wgsl/grid2d.wgsl");
const TRANSPOSE_WGSL: &str = include_str!("../../../wgsl/grid2d_transpose.wgsl");
const COLOR_WGSL: &str = include_str!("../../../wgsl/grid2d_color.wgsl");
const BLUR_WGSL: &str = include_str!("../../../wgsl/grid2d_blur.wgsl");
/// Bindings and `Params` of map2d, transpose and blur_vertical (see `run2d`).
const PARAMS_WGSL: &str = include_str!("../../../wgsl/grid2d_params.wgsl");

/// Which 2D template a kernel is, with the values only that template takes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Grid2dOp {
    /// `wgsl/grid2d.wgsl`: [`Ctx::map2d`] with the user's `body`, in `side` x `side`
    /// workgroups.
    Map2d {
        element: &'static str,
        /// The element type's `enable` directive, or "".
        enable: &'static str,
        side: u32,
        body: String,
    },
    /// `wgsl/grid2d_transpose.wgsl`: [`Ctx::transpose`] (its tile is fixed).
    Transpose {
        element: &'static str,
        /// The element type's `enable` directive, or "".
        enable: &'static str,
    },
    /// `wgsl/grid2d_color.wgsl`: [`Ctx::color_filter`] in `side` x `side` workgroups.
    ColorFilter { side: u32 },
    /// `wgsl/grid2d_blur.wgsl`: [`Ctx::blur_vertical`] in `side` x `side` workgroups.
    BlurVertical { side: u32 },
}

/// `wgsl/grid2d*.wgsl`: one 2D kernel, rendered with the shared prelude (`{{PARAMS}}`,
/// where the template has it, then `{{SWIZZLE}}` and `{{REMAP}}`) and its own values.
///
/// A swizzled kernel gets its grid and `SwizzleParams` as WGSL constants ([`Remap`]), so
/// the compiler folds the remapping into a few integer operations: one pipeline per grid
/// size and tile width. Constants gained slightly over the same values in a uniform, and
/// the streaming kernels' loss did not change (see lab/perf-journal.md).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Grid2dKernel {
    pub(super) op: Grid2dOp,
    pub(super) remap: Remap,
}

impl KernelSource for Grid2dKernel {
    fn name(&self) -> &'static str {
        match self.op {
            Grid2dOp::Map2d { .. } => "map2d",
            Grid2dOp::Transpose { .. } => "transpose",
            Grid2dOp::ColorFilter { .. } => "color_filter",
            Grid2dOp::BlurVertical { .. } => "blur_vertical",
        }
    }

    fn element(&self) -> &'static str {
        match self.op {
            Grid2dOp::Map2d { element, .. } | Grid2dOp::Transpose { element, .. } => element,
            Grid2dOp::ColorFilter { .. } | Grid2dOp::BlurVertical { .. } => "f32",
        }
    }

    fn user_code(&self) -> &str {
        match &self.op {
            Grid2dOp::Map2d { body, .. } => body,
            _ => "",
        }
    }

    fn wgsl(&self) -> Result<String> {
        let remap = self.remap.wgsl()?;
        let (template, vars): (&str, Vec<(&str, String)>) = match &self.op {
            Grid2dOp::Map2d {
                element,
                enable,
                side,
                body,
            } => (
                MAP2D_WGSL,
                vec![
                    ("LIB", RANDOM_WGSL.to_string()),
                    ("ENABLE", enable.to_string()),
                    ("T", element.to_string()),
                    ("WG", side.to_string()),
                    ("ROWS", MAP2D_ROWS.to_string()),
                    ("EXPR", body.clone()),
                ],
            ),
            Grid2dOp::Transpose { element, enable } => (
                TRANSPOSE_WGSL,
                vec![("ENABLE", enable.to_string()), ("T", element.to_string())],
            ),
            Grid2dOp::ColorFilter { side } => (COLOR_WGSL, vec![("WG", side.to_string())]),
            Grid2dOp::BlurVertical { side } => (BLUR_WGSL, vec![("WG", side.to_string())]),
        };
        // The color filter places the swizzle and remap itself; the others have them in
        // their parameters' part.
        let mut all: Vec<(&str, String)> = if template == COLOR_WGSL {
            vec![("SWIZZLE", SWIZZLE_WGSL.to_string()), ("REMAP", remap)]
        } else {
            let params = render(PARAMS_WGSL, &[("SWIZZLE", SWIZZLE_WGSL), ("REMAP", &remap)])?;
            vec![("PARAMS", params)]
        };
        all.extend(vars);
        render(template, &all)
    }
}

impl Ctx {
    /// The pipeline of the 2D kernel `op` for a dispatch of `groups` workgroups in
    /// `order` (not [`Swizzle::Auto`](super::Swizzle::Auto), which is resolved first).
    pub(super) fn kernel2d(
        &self,
        op: Grid2dOp,
        groups: (u32, u32),
        order: super::Swizzle,
    ) -> Result<Arc<Pipeline>> {
        let config = Grid2dKernel {
            op,
            remap: Remap::new(groups, order),
        };
        self.pipeline_for(&config, "main")
    }
}

/// The parameter block of the kernels of `wgsl/grid2d_params.wgsl` (`struct Params`
/// there): both shapes and one word for the kernel (blur's radius).
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(super) struct GridParams {
    src_w: u32,
    src_h: u32,
    src_pitch: u32,
    dst_w: u32,
    dst_h: u32,
    dst_pitch: u32,
    /// blur_vertical's radius, else 0.
    extra: u32,
    _pad: u32,
}

impl GridParams {
    pub(super) fn new(src: Shape, dst: Shape, extra: u32) -> Self {
        GridParams {
            src_w: src.width,
            src_h: src.height,
            src_pitch: src.pitch,
            dst_w: dst.width,
            dst_h: dst.height,
            dst_pitch: dst.pitch,
            extra,
            _pad: 0,
        }
    }

    /// The sizes [`Swizzle::Auto`](super::Swizzle::Auto)'s choices are kept by.
    pub(super) fn shape(&self) -> SwizzleShape {
        SwizzleShape {
            src_width: self.src_w,
            src_height: self.src_h,
            src_pitch: self.src_pitch,
            dst_width: self.dst_w,
            dst_height: self.dst_h,
            dst_pitch: self.dst_pitch,
            radius: self.extra,
        }
    }
}

/// The parameter block of `wgsl/grid2d_color.wgsl`.
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(super) struct ColorParams {
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) _pad: [u32; 2],
    /// `matrix[row][col]`.
    pub(super) matrix: [[f32; 4]; 4],
}

/// Records and submits one 2D dispatch: binding 0 `src`, 1 `dst` (whole vectors), 2 the
/// parameter block (kept by content, so repeated calls upload nothing).
pub(super) fn run2d<T: GpuElement, P: bytemuck::Pod>(
    ctx: &Ctx,
    op: &'static str,
    kernel: &Arc<Pipeline>,
    groups: (u32, u32),
    (src, dst): (&GpuVec<T>, &GpuVec<T>),
    params: &P,
) -> Result<()> {
    let mut work = Work::new(ctx, op);
    let block = work.params(params);
    work.dispatch(kernel, [groups.0, groups.1, 1])
        .bind(0, src.whole_binding())
        .bind(1, dst.whole_binding())
        .bind(2, block);
    work.submit()
}

/// The 2D kernels for the catalog test (`ops/catalog.rs`): each op for every element type
/// it takes, in workgroups of 16 x 16 (and 8 x 8 where the device allows fewer
/// invocations), in launch order, swizzled into tiles and into bands.
#[cfg(test)]
pub(super) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use super::{SIDE, Swizzle};
    use crate::ops::catalog::layout;
    let remaps = [
        Remap::Identity,
        Remap::new((64, 40), Swizzle::Tiles { n: 16 }),
        Remap::new((64, 40), Swizzle::Bands { workgroups: 64 }),
    ];
    let elements = [
        ("f32", ""),
        ("i32", ""),
        ("u32", ""),
        ("f16", "enable f16;"),
    ];
    for remap in &remaps {
        for side in [SIDE, SIDE / 2] {
            for (element, enable) in elements {
                c.add(&Grid2dKernel {
                    op: Grid2dOp::Map2d {
                        element,
                        enable,
                        side,
                        body: "load(x, y) + load(x, y + 1)".to_string(),
                    },
                    remap: *remap,
                });
            }
            c.add(&Grid2dKernel {
                op: Grid2dOp::ColorFilter { side },
                remap: *remap,
            });
            c.add(&Grid2dKernel {
                op: Grid2dOp::BlurVertical { side },
                remap: *remap,
            });
        }
        for (element, enable) in elements {
            c.add(&Grid2dKernel {
                op: Grid2dOp::Transpose { element, enable },
                remap: *remap,
            });
        }
    }
    let blur = Grid2dKernel {
        op: Grid2dOp::BlurVertical { side: SIDE },
        remap: Remap::Identity,
    };
    layout!(
        c,
        GridParams,
        "Params",
        blur.wgsl().expect("blur_vertical renders"),
        [
            src_w, src_h, src_pitch, dst_w, dst_h, dst_pitch, extra, _pad
        ]
    );
    let color = Grid2dKernel {
        op: Grid2dOp::ColorFilter { side: SIDE },
        remap: Remap::Identity,
    };
    layout!(
        c,
        ColorParams,
        "Params",
        color.wgsl().expect("color_filter renders"),
        [width, height, _pad, matrix]
    );
}
