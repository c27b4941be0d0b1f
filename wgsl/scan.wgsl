// Prefix scans and stream compaction.
//
// The input is cut into tiles of WG * V vec4 units; each invocation owns V units of a
// tile. Without subgroups they are V consecutive units (4V consecutive elements) and a
// tile is scanned in three steps: each invocation scans its own elements in registers
// (a left fold), the workgroup scans the invocations' totals, and every element gets the
// carry of everything before it. With subgroups the units are striped (unit k of a
// subgroup's lane l is the subgroup's k * size + l), so every load and store of a
// subgroup touches consecutive memory: each row k is scanned across the subgroup, the
// rows are chained in registers, and the workgroup scans the subgroups' totals.
//
// Two ways to find a tile's carry:
// - reduce-then-scan: `upsweep` (one partial per workgroup over a contiguous range of
//   tiles), `spine` (one workgroup scans the partials), `downsweep` (each workgroup
//   rescans its range starting from its offset). Three passes, no inter-workgroup waits.
// - single pass (`chained`), after Merrill & Garland's decoupled look-back: each tile
//   (numbered by workgroup id, or by a counter in start order: scan_chained.wgsl)
//   publishes its aggregate, then walks back over its predecessors' published
//   aggregates until it meets an inclusive prefix, and publishes its own. WGSL
//   promises no forward progress between workgroups, so a workgroup that has waited
//   SPIN probes for a predecessor reduces that tile's input itself and publishes the
//   aggregate for it (the fallback of GPUPrefixSums' CSDLDF): waiting never depends on
//   another workgroup being scheduled.
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
    total_at: u32,   // partition's downsweep: the element of `offsets` with the kept count
}

@group(0) @binding(0) var<uniform> params: Params;
// src at binding 1 (src_load(u), src_units()) and out at binding 2: vec4 units with
// out_store(u, v) for scans, elements for compaction (src/runtime/view.rs).
{{SRC}}
{{OUT_DECL}}
@group(0) @binding(3) var<storage, read_write> partials: array<A>;
// reduce-then-scan: offsets[g] is the prefix before partial g, offsets[count] the total.
// chained: offsets[0] is the total, written by the last tile.
@group(0) @binding(4) var<storage, read_write> offsets: array<A>;
@group(0) @binding(5) var<storage, read_write> status: array<atomic<u32>>;

// The operator: identity(), combine(a, b) (a before b).
fn identity() -> A { {{IDENTITY}} }
fn combine(a: A, b: A) -> A { return {{COMBINE}}; }


// Input and output: load(u) is vec4 unit u as scanned values (identity past n);
// store(u, s) writes the scanned values s of unit u.
{{IO}}

// The invocation's 4V elements, scanned up to the invocation's prefix (what tile_scan
// returns): each element only lacks the combination of the tile's elements before the
// invocation's share, and of the tiles before. One vec4 per unit and nothing else, so
// the inclusive and exclusive forms hold the same registers (an extra value per unit
// cost the inclusive single pass much of its speed; see lab/perf-journal.md).
var<private> vals: array<vec4<A>, V>;

// The workgroup's arrangement of a tile: unit_of(t, ids, k) (the units an invocation
// owns), row_offset and invocation_prefix (see tile_scan); wg_exclusive(x, ids) (the
// combination of the `x` of all invocations before this one in `position(ids)` order,
// identity for the first) and wg_total(ids) (afterwards: of all of them).
{{WORKGROUP_SCAN}}

// The workgroup's place in the dispatch, apart from `Ids`: the spec's uniformity analysis
// takes a struct parameter as one value, so a struct that holds an invocation's index
// is non-uniform as a whole, and a tile number from it could not bound a barrier's loop.
struct Grid {
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
}

fn linear_group(grid: Grid) -> u32 {
    return grid.group.x + grid.groups.x * (grid.group.y + grid.groups.y * grid.group.z);
}

