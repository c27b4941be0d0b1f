// random_state: dst[i] = value(state[i]) with the per-element xorshift128 state advanced
// in place (one step per u32 drawn). One thread per 4 elements (a vec4 of output, four
// vec4 of state).
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
@group(0) @binding(1) var<storage, read_write> state: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: Params;

fn bits(s: ptr<function, vec4<u32>>) -> u32 {
    *s = xorshift128_next(*s);
    return (*s).w;
}

fn value(s: ptr<function, vec4<u32>>) -> {{T}} {
{{OUT}}
}

@compute @workgroup_size({{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let t = (group.x + groups.x * (group.y + groups.y * group.z)) * {{WG}}u + lane;
    // The global unit index (chunk start + t) must not wrap; this also keeps `params`
    // in the kernel's interface for every output kind.
    if t >= dst_units() || params.first_unit + t < t {
        return;
    }
    var s0 = state[4u * t];
    var s1 = state[4u * t + 1u];
    var s2 = state[4u * t + 2u];
    var s3 = state[4u * t + 3u];
    dst_store(t, vec4<{{T}}>(value(&s0), value(&s1), value(&s2), value(&s3)));
    state[4u * t] = s0;
    state[4u * t + 1u] = s1;
    state[4u * t + 2u] = s2;
    state[4u * t + 3u] = s3;
}
