// zip: dst[i] = f(a[i], b[i]) for every element, a vec4 at a time (vector loads).
// The buffers are padded to whole vec4s; f is applied to the padding too, which nobody reads.
{{ENABLE}}
alias T = {{T}};

// gpuprim::RANDOM_WGSL, so expressions can call wang_hash, pcg_hash, ...
{{LIB}}

@group(0) @binding(0) var<storage, read> lhs: array<vec4<T>>;
@group(0) @binding(1) var<storage, read> rhs: array<vec4<T>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<T>>;

fn f(a: T, b: T) -> T {
    return ({{EXPR}});
}

@compute @workgroup_size({{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let first = (group.x + groups.x * (group.y + groups.y * group.z)) * {{WG}}u + lane;
    let stride = groups.x * groups.y * groups.z * {{WG}}u;
    for (var i = first; i < arrayLength(&dst); i += stride) {
        let a = lhs[i];
        let b = rhs[i];
        dst[i] = vec4<T>(f(a.x, b.x), f(a.y, b.y), f(a.z, b.z), f(a.w, b.w));
    }
}
