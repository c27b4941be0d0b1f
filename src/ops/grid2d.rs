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
//! same function in WGSL for kernels of your own.
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
use crate::element::GpuElement;
use crate::error::{Error, Result};
use crate::ops::random::RANDOM_WGSL;
use crate::pipeline::{PipelineKey, render};
use crate::vec::GpuVec;

const MAP2D_WGSL: &str = include_str!("../../wgsl/grid2d.wgsl");
const TRANSPOSE_WGSL: &str = include_str!("../../wgsl/grid2d_transpose.wgsl");
const COLOR_WGSL: &str = include_str!("../../wgsl/grid2d_color.wgsl");
const BLUR_WGSL: &str = include_str!("../../wgsl/grid2d_blur.wgsl");

/// Largest radius [`Ctx::blur_vertical`] accepts (a 2049-tap column per element).
pub const MAX_BLUR_RADIUS: u32 = 1024;

/// The WGSL function `swizzle_group(group: vec2<u32>, groups: vec2<u32>, n: u32) ->
/// vec2<u32>`, the twin of [`swizzle`], for kernels of your own: call it with
/// `workgroup_id.xy` and `num_workgroups.xy` and use the result as the workgroup's tile.
pub const SWIZZLE_WGSL: &str = include_str!("../../wgsl/swizzle.wgsl");

/// Side of the square workgroups of `map2d` and `color_filter` (16 x 16 = 256 threads).
const SIDE: u32 = 16;
/// Side of a `transpose` tile (a 32 x 8 workgroup moves 32 x 32 elements).
const TILE: u32 = 32;

/// Whether and how a 2D kernel remaps its workgroup IDs (see the [module docs](self)).
///
/// Measured on an H100 (docs/PERFORMANCE.md): tiles help kernels whose neighbouring
/// workgroups re-read the same lines (a radius-32 vertical blur ran 1.40x faster at
/// 4096 x 4096) and cost 2-21% on kernels that stream or reuse little (colour filter,
/// transpose, a 5-tap blur). Use [`Swizzle::Off`] unless the kernel gathers widely.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// Workgroups cover the grid in launch order (row-major).
    Off,
    /// Vertical tiles `n` workgroups wide ([`swizzle`]); `n` must be at least 1 and is
    /// clamped to the dispatch width. NVIDIA's choice, and the default, is 16.
    Tiles {
        /// Tile width in workgroups.
        n: u32,
    },
}

impl Default for Swizzle {
    /// `Tiles { n: 16 }`.
    fn default() -> Self {
        Swizzle::Tiles { n: 16 }
    }
}

