// Prefix scans and stream compaction.
//
// The input is cut into tiles of WG * V vec4 units; invocation `pos` of a workgroup owns
// V consecutive units (4V consecutive elements) of a tile. A tile is scanned in three
// steps: each invocation scans its own elements in registers (a left fold), the
// workgroup scans the invocations' totals (`wg_exclusive`), and every element gets the
// carry of everything before it.
//
// Two ways to find a tile's carry:
// - reduce-then-scan: `upsweep` (one partial per workgroup over a contiguous range of
//   tiles), `spine` (one workgroup scans the partials), `downsweep` (each workgroup
//   rescans its range starting from its offset). Three passes, no inter-workgroup waits.
// - single pass (`chained`), after Merrill & Garland's decoupled look-back: each tile
//   takes the next tile number from a counter, publishes its aggregate, then walks back
//   over its predecessors' published aggregates until it meets an inclusive prefix, and
//   publishes its own. WGSL promises no forward progress between workgroups, so a
//   workgroup that has waited SPIN probes for a predecessor reduces that tile's input
//   itself and publishes the aggregate for it (the fallback of GPUPrefixSums' CSDLDF):
//   waiting never depends on another workgroup being scheduled.
//
// Published values are (v, v ^ KEY) pairs of 32-bit words in a buffer cleared before
// every run; a pair whose two words agree is complete, whatever order the two atomic
// stores became visible in. The prefix of a tile is always folded from left to right
// (the nearest inclusive prefix, then each later aggregate), so float results are the
// same bits on every run, whichever tiles were slow.
{{ENABLE}}
alias T = {{T}};  // element type of the input
alias A = {{A}};  // the scanned type: T for scans, u32 for compaction flags

const WG: u32 = {{WG}}u;
const V: u32 = {{V}}u;
const TILE_UNITS: u32 = WG * V;
const EXCLUSIVE: bool = {{EXCLUSIVE}};
const COMMUTATIVE: bool = {{COMMUTATIVE}};  // the upsweep may combine in any order
const SPIN: u32 = {{SPIN}}u;
const KEY: u32 = 0x9e3779b9u;
const NONE: u32 = 0u;
const AGGREGATE: u32 = 1u;
const INCLUSIVE: u32 = 2u;

