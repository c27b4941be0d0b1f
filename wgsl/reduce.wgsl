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

struct Params {
    full_units: u32,  // whole vec4 units in this binding window (partials: count to combine)
    tail: u32,        // valid elements (0..3) in the unit after them
    groups: u32,      // workgroups that take part; surplus ones of a folded grid return
    base: u32,        // where this window's partials go
    opaque_zero: u32, // always 0; the compiler cannot know it (see the compensated sum)
    direct: u32,      // 1: the only workgroup of the first pass writes the result
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> partials: array<A>;
@group(0) @binding(2) var<storage, read> x: array<vec4<T>>;
@group(0) @binding(3) var<storage, read> y: array<vec4<T>>;
@group(0) @binding(4) var<storage, read_write> result: array<T>;

// The operation: identity(), lift(T) -> A, combine(A, A) -> A, finish(A) -> T.
{{OP}}

// One vec4 unit of input (x[u] for a reduction, x[u] * y[u] for a dot product).
fn unit(u: u32) -> vec4<T> {
    return {{UNIT}};
}

fn fold4(v: vec4<T>) -> A {
    return combine(combine(lift(v.x), lift(v.y)), combine(lift(v.z), lift(v.w)));
}

// Sized for the larger workgroup: the finishing pass may have more invocations.
var<workgroup> shared_acc: array<A, {{FINISH_WG}}>;

// workgroup_reduce(acc, ids, size) -> A: the total of a workgroup of `size`
// invocations, valid in invocation 0.
{{WORKGROUP_REDUCE}}

@compute @workgroup_size({{WG}})
fn partials_main(ids: Ids) {
    let group = ids.group.x + ids.groups.x * (ids.group.y + ids.groups.y * ids.group.z);
    if group >= params.groups {
        return;  // whole workgroup: control flow stays uniform for its barriers
    }
    let stride = params.groups * {{WG}}u;
    var acc = identity();
    var u = group * {{WG}}u + ids.lane;
    // Four independent loads per iteration keep more memory requests in flight.
    for (; u + 3u * stride < params.full_units; u += 4u * stride) {
        let v0 = unit(u);
        let v1 = unit(u + stride);
        let v2 = unit(u + 2u * stride);
        let v3 = unit(u + 3u * stride);
        acc = combine(acc, combine(combine(fold4(v0), fold4(v1)), combine(fold4(v2), fold4(v3))));
    }
    for (; u < params.full_units; u += stride) {
        acc = combine(acc, fold4(unit(u)));
    }
    if group == 0u && ids.lane == 0u && params.tail != 0u {
        let v = unit(params.full_units);
        for (var k = 0u; k < params.tail; k++) {
            acc = combine(acc, lift(v[k]));
        }
    }
    let total = workgroup_reduce(acc, ids, {{WG}}u);
    if ids.lane == 0u {
        if params.direct != 0u {
            result[0] = finish(total);
        } else {
            partials[params.base + group] = total;
        }
    }
}

// One workgroup, as wide as the device allows (up to 1024): combining the partials is
// a chain of dependent loads per invocation, so its time is latency.
@compute @workgroup_size({{FINISH_WG}})
fn finish_main(ids: Ids) {
    var acc = identity();
    for (var i = ids.lane; i < params.full_units; i += {{FINISH_WG}}u) {
        acc = combine(acc, partials[i]);
    }
    let total = workgroup_reduce(acc, ids, {{FINISH_WG}}u);
    if ids.lane == 0u {
        result[0] = finish(total);
    }
}
