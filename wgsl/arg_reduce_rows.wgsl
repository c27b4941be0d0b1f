// Argmax / argmin per row of a grid or per segment of offsets (Ctx::argmax_rows,
// Ctx::segmented_argmax and their argmin twins): one pass.
//
// G invocations take a segment (a row, or values[offsets[s]..offsets[s + 1]]), WG / G
// segments a workgroup at a time, and workgroups walk the segments in a grid-stride loop.
// Each invocation walks the segment's whole vec4 units (the G invocations interleaved, four
// loads in flight), keeping its best (value, index); the first of them also takes the
// elements of the partial units at either end. The G bests then meet: by subgroup shuffles
// where G is at most the subgroup size (SUBGROUP); by shuffles within each subgroup and
// then across the segment's subgroups through workgroup memory where it may be more
// (HYBRID); else by a workgroup-memory tree.
//
// The values are bound a window at a time (a vector larger than one storage binding is
// several dispatches, and so are outputs or offsets larger than one): a dispatch takes
// the part of each of its segments inside its window. A few long segments are each cut
// into `parts` parts, items of their own, whose (value, index) pairs a second pass
// (finish_main) combines. The
// window holding a segment's first element writes its (value, index); later windows
// combine their part with it. "Best" is a strict weak order (gp_beats: NaN above every
// number, -0.0 equal to +0.0) with ties broken by the lower index, so the result is one
// element whatever order the pairs meet in: the same bits every run.
{{ENABLE}}
alias T = {{T}};

const WG: u32 = {{WG}}u;
const G: u32 = {{ACROSS}}u;   // invocations per segment: a power of two, at most WG
const SLOTS: u32 = WG / G;    // segments a workgroup takes at once

