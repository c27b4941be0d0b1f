// Scan by key: a prefix scan of `values` that starts again wherever `keys` changes.
//
// Element i starts a run (is a head) when i == 0 or its key's bits differ from key
// i - 1's. The scan is one of (head, value) pairs under
//     (h1, v1) . (h2, v2) = (h1 | h2, h2 ? v2 : combine(v1, v2)),
// which is associative, so it runs as wgsl/scan.wgsl's single pass does: tiles of
// WG * V vec4 units, each scanned in the workgroup, and a decoupled look-back over the
// tiles before for the carry (after Merrill & Garland; the fallback of GPUPrefixSums'
// CSDLDF: a workgroup that waited SPIN probes for a predecessor reduces that tile itself,
// so no workgroup waits on another being scheduled). Heads are found as the keys are
// loaded (key i - 1 from the neighbouring lane or the unit before); no flags are
// written to memory.
//
// Only the value of a pair travels between tiles: a tile that holds a head knows its
// inclusive prefix from its own elements, so it publishes it at once as INCLUSIVE; a
// tile without one publishes its aggregate (no head) and, after its look-back, its
// inclusive prefix. A look-back walks to the nearest INCLUSIVE and folds the aggregates
// after it left to right, so every prefix is the same fold whatever the timing: float
// results are the same bits on every run.
//
// Published values are (v, v ^ KEY) pairs of 32-bit words in a buffer cleared before
// every run; a pair whose two words agree is complete.
//
// SUBGROUPS chooses the workgroup's arrangement of a tile (subgroup rows or a tree)
// and the look-back (a subgroup's probes or one invocation's).
alias T = {{T}};  // the value type (32-bit)

const WG: u32 = {{WG}}u;
const V: u32 = {{V}}u;  // units per invocation and tile row; at most 8 (`needs` bits)
const TILE_UNITS: u32 = WG * V;
const EXCLUSIVE: bool = {{EXCLUSIVE}};
const SPIN: u32 = {{SPIN}}u;
// Tile t is workgroup t (BY_ID), or the t-th workgroup to start (a counter per window).
const BY_ID: bool = {{BY_ID}};
const KEY: u32 = 0x9e3779b9u;
const NONE: u32 = 0u;
const AGGREGATE: u32 = 1u;
const INCLUSIVE: u32 = 2u;

struct Params {
    n: u32,         // valid elements in this binding window
    units: u32,     // vec4 units in this window
    tiles: u32,     // tiles in this window
    base: u32,      // global index of this window's first tile
    window: u32,    // this window's tile counter in `status`
    counters: u32,  // words of counters before the tile statuses
    before: u32,    // index in key_before of the key of the element before the window
    first: u32,     // 1 in the first window: its element 0 is a head
}

@group(0) @binding(0) var<uniform> params: Params;
// keys (as u32 bits) at binding 1, values at 2, out at 3: keys_load(u), values_load(u),
// out_store(u, v) by vec4 unit (src/runtime/view.rs).
{{KEYS}}
{{VALUES}}
{{OUT}}
@group(0) @binding(4) var<storage, read> key_before: array<u32>;
@group(0) @binding(5) var<storage, read_write> status: array<atomic<u32>>;

fn identity() -> T { {{IDENTITY}} }
fn combine(a: T, b: T) -> T { return {{COMBINE}}; }

struct Pair {
    head: bool,  // a head among the elements combined
    value: T,    // their combination since the last head
}

fn join(a: Pair, b: Pair) -> Pair {
    if b.head {
        return b;
    }
    return Pair(a.head, combine(a.value, b.value));
}

fn no_pair() -> Pair {
    return Pair(false, identity());
}

// The key of the element before unit u (u > 0 in the window, or the window's first).
fn key_of_previous(u: u32) -> u32 {
    if u == 0u {
        return key_before[params.before];
    }
    return keys_load(min(u, params.units) - 1u).w;
}

// One unit scanned within itself: values (inclusive, or exclusive), which elements
// still lack the combination of what comes before the unit (bit j: no head in 0..=j),
// and the unit's own pair.
struct Unit {
    vals: vec4<T>,
    need: u32,
    pair: Pair,
}

