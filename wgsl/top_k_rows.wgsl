// top_k_rows: the k largest elements of each row of a grid (src/ops/top_k/rows.rs).
//
// One workgroup per row (rows grid-strided over the workgroups). Every element is seen
// as its ordered word w (wgsl/sort_keys.wgsl, with every bit flipped for
// smallest_k_rows); the wanted elements are the k largest (w, -column) pairs.
//
// 1. Radix select, 8 bits of w at a time, most significant first: a histogram of the
//    digit among the elements whose decided bits match the prefix selected so far (in
//    workgroup memory), and the bin holding the need-th largest joins the prefix. It
//    stops as soon as the elements at or above the prefix (those above it and the
//    bucket's) number at most `stop` (k plus a workgroup's worth), or after the last
//    digit, when the prefix is the k-th largest word T.
// 2. Gather: those elements go to the candidate slots (workgroup memory, in any order).
//    When the last digit leaves more candidates than the CAP slots (many equal to T),
//    the elements above T go to the slots in any order and, of those equal to T, the
//    lowest-index ones (a workgroup scan in index order) fill the rest: k in all.
// 3. Rank: each candidate's rank is the number of candidates with a larger word, or an
//    equal word and a lower column; those ranked below k are written at their rank. The
//    pairs are distinct, so the result does not depend on the order of step 2.
//
// Rows of at most HOLD vec4 units per invocation are read once into registers (HELD);
// wider ones are read from memory again at each step.

const WG: u32 = {{WG}}u;
const CAP: u32 = {{CAP}}u;    // candidate slots
const HOLD: u32 = {{HOLD}}u;  // vec4 units an invocation holds (HELD)
const BINS: u32 = 256u;       // 8-bit digits
const GROUP: u32 = 16u;       // bins per partial sum of the bin search
const NGROUPS: u32 = 16u;     // BINS / GROUP

