// Two-pass argmax / argmin: the best element and its index.
//
// Pass `partials`: each of `groups` workgroups walks its binding window in a grid-stride
// loop, one vec4 at a time; each invocation keeps its best (value, index). The workgroup
// then picks its best and writes one partial. Pass `finish`: one workgroup picks the best
// partial and writes the result (value and index). When the first pass has a single
// workgroup it writes the result itself.
//
// "Best" is a strict weak order on values (gp_beats, from the element type and the
// direction), with ties broken by the lower index. The result is the one element that
// comes first in that order, whatever order the pairs are combined in: it is the same on
// every run and every adapter.
{{ENABLE}}
alias T = {{T}};

struct GpArgParams {
    full_units: u32,  // whole vec4 units in this binding window (finish: partials to combine)
    tail: u32,        // valid elements (0..3) in the unit after them
    groups: u32,      // workgroups that take part; surplus ones of a folded grid return
    base: u32,        // where this window's partials go
    first_index: u32, // index in the vector of the window's first element
    direct: u32,      // 1: the only workgroup of the first pass writes the result
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> gp_params: GpArgParams;
@group(0) @binding(1) var<storage, read_write> gp_partial_values: array<T>;
@group(0) @binding(2) var<storage, read_write> gp_partial_indices: array<u32>;
@group(0) @binding(4) var<storage, read_write> gp_out_value: array<T>;
@group(0) @binding(5) var<storage, read_write> gp_out_index: array<u32>;

// The input at binding 3: gp_x_load(u) -> vec4<T>.
{{INPUT}}

// No index: what an invocation holds before it has seen an element. Indices are below
// the vector's length, which is at most this (the call checks).
const GP_NONE: u32 = 0xffffffffu;

struct GpBest {
    v: T,
    i: u32,
}

// From the element type and direction:
// - gp_worst(): a value no element is worse than;
// - gp_beats(a, b): a is a strictly better value than b (NaN above every number,
//   -0.0 equal to +0.0);
// - gp_key(x), with subgroups: a u32 whose unsigned order is gp_beats's;
// - gp_fast(a, b): the better of a and b when every index in a is below every index in
//   b (elements seen in index order): b only if strictly better. For f32 a plain
//   comparison that leaves NaN aside, with gp_mask(v) (a u32 above 0x7f800000 when the
//   unit holds a NaN) and gp_first_nan(u0, stride, full, first, best) (the invocation's
//   first NaN, found again) for the invocations that saw one; for the other types
//   gp_fast is exact and gp_mask is 0.
{{COMPARE}}

// The better of any a and b: a better value, or an equal one at a lower index. An empty
// pair (index GP_NONE, value gp_worst()) loses to every element.
fn gp_either(a: GpBest, b: GpBest) -> GpBest {
    if gp_beats(b.v, a.v) || (!gp_beats(a.v, b.v) && b.i < a.i) {
        return b;
    }
    return a;
}

// The best of a unit's four elements, the first at index i.
fn gp_best4(v: vec4<T>, i: u32) -> GpBest {
    let xy = gp_fast(GpBest(v.x, i), GpBest(v.y, i + 1u));
    let zw = gp_fast(GpBest(v.z, i + 2u), GpBest(v.w, i + 3u));
    return gp_fast(xy, zw);
}

fn gp_mask4(a: vec4<T>, b: vec4<T>, c: vec4<T>, d: vec4<T>) -> u32 {
    return max(max(gp_mask(a), gp_mask(b)), max(gp_mask(c), gp_mask(d)));
}

// Sized for the larger workgroup: the finishing pass may have more invocations.
var<workgroup> gp_shared_v: array<T, {{FINISH_WG}}>;
var<workgroup> gp_shared_i: array<u32, {{FINISH_WG}}>;

// GpIds and gp_workgroup_best(b, ids, size) -> GpBest: the best of a workgroup of `size`
// invocations, valid in invocation 0. GpIds holds only per-invocation built-ins: a struct
// with one of them makes every member non-uniform to the uniformity analysis, so the
// workgroup's id comes as parameters of its own.
{{WORKGROUP_BEST}}

@compute @workgroup_size({{WG}})
fn partials_main(
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) group_count: vec3<u32>,
    ids: GpIds,
) {
    let group = group_id.x + group_count.x * (group_id.y + group_count.y * group_id.z);
    if group >= gp_params.groups {
        return;  // whole workgroup: control flow stays uniform for its barriers
    }
    let stride = gp_params.groups * {{WG}}u;
    let full = gp_params.full_units;
    let first = gp_params.first_index;
    var best = GpBest(gp_worst(), GP_NONE);
    var seen = 0u;
    let u0 = group * {{WG}}u + ids.lane;
    var u = u0;
    // The first unit starts the invocation's best (an element, never the empty pair, so
    // gp_fast needs no test for it); then the units in index order.
    if u < full {
        let v = gp_x_load(u);
        best = gp_best4(v, first + 4u * u);
        seen = gp_mask(v);
        u += stride;
    }
    // Four independent loads per iteration keep more memory requests in flight.
    for (; u + 3u * stride < full; u += 4u * stride) {
        let v0 = gp_x_load(u);
        let v1 = gp_x_load(u + stride);
        let v2 = gp_x_load(u + 2u * stride);
        let v3 = gp_x_load(u + 3u * stride);
        seen = max(seen, gp_mask4(v0, v1, v2, v3));
        let b01 = gp_fast(gp_best4(v0, first + 4u * u), gp_best4(v1, first + 4u * (u + stride)));
        let b23 = gp_fast(gp_best4(v2, first + 4u * (u + 2u * stride)), gp_best4(v3, first + 4u * (u + 3u * stride)));
        best = gp_fast(best, gp_fast(b01, b23));
    }
    for (; u < full; u += stride) {
        let v = gp_x_load(u);
        seen = max(seen, gp_mask(v));
        best = gp_fast(best, gp_best4(v, first + 4u * u));
    }
    if seen > 0x7f800000u {
        best = gp_first_nan(u0, stride, full, first, best);
    }
    // The last elements, after every other of the window: one invocation.
    if group == 0u && ids.lane == 0u && gp_params.tail != 0u {
        let v = gp_x_load(full);
        for (var k = 0u; k < gp_params.tail; k++) {
            best = gp_either(best, GpBest(v[k], first + 4u * full + k));
        }
    }
    let total = gp_workgroup_best(best, ids, {{WG}}u);
    if ids.lane == 0u {
        if gp_params.direct != 0u {
            gp_out_value[0] = total.v;
            gp_out_index[0] = total.i;
        } else {
            gp_partial_values[gp_params.base + group] = total.v;
            gp_partial_indices[gp_params.base + group] = total.i;
        }
    }
}

// One workgroup, as wide as the device allows (up to 1024): its time is the latency of
// a few dependent loads per invocation.
@compute @workgroup_size({{FINISH_WG}})
fn finish_main(ids: GpIds) {
    var best = GpBest(gp_worst(), GP_NONE);
    for (var i = ids.lane; i < gp_params.full_units; i += {{FINISH_WG}}u) {
        best = gp_either(best, GpBest(gp_partial_values[i], gp_partial_indices[i]));
    }
    let total = gp_workgroup_best(best, ids, {{FINISH_WG}}u);
    if ids.lane == 0u {
        gp_out_value[0] = total.v;
        gp_out_index[0] = total.i;
    }
}
