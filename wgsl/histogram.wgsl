// histogram: counts[b] += number of elements of `src` (one binding window, `params.n`
// valid elements) whose bin is b. `counts` is a window of `params.width` bins starting at
// bin `params.base` of `params.bins`; elements in other bins are skipped here (they are
// counted by the dispatch of their window).
//
// After the prelude, `//#if` picks one `key_*` part (the bin of an element) and one
// `shared` or `global` part (where the counting happens).
alias K = {{K}};
const NONE: u32 = 0xffffffffu;

// Params, first_unit, grid_stride (wgsl/atomic_params.wgsl).
{{PARAMS}}

// src at binding 0, with src_load(u) -> vec4 and src_units() (src/runtime/view.rs).
{{SRC}}
// gp_n(): the window's elements, params.n, or fewer below a device count.
{{BOUNDS}}
@group(0) @binding(1) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> params: Params;

// The bin of `x` relative to this window, or NONE.
fn window_bin(global_bin: u32) -> u32 {
    if global_bin >= params.base && global_bin - params.base < params.width {
        return global_bin - params.base;
    }
    return NONE;
}

//#if KEY_U32
// key_u32
// Keys are bins; keys >= bins are counted nowhere.
fn bin_of(x: u32) -> u32 {
    if x >= params.bins {
        return NONE;
    }
    return window_bin(x);
}
//#endif

//#if KEY_RANGE
// key_range
// bin = floor((x - lo) * scale), scale = bins / (hi - lo), for lo <= x <= hi; x == hi
// (and any rounding past the top) goes to the last bin; NaN and values outside
// [lo, hi] are counted nowhere. Clamped in float so no conversion is out of range.
fn bin_of(x: f32) -> u32 {
    if !(x >= params.lo && x <= params.hi) {
        return NONE;
    }
    let f = clamp(floor((x - params.lo) * params.scale), 0.0, f32(params.bins - 1u));
    return window_bin(u32(f));
}
//#endif

//#if SHARED
// shared
// Workgroup-private bins in shared memory, merged into `counts` by one atomic per
// nonzero bin.
var<workgroup> local_bins: array<atomic<u32>, {{SB}}>;

@compute @workgroup_size({{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    for (var j = lane; j < {{SB}}u; j += {{WG}}u) {
        atomicStore(&local_bins[j], 0u);
    }
    workgroupBarrier();
    let units = (gp_n() + 3u) / 4u;
    let stride = grid_stride(groups);
    for (var i = first_unit(group, groups, lane); i < units; i += stride) {
        let v = src_load(i);
        for (var k = 0u; k < 4u; k++) {
            if i * 4u + k < gp_n() {
                let b = bin_of(v[k]);
                if b != NONE {
                    atomicAdd(&local_bins[b], 1u);
                }
            }
        }
    }
    workgroupBarrier();
    for (var j = lane; j < params.width; j += {{WG}}u) {
        let c = atomicLoad(&local_bins[j]);
        if c != 0u {
            atomicAdd(&counts[j], c);
        }
    }
}
//#endif

//#if GLOBAL
// global
// Too many bins for shared memory: one global atomic per counted element.
@compute @workgroup_size({{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let units = (gp_n() + 3u) / 4u;
    let stride = grid_stride(groups);
    for (var i = first_unit(group, groups, lane); i < units; i += stride) {
        let v = src_load(i);
        for (var k = 0u; k < 4u; k++) {
            if i * 4u + k < gp_n() {
                let b = bin_of(v[k]);
                if b != NONE {
                    atomicAdd(&counts[b], 1u);
                }
            }
        }
    }
}
//#endif