fn unit_scan(u: u32, k: vec4<u32>, previous: u32, loaded: vec4<T>) -> Unit {
    var h = vec4<bool>(k.x != previous, k.y != k.x, k.z != k.y, k.w != k.z);
    var x = loaded;
    if u == 0u && params.first != 0u {
        h.x = true;
    }
    let first = u * 4u;
    if first + 4u > params.n {
        // Lanes past the end: no head, the identity.
        for (var j = 0u; j < 4u; j++) {
            if first + j >= params.n {
                h[j] = false;
                x[j] = identity();
            }
        }
    }
    var s = x;
    if !h.y {
        s.y = combine(s.x, s.y);
    }
    if !h.z {
        s.z = combine(s.y, s.z);
    }
    if !h.w {
        s.w = combine(s.z, s.w);
    }
    let n0 = !h.x;
    let n1 = n0 && !h.y;
    let n2 = n1 && !h.z;
    let n3 = n2 && !h.w;
    let need = select(0u, 1u, n0) | select(0u, 2u, n1) | select(0u, 4u, n2) | select(0u, 8u, n3);
    var vals = s;
    if EXCLUSIVE {
        // Element j is what element j - 1 had in its run: the identity at a head, and
        // for element 0 nothing of the unit's own (the offset alone).
        let id = identity();
        vals = vec4<T>(id, select(s.x, id, h.y), select(s.y, id, h.z), select(s.z, id, h.w));
    }
    return Unit(vals, need, Pair(!n3, s.w));
}

// `value` combined after `before` in the lanes that `mask`'s 4 bits select.
fn offset_lanes(before: T, value: vec4<T>, mask: u32) -> vec4<T> {
    let c = vec4<T>(
        combine(before, value.x),
        combine(before, value.y),
        combine(before, value.z),
        combine(before, value.w),
    );
    let m = vec4<bool>((mask & 1u) != 0u, (mask & 2u) != 0u, (mask & 4u) != 0u, (mask & 8u) != 0u);
    return select(value, c, m);
}

// The invocation's 4V elements scanned up to the invocation's prefix, and (4 bits per
// unit) those that still lack it: only what tile_pass stores is held, one vec4 a unit
// and one word.
var<private> vals: array<vec4<T>, V>;
var<private> needs: u32;

// The workgroup's arrangement of a tile: unit_of(t, ids, k), previous_key (the key
// before a unit), row_offset and invocation_prefix (see tile_pass), wg_total(ids).
//#if SUBGROUPS
// Workgroup scan with subgroup operations. Units are striped (unit k of lane l of
// subgroup s is the tile's unit (s * V + k) * size + l), so a subgroup's loads and stores
// are contiguous; each row k is scanned across the subgroup, the rows are chained in
// registers, and the workgroup folds the subgroups' totals.
struct Ids {
    @builtin(local_invocation_index) lane: u32,
    @builtin(subgroup_invocation_id) subgroup_lane: u32,
    @builtin(subgroup_size) subgroup_size: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
}

fn unit_of(t: u32, ids: Ids, k: u32) -> u32 {
    return t * TILE_UNITS + (ids.subgroup * V + k) * ids.subgroup_size + ids.subgroup_lane;
}

// The key before unit u: the previous lane's last key, or (lane 0) loaded.
fn previous_key(u: u32, k: u32, kv: vec4<u32>, last: u32, ids: Ids) -> u32 {
    let up = subgroupShuffleUp(kv.w, 1u);
    if ids.subgroup_lane != 0u {
        return up;
    }
    return key_of_previous(u);
}

// 1 + the highest lane <= `lane` set in ballot `b`, or 0 if none is.
fn last_set(b: vec4<u32>, lane: u32) -> u32 {
    let top = lane / 32u;
    var bits = b[top] & (0xffffffffu >> (31u - lane % 32u));
    for (var i = 0u; i <= top; i++) {
        let w = top - i;
        if i != 0u {
            bits = b[w];
        }
        if bits != 0u {
            return w * 32u + firstLeadingBit(bits) + 1u;
        }
    }
    return 0u;
}

