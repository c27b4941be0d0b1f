//! Thread-group ID swizzling: the workgroup orders of the 2D kernels ([`Swizzle`]),
//! their Rust mappings ([`swizzle`], [`swizzle_bands`]) and WGSL twins ([`SWIZZLE_WGSL`]).

use crate::error::{Error, Result};
// Named in the docs of `Swizzle` only.
#[cfg(doc)]
use {
    super::{AUTO_CANDIDATES, AUTO_MARGIN, AUTO_MIN_WORKGROUPS},
    crate::runtime::context::Ctx,
};

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
pub const SWIZZLE_WGSL: &str = include_str!("../../../wgsl/swizzle.wgsl");

/// Whether and how a 2D kernel remaps its workgroup IDs (see the [module docs](super)).
///
/// Tiles help kernels whose neighbouring workgroups re-read the same lines (a wide
/// vertical blur, a column gather) and cost kernels that stream or reuse little, through
/// the visiting order itself (the remapping's arithmetic is folded into the pipeline's
/// constants); bands keep rows whole and cost streaming kernels less. Which order is
/// fastest depends on the kernel, the grid and the GPU (measurements: the repository's
/// docs/PERFORMANCE.md). So the default is [`Swizzle::Off`]: opt in with
/// `Swizzle::Tiles { n: 16 }` or [`Swizzle::Bands`] where a kernel gathers widely, and
/// measure; or let [`Swizzle::Auto`] measure on the first call and keep linear order
/// unless another is clearly faster. A swizzled kernel is compiled per grid size and `n`
/// (see the [module docs](super)).
///
/// In a kernel of your own, [`SWIZZLE_WGSL`]'s `swizzle_group` gives the tile order: it
/// pays off where linear order's workgroups in flight read more than the L2 holds (a
/// matrix product without shared-memory tiles, for one) and costs time where the data
/// fits the L2.
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
    /// run together, as with tiles, while rows are still swept whole, so a wide blur
    /// gains nearly what tiles give it and streaming kernels lose far less. Choose
    /// `workgroups` near the number of workgroups the GPU keeps resident at once (1024
    /// for a large GPU).
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
    /// What it chose for gpuprim's kernels on the GPUs we measured: docs/PERFORMANCE.md.
    Auto,
}

impl Default for Swizzle {
    /// [`Swizzle::Off`]: only kernels that gather widely gain from tiles, and kernels
    /// that stream lose a little (docs/PERFORMANCE.md). Not [`Swizzle::Auto`], whose
    /// first call per kernel and grid waits for the GPU while it measures.
    fn default() -> Self {
        Swizzle::Off
    }
}

impl Swizzle {
    /// `self`, or an error for a tile width or band size of 0.
    pub(super) fn checked(self, op: &'static str) -> Result<Swizzle> {
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
pub(super) fn band_rows((w, h): (u32, u32), workgroups: u32) -> u32 {
    (workgroups / w.max(1)).clamp(1, h.max(1))
}

#[cfg(test)]
mod tests {
    use super::super::remap::{Remap, SWIZZLE_F32_GROUPS, swizzle_params, swizzle_rcp};
    use super::{SWIZZLE_WGSL, Swizzle, swizzle, swizzle_bands};
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

    /// The band order's WGSL (`Remap::Bands`, the grid as constants) on the GPU: every
    /// group of each grid, one invocation each, packed `x | y << 16`, against
    /// [`swizzle_bands`].
    #[test]
    fn bands_on_the_gpu_equal_swizzle_bands() {
        let ctx = crate::Ctx::new().expect("a GPU context (lavapipe will do)");
        for (w, h) in PROBE_GRIDS.into_iter().chain([(256, 255)]) {
            for workgroups in [1, 2, 7, 64, 1024] {
                let remap = Remap::new((w, h), Swizzle::Bands { workgroups })
                    .wgsl()
                    .unwrap();
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
