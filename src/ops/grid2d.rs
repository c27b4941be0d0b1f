//! 2D kernels over row-major grids with thread-group ID swizzling: [`Grid2D`] views,
//! [`Ctx::map2d`] (a WGSL body per output element with clamped neighbour reads),
//! [`Ctx::transpose`], [`Ctx::color_filter`] and [`Ctx::blur_vertical`].
//!
//! # Swizzling
//!
//! A full-screen 2D pass launches its workgroups row by row, so the groups in flight at
//! one time span whole rows of the image; reads of neighbouring rows (a vertical
//! filter, the columns of a transpose) then miss L2. [`Swizzle::Tiles`] remaps the
//! launch order into vertical tiles `n` workgroups wide, walked tile after tile and
//! row by row inside a tile (NVIDIA, "Optimizing Compute Shaders for L2 Locality using
//! Thread-Group ID Swizzling", GDC 2019, with the later fix for dispatch widths that are
//! not a multiple of `n`). [`swizzle`] is the mapping, in Rust; [`SWIZZLE_WGSL`] is the
//! same function in WGSL for kernels of your own. gpuprim's kernels compute the same
//! mapping without a division: the dispatch's grid, divisors and their f32 reciprocals
//! are constants of the pipeline, and each invocation divides with a multiply and one
//! integer correction step (exact below 2^24 workgroups; larger dispatches divide). So
//! a swizzled kernel is compiled once per grid size and tile width: the first call at a
//! new image size (or `n`) compiles a pipeline, later ones reuse it. Unswizzled kernels
//! have one pipeline for every size.
//!
//! Which order is fastest depends on the kernel, the grid and the GPU: on an H100 tiles
//! made a wide vertical blur 1.22x faster and streaming kernels 3-9% slower, and bands
//! lost 9% on a matrix multiply that tiles sped up 1.66x (docs/PERFORMANCE.md). Hence
//! [`Swizzle::Auto`], which measures the candidates on a kernel's first call at a grid
//! size and keeps linear order unless another was at least [`AUTO_MARGIN`] faster.
//!
//! # Limits of the 2D kernels
//!
//! - Width and height must be at least 1 (an empty grid is an error, not a no-op).
//! - Dispatches are not folded: `ceil(width / side)` and `ceil(height / side)` workgroups
//!   (side 16 for `map2d` and `color_filter`, 32 for `transpose`) must each be at most
//!   [`Info::max_workgroups_per_dimension`](crate::Info::max_workgroups_per_dimension)
//!   (65535 on common adapters: about a million elements per side), else
//!   [`Error::InvalidArgument`].
//! - Each vector is bound whole, as one storage binding: it must fit
//!   [`Info::max_binding_bytes`](crate::Info::max_binding_bytes) (the split path of the
//!   1D primitives is not used here), else [`Error::InvalidArgument`].

use crate::context::Ctx;
use crate::context::check_len;
use crate::dispatch::{Step, submit_steps};
use crate::element::GpuElement;
use crate::error::{Error, Result};
use crate::ops::random::RANDOM_WGSL;
use crate::pipeline::{Kernel, PipelineKey, render};
use crate::vec::GpuVec;
use std::sync::Arc;

const MAP2D_WGSL: &str = include_str!("../../wgsl/grid2d.wgsl");
const TRANSPOSE_WGSL: &str = include_str!("../../wgsl/grid2d_transpose.wgsl");
const COLOR_WGSL: &str = include_str!("../../wgsl/grid2d_color.wgsl");
const BLUR_WGSL: &str = include_str!("../../wgsl/grid2d_blur.wgsl");
/// Bindings and `Params` of map2d, transpose and blur_vertical (see `params_words`).
const PARAMS_WGSL: &str = include_str!("../../wgsl/grid2d_params.wgsl");

/// Largest radius [`Ctx::blur_vertical`] accepts (a 2049-tap column per element).
pub const MAX_BLUR_RADIUS: u32 = 1024;

/// The WGSL function `swizzle_group(group: vec2<u32>, groups: vec2<u32>, n: u32) ->
/// vec2<u32>`, the twin of [`swizzle`], for kernels of your own: call it with
/// `workgroup_id.xy` and `num_workgroups.xy` and use the result as the workgroup's tile.
/// `swizzle_bands_group(group, groups, workgroups: u32) -> vec2<u32>` is the band order
/// of [`Swizzle::Bands`], the twin of [`swizzle_bands`].
///
/// The text also defines `swizzle_tiles`, the same mapping without divisions, which
/// gpuprim's own kernels call with constants computed on the host per dispatch and
/// written into their WGSL (a `SwizzleParams` struct, the names `swizzle_div` and
/// `swizzle_tiles`); a kernel of your own may ignore them.
pub const SWIZZLE_WGSL: &str = include_str!("../../wgsl/swizzle.wgsl");

/// Workgroups per dispatch up to which `swizzle_tiles` divides with f32 reciprocals (its
/// numerators stay below 2^24, where `swizzle_div` is exact); larger dispatches divide
/// as `swizzle_group` does.
const SWIZZLE_F32_GROUPS: u64 = 1 << 24;

/// Side of the square workgroups of `map2d` and `color_filter` (16 x 16 = 256 threads).
const SIDE: u32 = 16;
/// Rows each `map2d` invocation computes (`SIDE` apart, so every row of a workgroup stays
/// contiguous): a workgroup covers `SIDE` x `SIDE * MAP2D_ROWS` elements. On the H100 the
/// 5-tap blur body is 16% faster with 4 rows than with 1 (docs/PERFORMANCE.md).
/// `color_filter` and `blur_vertical` compute one row each: 4 rows made the colour filter
/// no faster and the r = 8 blur slower (its taps run one row after another).
const MAP2D_ROWS: u32 = 4;
/// Side of a `transpose` tile (a 32 x 8 workgroup moves 32 x 32 elements).
const TILE: u32 = 32;

