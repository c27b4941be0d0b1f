// Thread-group ID swizzling (NVIDIA, GDC 2019, with the fix for dispatch widths that are
// not a multiple of n): the workgroups of a 2D dispatch, taken in launch order (row-major
// workgroup_id), are sent to vertical tiles n workgroups wide, column by column, so the
// groups running at one time touch a compact area (better L2 reuse) instead of a full row.
// The last tile is narrower when groups.x is not a multiple of n; n is clamped to
// [1, groups.x]. A bijection on the grid. gpuprim::swizzle is the Rust twin.
fn swizzle_group(group: vec2<u32>, groups: vec2<u32>, n_in: u32) -> vec2<u32> {
    let n = clamp(n_in, 1u, max(groups.x, 1u));
    let flat = group.y * groups.x + group.x;
    let per_tile = n * groups.y;
    let tile = flat / per_tile;
    let local = flat % per_tile;
    let tile_w = select(groups.x % n, n, tile < groups.x / n);
    return vec2<u32>(tile * n + local % tile_w, local / tile_w);
}
