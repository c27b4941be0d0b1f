// top_k: the k largest elements by a radix select (src/ops/top_k/mod.rs).
//
// Every element is seen as a 64-bit composite (w, lo): w = its ordered word
// (wgsl/sort_keys.wgsl, with every bit flipped for smallest_k), lo = ~index & idx_mask,
// so the largest composites are the largest words, equal words lower index first.
//
// - `histogram`: for one digit of w (or of lo), counts the elements whose bits above the
//   digit match the prefix selected so far (`state`).
// - `select_digit`: one workgroup finds the digit whose bucket holds the need-th largest
//   and adds it to the prefix. `mode` (state[3]) is then 0 while digits of w remain to
//   select; 1 once every element of the bucket fits the candidate slots (the rank step
//   drops the surplus): the remaining passes do nothing, and the candidates are the
//   elements whose decided bits (`dmask`, state[4]) are >= the prefix; 2 when the last
//   digit of w leaves more elements equal to the k-th largest word T than the slots
//   hold: the digits of lo are selected too (the index passes do nothing otherwise).
// - `gather`: appends the candidates (decided bits > the prefix, or equal and, in mode
//   2, lo >= the lo prefix) to the candidate slots, in any order. The first key pass
//   after mode 1 is set does this instead of counting; the `gather` entry does it after
//   the last pass where no key pass was left to (mode 1 set by the last digit of w, or
//   mode 2).
// - `rank_count` and `rank_scatter`: each candidate's rank is the number of candidates
//   with a larger composite; those ranked below k go to the outputs at their rank. The
//   composites are distinct, so the result is the same whatever order `gather` left.
// - `fill`: for k past the rank step's limit, the candidate slots start as sentinels
//   (index 0xffffffff, the smallest value), which the sorts that follow put last.

const WG: u32 = {{WG}}u;
const BINS: u32 = {{BINS}}u;      // bins of the widest digit
const COPIES: u32 = {{COPIES}}u;  // histograms per workgroup: invocation i counts in copy i % COPIES
const UPL: u32 = 4u;              // vec4 units an invocation loads per step of a pass
const SLICE: u32 = {{SLICE}}u;    // candidates a `rank_count` workgroup compares with
const NO_INDEX: u32 = 0xffffffffu;