/// Whether and how a 2D kernel remaps its workgroup IDs (see the [module docs](self)).
///
/// Measured on an H100 (docs/PERFORMANCE.md): tiles help some kernels whose
/// neighbouring workgroups re-read the same lines (a radius-32 vertical blur ran
/// 1.22-1.25x faster at 4096 x 4096, radius 16 1.19x at 8192 x 8192, while the same
/// blurs at the other size, and radius 64 at both, gained nothing), are neutral on
/// transpose, and cost 3-8% on kernels that stream or reuse little (colour filter 3-5%,
/// a 5-tap blur 4-8%, radius 8 at 4096 x 4096 7%): the visiting order itself costs
/// them, not the remapping's arithmetic, which the pipeline's constants fold away. So
/// the default is [`Swizzle::Off`]: opt in with `Swizzle::Tiles { n: 16 }` where a
/// kernel gathers widely, or with [`Swizzle::Bands`], which keeps rows whole and costs
/// streaming kernels far less, and measure; or let [`Swizzle::Auto`] measure on the first
/// call and keep linear order unless another is clearly faster. A swizzled kernel is compiled per grid size and
/// `n` (see the [module docs](self)).
///
/// Tiles pay off most where linear order's workgroups in flight read more than the L2
/// holds: a kernel of your own multiplying 4096 x 4096 f32 matrices without shared-memory
/// tiles (each workgroup reads a whole column band of B, 64 MiB in all) ran 1.66-1.68x
/// faster with [`SWIZZLE_WGSL`]'s `swizzle_group` at `n` = 16 or 32, and 10% slower at
/// 2048 x 2048, where B fits the L2; bands cost it 9% (`examples/matmul_lab.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Swizzle {
    /// Workgroups cover the grid in launch order (row-major).
    Off,
    /// Vertical tiles `n` workgroups wide ([`swizzle`]); `n` must be at least 1 and is
    /// clamped to the dispatch width. NVIDIA's choice is 16.
    Tiles {
        /// Tile width in workgroups.
        n: u32,
    },
    /// Horizontal bands of whole workgroup rows, each taken column by column
    /// ([`swizzle_bands`]): a band has `max(1, workgroups / groups per row)` rows, so the
    /// workgroups in flight cover a short strip as wide as the grid. Vertical neighbours
    /// run together, as with tiles, while rows are still swept whole. On the H100,
    /// `workgroups: 1024` (about one wave of resident workgroups) ran the radius-32 blur
    /// at 4096 x 4096 1.19-1.20x faster than linear order (tiles: 1.22x) and the
    /// streaming kernels within 2% of it (tiles: 3-9% slower); the radius-8 blur at
    /// 4096 x 4096 was 4% slower in one of two processes (docs/PERFORMANCE.md).
    Bands {
        /// Workgroups per band, at least 1 (rounded down to whole rows, at least one).
        workgroups: u32,
    },
    /// Measured: the first call of a kernel (its op, element type and WGSL body) at a
    /// grid size and shape runs it in each of [`AUTO_CANDIDATES`] (linear, tiles of 16,
    /// bands of 1024), times them, and keeps the fastest for later calls of this `Ctx`.
    /// An order other than [`Swizzle::Off`] is kept only when it was at least
    /// [`AUTO_MARGIN`] faster than linear order, so measurement noise does not trade
    /// linear order for a slightly slower one. Dispatches of fewer than
    /// [`AUTO_MIN_WORKGROUPS`] workgroups run linear without measuring.
    ///
    /// That first call waits for the GPU (it synchronizes, as [`Ctx::synchronize`]) and
    /// costs about 5 rounds x 3 orders x 8 ms of GPU time, or 3 calls per order and round
    /// where one call takes longer; the results are the same in every order (each element
    /// is computed the same way), so the measuring calls' output is the call's output.
    /// Later calls record without waiting. [`Ctx::swizzle_choices`] lists what was chosen
    /// and measured. The clock times the whole GPU: work that other threads submit
    /// meanwhile counts against the order being timed, so make the first call when the
    /// GPU is otherwise quiet (two threads making the same first call both measure, and
    /// the later choice is kept). A body that does not compile is the same error as with
    /// [`Swizzle::Off`], and nothing is chosen. Choices, and the swizzled pipelines
    /// compiled to measure them, stay for the `Ctx`'s life: one set per kernel and grid
    /// size, so a program that blurs images of ever new sizes should not ask for `Auto`.
    ///
    /// On the H100 (docs/PERFORMANCE.md, run AT) it chose tiles for the radius-32 blur
    /// at 4096 x 4096, 1.22x faster than linear order, and for a column gather, and kept
    /// linear order for the transpose, the colour filter and the short blurs, which it
    /// then ran within 1% of linear order.
    Auto,
}

/// The orders [`Swizzle::Auto`] measures, linear order first.
pub const AUTO_CANDIDATES: [Swizzle; 3] = [
    Swizzle::Off,
    Swizzle::Tiles { n: 16 },
    Swizzle::Bands { workgroups: 1024 },
];

/// How much faster than linear order (a fraction of linear's time) another order must
/// measure for [`Swizzle::Auto`] to choose it.
pub const AUTO_MARGIN: f64 = 0.03;

/// Dispatches smaller than this many workgroups run in linear order under
/// [`Swizzle::Auto`], unmeasured.
pub const AUTO_MIN_WORKGROUPS: u32 = 32;

/// What [`Swizzle::Auto`] chose for one kernel and grid ([`Ctx::swizzle_choices`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SwizzleChoice {
    /// The operation, e.g. `"map2d"`.
    pub op: &'static str,
    /// The element type, as WGSL names it (`"f32"`, `"u32"`, ...).
    pub element: &'static str,
    /// The WGSL body of a [`Ctx::map2d`] (empty for the other kernels).
    pub code: String,
    /// The dispatch, in workgroups (width, height).
    pub groups: (u32, u32),
    /// The words that size the work, as the kernel's uniform holds them (for telling
    /// choices apart; the layout may change between versions): source width, height and
    /// pitch, destination width, height and pitch, the kernel's own word (the blur's
    /// radius) and 0; the colour filter's width and height, then zeros.
    pub shape: [u32; 8],
    /// The order later calls use.
    pub chosen: Swizzle,
    /// Each candidate of [`AUTO_CANDIDATES`] with its measured milliseconds per call (the
    /// best of five rounds, host clock around submission and completion).
    pub ms: Vec<(Swizzle, f64)>,
}

/// Where [`Swizzle::Auto`]'s choices are kept: by op, element type, dispatch and shape
/// words, then by body (looked up without building a key).
pub(crate) type ChoiceKey = (&'static str, &'static str, (u32, u32), [u32; 8]);

/// [`Swizzle::Auto`]'s rule: the fastest of `ms` (linear order first) if it measured at
/// least [`AUTO_MARGIN`] faster than linear order, else [`Swizzle::Off`].
fn pick(ms: &[(Swizzle, f64)]) -> Swizzle {
    let Some(&(_, linear)) = ms.first() else {
        return Swizzle::Off;
    };
    let (best, best_ms) = ms
        .iter()
        .copied()
        .fold((Swizzle::Off, linear), |b, c| if c.1 < b.1 { c } else { b });
    if best_ms <= linear * (1.0 - AUTO_MARGIN) {
        best
    } else {
        Swizzle::Off
    }
}

impl Default for Swizzle {
    /// [`Swizzle::Off`]: on the H100 only kernels that gather widely gain from tiles,
    /// and kernels that stream lose 3-9% (docs/PERFORMANCE.md). Not [`Swizzle::Auto`],
    /// whose first call per kernel and grid waits for the GPU while it measures.
    fn default() -> Self {
        Swizzle::Off
    }
}

impl Swizzle {
    /// `self`, or an error for a tile width or band size of 0.
    fn checked(self, op: &'static str) -> Result<Swizzle> {
        match self {
            Swizzle::Tiles { n: 0 } => Err(Error::InvalidArgument {
                op,
                message: "Swizzle::Tiles { n: 0 }: the tile width must be at least 1 workgroup \
                          (16 is the usual choice)"
                    .into(),
            }),
            Swizzle::Bands { workgroups: 0 } => Err(Error::InvalidArgument {
                op,
                message: "Swizzle::Bands { workgroups: 0 }: a band must hold at least 1 \
                          workgroup (1024 is a good start)"
                    .into(),
            }),
            other => Ok(other),
        }
    }
}

/// Thread-group ID swizzling: the workgroup that the launch calls `group` (of a dispatch
/// of `groups` workgroups) processes the returned workgroup position instead.
///
/// Launch order is row-major (`group.1 * groups.0 + group.0`); the result walks vertical
/// tiles `n` workgroups wide, the first tile top to bottom, then the next. When `groups.0`
/// is not a multiple of `n`, the last tile is `groups.0 % n` wide (NVIDIA's corrected
/// version; the GDC 2019 original was wrong there). `n` is clamped to `[1, groups.0]`, so
/// `n >= groups.0` is the identity. For every `groups` and `n` this is a bijection of
/// the grid onto itself while `groups.0 * groups.1` fits a `u32` (always so within the
/// dispatch limit of 65535 per dimension). Outside the grid (or for an empty grid) the
/// result is unspecified but never panics.
///
/// [`SWIZZLE_WGSL`] computes the same mapping on the GPU.
///
/// ```
/// use gpuprim::swizzle;
/// // 5 x 2 groups, tiles 2 wide: launch order fills (0,0) (1,0) (0,1) (1,1), then the
/// // next tile (2,0) (3,0) (2,1) (3,1), then the 1-wide last tile (4,0) (4,1).
/// assert_eq!(swizzle((2, 0), (5, 2), 2), (0, 1));
/// assert_eq!(swizzle((4, 0), (5, 2), 2), (2, 0));
/// assert_eq!(swizzle((3, 1), (5, 2), 2), (4, 0));
/// assert_eq!(swizzle((4, 1), (5, 2), 2), (4, 1));
/// ```
pub fn swizzle(group: (u32, u32), groups: (u32, u32), n: u32) -> (u32, u32) {
    let (w, h) = groups;
    if w == 0 || h == 0 {
        return group;
    }
    let n = n.clamp(1, w);
    let flat = group.1.wrapping_mul(w).wrapping_add(group.0);
    let per_tile = n.wrapping_mul(h).max(1);
    let tile = flat / per_tile;
    let local = flat % per_tile;
    let tile_w = if tile < w / n { n } else { (w % n).max(1) };
    (
        tile.wrapping_mul(n).wrapping_add(local % tile_w),
        local / tile_w,
    )
}

