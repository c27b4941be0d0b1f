// map2d: dst(x, y) = body(x, y) over the W x H output grid, WG x WG workgroups, each
// thread computing ROWS elements of its column (WG rows apart); the body reads the input
// anywhere through load(x, y) (clamped to the edges). Elements past the output's edge
// are skipped.
{{ENABLE}}
alias T = {{T}};

// gpuprim::RANDOM_WGSL, so bodies can call wang_hash, pcg_hash, ...
{{LIB}}

// Bindings and Params (wgsl/grid2d_params.wgsl).
{{PARAMS}}

// The input element at (x, y), coordinates clamped to the input's edges.
fn load(x: i32, y: i32) -> T {
    let cx = u32(clamp(x, 0, i32(p.src_w) - 1));
    let cy = u32(clamp(y, 0, i32(p.src_h) - 1));
    return src[cy * p.src_pitch + cx];
}

fn body(x: i32, y: i32) -> T {
    return ({{EXPR}});
}

@compute @workgroup_size({{WG}}, {{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let g = remap(group.xy, groups.xy);
    let x = g.x * {{WG}}u + lid.x;
    if x >= p.dst_w {
        return;
    }
    // ROWS rows per invocation, WG apart: each row of the workgroup stays contiguous.
    let y0 = g.y * ({{WG}}u * {{ROWS}}u) + lid.y;
    for (var r = 0u; r < {{ROWS}}u; r++) {
        let y = y0 + r * {{WG}}u;
        if y < p.dst_h {
            dst[y * p.dst_pitch + x] = body(i32(x), i32(y));
        }
    }
}
