// map: dst[i] = f(src[i]) for every element, a vec4 at a time (vector loads).
// The buffers are padded to whole vec4s, so the last vec4 is always complete;
// f is applied to the padding too, which nobody reads.
{{ENABLE}}
alias T = {{T}};

// gpuprim::RANDOM_WGSL, so expressions can call wang_hash, pcg_hash, ...
{{LIB}}

@group(0) @binding(0) var<storage, read> src: array<vec4<T>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<T>>;

fn f(x: T) -> T {
    return ({{EXPR}});
}

@compute @workgroup_size({{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    // Large dispatches are folded into 2D/3D: recover the linear index. A grid-stride
    // loop, so any number of workgroups covers the vector (each unit exactly once).
    let first = (group.x + groups.x * (group.y + groups.y * group.z)) * {{WG}}u + lane;
    let stride = groups.x * groups.y * groups.z * {{WG}}u;
    for (var i = first; i < arrayLength(&dst); i += stride) {
        let v = src[i];
        dst[i] = vec4<T>(f(v.x), f(v.y), f(v.z), f(v.w));
    }
}