/// The band order of [`Swizzle::Bands`]: where the workgroup launched as `group` (row-major
/// launch order over a dispatch of `groups` = (width, height) workgroups) works. The grid
/// is cut into bands of `rows = clamp(workgroups / width, 1, height)` whole rows (the last
/// band may be shorter), and each band is walked column by column, top to bottom. A
/// bijection on the grid; the 2D kernels' WGSL computes the same with the grid as
/// constants, and [`SWIZZLE_WGSL`]'s `swizzle_bands_group` for kernels of your own.
///
/// ```
/// use gpuprim::swizzle_bands;
/// // 4 x 4 groups, bands of 8 groups = 2 rows: launches 0..8 walk columns of 2.
/// assert_eq!(swizzle_bands((0, 0), (4, 4), 8), (0, 0));
/// assert_eq!(swizzle_bands((1, 0), (4, 4), 8), (0, 1));
/// assert_eq!(swizzle_bands((2, 0), (4, 4), 8), (1, 0));
/// assert_eq!(swizzle_bands((0, 2), (4, 4), 8), (0, 2)); // the second band
/// ```
pub fn swizzle_bands(group: (u32, u32), groups: (u32, u32), workgroups: u32) -> (u32, u32) {
    let (w, h) = groups;
    if w == 0 || h == 0 {
        return group;
    }
    let rows = band_rows(groups, workgroups);
    let flat = group.1.wrapping_mul(w).wrapping_add(group.0);
    let per_band = rows.wrapping_mul(w).max(1);
    let band = flat / per_band;
    let local = flat % per_band;
    let band_h = if band < h / rows {
        rows
    } else {
        (h % rows).max(1)
    };
    (
        local / band_h,
        band.wrapping_mul(rows).wrapping_add(local % band_h),
    )
}

/// Rows of workgroups per band for [`Swizzle::Bands`].
fn band_rows((w, h): (u32, u32), workgroups: u32) -> u32 {
    (workgroups / w.max(1)).clamp(1, h.max(1))
}

/// The `SwizzleParams` of wgsl/swizzle.wgsl for a dispatch of `groups` workgroups and the
/// tile width `n` (0: off, all zeros): `swizzle_tiles` with these computes
/// [`swizzle`]`(group, groups, n)` without a division.
fn swizzle_params(groups: (u32, u32), n: u32) -> [u32; 8] {
    let (w, h) = groups;
    if n == 0 || w == 0 || h == 0 {
        return [0; 8];
    }
    let n = n.clamp(1, w);
    // n * h <= w * h < 2^32 within the dispatch limits; wrapping only past them.
    let per_tile = n.wrapping_mul(h);
    let (full_tiles, last_w) = (w / n, w % n);
    let exact = u64::from(w) * u64::from(h) > SWIZZLE_F32_GROUPS;
    [
        n,
        per_tile,
        full_tiles,
        last_w,
        swizzle_rcp(per_tile).to_bits(),
        swizzle_rcp(n).to_bits(),
        swizzle_rcp(last_w).to_bits(),
        u32::from(exact),
    ]
}

/// The pipeline-key variant and the WGSL `remap` function of a dispatch of `groups`
/// workgroups with tile width `n` (0: off, the identity).
fn remap_wgsl(groups: (u32, u32), order: Swizzle) -> (String, String) {
    let n = match order {
        // Auto is resolved to one of its candidates before a kernel is built.
        Swizzle::Off | Swizzle::Auto => {
            let identity =
                "fn remap(g: vec2<u32>, groups: vec2<u32>) -> vec2<u32> {\n    return g;\n}\n";
            return (String::new(), identity.to_string());
        }
        Swizzle::Bands { workgroups } => return bands_wgsl(groups, workgroups),
        Swizzle::Tiles { n } => n,
    };
    let s = swizzle_params(groups, n);
    let float = |w: u32| format!("bitcast<f32>({w}u)");
    let remap = format!(
        "fn remap(g: vec2<u32>, groups: vec2<u32>) -> vec2<u32> {{\n    \
         let s = SwizzleParams({}u, {}u, {}u, {}u, {}, {}, {}, {}u);\n    \
         return swizzle_tiles(g, vec2<u32>({}u, {}u), s);\n}}\n",
        s[0],
        s[1],
        s[2],
        s[3],
        float(s[4]),
        float(s[5]),
        float(s[6]),
        s[7],
        groups.0,
        groups.1
    );
    (
        format!("swizzle {}x{} n={}", groups.0, groups.1, s[0]),
        remap,
    )
}

/// [`swizzle_bands`] for one grid, as WGSL with the grid and the band as constants (the
/// compiler turns the divisions into multiplies), and its pipeline variant.
fn bands_wgsl((w, h): (u32, u32), workgroups: u32) -> (String, String) {
    let rows = band_rows((w, h), workgroups);
    let band_h = if h % rows == 0 {
        format!("{rows}u")
    } else {
        format!("select({}u, {rows}u, band < {}u)", h % rows, h / rows)
    };
    let remap = format!(
        "fn remap(g: vec2<u32>, groups: vec2<u32>) -> vec2<u32> {{\n    \
         let flat = g.y * {w}u + g.x;\n    \
         let band = flat / {per_band}u;\n    \
         let local = flat % {per_band}u;\n    \
         let band_h = {band_h};\n    \
         return vec2<u32>(local / band_h, band * {rows}u + local % band_h);\n}}\n",
        per_band = rows * w,
    );
    (format!("bands {w}x{h} rows={rows}"), remap)
}

/// The f32 nearest `1 / d` (0 for 0): IEEE division of exact operands for d <= 2^24, the
/// range `swizzle_div` uses.
fn swizzle_rcp(d: u32) -> f32 {
    if d == 0 { 0.0 } else { 1.0 / d as f32 }
}

/// Width, height and row pitch of a 2D view, in elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shape {
    width: u32,
    height: u32,
    pitch: u32,
}

impl Shape {
    fn new(op: &'static str, len: usize, width: u32, height: u32, pitch: u32) -> Result<Shape> {
        if width == 0 || height == 0 {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "a {width} x {height} grid is empty; width and height must be at least 1"
                ),
            });
        }
        if pitch < width {
            return Err(Error::InvalidArgument {
                op,
                message: format!("row pitch {pitch} is less than the width {width}"),
            });
        }
        let needed = u64::from(pitch) * u64::from(height - 1) + u64::from(width);
        if needed > len as u64 {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "a {width} x {height} grid with row pitch {pitch} needs \
                     pitch * (height - 1) + width = {needed} elements, but the vector has {len}"
                ),
            });
        }
        Ok(Shape {
            width,
            height,
            pitch,
        })
    }
}

/// A read-only 2D view of a [`GpuVec`]: `height` rows of `width` elements, row `y`
/// starting at element `y * pitch`. The input of the 2D kernels.
///
/// ```
/// let ctx = gpuprim::Ctx::new()?;
/// let v = ctx.upload(&[0u32; 12])?;
/// let g = gpuprim::Grid2D::with_pitch(&v, 3, 2, 8)?;   // 3 x 2 in a pitch of 8
/// assert_eq!((g.width(), g.height(), g.pitch()), (3, 2, 8));
/// assert!(gpuprim::Grid2D::new(&v, 4, 4).is_err());    // needs 16 elements
/// # Ok::<(), gpuprim::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Grid2D<'a, T: GpuElement> {
    vec: &'a GpuVec<T>,
    shape: Shape,
}

