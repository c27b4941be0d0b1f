// random_seed: xorshift128 state of element e, word k = pcg_hash((4e + k) ^ pcg_hash(seed ^ 0xa511e9b3)).
// pcg_hash is a bijection, so the four words of an element are distinct: never all zero.
// One thread per element (one vec4 of state).
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

@group(0) @binding(0) var<storage, read_write> state: array<vec4<u32>>;
@group(0) @binding(1) var<uniform> params: Params;

@compute @workgroup_size({{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let t = (group.x + groups.x * (group.y + groups.y * group.z)) * {{WG}}u + lane;
    if t >= arrayLength(&state) {
        return;
    }
    let e = params.first_unit + t;
    let k = pcg_hash(params.seed ^ 0xa511e9b3u);
    let b = 4u * e;
    state[t] = vec4<u32>(pcg_hash(b ^ k), pcg_hash((b + 1u) ^ k), pcg_hash((b + 2u) ^ k), pcg_hash((b + 3u) ^ k));
}
