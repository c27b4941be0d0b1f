// Groups random queries by the table range they fall in, before wgsl/search.wgsl searches
// them (src/ops/search/, "bucketed" searches). A query's bucket is how many of the
// `buckets` bucket pivots (every `stride`-th pivot of the pivot pass) come before it, so
// each of the buckets + 1 buckets covers about 1 / buckets of the table. Searched bucket
// by bucket, the queries that run at one time touch a few table ranges that stay in the
// cache, where queries in random order touch the whole table at every step.
//
// Three passes, an unstable counting sort by bucket:
// - `count_main`: each workgroup counts its queries' buckets in workgroup memory and
//   adds its counts to gp_bins[0..=buckets];
// - `offsets_main` (one workgroup): the exclusive prefix sums of those counts, into
//   gp_bins[buckets + 1..], each bucket's first free slot;
// - `scatter_main`: each workgroup takes a tile of queries, ranks them within their
//   buckets in workgroup memory, reserves each bucket's slots with one atomic add and
//   writes (ordered query word, query index) pairs there.
// The order within a bucket is whatever the atomics give: the search does not need it.
//
// Queries whose buckets never decrease (sorted queries, for one) are in a good order
// already: `count_main` notes any query whose bucket is below the one before it in
// gp_bins[2 * (buckets + 1)] (0: none), and then `scatter_main` writes nothing and the
// search reads the queries themselves (wgsl/search_io_bucketed.wgsl).

struct GpBucketParams {
    count: u32,      // queries
    buckets: u32,    // bucket pivots: 0 or a power of two, at most {{BUCKETS}}
    stride: u32,     // bucket pivot j is pivot (j + 1) * stride - 1
    pivot_base: u32, // where the table's pivots start in gp_pivots
    groups: u32,     // workgroups of count_main / scatter_main that take part
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> gp_params: GpBucketParams;
@group(0) @binding(1) var<storage, read> gp_pivots: array<u32>;
// Counts per bucket, then each bucket's next free slot (2 * (buckets + 1) words), then
// the word that is not 0 when some query's bucket is below the one before it.
@group(0) @binding(2) var<storage, read_write> gp_bins: array<atomic<u32>>;
// The queries (gp_queries_load(u) -> vec4<u32>, the keys' bits).
{{QUERIES}}
@group(0) @binding(4) var<storage, read_write> gp_pairs: array<vec2<u32>>;

const GP_KEY_XOR: u32 = {{KEY_XOR}}u;
const GP_NEG_MASK: u32 = {{NEG_MASK}}u;
const GP_BINS: u32 = {{BUCKETS}}u + 1u;
// Query units per invocation in a tile of scatter_main.
const GP_UNITS: u32 = {{UNITS}}u;

// A key's bits as a u32 in key order (as wgsl/search.wgsl).
fn gp_ordered(x: u32) -> u32 {
    return x ^ GP_KEY_XOR ^ (bitcast<u32>(bitcast<i32>(x) >> 31u) & GP_NEG_MASK);
}

// The entry points' built-ins: the workgroup's id and count as parameters of their own
// (in one struct with the invocation's index they would be non-uniform to the uniformity
// analysis), the invocation's index in GpIds.
struct GpIds {
    @builtin(local_invocation_index) lane: u32,
}

var<workgroup> gp_bucket_pivots: array<u32, {{BUCKETS}}>;
var<workgroup> gp_unsorted: atomic<u32>;
var<workgroup> gp_counts: array<atomic<u32>, GP_BINS>;
var<workgroup> gp_base: array<u32, GP_BINS>;
var<workgroup> gp_in_order: bool;

// The workgroup's index in a grid folded into y and z past the per-dimension limit.
fn gp_group(id: vec3<u32>, count: vec3<u32>) -> u32 {
    return id.x + count.x * (id.y + count.y * id.z);
}

// Loads the bucket pivots and clears the counts.
fn gp_setup(lane: u32) {
    let s = gp_params.buckets;
    for (var i = lane; i < s; i += {{WG}}u) {
        gp_bucket_pivots[i] = gp_pivots[gp_params.pivot_base + (i + 1u) * gp_params.stride - 1u];
    }
    for (var i = lane; i < GP_BINS; i += {{WG}}u) {
        atomicStore(&gp_counts[i], 0u);
    }
}

// How many bucket pivots come before the ordered word q: its bucket, 0..=buckets.
fn gp_bucket(q: u32) -> u32 {
    let s = gp_params.buckets;
    var c = 0u;
    for (var step = s; step > 0u; step >>= 1u) {
        let probe = c + step;
        if probe <= s && gp_bucket_pivots[min(probe, s) - 1u] < q {
            c = probe;
        }
    }
    return c;
}

@compute @workgroup_size({{WG}})
fn count_main(
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) group_count: vec3<u32>,
    ids: GpIds,
) {
    let group = gp_group(group_id, group_count);
    if group >= gp_params.groups {
        return;  // whole workgroup: control flow stays uniform for its barriers
    }
    gp_setup(ids.lane);
    if ids.lane == 0u {
        atomicStore(&gp_unsorted, 0u);
    }
    workgroupBarrier();
    let units = (gp_params.count + 3u) / 4u;
    var unsorted = false;
    for (var u = group * {{WG}}u + ids.lane; u < units; u += gp_params.groups * {{WG}}u) {
        let q = gp_queries_load(u);
        // The bucket of the query before this unit's first, to compare with.
        var before = 0u;
        if u > 0u {
            before = gp_bucket(gp_ordered(gp_queries_load(u - 1u)[3]));
        }
        for (var k = 0u; k < 4u; k++) {
            if 4u * u + k < gp_params.count {
                let b = gp_bucket(gp_ordered(q[k]));
                atomicAdd(&gp_counts[b], 1u);
                unsorted = unsorted || b < before;
                before = b;
            }
        }
    }
    if unsorted {
        atomicOr(&gp_unsorted, 1u);
    }
    workgroupBarrier();
    for (var i = ids.lane; i < GP_BINS; i += {{WG}}u) {
        let c = atomicLoad(&gp_counts[i]);
        if c != 0u {
            atomicAdd(&gp_bins[i], c);
        }
    }
    if ids.lane == 0u && atomicLoad(&gp_unsorted) != 0u {
        atomicOr(&gp_bins[2u * (gp_params.buckets + 1u)], 1u);
    }
}

