// random: dst[i] = value(i) for every element i of the whole vector (stateless generators).
// One thread per vec4; params.first_unit is the chunk's first vec4, so i is global across
// binding windows. The padding of the last vec4 is written too, which nobody reads.
{{LIB}}

struct Params {
    first_unit: u32,  // the binding window's first vec4 unit
    seed: u32,        // the stateless generator's seed
    offset: f32,      // uniform: lo; normal: mean
    scale: f32,       // uniform: hi - lo; normal: standard deviation
    hi: f32,          // uniform: hi; a value that rounds up to it becomes below_hi
    below_hi: f32,    // uniform: the largest f32 below hi
    _pad0: u32,
    _pad1: u32,
}

// dst at binding 0, with dst_store(u, v) and dst_units() (src/runtime/view.rs).
{{DST}}
@group(0) @binding(1) var<uniform> params: Params;

fn bits(i: u32) -> u32 {
    return {{GEN}}(i, params.seed);
}

fn value(i: u32) -> {{T}} {
{{OUT}}
}

@compute @workgroup_size({{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let t = (group.x + groups.x * (group.y + groups.y * group.z)) * {{WG}}u + lane;
    if t >= dst_units() {
        return;
    }
    let i = (params.first_unit + t) * 4u;
    dst_store(t, vec4<{{T}}>(value(i), value(i + 1u), value(i + 2u), value(i + 3u)));
}