struct Params {
    n: u32,          // valid elements in this binding window
    units: u32,      // vec4 units in this window
    tiles: u32,      // tiles in this window
    tiles_per_group: u32,  // reduce-then-scan: consecutive tiles per workgroup
    groups: u32,     // reduce-then-scan: workgroups that take part (spine: partials)
    base: u32,       // this window's first partial (reduce-then-scan) or first tile (chained)
    window: u32,     // chained: this window's tile counter in `status`
    counters: u32,   // chained: words of counters before the tile status pairs
    first_elem: u32, // index of the window's first element (compaction indices)
    out_base: u32,   // compaction: element of the output binding's start
    last: u32,       // 1 in the last window
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<T>>;
@group(0) @binding(2) var<storage, read_write> out: array<{{OUT}}>;
@group(0) @binding(3) var<storage, read_write> partials: array<A>;
// reduce-then-scan: offsets[g] is the prefix before partial g, offsets[count] the total.
// chained: offsets[0] is the total, written by the last tile.
@group(0) @binding(4) var<storage, read_write> offsets: array<A>;
@group(0) @binding(5) var<storage, read_write> status: array<atomic<u32>>;

// The operator: identity(), combine(a, b) (a before b).
{{OP}}

// Input and output: load(u) is vec4 unit u as scanned values (identity past n);
// store(u, s) writes the scanned values s of unit u.
{{IO}}

// The invocation's 4V elements, scanned in place.
var<private> vals: array<vec4<A>, V>;

// wg_exclusive(x, ids): the combination of the `x` of all invocations before this one
// (identity for the first); wg_total(ids) afterwards: of all of them. Both in the
// order of `position(ids)`.
{{WORKGROUP_SCAN}}

fn linear_group(ids: Ids) -> u32 {
    return ids.group.x + ids.groups.x * (ids.group.y + ids.groups.y * ids.group.z);
}

// Loads this invocation's part of tile t and scans it in registers; returns its total.
fn load_scan(t: u32, pos: u32) -> A {
    let u0 = t * TILE_UNITS + pos * V;
    for (var k = 0u; k < V; k++) {
        vals[k] = load(u0 + k);
    }
    var acc = vals[0].x;
    for (var k = 0u; k < V; k++) {
        var s = vals[k];
        if k != 0u {
            acc = combine(acc, s.x);
        }
        s.x = acc;
        acc = combine(acc, s.y);
        s.y = acc;
        acc = combine(acc, s.z);
        s.z = acc;
        acc = combine(acc, s.w);
        s.w = acc;
        vals[k] = s;
    }
    return acc;
}

// The same total as load_scan, operation for operation, without touching `vals`.
fn load_fold(t: u32, pos: u32) -> A {
    let u0 = t * TILE_UNITS + pos * V;
    var acc = identity();
    for (var k = 0u; k < V; k++) {
        let s = load(u0 + k);
        if k == 0u {
            acc = s.x;
        } else {
            acc = combine(acc, s.x);
        }
        acc = combine(acc, s.y);
        acc = combine(acc, s.z);
        acc = combine(acc, s.w);
    }
    return acc;
}

// Writes this invocation's part of tile t, each element combined after `carry`.
fn store_tile(t: u32, pos: u32, carry: A) {
    let u0 = t * TILE_UNITS + pos * V;
    var prev = carry;
    for (var k = 0u; k < V; k++) {
        let s = vals[k];
        var r: vec4<A>;
        if EXCLUSIVE {
            r = vec4<A>(prev, combine(carry, s.x), combine(carry, s.y), combine(carry, s.z));
            prev = combine(carry, s.w);
        } else {
            r = vec4<A>(combine(carry, s.x), combine(carry, s.y), combine(carry, s.z), combine(carry, s.w));
        }
        store(u0 + k, r);
    }
}

// ---- reduce-then-scan ----

@compute @workgroup_size(WG)
fn upsweep(ids: Ids) {
    let group = linear_group(ids);
    if group >= params.groups {
        return;
    }
    let pos = position(ids);
    let t0 = group * params.tiles_per_group;
    let t1 = min(t0 + params.tiles_per_group, params.tiles);
    var acc = identity();
    if COMMUTATIVE {
        // Order does not matter: coalesced loads, one workgroup reduction at the end.
        let first = t0 * TILE_UNITS + ids.lane;
        let end = t1 * TILE_UNITS;
        var mine = identity();
        for (var u = first; u < end; u += WG) {
            let s = load(u);
            mine = combine(mine, combine(combine(s.x, s.y), combine(s.z, s.w)));
        }
        _ = wg_exclusive(mine, ids);
        if ids.lane == 0u {
            partials[params.base + group] = wg_total(ids);
        }
        return;
    }
    for (var t = t0; t < t1; t++) {
        let mine = load_fold(t, pos);
        _ = wg_exclusive(mine, ids);
        let total = wg_total(ids);
        if t == t0 {
            acc = total;
        } else {
            acc = combine(acc, total);
        }
    }
    if ids.lane == 0u {
        partials[params.base + group] = acc;
    }
}

@compute @workgroup_size(WG)
fn spine(ids: Ids) {
    let count = params.groups;
    let pos = position(ids);
    var carry = identity();
    for (var i0 = 0u; i0 < count; i0 += WG) {
        let i = i0 + pos;
        var v = identity();
        if i < count {
            v = partials[i];
        }
        let before = wg_exclusive(v, ids);
        let total = wg_total(ids);
        if i < count {
            offsets[i] = combine(carry, before);
        }
        carry = combine(carry, total);
    }
    if ids.lane == 0u {
        offsets[count] = carry;
    }
}

@compute @workgroup_size(WG)
fn downsweep(ids: Ids) {
    let group = linear_group(ids);
    if group >= params.groups {
        return;
    }
    let pos = position(ids);
    let t0 = group * params.tiles_per_group;
    let t1 = min(t0 + params.tiles_per_group, params.tiles);
    var carry = offsets[params.base + group];
    for (var t = t0; t < t1; t++) {
        let mine = load_scan(t, pos);
        let before = wg_exclusive(mine, ids);
        let total = wg_total(ids);
        store_tile(t, pos, combine(carry, before));
        carry = combine(carry, total);
    }
}

// The single-pass scan (32-bit types) follows here when enabled.
{{CHAINED}}