impl Swizzle {
    /// The uniform's `n`: 0 for off.
    fn word(self, op: &'static str) -> Result<u32> {
        match self {
            Swizzle::Off => Ok(0),
            Swizzle::Tiles { n: 0 } => Err(Error::InvalidArgument {
                op,
                message: "Swizzle::Tiles { n: 0 }: the tile width must be at least 1 workgroup \
                          (16 is the usual choice)"
                    .into(),
            }),
            Swizzle::Tiles { n } => Ok(n),
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
    /// recorded and submitted without waiting.
    ///
    /// # Errors
    /// [`Error::Compile`] if the body is not valid WGSL of the element type,
    /// [`Error::InvalidArgument`] for `Swizzle::Tiles { n: 0 }`, a grid needing more
    /// workgroups per dimension than the device allows, or a vector larger than one
    /// storage binding; [`Error::ContextMismatch`] for vectors of another `Ctx`.
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
    ///     Swizzle::default(),
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
        let n = swizzle.word(op)?;
        let side = self.side2d();
        let groups = self.groups2d(op, dst.shape.width, dst.shape.height, side)?;
        self.check_binding(op, "src", src.vec)?;
        self.check_binding(op, "dst", dst.vec)?;
        let key = PipelineKey {
            op,
            element: T::WGSL,
            workgroup_size: side * side,
            variant: String::new(),
            code: body.to_string(),
        };
        let kernel = self.kernel(key, || {
            render(
                MAP2D_WGSL,
                &[
                    ("LIB", RANDOM_WGSL),
                    ("SWIZZLE", SWIZZLE_WGSL),
                    ("ENABLE", T::ENABLE),
                    ("T", T::WGSL),
                    ("WG", &side.to_string()),
                    ("EXPR", body),
                ],
            )
        })?;
        let params = params_words(src.shape, dst.shape, n);
        run2d(
            self,
            op,
            &kernel,
            groups,
            src.vec.binding(),
            dst.vec.binding(),
            bytemuck::cast_slice(&params),
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
        let n = swizzle.word(op)?;
        let groups = self.groups2d(op, s.width, s.height, TILE)?;
        self.check_binding(op, "src", src.vec)?;
        self.check_binding(op, "dst", dst.vec)?;
        let key = PipelineKey {
            op,
            element: T::WGSL,
            workgroup_size: TILE * 8,
            variant: String::new(),
            code: String::new(),
        };
        let kernel = self.kernel(key, || {
            render(
                TRANSPOSE_WGSL,
                &[
                    ("SWIZZLE", SWIZZLE_WGSL),
                    ("ENABLE", T::ENABLE),
                    ("T", T::WGSL),
                ],
            )
        })?;
        let params = params_words(s, d, n);
        run2d(
            self,
            op,
            &kernel,
            groups,
            src.vec.binding(),
            dst.vec.binding(),
            bytemuck::cast_slice(&params),
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
    ///
    /// # Examples
    /// ```
    /// use gpuprim::Swizzle;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let img = ctx.upload(&[1.0f32, 0.5, 0.25, 1.0, 0.0, 1.0, 0.0, 1.0])?;  // 2 x 1 pixels
    /// let mut out = ctx.zeros::<f32>(8)?;
    /// let swap_rb = [[0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]];
    /// ctx.color_filter(&img, 2, 1, swap_rb, &mut out, Swizzle::default())?;
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
        let n = swizzle.word(op)?;
        let side = self.side2d();
        let groups = self.groups2d(op, width, height, side)?;
        self.check_binding(op, "rgba", rgba)?;
        self.check_binding(op, "out", out)?;
        let key = PipelineKey {
            op,
            element: "f32",
            workgroup_size: side * side,
            variant: String::new(),
            code: String::new(),
        };
        let kernel = self.kernel(key, || {
            render(
                COLOR_WGSL,
                &[("SWIZZLE", SWIZZLE_WGSL), ("WG", &side.to_string())],
            )
        })?;
        let mut words = [0u32; 20];
        words[..4].copy_from_slice(&[width, height, n, 0]);
        for (r, row) in matrix.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                words[4 + 4 * r + c] = v.to_bits();
            }
        }
        run2d(
            self,
            op,
            &kernel,
            groups,
            rgba.binding(),
            out.binding(),
            bytemuck::cast_slice(&words),
        )
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
    ///
    /// # Examples
    /// ```
    /// use gpuprim::{Grid2D, Grid2DMut, Swizzle};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[3.0f32, 6.0, 9.0])?;                  // 1 wide, 3 high
    /// let mut b = ctx.zeros::<f32>(3)?;
    /// ctx.blur_vertical(&Grid2D::new(&a, 1, 3)?, &mut Grid2DMut::new(&mut b, 1, 3)?, 1, Swizzle::default())?;
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
        let n = swizzle.word(op)?;
        let side = self.side2d();
        let groups = self.groups2d(op, d.width, d.height, side)?;
        self.check_binding(op, "src", src.vec)?;
        self.check_binding(op, "dst", dst.vec)?;
        let key = PipelineKey {
            op,
            element: "f32",
            workgroup_size: side * side,
            variant: String::new(),
            code: String::new(),
        };
        let kernel = self.kernel(key, || {
            render(
                BLUR_WGSL,
                &[("SWIZZLE", SWIZZLE_WGSL), ("WG", &side.to_string())],
            )
        })?;
        let mut params = params_words(s, d, n);
        params[7] = radius;
        run2d(
            self,
            op,
            &kernel,
            groups,
            src.vec.binding(),
            dst.vec.binding(),
            bytemuck::cast_slice(&params),
        )
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

    /// Workgroups covering `width` x `height` with `side`-sized groups, within the limit.
    fn groups2d(&self, op: &'static str, width: u32, height: u32, side: u32) -> Result<(u32, u32)> {
        let groups = (width.div_ceil(side), height.div_ceil(side));
        let max = self.info().max_workgroups_per_dimension;
        if groups.0 > max || groups.1 > max {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "a {width} x {height} grid needs {} x {} workgroups of {side} x {side}, \
                     more than this device's {max} per dimension; 2D kernels do not fold their \
                     dispatch, so width and height must each be at most {}",
                    groups.0,
                    groups.1,
                    u64::from(max) * u64::from(side)
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

/// The `Params` uniform of map2d and transpose.
fn params_words(src: Shape, dst: Shape, n: u32) -> [u32; 8] {
    [
        src.width, src.height, src.pitch, dst.width, dst.height, dst.pitch, n, 0,
    ]
}

/// Records and submits one 2D dispatch: binding 0 `src`, 1 `dst` (whole vectors), 2 a
/// uniform holding `params` (kept by content, so repeated calls upload nothing).
fn run2d(
    ctx: &Ctx,
    op: &'static str,
    kernel: &crate::pipeline::Kernel,
    groups: (u32, u32),
    src: wgpu::BindingResource<'_>,
    dst: wgpu::BindingResource<'_>,
    params: &[u8],
) -> Result<()> {
    let uniform = ctx.uniform_constant(params)?;
    let device = &ctx.inner.device;
    ctx.capture(op, || {
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(op),
            layout: &kernel.layout,
            entries: &[
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
        });
        let mut enc =
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(op) });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(op),
                timestamp_writes: None,
            });
            pass.set_pipeline(&kernel.pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(groups.0, groups.1, 1);
        }
        ctx.inner.queue.submit([enc.finish()]);
    })
}

#[cfg(test)]
mod tests {
    use super::swizzle;

    #[test]
    fn swizzle_small_grid_by_hand() {
        // 3 x 2 groups, n = 2: tile 0 is columns 0..2, tile 1 column 2.
        let order: Vec<_> = (0..2)
            .flat_map(|y| (0..3).map(move |x| swizzle((x, y), (3, 2), 2)))
            .collect();
        assert_eq!(order, [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (2, 1)]);
    }
}