// Unit k's offset within the subgroup's units: the rows before k (`carry`, which folds
// the subgroup's row totals) and the lanes before this one in row k (a segmented
// Hillis-Steele scan: a lane adds what lies between its run's head and itself).
// Subgroup-uniform at run time, though not to the spec's analysis: the loop runs to
// `ids.subgroup_size`, uniform, but Tint takes `ids` as one value, non-uniform for the
// invocation ids it holds.
@diagnostic(off, subgroup_uniformity)
fn row_offset(k: u32, mine: Pair, ids: Ids, carry: ptr<function, Pair>) -> Pair {
    let lane = ids.subgroup_lane;
    let b = subgroupBallot(mine.head);
    let head = last_set(b, lane);
    let start = max(head, 1u) - 1u;
    var v = mine.value;
    for (var d = 1u; d < ids.subgroup_size; d <<= 1u) {
        let y = subgroupShuffleUp(v, d);
        if lane >= start + d {
            v = combine(y, v);
        }
    }
    let up_value = subgroupShuffleUp(v, 1u);
    let up_head = subgroupShuffleUp(head, 1u);
    var lanes = no_pair();
    if lane != 0u {
        lanes = Pair(up_head != 0u, up_value);
    }
    let row = Pair(any(b != vec4<u32>(0u)), subgroupShuffle(v, ids.subgroup_size - 1u));
    let before = *carry;
    if k == 0u {
        *carry = row;
        return lanes;
    }
    *carry = join(before, row);
    return join(before, lanes);
}

var<workgroup> subgroup_heads: array<u32, WG>;
var<workgroup> subgroup_values: array<T, WG>;

// The subgroup's prefix within the tile, from its total `carry` (the same in every
// lane): the totals of the subgroups before it.
fn invocation_prefix(carry: Pair, ids: Ids) -> Pair {
    workgroupBarrier();  // the previous tile's readers are done with the totals
    if ids.subgroup_lane == 0u {
        subgroup_heads[ids.subgroup] = select(0u, 1u, carry.head);
        subgroup_values[ids.subgroup] = carry.value;
    }
    workgroupBarrier();
    var before = no_pair();
    for (var i = 0u; i < ids.subgroup; i++) {
        before = join(before, Pair(subgroup_heads[i] != 0u, subgroup_values[i]));
    }
    return before;
}

fn wg_total(ids: Ids) -> Pair {
    var total = Pair(subgroup_heads[0] != 0u, subgroup_values[0]);
    for (var i = 1u; i < ids.subgroups; i++) {
        total = join(total, Pair(subgroup_heads[i] != 0u, subgroup_values[i]));
    }
    return total;
}
//#else
// Workgroup scan through shared memory (Hillis-Steele over pairs): log2(WG) steps, two
// barriers each. Blocked tiles: an invocation owns V consecutive units. For adapters
// without subgroup operations.
struct Ids {
    @builtin(local_invocation_index) lane: u32,
}

fn unit_of(t: u32, ids: Ids, k: u32) -> u32 {
    return t * TILE_UNITS + ids.lane * V + k;
}

// The key before unit u: the invocation's previous unit's last key, or loaded.
fn previous_key(u: u32, k: u32, kv: vec4<u32>, last: u32, ids: Ids) -> u32 {
    if k != 0u {
        return last;
    }
    return key_of_previous(u);
}

// Unit k's offset within the invocation; `carry` folds the invocation's unit pairs.
fn row_offset(k: u32, mine: Pair, ids: Ids, carry: ptr<function, Pair>) -> Pair {
    let before = *carry;
    if k == 0u {
        *carry = mine;
    } else {
        *carry = join(before, mine);
    }
    return before;
}

var<workgroup> scan_heads: array<u32, WG>;
var<workgroup> scan_values: array<T, WG>;

