// Two-pass reduction.
//
// Pass `partials`: each of `groups` workgroups walks the input in a grid-stride loop,
// four elements (one vec4) at a time, folding them into one accumulator per thread;
// the workgroup then combines its threads' accumulators and writes one partial.
// Pass `finish`: one workgroup combines the partials and writes the result. When the
// first pass has a single workgroup (small inputs), it writes the result itself and
// the second pass is not dispatched: one dispatch less in a blocking call's round trip.
//
// The accumulator type A may be wider than the element type T (a compensated pair, or
// f64 for f32 input). Order of combination is fixed by the dispatch, so results are
// the same bits run to run.
{{ENABLE}}
alias T = {{T}};
alias A = {{A}};

struct GpReduceParams {
    full_units: u32,  // whole vec4 units in this binding window (partials: count to combine)
    tail: u32,        // valid elements (0..3) in the unit after them
    groups: u32,      // workgroups that take part; surplus ones of a folded grid return
    base: u32,        // where this window's partials go
    opaque_zero: u32, // always 0; the compiler cannot know it (see the compensated sum)
    direct: u32,      // 1: the only workgroup of the first pass writes the result
    first_unit: u32,  // the window's first vec4 unit (for a device count)
    n_cap: u32,       // elements at most (for a device count)
}

@group(0) @binding(0) var<uniform> gp_reduce: GpReduceParams;
@group(0) @binding(1) var<storage, read_write> gp_partials: array<A>;
@group(0) @binding(4) var<storage, read_write> gp_result: array<T>;

// The operation: gp_identity(), gp_lift(T) -> A, gp_combine(A, A) -> A, gp_finish(A) -> T.
{{OP}}

// The input's bindings (x at 2 and y at 3 for reduce and dot; from 5 on for
// Ctx::transform_reduce) and gp_unit(u) -> vec4<T>, one vec4 unit of it: x[u], x[u] * y[u],
// or an expression of several vectors and scalars.
{{INPUTS}}

fn gp_fold4(v: vec4<T>) -> A {
    return gp_combine(gp_combine(gp_lift(v.x), gp_lift(v.y)), gp_combine(gp_lift(v.z), gp_lift(v.w)));
}

// gp_window() -> vec2<u32>: this window's whole units and tail, from the parameters, or
// cut at a device count (GpuVec::prefix).
{{BOUNDS}}

// Sized for the larger workgroup: the finishing pass may have more invocations.
var<workgroup> gp_shared_acc: array<A, {{FINISH_WG}}>;

// workgroup_reduce(acc, ids, size) -> A: the total of a workgroup of `size`
// invocations, valid in invocation 0.
{{WORKGROUP_REDUCE}}

@compute @workgroup_size({{WG}})
fn partials_main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) wgs: vec3<u32>,
    ids: GpIds,
) {
    // The group's ids apart from `ids`: a struct with one invocation's ids in it is not
    // uniform to WGSL's analysis, and the early return below must be.
    let group = wg.x + wgs.x * (wg.y + wgs.y * wg.z);
    if group >= gp_reduce.groups {
        return;  // whole workgroup: control flow stays uniform for its barriers
    }
    let stride = gp_reduce.groups * {{WG}}u;
    let window = gp_window();
    var acc = gp_identity();
    var u = group * {{WG}}u + ids.lane;
    // Four independent loads per iteration keep more memory requests in flight.
    for (; u + 3u * stride < window.x; u += 4u * stride) {
        let v0 = gp_unit(u);
        let v1 = gp_unit(u + stride);
        let v2 = gp_unit(u + 2u * stride);
        let v3 = gp_unit(u + 3u * stride);
        acc = gp_combine(acc, gp_combine(gp_combine(gp_fold4(v0), gp_fold4(v1)), gp_combine(gp_fold4(v2), gp_fold4(v3))));
    }
    for (; u < window.x; u += stride) {
        acc = gp_combine(acc, gp_fold4(gp_unit(u)));
    }
    if group == 0u && ids.lane == 0u && window.y != 0u {
        let v = gp_unit(window.x);
        for (var k = 0u; k < window.y; k++) {
            acc = gp_combine(acc, gp_lift(v[k]));
        }
    }
    let total = gp_workgroup_reduce(acc, ids, {{WG}}u);
    if ids.lane == 0u {
        if gp_reduce.direct != 0u {
            gp_result[0] = gp_finish(total);
        } else {
            gp_partials[gp_reduce.base + group] = total;
        }
    }
}

// One workgroup, as wide as the device allows (up to 1024): combining the partials is
// a chain of dependent loads per invocation, so its time is latency.
@compute @workgroup_size({{FINISH_WG}})
fn finish_main(ids: GpIds) {
    var acc = gp_identity();
    for (var i = ids.lane; i < gp_reduce.full_units; i += {{FINISH_WG}}u) {
        acc = gp_combine(acc, gp_partials[i]);
    }
    let total = gp_workgroup_reduce(acc, ids, {{FINISH_WG}}u);
    if ids.lane == 0u {
        gp_result[0] = gp_finish(total);
    }
}