struct GpArgRowsParams {
    segments: u32,      // items this dispatch takes: segments (rows), or their parts
    first_segment: u32, // the number of its first one (rows: the first row; offsets: 0)
    groups: u32,        // workgroups that take part; surplus ones of a folded grid return
    width: u32,         // rows: elements per row
    pitch: u32,         // rows: elements from one row's start to the next
    n: u32,             // the values' length: offsets are clamped to it
    window_start: u32,  // index of the window's first element (a whole vec4 unit)
    window_end: u32,    // one past its last element
    last_window: u32,   // 1: no window after this one
    out_base: u32,      // the segment at element 0 of the outputs' (and offsets') bindings
    parts: u32,         // parts per segment: 1, or its partials go to gp_out and finish_main
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> gp_params: GpArgRowsParams;
@group(0) @binding(3) var<storage, read_write> gp_out_value: array<T>;
@group(0) @binding(4) var<storage, read_write> gp_out_index: array<u32>;
// finish_main: the partials of the first pass.
@group(0) @binding(5) var<storage, read> gp_part_value: array<T>;
@group(0) @binding(6) var<storage, read> gp_part_index: array<u32>;
//#if OFFSETS
@group(0) @binding(2) var<storage, read> gp_offsets: array<u32>;
//#endif

// The window of values at binding 1: gp_x_load(u) -> vec4<T>, unit u of the window.
{{INPUT}}

// No index: an empty segment's, or an invocation's before it has seen an element.
const GP_NONE: u32 = 0xffffffffu;

struct GpBest {
    v: T,
    i: u32,
}

// gp_worst() (a value no element is worse than), gp_beats(a, b) (a strictly better than
// b: NaN above every number, -0.0 equal to +0.0) and, for floats, gp_is_nan(x).
{{COMPARE}}

// gp_fast(a, b): the better of a and b when every index in a is below every index in b
// (b only if strictly better). For f32 a plain comparison that leaves NaN aside, with
// gp_mask(v) (above 0x7f800000 when the unit holds a NaN) and gp_first_nan (the
// invocation's first NaN, found again); for the other types exact, and gp_mask is 0.
//#if F32
fn gp_fast(a: GpBest, b: GpBest) -> GpBest {
    if b.v {{BETTER}} a.v {
        return b;
    }
    return a;
}
fn gp_mask(v: vec4<T>) -> u32 {
    let m = bitcast<vec4<u32>>(v) & vec4<u32>(0x7fffffffu);
    return max(max(m.x, m.y), max(m.z, m.w));
}
fn gp_first_nan(u0: u32, end: u32, a: u32, best: GpBest) -> GpBest {
    for (var u = u0; u < end; u += G) {
        let v = gp_unit(u);
        for (var k = 0u; k < 4u; k++) {
            if gp_is_nan(v[k]) {
                return GpBest(v[k], 4u * u + k - a);
            }
        }
    }
    return best;
}
//#else
fn gp_fast(a: GpBest, b: GpBest) -> GpBest {
    if gp_beats(b.v, a.v) {
        return b;
    }
    return a;
}
fn gp_mask(v: vec4<T>) -> u32 {
    return 0u;
}
fn gp_first_nan(u0: u32, end: u32, a: u32, best: GpBest) -> GpBest {
    return best;
}
//#endif

// The better of any a and b: a better value, or an equal one at a lower index. The
// empty pair (gp_worst(), GP_NONE) loses to every element.
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

// Unit u of the values (u * 4 is an element index of the vector), inside the window.
fn gp_unit(u: u32) -> vec4<T> {
    return gp_x_load(u - gp_params.window_start / 4u);
}

// Segment s (at o in the bindings): its first element and one past its last. Offsets
// are clamped to the values (a segment that ends before it starts is empty).
fn gp_bounds(s: u32, o: u32) -> vec2<u32> {
//#if OFFSETS
    let n = gp_params.n;
    let a = min(gp_offsets[o], n);
    return vec2<u32>(a, clamp(gp_offsets[o + 1u], a, n));
//#else
    let a = s * gp_params.pitch;
    return vec2<u32>(a, a + gp_params.width);
//#endif
}

// The best of elements lo..hi of a segment that starts at a, as invocation l of its G
// sees them: indices are from a.
fn gp_walk(lo: u32, hi: u32, l: u32, a: u32) -> GpBest {
    var best = GpBest(gp_worst(), GP_NONE);
    let first = (lo + 3u) / 4u; // the first whole unit
    let end = hi / 4u;          // one past the last whole unit
    let u0 = first + l;
    var u = u0;
    var seen = 0u;
    // The first units start the best (elements, never the empty pair, so gp_fast needs
    // no test for it): four at once where there are (a row of 4 G units then has all
    // its loads in flight), else one; then the units in index order.
    if u + 3u * G < end {
        let v0 = gp_unit(u);
        let v1 = gp_unit(u + G);
        let v2 = gp_unit(u + 2u * G);
        let v3 = gp_unit(u + 3u * G);
        seen = gp_mask4(v0, v1, v2, v3);
        let b01 = gp_fast(gp_best4(v0, 4u * u - a), gp_best4(v1, 4u * (u + G) - a));
        let b23 = gp_fast(gp_best4(v2, 4u * (u + 2u * G) - a), gp_best4(v3, 4u * (u + 3u * G) - a));
        best = gp_fast(b01, b23);
        u += 4u * G;
    } else if u < end {
        let v = gp_unit(u);
        best = gp_best4(v, 4u * u - a);
        seen = gp_mask(v);
        u += G;
    }
    for (; u + 3u * G < end; u += 4u * G) {
        let v0 = gp_unit(u);
        let v1 = gp_unit(u + G);
        let v2 = gp_unit(u + 2u * G);
        let v3 = gp_unit(u + 3u * G);
        seen = max(seen, gp_mask4(v0, v1, v2, v3));
        let b01 = gp_fast(gp_best4(v0, 4u * u - a), gp_best4(v1, 4u * (u + G) - a));
        let b23 = gp_fast(gp_best4(v2, 4u * (u + 2u * G) - a), gp_best4(v3, 4u * (u + 3u * G) - a));
        best = gp_fast(best, gp_fast(b01, b23));
    }
    for (; u < end; u += G) {
        let v = gp_unit(u);
        seen = max(seen, gp_mask(v));
        best = gp_fast(best, gp_best4(v, 4u * u - a));
    }
    if seen > 0x7f800000u {
        best = gp_first_nan(u0, end, a, best);
    }
    // The elements of the partial units at either end (or of the one partial unit).
    if l == 0u {
        let head_end = min(hi, 4u * first);
        for (var i = lo; i < head_end; i++) {
            best = gp_either(best, GpBest(gp_unit(i / 4u)[i % 4u], i - a));
        }
        for (var i = max(4u * end, head_end); i < hi; i++) {
            best = gp_either(best, GpBest(gp_unit(i / 4u)[i % 4u], i - a));
        }
    }
    return best;
}

//#if SHARED
var<workgroup> gp_shared_v: array<T, WG>;
var<workgroup> gp_shared_i: array<u32, WG>;
//#endif

//#if SUBGROUP
@compute @workgroup_size({{WG}})
fn rows_main(
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) group_count: vec3<u32>,
    @builtin(subgroup_invocation_id) subgroup_lane: u32,
    @builtin(subgroup_size) subgroup_size: u32,
    @builtin(subgroup_id) subgroup: u32,
) {
    // Invocations numbered subgroup by subgroup, so a segment's G are whole subgroups
    // or lie in one.
    let position = subgroup * subgroup_size + subgroup_lane;
//#else
@compute @workgroup_size({{WG}})
fn rows_main(
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) group_count: vec3<u32>,
    @builtin(local_invocation_index) position: u32,
) {
//#endif
    let group = group_id.x + group_count.x * (group_id.y + group_count.y * group_id.z);
    if group >= gp_params.groups {
        return;  // whole workgroup: control flow stays uniform for its barriers
    }
    let slot = position / G;
    let l = position % G;
    let window_start = gp_params.window_start;
    let window_end = gp_params.window_end;
    // The segments a block of SLOTS at a time, so every invocation runs the loop alike
    // and the barriers (shuffles) stay in uniform control flow.
    // With parts, the items are the parts of the segments: item k is part k % parts of
    // segment k / parts, and its (value, index) goes to element k of the outputs.
    let parts = gp_params.parts;
    for (var block = group * SLOTS; block < gp_params.segments; block += gp_params.groups * SLOTS) {
        let it = block + slot;
        let valid = it < gp_params.segments;
        let item = gp_params.first_segment * parts + it;
        let seg = item / parts;
        let part = item % parts;
        let o = seg - gp_params.out_base;
        let out = item - gp_params.out_base * parts;
        var best = GpBest(gp_worst(), GP_NONE);
        var owned = false;
        var touched = false;
        var a = 0u;
        if valid {
            let bounds = gp_bounds(seg, o);
            a = bounds.x;
            // The part: whole vec4 units from the segment's start, `q` elements (at least
            // len / parts), the last ones cut at its end.
            let len = bounds.y - a;
            let q = (len / parts + 4u) & ~3u;
            let first = a + min(part * q, len);
            let lo = max(first, window_start);
            let hi = min(a + min(part * q + q, len), window_end);
            // The window that holds the part's first element (the last one an empty part
            // at the end) writes it; a later one combines its elements with that.
            owned = first >= window_start && (first < window_end || gp_params.last_window != 0u);
            touched = lo < hi;
            if touched {
                best = gp_walk(lo, hi, l, a);
            }
        }
//#if HYBRID
        // Shuffles within each subgroup (or the segment's part of one), then the first
        // invocation of the segment combines its subgroups' bests.
        let span = min(G, subgroup_size);
        for (var m = 1u; m < span; m <<= 1u) {
            let other = GpBest(subgroupShuffleXor(best.v, m), subgroupShuffleXor(best.i, m));
            best = gp_either(best, other);
        }
        if subgroup_lane == 0u {
            gp_shared_v[subgroup] = best.v;
            gp_shared_i[subgroup] = best.i;
        }
        workgroupBarrier();
        if l == 0u {
            for (var j = 1u; j < G / subgroup_size; j++) {
                best = gp_either(best, GpBest(gp_shared_v[subgroup + j], gp_shared_i[subgroup + j]));
            }
        }
        workgroupBarrier();
//#else
//#if SUBGROUP
        for (var m = G / 2u; m > 0u; m >>= 1u) {
            let other = GpBest(subgroupShuffleXor(best.v, m), subgroupShuffleXor(best.i, m));
            best = gp_either(best, other);
        }
//#else
        if G > 1u {
            gp_shared_v[position] = best.v;
            gp_shared_i[position] = best.i;
            workgroupBarrier();
            for (var m = G / 2u; m > 0u; m >>= 1u) {
                if l < m {
                    best = gp_either(best, GpBest(gp_shared_v[position + m], gp_shared_i[position + m]));
                    gp_shared_v[position] = best.v;
                    gp_shared_i[position] = best.i;
                }
                workgroupBarrier();
            }
        }
//#endif
//#endif
        if l == 0u && valid && (owned || touched) {
            if touched {
                // The value read again at its index: a compiler may turn the plain
                // comparisons of gp_fast into max/min, which need not keep the sign of
                // a zero (Mesa's GL does), though the index is right.
                let i = a + best.i;
                best.v = gp_unit(i / 4u)[i % 4u];
            }
            if !owned {
                best = gp_either(GpBest(gp_out_value[out], gp_out_index[out]), best);
            }
            gp_out_value[out] = best.v;
            gp_out_index[out] = best.i;
        }
    }
}

