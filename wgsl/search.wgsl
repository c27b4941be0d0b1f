// Binary search of a sorted table for a vector of queries: lower_bound (the index of the
// first element >= q) or upper_bound (the first element > q).
//
// Keys are compared as u32 words whose unsigned order is the key order (as the sorts
// order them: u32 as is, i32 with the sign flipped, f32 in f32::total_cmp's order).
//
// Pass `pivots` (per table window): `pivots` evenly spaced table elements are copied (as ordered words) into a small buffer. Pass `search`: each workgroup loads its
// window's pivots into workgroup memory once, then walks the queries in a grid-stride
// loop, four at a time (one vec4 unit): a binary search over the pivots narrows each
// query to the elements between two pivots, and `steps` steps of a branchless
// binary search over the table finish it. The four searches of a unit run side by side,
// so an invocation has four independent loads in flight at each step.
//
// A table larger than one binding is searched window by window: the answer is the sum
// of the answers in each window (for a sorted table, the elements before q in the whole
// table are those before q in each window), the first window writing and later ones
// adding. Whatever the table holds, every load stays inside the window and each answer
// stays in 0..=n.

struct GpSearchParams {
    n: u32,          // table elements in this window
    pivots: u32,     // pivots of this window: 0 or a power of two, at most {{PIVOTS}}
    gap: u32,        // pivot j is table element gp_pivot_at(j): gap apart, plus 1 for
    extra: u32,      //   each of the first `extra` gaps
    steps: u32,      // binary-search steps after the pivots
    pivot_base: u32, // where this window's pivots start in gp_pivots
    accumulate: u32, // 1: add to the answers of the earlier table windows
    units: u32,      // query units in this query window
    groups: u32,     // workgroups that take part; surplus ones of a folded grid return
    unsorted_at: u32, // bucketed: the word of gp_bins that says the queries were not in order
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> gp_params: GpSearchParams;
@group(0) @binding(1) var<storage, read_write> gp_pivots: array<u32>;
@group(0) @binding(2) var<storage, read> gp_table: array<u32>;

// How queries are read and answers written: `gp_io_begin()` once, then `gp_query(u)`,
// the four ordered query words of unit u, and `gp_answer(u, a)`, their answers. Direct
// (wgsl/search_io_direct.wgsl): the queries and the answers at bindings 3 and 4, unit by
// unit. Bucketed (wgsl/search_io_bucketed.wgsl): (ordered query, index) pairs at binding
// 3, grouped by table range by wgsl/search_buckets.wgsl, and each answer written at its
// index; or, where the bucketing found the queries in order already, the queries
// themselves.
{{IO}}

const GP_KEY_XOR: u32 = {{KEY_XOR}}u;
const GP_NEG_MASK: u32 = {{NEG_MASK}}u;

// A key's bits as a u32 in key order (as wgsl/sort_keys.wgsl).
fn gp_ordered(x: u32) -> u32 {
    return x ^ GP_KEY_XOR ^ (bitcast<u32>(bitcast<i32>(x) >> 31u) & GP_NEG_MASK);
}

// Table index of pivot j (j < pivots): the pivots split the other n - pivots elements
// into pivots + 1 ranges of gap - 1 or gap elements, the longer ones first.
fn gp_pivot_at(j: u32) -> u32 {
    return (j + 1u) * gp_params.gap - 1u + min(j + 1u, gp_params.extra);
}

fn gp_pivot_at4(j: vec4<u32>) -> vec4<u32> {
    let e = vec4<u32>(gp_params.extra);
    return (j + 1u) * gp_params.gap - 1u + min(j + 1u, e);
}

fn gp_ordered4(x: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(gp_ordered(x.x), gp_ordered(x.y), gp_ordered(x.z), gp_ordered(x.w));
}

// Whether a table element (ordered) comes before the answer for query q: less than q
// for lower_bound, less or equal for upper_bound.
fn gp_before(t: vec4<u32>, q: vec4<u32>) -> vec4<bool> {
    return t {{BEFORE}} q;
}

// The workgroup's index in a grid folded into y and z past the per-dimension limit.
fn gp_group(id: vec3<u32>, count: vec3<u32>) -> u32 {
    return id.x + count.x * (id.y + count.y * id.z);
}

var<workgroup> gp_shared_pivots: array<u32, {{PIVOTS}}>;

// The built-ins come as separate parameters: in one struct with the invocation's index
// the workgroup's id would be non-uniform to the uniformity analysis.
@compute @workgroup_size({{WG}})
fn pivots_main(
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) group_count: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let j = gp_group(group_id, group_count) * {{WG}}u + lane;
    if j < gp_params.pivots {
        gp_pivots[gp_params.pivot_base + j] = gp_ordered(gp_table[gp_pivot_at(j)]);
    }
}

@compute @workgroup_size({{WG}})
fn search_main(
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) group_count: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let group = gp_group(group_id, group_count);
    if group >= gp_params.groups {
        return;  // whole workgroup: control flow stays uniform for its barrier
    }
    let s = gp_params.pivots;
    for (var i = lane; i < s; i += {{WG}}u) {
        gp_shared_pivots[i] = gp_pivots[gp_params.pivot_base + i];
    }
    workgroupBarrier();
    gp_io_begin();
    let n = vec4<u32>(gp_params.n);
    let last = vec4<u32>(max(gp_params.n, 1u) - 1u);
    let sv = vec4<u32>(s);
    for (var u = group * {{WG}}u + lane; u < gp_params.units; u += gp_params.groups * {{WG}}u) {
        let q = gp_query(u);
        // c: how many pivots come before q (0..=s), by probing counts from s down.
        var c = vec4<u32>(0u);
        for (var step = s; step > 0u; step >>= 1u) {
            let probe = c + step;
            let j = min(probe, sv) - 1u;
            let p = vec4<u32>(gp_shared_pivots[j.x], gp_shared_pivots[j.y], gp_shared_pivots[j.z], gp_shared_pivots[j.w]);
            c = select(c, probe, (probe <= sv) & gp_before(p, q));
        }
        // The answer is in [lo, hi]: after pivot c - 1 (0 for c = 0), at most pivot c (n
        // for c = pivots).
        var lo = c * gp_params.gap + min(c, vec4<u32>(gp_params.extra));
        let hi = select(gp_pivot_at4(c), n, c == sv);
        var len = hi - lo;
        // Branchless lower bound in [lo, lo + len]: each step halves len at least.
        for (var k = 0u; k < gp_params.steps; k++) {
            let half = len >> vec4<u32>(1u);
            let mid = min(lo + half, last);
            let t = gp_ordered4(vec4<u32>(gp_table[mid.x], gp_table[mid.y], gp_table[mid.z], gp_table[mid.w]));
            let take = (len > vec4<u32>(0u)) & gp_before(t, q);
            lo = select(lo, mid + 1u, take);
            len = select(half, len - half - 1u, take);
        }
        gp_answer(u, lo);
    }
}
