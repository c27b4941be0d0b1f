// color_filter: out = M * in for every RGBA f32 pixel (the articles' 4x4 colour matrix),
// one thread per pixel, WG x WG workgroups, optionally swizzled.

// gpuprim::SWIZZLE_WGSL
{{SWIZZLE}}

// remap(group, groups): see wgsl/grid2d_params.wgsl.
{{REMAP}}

struct Params {
    width: u32,
    height: u32,
    _pad0: u32,
    _pad1: u32,
    matrix: array<vec4<f32>, 4>,  // M by rows: out.r = dot(matrix[0], in), ...
}

@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> p: Params;

fn row_times(r: vec4<f32>, v: vec4<f32>) -> f32 {
    return r.x * v.x + r.y * v.y + r.z * v.z + r.w * v.w;
}

@compute @workgroup_size({{WG}}, {{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let g = remap(group.xy, groups.xy);
    let x = g.x * {{WG}}u + lid.x;
    let y = g.y * {{WG}}u + lid.y;
    if x >= p.width || y >= p.height {
        return;
    }
    let i = y * p.width + x;
    let v = src[i];
    dst[i] = vec4<f32>(
        row_times(p.matrix[0], v),
        row_times(p.matrix[1], v),
        row_times(p.matrix[2], v),
        row_times(p.matrix[3], v),
    );
}
