// Thread-group ID swizzling (NVIDIA, GDC 2019, with the fix for dispatch widths that are
// not a multiple of n): the workgroups of a 2D dispatch, taken in launch order (row-major
// workgroup_id), are sent to vertical tiles n workgroups wide, column by column, so the
// groups running at one time touch a compact area (better L2 reuse) instead of a full row.
// The last tile is narrower when groups.x is not a multiple of n; n is clamped to
// [1, groups.x]. A bijection on the grid. gpuprim::swizzle is the Rust twin.
//
// swizzle_group takes n alone and divides by runtime values: three u32 divisions per
// invocation (about 20 instructions each on GPUs without an integer divider).
fn swizzle_group(group: vec2<u32>, groups: vec2<u32>, n_in: u32) -> vec2<u32> {
    let n = clamp(n_in, 1u, max(groups.x, 1u));
    let flat = group.y * groups.x + group.x;
    let per_tile = n * groups.y;
    let tile = flat / per_tile;
    let local = flat % per_tile;
    let tile_w = select(groups.x % n, n, tile < groups.x / n);
    return vec2<u32>(tile * n + local % tile_w, local / tile_w);
}

// The band order (gpuprim::Swizzle::Bands; gpuprim::swizzle_bands is the Rust twin): the
// grid is cut into bands of rows = clamp(workgroups / groups.x, 1, groups.y) whole rows
// (the last band may be shorter), each walked column by column, top to bottom. A
// bijection on the grid; four u32 divisions per invocation.
fn swizzle_bands_group(group: vec2<u32>, groups: vec2<u32>, workgroups: u32) -> vec2<u32> {
    if groups.x == 0u || groups.y == 0u {
        return group;
    }
    let rows = clamp(workgroups / groups.x, 1u, groups.y);
    let flat = group.y * groups.x + group.x;
    let per_band = rows * groups.x;
    let band = flat / per_band;
    let local = flat % per_band;
    let band_h = select(max(groups.y % rows, 1u), rows, band < groups.y / rows);
    return vec2<u32>(local / band_h, band * rows + local % band_h);
}

// swizzle_tiles is the same mapping without a division: the divisors are constants of
// the dispatch, so the host computes them and their f32 reciprocals once (gpuprim's
// kernels get these from swizzle_params in src/ops/grid2d/swizzle.rs, written into the kernel's
// WGSL as literals by Remap::wgsl in src/ops/grid2d/remap.rs) and each invocation divides with a multiply and one
// correction step (swizzle_div).
struct SwizzleParams {
    n: u32,            // tile width in workgroups, clamped to [1, groups.x]; 0 = off
    per_tile: u32,     // n * groups.y: the workgroups of a full tile
    full_tiles: u32,   // groups.x / n
    last_w: u32,       // groups.x % n: the last, narrower tile's width (0: none)
    rcp_per_tile: f32, // the f32 nearest 1 / per_tile
    rcp_n: f32,        // the f32 nearest 1 / n
    rcp_last: f32,     // the f32 nearest 1 / last_w (0 when last_w is 0)
    exact: u32,        // 1: more than 2^24 workgroups; divide as swizzle_group does
}

// floor(a / d) for a < 2^24, 1 <= d <= 2^24, r the f32 nearest 1 / d. f32(a) is exact,
// r is 1 / d within a relative 2^-24, and the product a * r rounds (either way) within a
// relative 2^-23, so |q - a / d| < 2^24 / d * (2^-24 + 2^-23 + 2^-47) = (3 + 2^-22) / d,
// below 1 for d >= 4. Powers of two are exact, and for d = 3 the reciprocal is off by
// only 2^-25, so the error stays below 0.84. Truncated, q is floor(a / d) - 1, + 0 or
// + 1; the remainder a - q * d (in [-d, 2d), no overflow below 2^25) says which. Checked
// against `/` for every a < 2^24 with both roundings of the product, for every divisor up
// to 64 and a spread of larger ones (unit tests in src/ops/grid2d/swizzle.rs).
fn swizzle_div(a: u32, d: u32, r: f32) -> u32 {
    let q = u32(f32(a) * r);
    let rem = bitcast<i32>(a - q * d);
    return q + u32(rem >= i32(d)) - u32(rem < 0i);
}

// swizzle_group(group, groups, s.n) for s = swizzle_params(groups, n); s.n != 0.
fn swizzle_tiles(group: vec2<u32>, groups: vec2<u32>, s: SwizzleParams) -> vec2<u32> {
    if s.exact != 0u {
        return swizzle_group(group, groups, s.n);
    }
    // flat < groups.x * groups.y <= 2^24, and so is local: swizzle_div's range.
    let flat = group.y * groups.x + group.x;
    let tile = swizzle_div(flat, s.per_tile, s.rcp_per_tile);
    let local = flat - tile * s.per_tile;
    let full = tile < s.full_tiles;
    let tile_w = select(s.last_w, s.n, full);
    let row = swizzle_div(local, tile_w, select(s.rcp_last, s.rcp_n, full));
    return vec2<u32>(tile * s.n + (local - row * tile_w), row);
}
