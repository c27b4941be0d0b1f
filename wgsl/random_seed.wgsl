// random_seed: xorshift128 state of element e, word k = pcg_hash((4e + k) ^ pcg_hash(seed ^ 0xa511e9b3)).
// pcg_hash is a bijection, so the four words of an element are distinct: never all zero.
// One thread per element (one vec4 of state).
{{LIB}}

struct Params {
    head: vec4<u32>,
    tail: vec4<u32>,
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
    let e = params.head.x + t;
    let k = pcg_hash(params.head.y ^ 0xa511e9b3u);
    let b = 4u * e;
    state[t] = vec4<u32>(pcg_hash(b ^ k), pcg_hash((b + 1u) ^ k), pcg_hash((b + 2u) ^ k), pcg_hash((b + 3u) ^ k));
}
