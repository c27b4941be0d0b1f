//! The `remap` function each 2D kernel is rendered with ([`Remap`]): the identity, or
//! the workgroup order of a [`Swizzle`] with the dispatch's grid and divisors as WGSL
//! constants.

use super::Swizzle;
use super::swizzle::band_rows;
#[cfg(doc)]
use super::{swizzle, swizzle_bands};
use crate::error::Result;
use crate::runtime::cache::render;

/// Launch order.
const REMAP_WGSL: &str = include_str!("../../../wgsl/grid2d_remap.wgsl");
/// [`Swizzle::Tiles`], through `swizzle_tiles` of wgsl/swizzle.wgsl.
const REMAP_TILES_WGSL: &str = include_str!("../../../wgsl/grid2d_remap_tiles.wgsl");
/// [`Swizzle::Bands`].
const REMAP_BANDS_WGSL: &str = include_str!("../../../wgsl/grid2d_remap_bands.wgsl");

/// Workgroups per dispatch up to which `swizzle_tiles` divides with f32 reciprocals (its
/// numerators stay below 2^24, where `swizzle_div` is exact); larger dispatches divide
/// as `swizzle_group` does.
pub(super) const SWIZZLE_F32_GROUPS: u64 = 1 << 24;

/// The `SwizzleParams` of wgsl/swizzle.wgsl for a dispatch of `groups` workgroups and the
/// tile width `n` (0: off, all zeros): `swizzle_tiles` with these computes
/// [`swizzle`]`(group, groups, n)` without a division.
pub(super) fn swizzle_params(groups: (u32, u32), n: u32) -> [u32; 8] {
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

/// The workgroup order a 2D kernel is compiled with, with the values its `remap`
/// function holds as constants: part of the kernel's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Remap {
    /// Launch order: the identity.
    Identity,
    /// [`swizzle`] over a dispatch of `groups` workgroups with tiles `n` wide (clamped to
    /// the dispatch width).
    Tiles { groups: (u32, u32), n: u32 },
    /// [`swizzle_bands`] over a dispatch of `groups` workgroups with bands of `rows` rows.
    Bands { groups: (u32, u32), rows: u32 },
}

impl Remap {
    /// The remapping of a dispatch of `groups` workgroups in `order`.
    pub(super) fn new(groups: (u32, u32), order: Swizzle) -> Remap {
        match order {
            // Auto is resolved to one of its candidates before a kernel is built.
            Swizzle::Off | Swizzle::Auto => Remap::Identity,
            Swizzle::Tiles { n } => Remap::Tiles {
                groups,
                n: swizzle_params(groups, n)[0],
            },
            Swizzle::Bands { workgroups } => Remap::Bands {
                groups,
                rows: band_rows(groups, workgroups),
            },
        }
    }

    /// The WGSL `remap` function.
    pub(super) fn wgsl(&self) -> Result<String> {
        match *self {
            Remap::Identity => Ok(REMAP_WGSL.to_string()),
            Remap::Tiles { groups, n } => tiles_wgsl(groups, n),
            Remap::Bands { groups, rows } => bands_wgsl(groups, rows),
        }
    }
}

/// [`swizzle`] for one grid and tile width `n` (0: off, the identity), as WGSL with the
/// grid and its `SwizzleParams` as constants.
fn tiles_wgsl(groups: (u32, u32), n: u32) -> Result<String> {
    let s = swizzle_params(groups, n);
    let float = |w: u32| format!("bitcast<f32>({w}u)");
    let params = format!(
        "{}u, {}u, {}u, {}u, {}, {}, {}, {}u",
        s[0],
        s[1],
        s[2],
        s[3],
        float(s[4]),
        float(s[5]),
        float(s[6]),
        s[7]
    );
    render(
        REMAP_TILES_WGSL,
        &[
            ("SWIZZLE_PARAMS", params),
            ("GROUPS", format!("{}u, {}u", groups.0, groups.1)),
        ],
    )
}

/// [`swizzle_bands`] for one grid and bands of `rows` rows, as WGSL with the grid and the
/// band as constants (the compiler turns the divisions into multiplies).
fn bands_wgsl((w, h): (u32, u32), rows: u32) -> Result<String> {
    let band_h = if h % rows == 0 {
        format!("{rows}u")
    } else {
        format!("select({}u, {rows}u, band < {}u)", h % rows, h / rows)
    };
    render(
        REMAP_BANDS_WGSL,
        &[
            ("WIDTH", w.to_string()),
            ("PER_BAND", (rows * w).to_string()),
            ("BAND_H", band_h),
            ("ROWS", rows.to_string()),
        ],
    )
}

/// The f32 nearest `1 / d` (0 for 0): IEEE division of exact operands for d <= 2^24, the
/// range `swizzle_div` uses.
pub(super) fn swizzle_rcp(d: u32) -> f32 {
    if d == 0 { 0.0 } else { 1.0 / d as f32 }
}