// Unit s scanned within itself; its w is fold4(s), operation for operation.
fn scan4(s: vec4<A>) -> vec4<A> {
    var r = s;
    r.y = combine(r.x, r.y);
    r.z = combine(r.y, r.z);
    r.w = combine(r.z, r.w);
    return r;
}

fn fold4(s: vec4<A>) -> A {
    return combine(combine(combine(s.x, s.y), s.z), s.w);
}

// Loads this invocation's units of tile t into `vals`; returns the invocation's prefix
// within the tile. wg_total(ids) is the tile's total afterwards.
fn tile_scan(t: u32, ids: Ids) -> A {
    var carry = identity();
    for (var k = 0u; k < V; k++) {
        let s = scan4(load(unit_of(t, ids, k)));
        let o = row_offset(k, s.w, ids, &carry);
        if EXCLUSIVE {
            vals[k] = vec4<A>(o, combine(o, s.x), combine(o, s.y), combine(o, s.z));
        } else {
            vals[k] = vec4<A>(combine(o, s.x), combine(o, s.y), combine(o, s.z), combine(o, s.w));
        }
    }
    return invocation_prefix(carry, ids);
}

// The total of tile t, operation for operation as tile_scan and wg_total compute it,
// without touching `vals`.
fn tile_fold(t: u32, ids: Ids) -> A {
    var carry = identity();
    for (var k = 0u; k < V; k++) {
        _ = row_offset(k, fold4(load(unit_of(t, ids, k))), ids, &carry);
    }
    _ = invocation_prefix(carry, ids);
    return wg_total(ids);
}

// Writes this invocation's units of tile t, each element combined after `before`.
fn store_tile(t: u32, ids: Ids, before: A) {
    for (var k = 0u; k < V; k++) {
        let s = vals[k];
        store(
            unit_of(t, ids, k),
            vec4<A>(combine(before, s.x), combine(before, s.y), combine(before, s.z), combine(before, s.w)),
        );
    }
}

// Scans tiles t0, ..., t1 - 1 in order, each after the combination of everything before
// it (`first`: what comes before tile t0); returns the combination through tile t1 - 1.
fn scan_tiles(t0: u32, t1: u32, first: A, ids: Ids) -> A {
    var carry = first;
    for (var t = t0; t < t1; t++) {
        let before = tile_scan(t, ids);
        let total = wg_total(ids);
        store_tile(t, ids, combine(carry, before));
        carry = combine(carry, total);
    }
    return carry;
}

// ---- reduce-then-scan ----

@compute @workgroup_size(WG)
fn upsweep(grid: Grid, ids: Ids) {
    let group = linear_group(grid);
    if group >= params.groups {
        return;
    }
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
        let total = tile_fold(t, ids);
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

// One workgroup scans the partials (exclusive): the template rendered for this entry
// with EXCLUSIVE = true, a wide workgroup, and `load` / `store` that read `partials`
// and write `offsets` (src/ops/scan/program.rs, `Program::spine`). Tile by tile, like the
// downsweep; on a GPU one tile holds 32768 partials, so the spine costs one tile's
// latency. offsets[count] is the total.
@compute @workgroup_size(WG)
fn spine(ids: Ids) {
    let count = params.groups;
    let tiles = (count + 4u * TILE_UNITS - 1u) / (4u * TILE_UNITS);
    let total = scan_tiles(0u, tiles, identity(), ids);
    if ids.lane == 0u {
        offsets[count] = total;
    }
}

@compute @workgroup_size(WG)
fn downsweep(grid: Grid, ids: Ids) {
    let group = linear_group(grid);
    if group >= params.groups {
        return;
    }
    let t0 = group * params.tiles_per_group;
    let t1 = min(t0 + params.tiles_per_group, params.tiles);
    _ = scan_tiles(t0, t1, offsets[params.base + group], ids);
}

// The single-pass scan (32-bit types) follows here when enabled.
{{CHAINED}}