// The pairs of the invocations before this one, from its own.
fn invocation_prefix(x: Pair, ids: Ids) -> Pair {
    workgroupBarrier();  // the previous tile's readers are done with the arrays
    scan_heads[ids.lane] = select(0u, 1u, x.head);
    scan_values[ids.lane] = x.value;
    workgroupBarrier();
    var v = x;
    for (var d = 1u; d < WG; d <<= 1u) {
        if ids.lane >= d {
            v = join(Pair(scan_heads[ids.lane - d] != 0u, scan_values[ids.lane - d]), v);
        }
        workgroupBarrier();
        scan_heads[ids.lane] = select(0u, 1u, v.head);
        scan_values[ids.lane] = v.value;
        workgroupBarrier();
    }
    if ids.lane == 0u {
        return no_pair();
    }
    return Pair(scan_heads[ids.lane - 1u] != 0u, scan_values[ids.lane - 1u]);
}

fn wg_total(ids: Ids) -> Pair {
    return Pair(scan_heads[WG - 1u] != 0u, scan_values[WG - 1u]);
}
//#endif

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

var<workgroup> head_shared: u32;

// Tile t: with `keep`, its scan into `vals` and `needs`; returns the invocation's prefix
// within the tile. wg_total(ids) is the tile's pair afterwards. Without `keep` (a
// look-back standing in for a slow tile) the same operations, `vals` untouched.
fn tile_pass(t: u32, ids: Ids, keep: bool) -> Pair {
    var carry = no_pair();
    var last = 0u;
    var mask = 0u;
    for (var k = 0u; k < V; k++) {
        let u = unit_of(t, ids, k);
        var kv = vec4<u32>(0u);
        var x = vec4<T>(identity());
        if u < params.units {
            kv = keys_load(u);
            x = values_load(u);
        }
        let previous = previous_key(u, k, kv, last, ids);
        last = kv.w;
        let unit = unit_scan(u, kv, previous, x);
        let o = row_offset(k, unit.pair, ids, &carry);
        if keep {
            vals[k] = offset_lanes(o.value, unit.vals, unit.need);
            mask |= select(unit.need, 0u, o.head) << (4u * k);
        }
    }
    if keep {
        needs = mask;
    }
    return invocation_prefix(carry, ids);
}

// A tile's head flag (`head`, of its pair after tile_pass) as a uniform value: a
// barrier or a loop's exit may depend on it. (A Pair read from workgroup memory is not
// uniform to the spec's analysis, whatever its head.)
fn uniform_head(head: bool, ids: Ids) -> bool {
    if ids.lane == 0u {
        head_shared = select(0u, 1u, head);
    }
    return workgroupUniformLoad(&head_shared) != 0u;
}

fn tile_fold(t: u32, ids: Ids) -> Pair {
    _ = tile_pass(t, ids, false);
    return wg_total(ids);
}

// Writes this invocation's units of tile t, the elements that lack it combined after
// `before`.
fn store_tile(t: u32, ids: Ids, before: T) {
    for (var k = 0u; k < V; k++) {
        let u = unit_of(t, ids, k);
        if u < params.units {
            out_store(u, offset_lanes(before, vals[k], (needs >> (4u * k)) & 15u));
        }
    }
}

var<workgroup> tile_shared: u32;
var<workgroup> kind_shared: u32;
var<workgroup> value_shared: T;

fn status_word(tile: u32, kind: u32) -> u32 {
    return params.counters + tile * 4u + (kind - 1u) * 2u;
}

fn publish(tile: u32, kind: u32, v: T) {
    let w = status_word(tile, kind);
    let bits = bitcast<u32>(v);
    atomicStore(&status[w], bits);
    atomicStore(&status[w + 1u], bits ^ KEY);
}

// Whether the (value, check) pair of `kind` for `tile` is complete; the value in
// value_shared when it is (invocation 0 only).
fn probe(tile: u32, kind: u32) -> bool {
    let w = status_word(tile, kind);
    let bits = atomicLoad(&status[w]);
    let check = atomicLoad(&status[w + 1u]);
    if (bits ^ KEY) == check {
        value_shared = bitcast<T>(bits);
        return true;
    }
    return false;
}

// What a tile publishes: its inclusive prefix when it holds a head (`head`, uniform)
// or is tile 0, else its aggregate.
fn kind_of(tile: u32, head: bool) -> u32 {
    return select(AGGREGATE, INCLUSIVE, tile == 0u || head);
}