var<workgroup> gp_finish_v: array<T, WG>;
var<workgroup> gp_finish_i: array<u32, WG>;

// The second pass of segments split into parts: a workgroup per segment (segments in a
// grid-stride loop) combines its `parts` partials, a workgroup-memory tree at the end.
@compute @workgroup_size({{WG}})
fn finish_main(
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) group_count: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let group = group_id.x + group_count.x * (group_id.y + group_count.y * group_id.z);
    if group >= gp_params.groups {
        return;
    }
    let parts = gp_params.parts;
    for (var s = group; s < gp_params.segments; s += gp_params.groups) {
        let seg = gp_params.first_segment + s;
        var best = GpBest(gp_worst(), GP_NONE);
        for (var p = lane; p < parts; p += WG) {
            let k = seg * parts + p;
            best = gp_either(best, GpBest(gp_part_value[k], gp_part_index[k]));
        }
        gp_finish_v[lane] = best.v;
        gp_finish_i[lane] = best.i;
        workgroupBarrier();
        for (var m = WG / 2u; m > 0u; m >>= 1u) {
            if lane < m {
                best = gp_either(best, GpBest(gp_finish_v[lane + m], gp_finish_i[lane + m]));
                gp_finish_v[lane] = best.v;
                gp_finish_i[lane] = best.i;
            }
            workgroupBarrier();
        }
        if lane == 0u {
            gp_out_value[seg - gp_params.out_base] = best.v;
            gp_out_index[seg - gp_params.out_base] = best.i;
        }
    }
}