var<workgroup> gp_sums: array<u32, {{WG}}>;

@compute @workgroup_size({{WG}})
fn offsets_main(ids: GpIds) {
    // Invocation t sums bins [t * per, t * per + per), the sums are scanned across the
    // workgroup, and each bin's exclusive sum is written after the counts.
    let bins = gp_params.buckets + 1u;
    let per = (bins + {{WG}}u - 1u) / {{WG}}u;
    let first = ids.lane * per;
    var total = 0u;
    for (var i = first; i < min(first + per, bins); i++) {
        total += atomicLoad(&gp_bins[i]);
    }
    gp_sums[ids.lane] = total;
    workgroupBarrier();
    for (var d = 1u; d < {{WG}}u; d <<= 1u) {
        var add = 0u;
        if ids.lane >= d {
            add = gp_sums[ids.lane - d];
        }
        workgroupBarrier();
        gp_sums[ids.lane] += add;
        workgroupBarrier();
    }
    var at = gp_sums[ids.lane] - total;
    for (var i = first; i < min(first + per, bins); i++) {
        let c = atomicLoad(&gp_bins[i]);
        atomicStore(&gp_bins[bins + i], at);
        at += c;
    }
}

@compute @workgroup_size({{WG}})
fn scatter_main(
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) group_count: vec3<u32>,
    ids: GpIds,
) {
    let group = gp_group(group_id, group_count);
    if group >= gp_params.groups {
        return;
    }
    let bins = gp_params.buckets + 1u;
    // Queries in order already: the search reads them where they stand.
    if ids.lane == 0u {
        gp_in_order = atomicLoad(&gp_bins[2u * bins]) == 0u;
    }
    if workgroupUniformLoad(&gp_in_order) {
        return;
    }
    let units = (gp_params.count + 3u) / 4u;
    let tile = {{WG}}u * GP_UNITS;
    let tiles = (units + tile - 1u) / tile;
    gp_setup(ids.lane);
    // Tiles in a grid stride; the loop bound is the same for the whole workgroup.
    for (var t = group; t < tiles; t += gp_params.groups) {
        workgroupBarrier();  // the bucket pivots are loaded, the counts clear
        var words: array<vec4<u32>, GP_UNITS>;
        var slots: array<vec4<u32>, GP_UNITS>;  // each query's rank within its bucket
        var buckets: array<vec4<u32>, GP_UNITS>;
        for (var j = 0u; j < GP_UNITS; j++) {
            let u = t * tile + j * {{WG}}u + ids.lane;
            let q = gp_queries_load(min(u, units - 1u));
            for (var k = 0u; k < 4u; k++) {
                let w = gp_ordered(q[k]);
                words[j][k] = w;
                if u < units && 4u * u + k < gp_params.count {
                    let b = gp_bucket(w);
                    buckets[j][k] = b;
                    slots[j][k] = atomicAdd(&gp_counts[b], 1u);
                }
            }
        }
        workgroupBarrier();
        // Reserve each bucket's slots for this tile, and clear its count for the next.
        for (var i = ids.lane; i < bins; i += {{WG}}u) {
            let c = atomicLoad(&gp_counts[i]);
            if c != 0u {
                gp_base[i] = atomicAdd(&gp_bins[bins + i], c);
                atomicStore(&gp_counts[i], 0u);
            }
        }
        workgroupBarrier();
        for (var j = 0u; j < GP_UNITS; j++) {
            let u = t * tile + j * {{WG}}u + ids.lane;
            for (var k = 0u; k < 4u; k++) {
                if u < units && 4u * u + k < gp_params.count {
                    gp_pairs[gp_base[buckets[j][k]] + slots[j][k]] = vec2<u32>(words[j][k], 4u * u + k);
                }
            }
        }
    }
}