struct Params {
    n: u32,          // elements of this window
    first: u32,      // the window's first element (global index)
    key_xor: u32,    // see sort_keys.wgsl
    neg_mask: u32,
    shift: u32,      // this pass's digit: (word >> shift) & (bins - 1)
    bins: u32,
    on_lo: u32,      // 1: the digit is of lo (an index pass)
    mask_hi: u32,    // the bits of w above this digit (already selected)
    mask_lo: u32,    // the bits of lo above this digit
    idx_mask: u32,   // lo = ~index & idx_mask
    k: u32,
    cap: u32,        // candidate slots
    last_key: u32,   // select_digit: the last digit of w (sets the mode)
    first_pass: u32, // select_digit: the first digit (need = k)
    groups: u32,     // rank_count: workgroups over candidates (i blocks)
    sentinel: u32,   // fill: the bits of a value no element is below (in this order)
    pass_index: u32, // histogram: this pass (key passes first); gather: the key passes
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// src at binding 1, with src_load(u) -> vec4 and src_units() (src/runtime/view.rs).
{{SRC}}
// This pass's histogram (bins words), cleared before the first pass.
@group(0) @binding(2) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> hist_r: array<u32>;
// [prefix of w, prefix of lo, need, mode, dmask, gather pass], cleared before the first
// pass. The gather pass is the key pass after the one that set mode 1: that pass
// gathers instead of counting, so the vector is read once less.
@group(0) @binding(4) var<storage, read> state_r: array<u32>;
@group(0) @binding(5) var<storage, read_write> state_w: array<u32>;
// The number of candidates gathered (cleared before `gather`).
@group(0) @binding(6) var<storage, read_write> counter: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read> counter_r: array<u32>;
// Candidate slots: the element's bits and its index.
@group(0) @binding(8) var<storage, read_write> cand_val_w: array<u32>;
@group(0) @binding(9) var<storage, read_write> cand_idx_w: array<u32>;
@group(0) @binding(10) var<storage, read> cand_val: array<u32>;
@group(0) @binding(11) var<storage, read> cand_idx: array<u32>;
// Ranks of the candidates (cleared before `rank_count`).
@group(0) @binding(12) var<storage, read_write> ranks: array<atomic<u32>>;
@group(0) @binding(13) var<storage, read> ranks_r: array<u32>;
// The outputs: k values (as bits) and k indices.
@group(0) @binding(14) var<storage, read_write> out_val: array<u32>;
@group(0) @binding(15) var<storage, read_write> out_idx: array<u32>;

{{KEYS}}

fn word_of(bits: u32) -> u32 {
    return ordered(bits, params.key_xor, params.neg_mask);
}

fn lo_of(e: u32) -> u32 {
    return ~(params.first + e) & params.idx_mask;
}

fn group_index(group: vec3<u32>, groups: vec3<u32>) -> u32 {
    return group.x + groups.x * (group.y + groups.y * group.z);
}

// COPIES histograms, so invocations of one subgroup whose elements share a digit (floats
// of one exponent) contend less for one counter.
var<workgroup> local_hist: array<atomic<u32>, {{HIST_WORDS}}>;

@compute @workgroup_size(WG)
fn histogram(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let mode = state_r[3];
    // Selecting has ended: the first key pass after it gathers, the others do nothing.
    if params.on_lo == 0u && mode == 1u {
        if state_r[5] == params.pass_index {
            gather_window(group, groups, lane);
        }
        return;
    }
    // An index pass where the elements equal to T need no selecting by index.
    if params.on_lo != 0u && mode != 2u {
        return;
    }
    for (var b = lane; b < COPIES * BINS; b += WG) {
        atomicStore(&local_hist[b], 0u);
    }
    workgroupBarrier();
    let copy = (lane % COPIES) * BINS;
    let prefix_hi = state_r[0] & params.mask_hi;
    let prefix_lo = state_r[1] & params.mask_lo;
    let units = (params.n + 3u) / 4u;
    let stride = groups.x * groups.y * groups.z * WG * UPL;
    for (var base = group_index(group, groups) * WG * UPL; base < units; base += stride) {
        // All loads first: UPL units in flight per invocation.
        var vals: array<vec4<u32>, UPL>;
        for (var j = 0u; j < UPL; j++) {
            let u = base + j * WG + lane;
            if u < units {
                vals[j] = bitcast<vec4<u32>>(src_load(u));
            }
        }
        for (var j = 0u; j < UPL; j++) {
            let u = base + j * WG + lane;
            for (var c = 0u; c < 4u; c++) {
                let e = u * 4u + c;
                if u < units && e < params.n {
                    let w = word_of(vals[j][c]);
                    let lo = lo_of(e);
                    if (w & params.mask_hi) == prefix_hi && (lo & params.mask_lo) == prefix_lo {
                        let word = select(w, lo, params.on_lo != 0u);
                        atomicAdd(&local_hist[copy + ((word >> params.shift) & (params.bins - 1u))], 1u);
                    }
                }
            }
        }
    }
    workgroupBarrier();
    for (var b = lane; b < params.bins; b += WG) {
        var c = 0u;
        for (var i = 0u; i < COPIES; i++) {
            c += atomicLoad(&local_hist[i * BINS + b]);
        }
        if c != 0u {
            atomicAdd(&hist[b], c);
        }
    }
}

var<workgroup> sums: array<u32, WG>;
var<workgroup> shared_word: u32;

// One workgroup of WG invocations: invocation t owns the t-th run of `per` bins from the
// top; a scan of the runs' counts (largest digits first) finds the run, then the bin,
// where the count of larger elements reaches `need`.
@compute @workgroup_size(WG)
fn select_digit(@builtin(local_invocation_index) lane: u32) {
    if lane == 0u {
        shared_word = state_w[3];
    }
    let mode = workgroupUniformLoad(&shared_word);
    if (params.on_lo != 0u && mode != 2u) || (params.on_lo == 0u && mode == 1u) {
        return;
    }
    var need = params.k;
    if params.first_pass == 0u {
        need = state_w[2];
    }
    let bins = params.bins;
    let per = (bins + WG - 1u) / WG;
    // Bins [lo_bin, hi_bin) of this invocation, walked from hi_bin - 1 down.
    var hi_bin = 0u;
    if lane * per < bins {
        hi_bin = bins - lane * per;
    }
    let lo_bin = select(0u, hi_bin - per, hi_bin > per);
    var s = 0u;
    for (var b = lo_bin; b < hi_bin; b++) {
        s += hist_r[b];
    }
    sums[lane] = s;
    for (var d = 1u; d < WG; d <<= 1u) {
        workgroupBarrier();
        var add = 0u;
        if lane >= d {
            add = sums[lane - d];
        }
        workgroupBarrier();
        sums[lane] += add;
    }
    workgroupBarrier();
    let incl = sums[lane];
    let excl = incl - s;
    if excl < need && need <= incl {
        var acc = excl;
        for (var b = hi_bin; b > lo_bin; b--) {
            let c = hist_r[b - 1u];
            if acc + c >= need {
                let left = need - acc;
                let digit = (b - 1u) << params.shift;
                if params.on_lo != 0u {
                    state_w[1] |= digit;
                } else {
                    state_w[0] |= digit;
                }
                state_w[2] = left;
                if params.on_lo == 0u {
                    // `left` of the bucket's c elements are wanted: the rest fit the
                    // slack slots, or the last digit of w leaves too many equal to T.
                    if c - left <= params.cap - params.k {
                        state_w[3] = 1u;
                        state_w[4] = ~((1u << params.shift) - 1u);
                        state_w[5] = params.pass_index + 1u;
                    } else if params.last_key != 0u {
                        state_w[3] = 2u;
                        state_w[4] = 0xffffffffu;
                    }
                }
                break;
            }
            acc += c;
        }
    }
}

var<workgroup> wg_count: atomic<u32>;
var<workgroup> wg_base: u32;

@compute @workgroup_size(WG)
fn gather(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let mode = state_r[3];
    if mode == 2u || (mode == 1u && state_r[5] == params.pass_index) {
        gather_window(group, groups, lane);
    }
}

// Appends this window's candidates to the slots (called in uniform control flow).
fn gather_window(group: vec3<u32>, groups: vec3<u32>, lane: u32) {
    if lane == 0u {
        atomicStore(&wg_count, 0u);
    }
    workgroupBarrier();
    let t = state_r[0];
    let l = state_r[1];
    let by_index = state_r[3] == 2u;
    let dmask = state_r[4];
    let units = (params.n + 3u) / 4u;
    let stride = groups.x * groups.y * groups.z * WG * UPL;
    for (var base = group_index(group, groups) * WG * UPL; base < units; base += stride) {
        var vals: array<vec4<u32>, UPL>;
        var take = 0u;
        var count = 0u;
        for (var j = 0u; j < UPL; j++) {
            let u = base + j * WG + lane;
            if u < units {
                vals[j] = bitcast<vec4<u32>>(src_load(u));
                for (var c = 0u; c < 4u; c++) {
                    let e = u * 4u + c;
                    let w = word_of(vals[j][c]) & dmask;
                    if e < params.n && (w > t || (w == t && (!by_index || lo_of(e) >= l))) {
                        take |= 1u << (j * 4u + c);
                        count += 1u;
                    }
                }
            }
        }
        var p = 0u;
        if count > 0u {
            p = atomicAdd(&wg_count, count);
        }
        workgroupBarrier();
        if lane == 0u {
            let total = atomicLoad(&wg_count);
            atomicStore(&wg_count, 0u);
            var b = 0u;
            if total > 0u {
                b = atomicAdd(&counter[0], total);
            }
            wg_base = b;
        }
        p += workgroupUniformLoad(&wg_base);
        for (var q = 0u; q < 4u * UPL; q++) {
            if (take & (1u << q)) != 0u {
                let j = q / 4u;
                let e = (base + j * WG + lane) * 4u + q % 4u;
                if p < params.cap {
                    cand_val_w[p] = vals[j][q % 4u];
                    cand_idx_w[p] = params.first + e;
                }
                p += 1u;
            }
        }
    }
}

var<workgroup> tile_w: array<u32, WG>;
var<workgroup> tile_i: array<u32, WG>;

// Workgroup g compares candidates [i0, i0 + WG) with candidates [j0, j0 + SLICE):
// i0 = (g % params.groups) * WG, j0 = (g / params.groups) * SLICE.
@compute @workgroup_size(WG)
fn rank_count(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let m = min(counter_r[0], params.cap);
    let g = group_index(group, groups);
    let i0 = (g % params.groups) * WG;
    let j0 = (g / params.groups) * SLICE;
    if i0 >= m || j0 >= m {
        return;
    }
    let i = i0 + lane;
    var wi = 0u;
    var ii = NO_INDEX;
    if i < m {
        wi = word_of(cand_val[i]);
        ii = cand_idx[i];
    }
    var count = 0u;
    let j_end = min(j0 + SLICE, m);
    for (var t0 = j0; t0 < j_end; t0 += WG) {
        let j = t0 + lane;
        if j < j_end {
            tile_w[lane] = word_of(cand_val[j]);
            tile_i[lane] = cand_idx[j];
        } else {
            // Never larger than a candidate.
            tile_w[lane] = 0u;
            tile_i[lane] = NO_INDEX;
        }
        workgroupBarrier();
        for (var q = 0u; q < WG; q++) {
            let wj = tile_w[q];
            if wj > wi || (wj == wi && tile_i[q] < ii) {
                count += 1u;
            }
        }
        workgroupBarrier();
    }
    if i < m && count > 0u {
        atomicAdd(&ranks[i], count);
    }
}

@compute @workgroup_size(WG)
fn rank_scatter(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let m = min(counter_r[0], params.cap);
    let i = group_index(group, groups) * WG + lane;
    if i < m {
        let r = ranks_r[i];
        if r < params.k {
            out_val[r] = cand_val[i];
            out_idx[r] = cand_idx[i];
        }
    }
}

@compute @workgroup_size(WG)
fn fill(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let i = group_index(group, groups) * WG + lane;
    if i < params.cap {
        cand_val_w[i] = params.sentinel;
        cand_idx_w[i] = NO_INDEX;
    }
}