/// A writable 2D view of a [`GpuVec`] (see [`Grid2D`]): the output of the 2D kernels.
/// Elements between `width` and `pitch` in each row are left untouched.
#[derive(Debug)]
pub struct Grid2DMut<'a, T: GpuElement> {
    vec: &'a mut GpuVec<T>,
    shape: Shape,
}

/// The accessors both views share.
macro_rules! grid_accessors {
    ($view:ident) => {
        impl<T: GpuElement> $view<'_, T> {
            /// Elements per row.
            pub fn width(&self) -> u32 {
                self.shape.width
            }
            /// Rows.
            pub fn height(&self) -> u32 {
                self.shape.height
            }
            /// Elements from the start of one row to the start of the next.
            pub fn pitch(&self) -> u32 {
                self.shape.pitch
            }
            /// The vector viewed.
            pub fn vec(&self) -> &GpuVec<T> {
                self.vec
            }
        }
    };
}
grid_accessors!(Grid2D);
grid_accessors!(Grid2DMut);

impl<'a, T: GpuElement> Grid2D<'a, T> {
    /// A tightly packed `width` x `height` view (pitch = width).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `width` or `height` is 0 or the vector has fewer
    /// than `width * height` elements (the message names the numbers).
    pub fn new(vec: &'a GpuVec<T>, width: u32, height: u32) -> Result<Self> {
        Self::with_pitch(vec, width, height, width)
    }

    /// A `width` x `height` view whose rows start `pitch` elements apart.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `width` or `height` is 0, `pitch < width`, or the
    /// vector has fewer than `pitch * (height - 1) + width` elements.
    pub fn with_pitch(vec: &'a GpuVec<T>, width: u32, height: u32, pitch: u32) -> Result<Self> {
        let shape = Shape::new("Grid2D::new", vec.len(), width, height, pitch)?;
        Ok(Grid2D { vec, shape })
    }
}

impl<'a, T: GpuElement> Grid2DMut<'a, T> {
    /// A tightly packed writable `width` x `height` view; errors as [`Grid2D::new`].
    pub fn new(vec: &'a mut GpuVec<T>, width: u32, height: u32) -> Result<Self> {
        Self::with_pitch(vec, width, height, width)
    }

    /// A writable view with row pitch `pitch`; errors as [`Grid2D::with_pitch`].
    pub fn with_pitch(vec: &'a mut GpuVec<T>, width: u32, height: u32, pitch: u32) -> Result<Self> {
        let shape = Shape::new("Grid2DMut::new", vec.len(), width, height, pitch)?;
        Ok(Grid2DMut { vec, shape })
    }
}

