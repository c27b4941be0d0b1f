// kernel: a body of WGSL statements run once for every element i in 0..n
// (`Ctx::elementwise`, and `map`/`zip` as short forms of it).
//
// Element vectors are bound as array<vec4<T>> windows (`gp_e<k>`), so each step of the
// grid-stride loop loads one vec4 of every input and stores one of every output; the
// body runs for the lanes below n. Raw vectors are bound whole under the user's names,
// device scalars (`gp_d<k>`) whole; scalars given per call sit in `gp_params`, so a new
// value compiles nothing.
{{ENABLE}}

// gpuprim::RANDOM_WGSL, so bodies can call wang_hash, pcg_hash, ...
{{LIB}}

struct GpParams {
    first: u32,  // global index of this binding window's first element
    n: u32,      // elements in all
    units: u32,  // vec4 units in this window
    _pad: u32,
{{SCALAR_FIELDS}}
}

@group(0) @binding(0) var<uniform> gp_params: GpParams;
{{BINDINGS}}
// gp_n(): the elements to run over, n, or the device count of a prefix view.
{{COUNT}}

struct GpOut {
    gp_unused: u32,
{{OUT_FIELDS}}
}

fn gp_user_body(i: u32, n: u32{{IN_PARAMS}}) -> GpOut {
{{PRELUDE}}
    {
{{BODY}}
    }
    return GpOut(0u{{OUT_VALUES}});
}

@compute @workgroup_size({{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    // Large dispatches are folded into 2D/3D: recover the linear index.
    let first = (group.x + groups.x * (group.y + groups.y * group.z)) * {{WG}}u + lane;
    let stride = groups.x * groups.y * groups.z * {{WG}}u;
    let n = gp_n();
    for (var u = first; u < gp_params.units; u += stride) {
{{LOADS}}
        let base = gp_params.first + 4u * u;
        for (var k = 0u; k < 4u; k++) {
            let i = base + k;
            if i < n {
                let r = gp_user_body(i, n{{LANE_ARGS}});
{{LANE_STORES}}
            }
        }
{{STORES}}
    }
}
