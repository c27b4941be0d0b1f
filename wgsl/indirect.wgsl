// indirect: indirect dispatch arguments from a count on the device.
//
// Invocation w writes the (x, y, z) workgroup counts of binding window w: the units of
// that window below the count (min(count[0], n_cap) elements, elems_per_unit to a unit),
// per_group units to a workgroup, at most max_groups, folded into y and z past
// max_per_dim (the dispatch limit), as wgpu::util::DispatchIndirectArgs.
struct Params {
    windows: u32,           // windows to write arguments for
    units_per_window: u32,  // units in every window but the last
    elems_per_unit: u32,    // elements in a unit
    per_group: u32,         // units a workgroup takes (its loop strides past them)
    max_groups: u32,        // workgroups per window at most
    max_per_dim: u32,       // the device's workgroups per dimension
    n_cap: u32,             // elements at most (the vector's length)
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> count: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let w = id.x;
    if w >= params.windows {
        return;
    }
    let n = min(count[0], params.n_cap);
    // Units below the count, in u64-free arithmetic: n / e rounded up.
    let units = n / params.elems_per_unit + select(0u, 1u, n % params.elems_per_unit != 0u);
    let first = w * params.units_per_window;
    var mine = 0u;
    if units > first {
        mine = min(units - first, params.units_per_window);
    }
    let groups = min(mine / params.per_group + select(0u, 1u, mine % params.per_group != 0u), params.max_groups);
    var x = 0u;
    var y = 1u;
    var z = 1u;
    if groups > 0u {
        let m = params.max_per_dim;
        x = min(groups, m);
        let rest = (groups + x - 1u) / x;
        y = min(rest, m);
        z = (rest + y - 1u) / y;
    }
    args[3u * w] = x;
    args[3u * w + 1u] = y;
    args[3u * w + 2u] = z;
}
