// The uniform and grid helpers of atomic_sum and histogram (`Params` in
// src/ops/atomic/mod.rs has the same layout): atomic_sum reads `n` only; histogram uses all.

struct Params {
    n: u32,       // valid elements in this binding window
    base: u32,    // histogram: the window's first bin
    width: u32,   // histogram: bins in this window
    bins: u32,    // histogram: bins in all
    lo: f32,      // histogram_range: the range and bins / (hi - lo)
    hi: f32,
    scale: f32,
    first: u32,   // histogram: the window's first element (for a device count)
}

// This invocation's first unit and the grid stride, from a possibly folded dispatch.
fn first_unit(group: vec3<u32>, groups: vec3<u32>, lane: u32) -> u32 {
    return (group.x + groups.x * (group.y + groups.y * group.z)) * {{WG}}u + lane;
}

fn grid_stride(groups: vec3<u32>) -> u32 {
    return groups.x * groups.y * groups.z * {{WG}}u;
}