//#if SUBGROUPS
// Look-back by the first subgroup: each invocation probes one predecessor, so a step
// covers a subgroup's width of tiles. The values a probe reads are kept in workgroup
// memory (`stash`, by distance from this tile) and folded there by one invocation; only
// predecessors further back than the stash holds are loaded again (see
// wgsl/scan_lookback_subgroup.wgsl for why the cost per predecessor matters).

var<workgroup> step_shared: vec2<u32>;
const STASH: u32 = {{STASH}}u;
var<workgroup> stash: array<u32, STASH>;

const MOVE_ON: u32 = 0u;
const FOUND: u32 = 1u;
const MISSING: u32 = 2u;
const NO_LANE: u32 = 128u;

// (kind, value bits) of what `tile` has published so far.
fn status_of(tile: u32) -> vec2<u32> {
    let wi = status_word(tile, INCLUSIVE);
    let wa = status_word(tile, AGGREGATE);
    let ib = atomicLoad(&status[wi]);
    let ic = atomicLoad(&status[wi + 1u]);
    let ab = atomicLoad(&status[wa]);
    let ac = atomicLoad(&status[wa + 1u]);
    if (ib ^ KEY) == ic {
        return vec2<u32>(INCLUSIVE, ib);
    }
    if (ab ^ KEY) == ac {
        return vec2<u32>(AGGREGATE, ab);
    }
    return vec2<u32>(NONE, 0u);
}

// The lowest invocation set in a ballot, or NO_LANE.
fn lowest_lane(b: vec4<u32>) -> u32 {
    for (var i = 0u; i < 4u; i++) {
        if b[i] != 0u {
            return i * 32u + firstTrailingBit(b[i]);
        }
    }
    return NO_LANE;
}

// Subgroup-uniform at run time, though not to the spec's analysis: subgroup operations run
// under `ids.subgroup == 0u` (the same in a whole subgroup) and in loops whose exits
// depend on ballots (the same in every lane), neither of which Tint counts as uniform.
@diagnostic(off, subgroup_uniformity)
fn look_back(g: u32, ids: Ids) -> T {
    let width = ids.subgroup_size;
    // Phase 1: walk back, a window of `width` tiles per step (invocation l probes tile
    // top - l), to the nearest tile with an inclusive prefix, with every aggregate on
    // the way published: by its owner or, once SPIN probes have not shown it, by this
    // workgroup, which reduces that tile's input itself. Each value read goes to the
    // stash.
    var top = g - 1u;
    var found = 0u;
    loop {
        if ids.subgroup == 0u {
            var step = vec2<u32>(MOVE_ON, 0u);
            for (var spin = 0u; ; spin++) {
                let valid = ids.subgroup_lane <= top;
                let tile = top - ids.subgroup_lane;
                var st = vec2<u32>(NONE, 0u);
                if valid {
                    st = status_of(tile);
                }
                let first_end = lowest_lane(subgroupBallot(valid && st.x == INCLUSIVE));
                let first_none = lowest_lane(subgroupBallot(valid && st.x == NONE));
                let d = g - 1u - tile;  // distance from this tile
                if first_end < first_none {
                    if ids.subgroup_lane <= first_end && d < STASH {
                        stash[d] = st.y;
                    }
                    step = vec2<u32>(FOUND, top - first_end);
                    break;
                }
                if first_none == NO_LANE {
                    if valid && d < STASH {
                        stash[d] = st.y;
                    }
                    break;  // all aggregates, no end in this window: move on
                }
                if spin + 1u >= SPIN {
                    step = vec2<u32>(MISSING, top - first_none);
                    break;
                }
            }
            if ids.subgroup_lane == 0u {
                step_shared = step;
            }
        }
        let step = workgroupUniformLoad(&step_shared);
        if step.x == FOUND {
            found = step.y;
            break;
        }
        if step.x == MISSING {
            if step.y >= params.base {
                let total = tile_fold(step.y - params.base, ids);
                let kind = kind_of(step.y, uniform_head(total.head, ids));
                if ids.lane == 0u {
                    publish(step.y, kind, total.value);
                }
            }
            continue;  // probe the same window again (an earlier dispatch's tile: soon visible)
        }
        top -= width;
    }
    // Phase 2: fold forward from `found` (its inclusive prefix), one aggregate after
    // another, in tile order.
    let far = g - 1u - found;
    if far < STASH {
        // Everything is in the stash (the barrier in workgroupUniformLoad above made
        // the first subgroup's writes visible).
        if ids.lane == 0u {
            var p = bitcast<T>(stash[far]);
            for (var d = far; d > 0u; d--) {
                p = combine(p, bitcast<T>(stash[d - 1u]));
            }
            value_shared = p;
        }
        return workgroupUniformLoad(&value_shared);
    }
    if ids.subgroup == 0u {
        var p = bitcast<T>(status_of(found).y);
        for (var base = found + 1u; base < g; base += width) {
            let tile = base + ids.subgroup_lane;
            var v = identity();
            if tile < g {
                v = bitcast<T>(atomicLoad(&status[status_word(tile, AGGREGATE)]));
            }
            let count = min(width, g - base);
            for (var i = 0u; i < count; i++) {
                p = combine(p, subgroupShuffle(v, i));
            }
        }
        if ids.subgroup_lane == 0u {
            value_shared = p;
        }
    }
    return workgroupUniformLoad(&value_shared);
}
//#else
// Look-back by one invocation, one predecessor at a time (adapters without subgroups).