impl Ctx {
    /// Computes every element `(x, y)` of `dst` from a WGSL `body`, reading `src` anywhere.
    ///
    /// `body` is a WGSL expression of the element type in `x` and `y` (the output
    /// coordinates, `i32`), and may call `load(x: i32, y: i32) -> T`, which returns the
    /// input element at `(x, y)` with the coordinates clamped to `src`'s edges, e.g. a
    /// vertical 3-tap blur: `"load(x, y) * 0.5 + load(x, y - 1) * 0.25 + load(x, y + 1) *
    /// 0.25"`. `src` and `dst` may differ in size (a body can scale coordinates). WGSL
    /// built-ins and [`RANDOM_WGSL`] are available.
    ///
    /// One thread per output element in 16 x 16 workgroups (8 x 8 on a device with fewer
    /// than 256 invocations per workgroup), their IDs remapped by `swizzle`. The work is
    /// recorded without waiting (but for the first [`Swizzle::Auto`] call of a body and
    /// grid, which measures).
    ///
    /// # Errors
    /// [`Error::Compile`] if the body is not valid WGSL of the element type,
    /// [`Error::InvalidArgument`] for a body that is not exactly one WGSL expression, for
    /// `Swizzle::Tiles { n: 0 }`, a grid needing more workgroups per dimension than the
    /// device allows, or a vector larger than one storage binding; [`Error::ContextMismatch`] for vectors of another `Ctx`.
    /// The first [`Swizzle::Auto`] call at a grid size waits for the GPU, so it can also
    /// return what [`Ctx::synchronize`] returns (a lost device, an earlier call's error).
    ///
    /// # Examples
    /// ```
    /// use gpuprim::{Grid2D, Grid2DMut, Swizzle};
    /// let ctx = gpuprim::Ctx::new()?;
    /// // 3 x 2 image, rows [1 2 3] and [4 5 6]; out(x, y) = in(x + 1, y) (clamped) * 10
    /// let a = ctx.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    /// let mut b = ctx.zeros::<f32>(6)?;
    /// ctx.map2d(
    ///     &Grid2D::new(&a, 3, 2)?,
    ///     &mut Grid2DMut::new(&mut b, 3, 2)?,
    ///     "load(x + 1, y) * 10.0",
    ///     Swizzle::Off,
    /// )?;
    /// assert_eq!(b.to_vec()?, vec![20.0, 30.0, 30.0, 50.0, 60.0, 60.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn map2d<T: GpuElement>(
        &self,
        src: &Grid2D<'_, T>,
        dst: &mut Grid2DMut<'_, T>,
        body: &str,
        swizzle: Swizzle,
    ) -> Result<()> {
        let op = "map2d";
        self.check_owned(op, &[&src.vec.ctx, &dst.vec.ctx])?;
        self.check_element::<T>()?;
        crate::expr::check_expression(op, "body", body)?;
        let order = swizzle.checked(op)?;
        let side = self.side2d();
        let groups = self.groups2d(
            op,
            dst.shape.width,
            dst.shape.height,
            (side, side * MAP2D_ROWS),
        )?;
        self.check_binding(op, "src", src.vec)?;
        self.check_binding(op, "dst", dst.vec)?;
        let params = params_words(src.shape, dst.shape, 0);
        self.ordered((op, T::WGSL, body), (groups, params), order, |order| {
            let kernel = self.kernel2d(
                op,
                (T::WGSL, side * side, body),
                (groups, order),
                MAP2D_WGSL,
                &[
                    ("LIB", RANDOM_WGSL),
                    ("ENABLE", T::ENABLE),
                    ("T", T::WGSL),
                    ("WG", &side.to_string()),
                    ("ROWS", &MAP2D_ROWS.to_string()),
                    ("EXPR", body),
                ],
            )?;
            run_grids(self, op, &kernel, groups, (src, dst), &params)
        })
    }

    /// Writes the transpose of `src` into `dst`: `dst(y, x) = src(x, y)`, so `dst` must be
    /// `src.height()` wide and `src.width()` high (their pitches are free).
    ///
    /// 32 x 32 tiles go through workgroup memory (33 columns, so the column-wise read has
    /// no bank conflicts): both the reads of `src` and the writes of `dst` are row-wise.
    /// Each thread issues its four loads before its stores, and tiles wholly inside the
    /// grid skip per-element bounds checks (only the ragged edge tiles check).
    /// `swizzle` remaps the tiles' workgroup IDs. Exact for every element type.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `dst`'s shape is not `src`'s transposed (the message
    /// names both), for `Swizzle::Tiles { n: 0 }`, too many workgroups per dimension or a
    /// vector larger than one storage binding; [`Error::ContextMismatch`].
    /// The first [`Swizzle::Auto`] call at a grid size waits for the GPU, so it can also
    /// return what [`Ctx::synchronize`] returns (a lost device, an earlier call's error).
    ///
    /// # Examples
    /// ```
    /// use gpuprim::{Grid2D, Grid2DMut, Swizzle};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[1u32, 2, 3, 4, 5, 6])?;       // 3 wide, 2 high
    /// let mut t = ctx.zeros::<u32>(6)?;
    /// ctx.transpose(&Grid2D::new(&a, 3, 2)?, &mut Grid2DMut::new(&mut t, 2, 3)?, Swizzle::Off)?;
    /// assert_eq!(t.to_vec()?, vec![1, 4, 2, 5, 3, 6]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn transpose<T: GpuElement>(
        &self,
        src: &Grid2D<'_, T>,
        dst: &mut Grid2DMut<'_, T>,
        swizzle: Swizzle,
    ) -> Result<()> {
        let op = "transpose";
        self.check_owned(op, &[&src.vec.ctx, &dst.vec.ctx])?;
        self.check_element::<T>()?;
        let (s, d) = (src.shape, dst.shape);
        if (d.width, d.height) != (s.height, s.width) {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "the transpose of a {} x {} src is {} x {}, but dst is {} x {}",
                    s.width, s.height, s.height, s.width, d.width, d.height
                ),
            });
        }
        let order = swizzle.checked(op)?;
        let groups = self.groups2d(op, s.width, s.height, (TILE, TILE))?;
        self.check_binding(op, "src", src.vec)?;
        self.check_binding(op, "dst", dst.vec)?;
        let params = params_words(s, d, 0);
        self.ordered((op, T::WGSL, ""), (groups, params), order, |order| {
            let kernel = self.kernel2d(
                op,
                (T::WGSL, TILE * 8, ""),
                (groups, order),
                TRANSPOSE_WGSL,
                &[("ENABLE", T::ENABLE), ("T", T::WGSL)],
            )?;
            run_grids(self, op, &kernel, groups, (src, dst), &params)
        })
    }

    /// Applies a 4 x 4 colour matrix to every pixel of an RGBA `f32` image: `out =
    /// matrix * in` per pixel, `matrix[row][col]`, so `out.r = matrix[0][0] * r +
    /// matrix[0][1] * g + matrix[0][2] * b + matrix[0][3] * a` (HLSL's `mul(M, v)`).
    ///
    /// `rgba` holds `width * height` pixels of 4 floats, row-major, no padding; `out` has
    /// the same length. One thread per pixel, 16 x 16 workgroups, IDs remapped by
    /// `swizzle` (the articles' sample). The GPU may fuse multiply-adds, so results can
    /// differ from a CPU loop by a few ulps of the largest term.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a zero width or height, `Swizzle::Tiles { n: 0 }`,
    /// too many workgroups per dimension, or a vector larger than one storage binding;
    /// [`Error::LengthMismatch`] if `rgba` is not `4 * width * height` long or `out`
    /// differs from it; [`Error::ContextMismatch`].
    /// The first [`Swizzle::Auto`] call at a grid size waits for the GPU, so it can also
    /// return what [`Ctx::synchronize`] returns (a lost device, an earlier call's error).
    ///
    /// # Examples
    /// ```
    /// use gpuprim::Swizzle;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let img = ctx.upload(&[1.0f32, 0.5, 0.25, 1.0, 0.0, 1.0, 0.0, 1.0])?;  // 2 x 1 pixels
    /// let mut out = ctx.zeros::<f32>(8)?;
    /// let swap_rb = [[0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]];
    /// ctx.color_filter(&img, 2, 1, swap_rb, &mut out, Swizzle::Off)?;
    /// assert_eq!(out.to_vec()?, vec![0.25, 0.5, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn color_filter(
        &self,
        rgba: &GpuVec<f32>,
        width: u32,
        height: u32,
        matrix: [[f32; 4]; 4],
        out: &mut GpuVec<f32>,
        swizzle: Swizzle,
    ) -> Result<()> {
        let op = "color_filter";
        self.check_owned(op, &[&rgba.ctx, &out.ctx])?;
        if width == 0 || height == 0 {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "a {width} x {height} image is empty; width and height must be at least 1"
                ),
            });
        }
        let pixels = u64::from(width) * u64::from(height);
        check_len(
            op,
            ("rgba", rgba.len()),
            ("4 * width * height", (4 * pixels) as usize),
        )?;
        check_len(op, ("out", out.len()), ("rgba", rgba.len()))?;
        let order = swizzle.checked(op)?;
        let side = self.side2d();
        let groups = self.groups2d(op, width, height, (side, side))?;
        self.check_binding(op, "rgba", rgba)?;
        self.check_binding(op, "out", out)?;
        // Params: width, height, 2 pad words, the matrix rows.
        let mut words = [0u32; 20];
        words[..2].copy_from_slice(&[width, height]);
        for (r, row) in matrix.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                words[4 + 4 * r + c] = v.to_bits();
            }
        }
        // The matrix does not change how fast an order runs: Auto measures per shape.
        let shape = [width, height, 0, 0, 0, 0, 0, 0];
        self.ordered((op, "f32", ""), (groups, shape), order, |order| {
            let kernel = self.kernel2d(
                op,
                ("f32", side * side, ""),
                (groups, order),
                COLOR_WGSL,
                &[("WG", &side.to_string())],
            )?;
            run2d(
                self,
                op,
                &kernel,
                groups,
                rgba.binding(),
                out.binding(),
                bytemuck::cast_slice(&words),
            )
        })
    }

    /// A vertical box blur of radius `radius` over an `f32` grid: `dst(x, y)` is the mean
    /// of `src(x, y + k)` for `k` in `-radius..=radius`, rows clamped to the edges (the
    /// sum is taken in order of `k`, then divided by `2 * radius + 1`). `dst` must have
    /// `src`'s width and height (pitches are free). Each thread reads `2 * radius + 1`
    /// elements of its column: the wide-fetch access that swizzling is for.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if the shapes differ, `radius` exceeds
    /// [`MAX_BLUR_RADIUS`], for `Swizzle::Tiles { n: 0 }`, too many workgroups per
    /// dimension or a vector larger than one storage binding; [`Error::ContextMismatch`].
    /// The first [`Swizzle::Auto`] call at a grid size waits for the GPU, so it can also
    /// return what [`Ctx::synchronize`] returns (a lost device, an earlier call's error).
    ///
    /// # Examples
    /// ```
    /// use gpuprim::{Grid2D, Grid2DMut, Swizzle};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[3.0f32, 6.0, 9.0])?;                  // 1 wide, 3 high
    /// let mut b = ctx.zeros::<f32>(3)?;
    /// ctx.blur_vertical(&Grid2D::new(&a, 1, 3)?, &mut Grid2DMut::new(&mut b, 1, 3)?, 1, Swizzle::Tiles { n: 16 })?;
    /// assert_eq!(b.to_vec()?, vec![4.0, 6.0, 8.0]);               // (3+3+6)/3, (3+6+9)/3, (6+9+9)/3
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn blur_vertical(
        &self,
        src: &Grid2D<'_, f32>,
        dst: &mut Grid2DMut<'_, f32>,
        radius: u32,
        swizzle: Swizzle,
    ) -> Result<()> {
        let op = "blur_vertical";
        self.check_owned(op, &[&src.vec.ctx, &dst.vec.ctx])?;
        let (s, d) = (src.shape, dst.shape);
        if (d.width, d.height) != (s.width, s.height) {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "src is {} x {} but dst is {} x {}; they must match",
                    s.width, s.height, d.width, d.height
                ),
            });
        }
        if radius > MAX_BLUR_RADIUS {
            return Err(Error::InvalidArgument {
                op,
                message: format!("radius {radius} is larger than the maximum {MAX_BLUR_RADIUS}"),
            });
        }
        let order = swizzle.checked(op)?;
        let side = self.side2d();
        let groups = self.groups2d(op, d.width, d.height, (side, side))?;
        self.check_binding(op, "src", src.vec)?;
        self.check_binding(op, "dst", dst.vec)?;
        let params = params_words(s, d, radius);
        self.ordered((op, "f32", ""), (groups, params), order, |order| {
            let kernel = self.kernel2d(
                op,
                ("f32", side * side, ""),
                (groups, order),
                BLUR_WGSL,
                &[("WG", &side.to_string())],
            )?;
            run_grids(self, op, &kernel, groups, (src, dst), &params)
        })
    }

    /// The pipeline of a 2D kernel: `template` rendered with the shared prelude
    /// (`{{PARAMS}}`, where the template has it, then `{{SWIZZLE}}` and `{{REMAP}}`) and
    /// then `vars`; keyed by `op`, `(element type, invocations per workgroup, user code)`
    /// and, when swizzled (tile width `n` > 0), the dispatch's `groups` and `n`.
    ///
    /// A swizzled kernel gets its grid and `SwizzleParams` as WGSL constants, so the
    /// compiler folds the remapping into a few integer operations: one pipeline per grid
    /// size and tile width. On the H100 the r = 32 blur at 4096^2 gained 1.20-1.25x over
    /// linear with the constants, 1.196-1.208x with the same values in a uniform; the
    /// streaming kernels' loss did not change (docs/PERFORMANCE.md).
    fn kernel2d(
        &self,
        op: &'static str,
        (element, workgroup_size, code): (&'static str, u32, &str),
        (groups, order): ((u32, u32), Swizzle),
        template: &str,
        vars: &[(&str, &str)],
    ) -> Result<Arc<Kernel>> {
        let (variant, remap) = remap_wgsl(groups, order);
        let key = PipelineKey {
            op,
            element,
            workgroup_size,
            variant,
            code: code.to_string(),
        };
        self.kernel(key, || {
            let mut all = vec![
                ("PARAMS", PARAMS_WGSL),
                ("SWIZZLE", SWIZZLE_WGSL),
                ("REMAP", remap.as_str()),
            ];
            all.extend_from_slice(vars);
            render(template, &all)
        })
    }

    /// Runs a 2D kernel once in `order` (`run(order)` builds and records it), resolving
    /// [`Swizzle::Auto`] first: the choice made earlier for this kernel (`op`, element
    /// type, user code) and dispatch (`groups`, `shape`: the words that size the work), or
    /// one measured now (see [`Swizzle::Auto`]).
    fn ordered(
        &self,
        (op, element, code): (&'static str, &'static str, &str),
        (groups, shape): ((u32, u32), [u32; 8]),
        order: Swizzle,
        run: impl Fn(Swizzle) -> Result<()>,
    ) -> Result<()> {
        if order != Swizzle::Auto {
            return run(order);
        }
        if u64::from(groups.0) * u64::from(groups.1) < u64::from(AUTO_MIN_WORKGROUPS) {
            return run(Swizzle::Off);
        }
        let key: ChoiceKey = (op, element, groups, shape);
        let known = self
            .inner
            .swizzles
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            .and_then(|v| v.iter().find(|c| c.code == code))
            .map(|c| c.chosen);
        if let Some(chosen) = known {
            return run(chosen);
        }
        let ms = self.measure_orders(&run)?;
        let chosen = pick(&ms);
        let choice = SwizzleChoice {
            op,
            element,
            code: code.to_string(),
            groups,
            shape,
            chosen,
            ms,
        };
        let mut map = self
            .inner
            .swizzles
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let same = map.entry(key).or_default();
        // Another thread may have measured the same kernel meanwhile: keep one entry.
        same.retain(|c| c.code != code);
        same.push(choice);
        Ok(())
    }

    /// Milliseconds per call of `run` in each of [`AUTO_CANDIDATES`]: each run once
    /// (pipelines compiled, caches warm), then five rounds that time every candidate in
    /// turn over the same number of calls (about 8 ms of the linear order's time, at least
    /// 3 calls), host clock from the first submission to the GPU's completion; the best
    /// round of each.
    fn measure_orders(&self, run: &impl Fn(Swizzle) -> Result<()>) -> Result<Vec<(Swizzle, f64)>> {
        use std::time::Instant;
        const ROUNDS: usize = 5;
        const ROUND_MS: f64 = 8.0;
        for order in AUTO_CANDIDATES {
            run(order)?;
        }
        self.synchronize()?;
        let t = Instant::now();
        run(Swizzle::Off)?;
        self.synchronize()?;
        let one = t.elapsed().as_secs_f64() * 1e3;
        let calls = ((ROUND_MS / one.max(1e-3)) as usize).clamp(3, 256);
        let mut best = [f64::INFINITY; AUTO_CANDIDATES.len()];
        for _ in 0..ROUNDS {
            for (i, order) in AUTO_CANDIDATES.into_iter().enumerate() {
                let t = Instant::now();
                for _ in 0..calls {
                    run(order)?;
                }
                self.synchronize()?;
                best[i] = best[i].min(t.elapsed().as_secs_f64() * 1e3 / calls as f64);
            }
        }
        Ok(AUTO_CANDIDATES.into_iter().zip(best).collect())
    }

    /// What [`Swizzle::Auto`] has chosen so far on this `Ctx`, one entry per kernel and
    /// dispatch it measured, with the times it measured; sorted by op, element type,
    /// dispatch, body and shape.
    ///
    /// # Examples
    /// ```
    /// use gpuprim::{Grid2D, Grid2DMut, Swizzle};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&vec![1.0f32; 256 * 256])?;
    /// let mut b = ctx.zeros::<f32>(256 * 256)?;
    /// let (src, mut dst) = (Grid2D::new(&a, 256, 256)?, Grid2DMut::new(&mut b, 256, 256)?);
    /// ctx.blur_vertical(&src, &mut dst, 4, Swizzle::Auto)?;  // measures, then keeps one
    /// let choices = ctx.swizzle_choices();
    /// assert_eq!(choices.len(), 1);
    /// assert_eq!(choices[0].op, "blur_vertical");
    /// assert_eq!(choices[0].ms.len(), 3);
    /// assert_eq!(b.to_vec()?, vec![1.0; 256 * 256]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn swizzle_choices(&self) -> Vec<SwizzleChoice> {
        let map = self
            .inner
            .swizzles
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let mut v: Vec<SwizzleChoice> = map.values().flatten().cloned().collect();
        v.sort_by(|a, b| {
            (a.op, a.element, a.groups, &a.code, a.shape)
                .cmp(&(b.op, b.element, b.groups, &b.code, b.shape))
        });
        v
    }

    /// Side of the square 2D workgroups: 16, or 8 where 256 invocations are not allowed.
    fn side2d(&self) -> u32 {
        let l = &self.info().limits;
        if l.max_compute_invocations_per_workgroup >= 256
            && l.max_compute_workgroup_size_x >= 16
            && l.max_compute_workgroup_size_y >= 16
        {
            SIDE
        } else {
            SIDE / 2
        }
    }

    /// Workgroups covering `width` x `height` with groups of `gw` x `gh` elements, within the
    /// limit.
    fn groups2d(
        &self,
        op: &'static str,
        width: u32,
        height: u32,
        (gw, gh): (u32, u32),
    ) -> Result<(u32, u32)> {
        let groups = (width.div_ceil(gw), height.div_ceil(gh));
        let max = self.info().max_workgroups_per_dimension;
        if groups.0 > max || groups.1 > max {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "a {width} x {height} grid needs {} x {} workgroups, each covering {gw} x \
                     {gh} elements: more than this device's {max} per dimension; 2D kernels do \
                     not fold their dispatch, so width must be at most {} and height at most {}",
                    groups.0,
                    groups.1,
                    u64::from(max) * u64::from(gw),
                    u64::from(max) * u64::from(gh)
                ),
            });
        }
        Ok(groups)
    }

    /// `Err(InvalidArgument)` unless `v`'s buffer fits one storage binding.
    fn check_binding<T: GpuElement>(
        &self,
        op: &'static str,
        name: &str,
        v: &GpuVec<T>,
    ) -> Result<()> {
        let bytes = v.padded_bytes();
        let limit = self.info().max_binding_bytes;
        if bytes > limit {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "{name} ({} elements, {bytes} bytes) must fit one storage binding of at most \
                     {limit} bytes; 2D kernels bind each vector whole",
                    v.len()
                ),
            });
        }
        Ok(())
    }
}

