// OneSweep's first pass: the digit histograms of every pass in one read of the keys
// (`histogram`), then each histogram scanned into the digits' first positions
// (`scan_histogram`, one workgroup per pass). Adapters with subgroups only.

const WG: u32 = {{WG}}u;
const RADIX: u32 = 256u;
const DPT: u32 = {{DPT}}u;            // digits per invocation in scan_digits
const MAX_SUBGROUPS: u32 = {{MAX_SUBGROUPS}}u;
const SUBGROUPS: u32 = {{SUBGROUPS}}u;     // WG / subgroup size where it is one size, else 0
const AHEAD: u32 = 4u;            // vec4 units loaded before any is counted

struct HistParams {
    n: u32,         // keys
    units: u32,     // vec4 units of keys
    passes: u32,    // digit passes (histograms)
    key_xor: u32,   // see sort_keys.wgsl
    neg_mask: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    shifts: vec4<u32>,  // pass p's digit is (ordered(key) >> shifts[p]) & masks[p]
    masks: vec4<u32>,
}

@group(0) @binding(0) var<uniform> params: HistParams;
// The keys as vec4 units: `keys_load(u)` (src/runtime/view.rs).
{{KEYS_DECL}}
// passes x RADIX counts, cleared before `histogram`; `scan_histogram` turns each pass's
// counts into exclusive prefixes in place.
@group(0) @binding(2) var<storage, read_write> hist: array<atomic<u32>>;

{{KEYS}}
{{IDS}}

var<workgroup> counts: array<atomic<u32>, 1024>;

// Counts one unit's four keys (`v`, unit `u`) in every pass's histogram, one atomic a
// key. (A subgroup-wide check for units whose lanes all have one digit, added once for
// the subgroup, made the pass slower even on uniform keys; see lab/perf-journal.md.)
fn count_unit(u: u32, v: vec4<u32>) {
    var valid: array<bool, 4>;
    var x: array<u32, 4>;
    for (var c = 0u; c < 4u; c++) {
        valid[c] = u < params.units && u * 4u + c < params.n;
        x[c] = ordered(v[c], params.key_xor, params.neg_mask);
    }
    // A constant trip count, so the passes' shifts and masks are constant-indexed (a
    // bound of `params.passes` was slower; see lab/perf-journal.md).
    for (var p = 0u; p < 4u; p++) {
        if p >= params.passes {
            break;
        }
        for (var c = 0u; c < 4u; c++) {
            if valid[c] {
                atomicAdd(&counts[p * RADIX + ((x[c] >> params.shifts[p]) & params.masks[p])], 1u);
            }
        }
    }
}

@compute @workgroup_size(WG)
fn histogram(ids: Ids, grp: Group) {
    for (var i = ids.index; i < 4u * RADIX; i += WG) {
        atomicStore(&counts[i], 0u);
    }
    workgroupBarrier();
    let groups = grp.count.x * grp.count.y * grp.count.z;
    let stride = groups * WG;
    // Every invocation makes the same number of rounds (counted from the grid). Each
    // round loads AHEAD units before counting any: counting waits on its unit, and
    // loads interleaved with it would each wait a full memory round trip.
    let rounds = (params.units + stride - 1u) / stride;
    let u0 = linear_group(grp) * WG + ids.index;
    for (var r = 0u; r < rounds; r += AHEAD) {
        var v: array<vec4<u32>, AHEAD>;
        for (var q = 0u; q < AHEAD; q++) {
            let u = u0 + (r + q) * stride;
            if r + q < rounds && u < params.units {
                v[q] = keys_load(u);
            }
        }
        for (var q = 0u; q < AHEAD; q++) {
            if r + q < rounds {
                count_unit(u0 + (r + q) * stride, v[q]);
            }
        }
    }
    workgroupBarrier();
    for (var i = ids.index; i < params.passes * RADIX; i += WG) {
        let c = atomicLoad(&counts[i]);
        if c != 0u {
            atomicAdd(&hist[i], c);
        }
    }
}

@compute @workgroup_size(WG)
fn scan_histogram(ids: Ids, grp: Group) {
    let base = linear_group(grp) * RADIX;
    let me = position(ids, grp);
    var x: array<u32, DPT>;
    for (var j = 0u; j < DPT; j++) {
        let d = me * DPT + j;
        if d < RADIX {
            x[j] = atomicLoad(&hist[base + d]);
        }
    }
    _ = scan_digits(&x, ids, grp);
    for (var j = 0u; j < DPT; j++) {
        let d = me * DPT + j;
        if d < RADIX {
            atomicStore(&hist[base + d], x[j]);
        }
    }
}
