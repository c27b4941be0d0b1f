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
//! Which order is fastest depends on the kernel, the grid and the GPU: tiles speed up
//! wide gathers and slow streaming kernels a little, and no order wins everywhere
//! (figures in docs/PERFORMANCE.md). Hence
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

use crate::element::GpuElement;
use crate::error::{Error, Result};
#[cfg(doc)]
use crate::ops::random::RANDOM_WGSL;
use crate::runtime::context::Ctx;
use crate::runtime::context::check_len;
use crate::runtime::vec::GpuVec;

// This file: the views, the public kernels and their dispatch. `kernels.rs`: the kernels'
// configuration, parameter blocks and recording. `swizzle.rs`: the workgroup orders
// (`Swizzle`) and their Rust and WGSL twins. `remap.rs`: the `remap` function a kernel is
// compiled with. `auto.rs`: `Swizzle::Auto`'s measured choice.
mod auto;
mod kernels;
mod remap;
mod swizzle;

pub use auto::{AUTO_CANDIDATES, AUTO_MARGIN, AUTO_MIN_WORKGROUPS, SwizzleChoice, SwizzleShape};
use kernels::{ColorParams, Grid2dOp, GridParams, run2d};
pub use swizzle::{SWIZZLE_WGSL, Swizzle, swizzle, swizzle_bands};

/// Largest radius [`Ctx::blur_vertical`] accepts (a 2049-tap column per element).
pub const MAX_BLUR_RADIUS: u32 = 1024;

/// Side of the square workgroups of `map2d` and `color_filter` (16 x 16 = 256 threads).
const SIDE: u32 = 16;
/// Rows each `map2d` invocation computes (`SIDE` apart, so every row of a workgroup stays
/// contiguous): a workgroup covers `SIDE` x `SIDE * MAP2D_ROWS` elements. Four rows,
/// because the 5-tap blur body measured faster with 4 than with 1 (see
/// lab/perf-journal.md).
/// `color_filter` and `blur_vertical` compute one row each: 4 rows made the colour filter
/// no faster and the r = 8 blur slower (its taps run one row after another).
const MAP2D_ROWS: u32 = 4;
/// Side of a `transpose` tile (a 32 x 8 workgroup moves 32 x 32 elements).
const TILE: u32 = 32;

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
        let shape = Shape {
            width,
            height,
            pitch,
        };
        let needed = shape.span();
        if needed > len as u64 {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "a {width} x {height} grid with row pitch {pitch} needs \
                     pitch * (height - 1) + width = {needed} elements, but the vector has {len}"
                ),
            });
        }
        Ok(shape)
    }

    /// Elements from the grid's first to its last, both in: `pitch * (height - 1) +
    /// width` (height is at least 1).
    fn span(&self) -> u64 {
        u64::from(self.pitch) * u64::from(self.height - 1) + u64::from(self.width)
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
    /// Elements of the vector from the grid's first to its last, both in.
    pub(crate) fn span(&self) -> u64 {
        self.shape.span()
    }

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
        vec.require_host_len("Grid2D::new")?;
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
        vec.require_host_len("Grid2DMut::new")?;
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
    /// device allows, or a vector larger than one storage binding;
    /// [`Error::ContextMismatch`] for vectors of another `Ctx`.
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
        let params = GridParams::new(src.shape, dst.shape, 0);
        self.ordered(
            (op, T::WGSL, body),
            (groups, params.shape()),
            order,
            |order| {
                let map2d = Grid2dOp::Map2d {
                    element: T::WGSL,
                    enable: T::ENABLE,
                    side,
                    body: body.to_string(),
                };
                let kernel = self.kernel2d(map2d, groups, order)?;
                run2d(self, op, &kernel, groups, (src.vec, &*dst.vec), &params)
            },
        )
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
        let params = GridParams::new(s, d, 0);
        self.ordered(
            (op, T::WGSL, ""),
            (groups, params.shape()),
            order,
            |order| {
                let transpose = Grid2dOp::Transpose {
                    element: T::WGSL,
                    enable: T::ENABLE,
                };
                let kernel = self.kernel2d(transpose, groups, order)?;
                run2d(self, op, &kernel, groups, (src.vec, &*dst.vec), &params)
            },
        )
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
        let params = ColorParams {
            width,
            height,
            _pad: [0; 2],
            matrix,
        };
        // The matrix does not change how fast an order runs: Auto measures per shape.
        let shape = SwizzleShape {
            src_width: width,
            src_height: height,
            ..SwizzleShape::default()
        };
        self.ordered((op, "f32", ""), (groups, shape), order, |order| {
            let kernel = self.kernel2d(Grid2dOp::ColorFilter { side }, groups, order)?;
            run2d(self, op, &kernel, groups, (rgba, &*out), &params)
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
        let params = GridParams::new(s, d, radius);
        self.ordered((op, "f32", ""), (groups, params.shape()), order, |order| {
            let kernel = self.kernel2d(Grid2dOp::BlurVertical { side }, groups, order)?;
            run2d(self, op, &kernel, groups, (src.vec, &*dst.vec), &params)
        })
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

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`).
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    kernels::catalog(c);
}