/// The `Params` uniform of map2d, transpose and blur_vertical (`wgsl/grid2d_params.wgsl`):
/// the shapes, one word for the kernel (blur's radius) and a pad word.
fn params_words(src: Shape, dst: Shape, extra: u32) -> [u32; 8] {
    [
        src.width, src.height, src.pitch, dst.width, dst.height, dst.pitch, extra, 0,
    ]
}

/// Runs a kernel of `wgsl/grid2d_params.wgsl`'s bindings over `groups`: `src` and `dst`
/// bound whole, the uniform holding `params` (`params_words`).
fn run_grids<T: GpuElement>(
    ctx: &Ctx,
    op: &'static str,
    kernel: &Kernel,
    groups: (u32, u32),
    (src, dst): (&Grid2D<'_, T>, &Grid2DMut<'_, T>),
    params: &[u32; 8],
) -> Result<()> {
    run2d(
        ctx,
        op,
        kernel,
        groups,
        src.vec.binding(),
        dst.vec.binding(),
        bytemuck::cast_slice(params),
    )
}

/// Records and submits one 2D dispatch: binding 0 `src`, 1 `dst` (whole vectors), 2 a
/// uniform holding `params` (kept by content, so repeated calls upload nothing).
fn run2d(
    ctx: &Ctx,
    op: &'static str,
    kernel: &Kernel,
    groups: (u32, u32),
    src: wgpu::BindingResource<'_>,
    dst: wgpu::BindingResource<'_>,
    params: &[u8],
) -> Result<()> {
    let uniform = ctx.uniform_constant(params)?;
    let step = Step {
        kernel,
        entries: vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: src,
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: dst,
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: uniform.as_entire_binding(),
            },
        ],
        grid: [groups.0, groups.1, 1],
    };
    submit_steps(ctx, op, [step])
}