struct Params {
    width: u32,    // elements per row
    rows: u32,     // rows of this window
    pitch: u32,    // elements from one row's start to the next
    k: u32,
    in_base: u32,  // the window's first row: its first element in the src binding
    out_base: u32, // the window's first output in the out bindings
    key_xor: u32,  // see sort_keys.wgsl
    neg_mask: u32,
    stop: u32,     // the select stops once at most this many candidates are left
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
//#if VEC4
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
// The 4 elements from element e (a multiple of 4) on.
fn load_unit(e: u32) -> vec4<u32> {
    return src[e / 4u];
}
//#else
@group(0) @binding(1) var<storage, read> src: array<u32>;
// The 4 elements from element e on (past the binding's end, repeats of its last one:
// those lanes are past the row's end and masked by the caller).
fn load_unit(e: u32) -> vec4<u32> {
    let last = arrayLength(&src) - 1u;
    return vec4<u32>(src[min(e, last)], src[min(e + 1u, last)], src[min(e + 2u, last)], src[min(e + 3u, last)]);
}
//#endif
// The outputs: k values (as bits) and k columns per row.
@group(0) @binding(2) var<storage, read_write> out_val: array<u32>;
@group(0) @binding(3) var<storage, read_write> out_idx: array<u32>;

{{KEYS}}

fn word_of(bits: u32) -> u32 {
    return ordered(bits, params.key_xor, params.neg_mask);
}

// The inverse of word_of: the element's bits.
fn bits_of(w: u32) -> u32 {
    let y = w ^ params.key_xor;
    return y ^ (bitcast<u32>(bitcast<i32>(y) >> 31u) & params.neg_mask);
}

var<workgroup> hist: array<atomic<u32>, BINS>;
var<workgroup> group_sums: array<u32, NGROUPS>;
// The chosen bin: (bin, elements above it, elements in it, 0).
var<workgroup> chosen: vec4<u32>;
var<workgroup> slot_count: atomic<u32>;
// The tie scan: per-invocation counts, and the ties taken so far.
var<workgroup> scan: array<u32, WG>;
var<workgroup> ties_taken: u32;
var<workgroup> cand_w: array<u32, CAP>;
var<workgroup> cand_i: array<u32, CAP>;

@compute @workgroup_size(WG)
fn rows_main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let width = params.width;
    let k = params.k;
    let units = (width + 3u) / 4u;
    let chunks = (units + WG - 1u) / WG;
    let first_group = group.x + groups.x * (group.y + groups.y * group.z);
    let group_count = groups.x * groups.y * groups.z;
    for (var row = first_group; row < params.rows; row += group_count) {
        let row_start = params.in_base + row * params.pitch;
//#if HELD
        var held: array<vec4<u32>, HOLD>;
        for (var c = 0u; c < HOLD; c++) {
            let u = c * WG + lane;
            if u < units {
                held[c] = load_unit(row_start + 4u * u);
            }
        }
//#endif
        // The select: decided bits `mask`, their value `prefix`; `need` of the elements
        // matching it are still wanted, `total` elements are at or above it.
        var prefix = 0u;
        var mask = 0u;
        var need = k;
        var total = width;
        var ties = false;
        for (var shift = 32u; shift > 0u && total > params.stop;) {
            shift -= 8u;
            for (var b = lane; b < BINS; b += WG) {
                atomicStore(&hist[b], 0u);
            }
            workgroupBarrier();
//#if HELD
            for (var c = 0u; c < HOLD; c++) {
                let u = c * WG + lane;
                let v = held[c];
//#else
            for (var c = 0u; c < chunks; c++) {
                let u = c * WG + lane;
                var v = vec4<u32>();
                if u < units {
                    v = load_unit(row_start + 4u * u);
                }
//#endif
                for (var q = 0u; q < 4u; q++) {
                    let w = word_of(v[q]);
                    if 4u * u + q < width && (w & mask) == prefix {
                        atomicAdd(&hist[(w >> shift) & 0xffu], 1u);
                    }
                }
            }
            workgroupBarrier();
            // Bins from the top: partial sums of GROUP bins, then each bin's count of
            // larger elements.
            for (var g = lane; g < NGROUPS; g += WG) {
                var s = 0u;
                for (var q = 0u; q < GROUP; q++) {
                    s += atomicLoad(&hist[BINS - 1u - (g * GROUP + q)]);
                }
                group_sums[g] = s;
            }
            workgroupBarrier();
            for (var p = lane; p < BINS; p += WG) {
                let g = p / GROUP;
                var larger = 0u;
                for (var h = 0u; h < g; h++) {
                    larger += group_sums[h];
                }
                for (var q = g * GROUP; q < p; q++) {
                    larger += atomicLoad(&hist[BINS - 1u - q]);
                }
                let c = atomicLoad(&hist[BINS - 1u - p]);
                if larger < need && need <= larger + c {
                    chosen = vec4<u32>(BINS - 1u - p, larger, c, 0u);
                }
            }
            let pick = workgroupUniformLoad(&chosen);
            prefix |= pick.x << shift;
            mask |= 0xffu << shift;
            need -= pick.y;
            total = k - need + pick.z;
            if shift == 0u && total > CAP {
                ties = true;
            }
        }
        if lane == 0u {
            atomicStore(&slot_count, 0u);
            ties_taken = 0u;
        }
        workgroupBarrier();
        if !ties {
            // Every element at or above the prefix.
//#if HELD
            for (var c = 0u; c < HOLD; c++) {
                let u = c * WG + lane;
                let v = held[c];
//#else
            for (var c = 0u; c < chunks; c++) {
                let u = c * WG + lane;
                var v = vec4<u32>();
                if u < units {
                    v = load_unit(row_start + 4u * u);
                }
//#endif
                for (var q = 0u; q < 4u; q++) {
                    let w = word_of(v[q]);
                    if 4u * u + q < width && (w & mask) >= prefix {
                        let s = atomicAdd(&slot_count, 1u);
                        cand_w[s] = w;
                        cand_i[s] = 4u * u + q;
                    }
                }
            }
        } else {
            // The elements above T anywhere in slots [0, k - need); of those equal to T,
            // the `need` of lowest index in slots [k - need, k), in index order.
            let above = k - need;
//#if HELD
            for (var c = 0u; c < HOLD; c++) {
                let u = c * WG + lane;
                let v = held[c];
//#else
            for (var c = 0u; c < chunks; c++) {
                let u = c * WG + lane;
                var v = vec4<u32>();
                if u < units {
                    v = load_unit(row_start + 4u * u);
                }
//#endif
                var mine = 0u;
                for (var q = 0u; q < 4u; q++) {
                    let w = word_of(v[q]);
                    if 4u * u + q < width {
                        if w > prefix {
                            let s = atomicAdd(&slot_count, 1u);
                            cand_w[s] = w;
                            cand_i[s] = 4u * u + q;
                        } else if w == prefix {
                            mine += 1u;
                        }
                    }
                }
                // Inclusive scan of the invocations' counts, in index order.
                scan[lane] = mine;
                for (var d = 1u; d < WG; d <<= 1u) {
                    workgroupBarrier();
                    var add = 0u;
                    if lane >= d {
                        add = scan[lane - d];
                    }
                    workgroupBarrier();
                    scan[lane] += add;
                }
                workgroupBarrier();
                var r = ties_taken + scan[lane] - mine;
                for (var q = 0u; q < 4u; q++) {
                    if 4u * u + q < width && word_of(v[q]) == prefix {
                        if r < need {
                            cand_w[above + r] = prefix;
                            cand_i[above + r] = 4u * u + q;
                        }
                        r += 1u;
                    }
                }
                workgroupBarrier();
                if lane == WG - 1u {
                    ties_taken += scan[lane];
                }
            }
            total = k;
        }
        workgroupBarrier();
        // Each candidate's rank among the `total`; the first k go out.
        let out = params.out_base + row * k;
        for (var i = lane; i < total; i += WG) {
            let wi = cand_w[i];
            let ii = cand_i[i];
            var r = 0u;
            for (var j = 0u; j < total; j++) {
                let wj = cand_w[j];
                if wj > wi || (wj == wi && cand_i[j] < ii) {
                    r += 1u;
                }
            }
            if r < k {
                out_val[out + r] = bits_of(wi);
                out_idx[out + r] = ii;
            }
        }
        workgroupBarrier();
    }
}
