// blur_vertical: dst(x, y) = mean of src(x, y + k) for k in -R..=R, rows clamped to the
// edges, summed in order of k then divided by 2R + 1. One thread per element, WG x WG
// workgroups, optionally swizzled: each workgroup reads a (WG + 2R)-row column strip,
// the wide-fetch pattern where L2 locality matters.

alias T = f32;

// Bindings and Params (wgsl/grid2d_params.wgsl).
{{PARAMS}}

@compute @workgroup_size({{WG}}, {{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let g = remap(group.xy, groups.xy);
    let x = g.x * {{WG}}u + lid.x;
    let y = g.y * {{WG}}u + lid.y;
    if x >= p.dst_w || y >= p.dst_h {
        return;
    }
    let r = i32(p.extra);  // the radius
    let last = i32(p.src_h) - 1;
    var sum = 0.0;
    for (var k = -r; k <= r; k += 1) {
        let yy = u32(clamp(i32(y) + k, 0, last));
        sum += src[yy * p.src_pitch + x];
    }
    dst[y * p.dst_pitch + x] = sum / f32(2 * r + 1);
}