#[cfg(test)]
mod tests {
    #[test]
    fn auto_picks_the_fastest_only_past_the_margin() {
        use super::{AUTO_MARGIN, Swizzle, pick};
        let (t, b) = (
            Swizzle::Tiles { n: 16 },
            Swizzle::Bands { workgroups: 1024 },
        );
        let m = |l: f64, x: f64, y: f64| [(Swizzle::Off, l), (t, x), (b, y)];
        assert_eq!(pick(&m(1.0, 0.9, 0.95)), t);
        assert_eq!(pick(&m(1.0, 0.95, 0.9)), b);
        // Faster, but not by the margin: linear.
        let near = 1.0 - AUTO_MARGIN / 2.0;
        assert_eq!(pick(&m(1.0, near, 1.1)), Swizzle::Off);
        // Exactly the margin is enough; slower or equal never is.
        assert_eq!(pick(&m(1.0, 1.0 - AUTO_MARGIN, 1.0)), t);
        assert_eq!(pick(&m(1.0, 1.0, 1.2)), Swizzle::Off);
        // Ties between the others: the first listed.
        assert_eq!(pick(&m(1.0, 0.5, 0.5)), t);
        assert_eq!(pick(&[]), Swizzle::Off);
    }

    #[test]
    fn auto_runs_the_order_it_chose() {
        use super::{AUTO_CANDIDATES, Swizzle};
        let ctx = crate::Ctx::new().expect("a GPU context (lavapipe will do)");
        // A kernel that records the orders it is run in and does no GPU work.
        let log = std::cell::RefCell::new(Vec::new());
        let run = |order: Swizzle| {
            log.borrow_mut().push(order);
            Ok(())
        };
        let take = || std::mem::take(&mut *log.borrow_mut());
        let (kernel, dispatch) = (("map2d", "f32", "body"), ((64, 64), [7u32; 8]));
        ctx.ordered(kernel, dispatch, Swizzle::Auto, run).unwrap();
        let measured = take();
        for c in AUTO_CANDIDATES {
            assert!(measured.contains(&c), "{c:?} not measured");
        }
        let chosen = ctx.swizzle_choices()[0].chosen;
        ctx.ordered(kernel, dispatch, Swizzle::Auto, run).unwrap();
        assert_eq!(take(), [chosen], "the choice, once, unmeasured");
        // Whatever was chosen is what runs: set it to each candidate.
        for c in AUTO_CANDIDATES {
            let mut map = ctx.inner.swizzles.lock().unwrap();
            map.get_mut(&("map2d", "f32", (64, 64), [7; 8])).unwrap()[0].chosen = c;
            drop(map);
            ctx.ordered(kernel, dispatch, Swizzle::Auto, run).unwrap();
            assert_eq!(take(), [c]);
        }
        // Fixed orders run as given; a small dispatch runs linear, unmeasured.
        let tiles = Swizzle::Tiles { n: 3 };
        ctx.ordered(kernel, dispatch, tiles, run).unwrap();
        assert_eq!(take(), [tiles]);
        ctx.ordered(kernel, ((31, 1), [7; 8]), Swizzle::Auto, run)
            .unwrap();
        assert_eq!(take(), [Swizzle::Off]);
        assert_eq!(ctx.swizzle_choices().len(), 1);
    }

    use super::{
        SWIZZLE_F32_GROUPS, SWIZZLE_WGSL, bands_wgsl, swizzle, swizzle_bands, swizzle_params,
        swizzle_rcp,
    };
    use rayon::prelude::*;

    #[test]
    fn swizzle_small_grid_by_hand() {
        // 3 x 2 groups, n = 2: tile 0 is columns 0..2, tile 1 column 2.
        let order: Vec<_> = (0..2)
            .flat_map(|y| (0..3).map(move |x| swizzle((x, y), (3, 2), 2)))
            .collect();
        assert_eq!(order, [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (2, 1)]);
    }

    /// swizzle_div of wgsl/swizzle.wgsl, given the product `f32(a) * r` as rounded.
    fn div_step(a: u32, d: u32, product: f32) -> u32 {
        let q = product as u32; // WGSL's u32(f32): toward zero
        let rem = a.wrapping_sub(q.wrapping_mul(d)) as i32;
        q + u32::from(rem >= d as i32) - u32::from(rem < 0)
    }

    /// The two f32 values next to `x >= 0` (the same one twice when `x` is an f32).
    fn f32_bracket(x: f64) -> (f32, f32) {
        let f = x as f32;
        let fx = f64::from(f);
        if fx == x {
            (f, f)
        } else if fx > x {
            (f32::from_bits(f.to_bits() - 1), f)
        } else {
            (f, f32::from_bits(f.to_bits() + 1))
        }
    }