// What tile j has published, waiting at most SPIN probes (invocation 0 only).
fn wait_for(j: u32) -> u32 {
    for (var s = 0u; s < SPIN; s++) {
        if probe(j, INCLUSIVE) {
            return INCLUSIVE;
        }
        if probe(j, AGGREGATE) {
            return AGGREGATE;
        }
    }
    return NONE;
}

// The combination of the elements before global tile g (g > 0) in the run of its first
// element, folded from the left.
fn look_back(g: u32, ids: Ids) -> T {
    // Walk back to the nearest tile with an inclusive prefix; every aggregate on the way
    // is published, by its owner or (if the owner is slow) by this workgroup.
    var j = g - 1u;
    loop {
        if ids.lane == 0u {
            kind_shared = wait_for(j);
        }
        var kind = workgroupUniformLoad(&kind_shared);
        if kind == NONE {
            if j < params.base {
                continue;  // an earlier dispatch's tile: complete, soon visible
            }
            // The owner has not published: reduce tile j here and publish for it.
            let total = tile_fold(j - params.base, ids);
            kind = kind_of(j, uniform_head(total.head, ids));
            if ids.lane == 0u {
                publish(j, kind, total.value);
            }
        }
        if kind == INCLUSIVE {
            break;
        }
        j -= 1u;
    }
    // Fold forward from tile j: its inclusive prefix, then each later aggregate.
    if ids.lane == 0u {
        _ = probe(j, INCLUSIVE);
        var p = value_shared;
        for (var i = j + 1u; i < g; i++) {
            _ = probe(i, AGGREGATE);
            p = combine(p, value_shared);
        }
        value_shared = p;
    }
    return workgroupUniformLoad(&value_shared);
}
//#endif

@compute @workgroup_size(WG)
fn chained(grid: Grid, ids: Ids) {
    var t = linear_group(grid);
    if !BY_ID {
        if ids.lane == 0u {
            tile_shared = atomicAdd(&status[params.window], 1u);
        }
        t = workgroupUniformLoad(&tile_shared);
    }
    if t >= params.tiles {
        return;
    }
    let before = tile_pass(t, ids, true);
    let total = wg_total(ids);
    let g = params.base + t;
    let kind = kind_of(g, uniform_head(total.head, ids));
    if ids.lane == 0u {
        publish(g, kind, total.value);
    }
    var prefix = identity();
    if g != 0u {
        // Even a tile that holds a head needs the prefix for its elements before it.
        prefix = look_back(g, ids);
        if kind == AGGREGATE && ids.lane == 0u {
            publish(g, INCLUSIVE, combine(prefix, total.value));
        }
    }
    store_tile(t, ids, join(Pair(false, prefix), before).value);
}