    /// Divisors the swizzle divides by: every tile width up to 64 (the widths `n` and the
    /// last tile's `groups.x % n`), and tile sizes `n * groups.y` up to 2^24.
    fn divisors() -> Vec<u32> {
        let mut d: Vec<u32> = (1..=64).collect();
        d.extend([
            65,
            100,
            127,
            255,
            256,
            257,
            1000,
            4095,
            16 * 3,
            16 * 255,
            16 * 4097,
            3 * 4097,
            65535,
            65536,
            65537,
            (1 << 20) - 1,
            3 << 20,
            (1 << 23) + 1,
            (1 << 24) - 3,
            (1 << 24) - 1,
            1 << 24,
        ]);
        // And some from a seeded xorshift, spread over [65, 2^24].
        let mut x = 0x2545_f491u32;
        for _ in 0..24 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            d.push(65 + x % ((1 << 24) - 64));
        }
        d
    }

    /// The division step is exact for every numerator below 2^24, whichever way the GPU
    /// rounds the product `f32(a) * r` (WGSL allows either neighbour): exhaustive over
    /// the numerators for each divisor of `divisors()`.
    #[test]
    fn swizzle_div_is_exact_below_2_pow_24() {
        let divisors = divisors();
        // Without optimisation, the small divisors only (the hardest: largest quotients).
        let take = if cfg!(debug_assertions) {
            8
        } else {
            divisors.len()
        };
        divisors[..take].par_iter().for_each(|&d| {
            let r = swizzle_rcp(d);
            assert!(
                (f64::from(r) * f64::from(d) - 1.0).abs() <= 2f64.powi(-24),
                "1/{d}"
            );
            for a in 0u32..1 << 24 {
                // Exact in f64: 24-bit a times a 24-bit significand.
                let (lo, hi) = f32_bracket(f64::from(a) * f64::from(r));
                let want = a / d;
                let (q_lo, q_hi) = (div_step(a, d, lo), div_step(a, d, hi));
                assert!(
                    q_lo == want && q_hi == want,
                    "{a} / {d}: {q_lo}, {q_hi}, want {want}"
                );
            }
        });
    }

    /// swizzle_tiles of wgsl/swizzle.wgsl, in Rust, with the CPU's rounding.
    fn tiles_model(group: (u32, u32), groups: (u32, u32), s: [u32; 8]) -> (u32, u32) {
        let [
            n,
            per_tile,
            full_tiles,
            last_w,
            rcp_per_tile,
            rcp_n,
            rcp_last,
            exact,
        ] = s;
        if exact != 0 {
            return swizzle(group, groups, n);
        }
        let div = |a: u32, d: u32, r: u32| div_step(a, d, a as f32 * f32::from_bits(r));
        let flat = group.1 * groups.0 + group.0;
        let tile = div(flat, per_tile, rcp_per_tile);
        let local = flat - tile * per_tile;
        let full = tile < full_tiles;
        let tile_w = if full { n } else { last_w };
        let row = div(local, tile_w, if full { rcp_n } else { rcp_last });
        (tile * n + (local - row * tile_w), row)
    }

    #[test]
    fn swizzle_params_give_the_same_mapping() {
        assert_eq!(swizzle_params((7, 3), 0), [0; 8], "off");
        assert_eq!(swizzle_params((7, 3), 100)[..4], [7, 21, 1, 0], "n clamped");
        assert_eq!(swizzle_params((4096, 4096), 16)[7], 0, "2^24 groups: f32");
        assert_eq!(swizzle_params((4096, 4097), 16)[7], 1, "more: exact");
        assert_eq!(SWIZZLE_F32_GROUPS, 1 << 24);
        let grids = (1..=70).flat_map(|w| (1..=70).map(move |h| (w, h)));
        for (w, h) in grids.chain([(4095, 4097), (4096, 4096), (1, 65535), (65535, 256)]) {
            let big = w * h > 10_000;
            if big && cfg!(debug_assertions) {
                continue;
            }
            for n in [1, 2, 3, 5, 8, 10, 16, 32, 100] {
                let s = swizzle_params((w, h), n);
                (0..h).into_par_iter().for_each(|y| {
                    for x in 0..w {
                        let want = swizzle((x, y), (w, h), n);
                        assert_eq!(
                            tiles_model((x, y), (w, h), s),
                            want,
                            "{w}x{h} n={n} ({x},{y})"
                        );
                    }
                });
            }
        }
    }

    /// Grids of workgroups the GPU probes below run: single, partial tiles and bands,
    /// wide and tall.
    const PROBE_GRIDS: [(u32, u32); 7] = [
        (1, 1),
        (5, 2),
        (17, 3),
        (33, 7),
        (40, 40),
        (100, 3),
        (3, 100),
    ];

    /// Compiles `wgsl` (entry `main`; binding 0 is `out`, binding 1 `uniform` if given),
    /// dispatches `grid` workgroups and returns `out`'s words.
    fn probe(
        ctx: &crate::Ctx,
        wgsl: &str,
        cells: usize,
        uniform: Option<&wgpu::Buffer>,
        grid: [u32; 3],
    ) -> Vec<u32> {
        let device = ctx.device();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("swizzle probe"),
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("swizzle probe"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let out = ctx.zeros::<u32>(cells).unwrap();
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: out.buffer().as_entire_binding(),
        }];
        if let Some(u) = uniform {
            entries.push(wgpu::BindGroupEntry {
                binding: 1,
                resource: u.as_entire_binding(),
            });
        }
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(grid[0], grid[1], grid[2]);
        }
        ctx.queue().submit([enc.finish()]);
        out.to_vec().unwrap()
    }

    /// The band order's WGSL (`bands_wgsl`, the grid as constants) on the GPU: every
    /// group of each grid, one invocation each, packed `x | y << 16`, against
    /// [`swizzle_bands`].
    #[test]
    fn bands_on_the_gpu_equal_swizzle_bands() {
        let ctx = crate::Ctx::new().expect("a GPU context (lavapipe will do)");
        for (w, h) in PROBE_GRIDS.into_iter().chain([(256, 255)]) {
            for workgroups in [1, 2, 7, 64, 1024] {
                let (_, remap) = bands_wgsl((w, h), workgroups);
                let wgsl = format!(
                    "{remap}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) g: vec3<u32>, @builtin(local_invocation_index) l: u32) {{
    let i = g.x * 256u + l;
    if i >= {w}u * {h}u {{
        return;
    }}
    let s = remap(vec2<u32>(i % {w}u, i / {w}u), vec2<u32>({w}u, {h}u));
    out[i] = s.x | (s.y << 16u);
}}"
                );
                let cells = (w * h) as usize;
                let got = probe(&ctx, &wgsl, cells, None, [cells.div_ceil(256) as u32, 1, 1]);
                for (i, &v) in got.iter().enumerate() {
                    let i = i as u32;
                    let (x, y) = (i % w, i / w);
                    assert_eq!(
                        (v & 0xffff, v >> 16),
                        swizzle_bands((x, y), (w, h), workgroups),
                        "{w}x{h} bands of {workgroups} ({x},{y})"
                    );
                }
            }
        }
    }

    /// swizzle_tiles on the GPU: every group of each grid, as the arguments of one
    /// invocation each (256 a workgroup), packed `x | y << 16`, against [`swizzle`];
    /// also with `exact` forced on (the path of dispatches past 2^24 groups).
    #[test]
    fn swizzle_tiles_on_the_gpu_equals_swizzle() {
        use wgpu::util::DeviceExt;
        let ctx = crate::Ctx::new().expect("a GPU context (lavapipe will do)");
        let wgsl = format!(
            "{SWIZZLE_WGSL}
struct Probe {{ w: u32, h: u32, pad0: u32, pad1: u32, s: SwizzleParams }}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> p: Probe;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) g: vec3<u32>, @builtin(num_workgroups) gs: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {{
    let i = (g.y * gs.x + g.x) * 256u + l;
    if i >= p.w * p.h {{
        return;
    }}
    let s = swizzle_tiles(vec2<u32>(i % p.w, i / p.w), vec2<u32>(p.w, p.h), p.s);
    out[i] = s.x | (s.y << 16u);
}}"
        );
        let mut cases = vec![];
        for groups in PROBE_GRIDS {
            for n in [1, 2, 3, 8, 16, 32, 100] {
                cases.push((groups, n, false));
                cases.push((groups, n, true));
            }
        }
        for n in [3, 10, 16] {
            cases.push(((4095, 4097), n, false));
            cases.push(((4096, 4096), n, false));
        }
        for ((w, h), n, force_exact) in cases {
            let mut s = swizzle_params((w, h), n);
            if force_exact {
                s[7] = 1;
            }
            let mut words = vec![w, h, 0, 0];
            words.extend(s);
            let uniform = ctx
                .device()
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: None,
                    contents: bytemuck::cast_slice(&words),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            let cells = (w * h) as usize;
            let wgs = cells.div_ceil(256) as u32;
            let rows = wgs.div_ceil(65535);
            let grid = [wgs.div_ceil(rows), rows, 1];
            let got = probe(&ctx, &wgsl, cells, Some(&uniform), grid);
            got.par_iter().enumerate().for_each(|(i, &v)| {
                let i = i as u32;
                let (x, y) = (i % w, i / w);
                let want = swizzle((x, y), (w, h), n);
                assert_eq!(
                    (v & 0xffff, v >> 16),
                    want,
                    "{w}x{h} n={n} exact={force_exact} ({x},{y})"
                );
            });
        }
    }
}
