// Segmented reduction (Ctx::segmented_reduce, Ctx::reduce_rows): one value per segment,
// segment s being the elements begin(s)..end(s) of the values.
//
// The VALUES are split evenly: workgroup range r is the elements [r * range, (r + 1) *
// range), walked in tiles of WG * V elements. A workgroup knows B, the first segment
// boundary (a segment's begin, or the end of one followed by a gap) at or after its
// tile. A tile before B holds no boundary: each invocation folds V of its values into a
// running value of its own (striped loads, as reduce's), and nothing is shared. A tile
// with boundaries is marked first: its segments (found from where the previous tile's
// search ended) write each head's segment id into workgroup memory at the head's
// position (empty segments get the identity there and then, a gap's start gets GAP).
// Each invocation then walks its V consecutive values: a segment that starts and ends
// in them is written at once, and the value after its last head joins the tile's
// segmented exclusive scan of (id of the last head, value since it) pairs, carried from
// tile to tile; the invocation's values before its first head close the segment the
// scan brings. The running values of boundary-free tiles join the carry, through the
// same scan, before the next tile with boundaries and at the range's end.
//
// A segment that starts in an earlier range is closed as this range's `partial_first`,
// and every range leaves the value after its last head as `partial_last`; `fixup_main`
// combines, for each segment spanning ranges, the partials of the ranges it covers in
// range order, and writes the empty segments past the values. No float atomics, no
// waiting between workgroups: the order of combination depends only on the lengths, so
// float results repeat bit for bit (atomics only count the fix-up's long spans, whose
// order does not change any result). The operator must be commutative: the running
// values of boundary-free tiles are folded invocation by invocation.
//
// Elements between segments (before begin(0), after the last end, a row's padding)
// belong to none and are skipped. Indices read from the bounds are clamped: bounds that
// are not ascending or point past the values give unspecified results, never an access
// outside the buffers.
{{ENABLE}}
alias T = {{T}};
alias A = {{A}};

const WG: u32 = {{WG}}u;
const V: u32 = {{V}}u;        // elements per invocation and tile row, a multiple of 4
const UNITS: u32 = V / 4u;    // vec4 units per invocation
const TILE: u32 = WG * V;
const NONE: u32 = 0xffffffffu;
const NO_HEAD: u32 = 0xffffffffu;  // a scan pair's key: no head since the range began
const GAP: u32 = 0xfffffffeu;      // a head, or a pair's key: elements of no segment

struct GpSegmentedParams {
    n: u32,           // elements in all
    segments: u32,    // segments in all
    range: u32,       // elements per workgroup range, a multiple of TILE
    ranges: u32,      // ranges in all
    first: u32,       // this binding window's first element, a multiple of `range`
    groups: u32,      // workgroups that take part; surplus ones of a folded grid return
    width: u32,       // rows: elements per row
    pitch: u32,       // rows: elements from one row's start to the next
    opaque_zero: u32, // always 0; the compiler cannot know it (the compensated sum)
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> gp_reduce: GpSegmentedParams;
@group(0) @binding(1) var<storage, read_write> gp_partial_first: array<A>;
@group(0) @binding(3) var<storage, read_write> gp_partial_last: array<A>;
@group(0) @binding(4) var<storage, read_write> gp_out: array<T>;

// The operation: gp_identity(), gp_lift(T) -> A, gp_combine(A, A) -> A, gp_finish(A) -> T.
{{OP}}

// The values at binding 2: gp_x_load(u) -> vec4<T>, unit u of this binding window.
{{VALUES}}

// The segments: gp_begin(s), gp_end(s) for s < segments, gp_upper(x, lo, hi) (the first
// s in lo..hi with gp_begin(s) > x, else hi), gp_lower(x, lo, hi) (the first with
// gp_begin(s) >= x, else hi), gp_find(i, lo, hi, guess) (gp_segment_of(i, lo, hi)) and
// gp_lower_near(x, lo, hi, guess) (gp_lower), both searched outward from a guess.
{{SEGMENTS}}

var<workgroup> gp_shared_acc: array<A, WG>;
var<workgroup> gp_shared_keys: array<u32, WG>;
var<workgroup> gp_shared_word: u32;
// A tile's heads: the segment id (or GAP) of the head at each position, else NO_HEAD,
// at gp_slot(position): a word of padding every 32, so that the invocations of a
// subgroup, reading V apart, read distinct banks.
var<workgroup> gp_head: array<u32, TILE + TILE / 32u>;
// Which of its V positions hold a head, per invocation (by gp_position).
var<workgroup> gp_mask: array<atomic<u32>, WG>;
// Where the workgroup is in the segments (see tiles_main).
var<workgroup> gp_shared_bounds: vec4<u32>;

// GpGroup and GpIds (the uniform built-ins and the others), gp_position(ids, group)
// (which V values of a tile an invocation owns: subgroup by subgroup where the scan
// uses subgroups, so each subgroup's are consecutive) and gp_exclusive(mine, first,
// ids, group) (see below).
{{WORKGROUP_SCAN}}

// The workgroup's total, in every invocation: a shared-memory halving tree.
fn gp_workgroup_reduce(acc: A, lane: u32) -> A {
    workgroupBarrier();  // earlier readers of the shared array are done
    gp_shared_acc[lane] = acc;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if lane < s {
            gp_shared_acc[lane] = gp_combine(gp_shared_acc[lane], gp_shared_acc[lane + s]);
        }
        workgroupBarrier();
    }
    return gp_shared_acc[0];
}

fn gp_linear_group(group: GpGroup) -> u32 {
    return group.id.x + group.count.x * (group.id.y + group.count.y * group.id.z);
}

// The segment of element i: the last s in lo..hi with gp_begin(s) <= i, else lo.
fn gp_segment_of(i: u32, lo: u32, hi: u32) -> u32 {
    return max(gp_upper(i, lo, hi), lo + 1u) - 1u;
}

// Where the elements after segment s's end belong to another segment: the next begin,
// or n after the last segment.
fn gp_after(s: u32) -> u32 {
    if s + 1u >= gp_reduce.segments {
        return gp_reduce.n;
    }
    return gp_begin(s + 1u);
}

// The first segment boundary at or after x, where lower = gp_lower(x, 0, segments): the
// begin of segment `lower`, or the end of the one before it if that is not before x
// (NONE if neither).
fn gp_boundary(x: u32, lower: u32) -> u32 {
    var b = NONE;
    if lower < gp_reduce.segments {
        b = gp_begin(lower);
    }
    if lower > 0u {
        let e = gp_end(lower - 1u);
        if e >= x {
            b = min(b, e);
        }
    }
    return b;
}

fn gp_slot(k: u32) -> u32 {
    return k + k / 32u;
}

// A scan pair: the id of the last head (NO_HEAD: none since the range began; GAP: a
// gap's start), and the reduction since it.
struct GpRun {
    key: u32,
    value: A,
}

fn gp_join(a: GpRun, b: GpRun) -> GpRun {
    if b.key != NO_HEAD {
        return b;
    }
    return GpRun(a.key, gp_combine(a.value, b.value));
}

// Units u0 + K * stride (K < UNITS) of the values, global unit indices; those from
// `end` on are not loaded. Written out with constant indices, so they stay in registers.
fn gp_load_units(u0: u32, stride: u32, end: u32) -> array<vec4<T>, UNITS> {
    var xs: array<vec4<T>, UNITS>;
    let w = gp_reduce.first / 4u;
{{LOAD_UNITS}}
    return xs;
}

fn gp_fold4(x: vec4<T>) -> A {
    return gp_combine(gp_combine(gp_lift(x.x), gp_lift(x.y)), gp_combine(gp_lift(x.z), gp_lift(x.w)));
}

// The values of unit x, elements base.. (those below end).
fn gp_fold4_below(x: vec4<T>, base: u32, end: u32) -> A {
    if base + 4u <= end {
        return gp_fold4(x);
    }
    var acc = gp_identity();
    for (var j = 0u; j < 4u; j++) {
        if base + j < end {
            acc = gp_combine(acc, gp_lift(x[j]));
        }
    }
    return acc;
}

// An invocation's walk over its values in a tile with heads: its key (NO_HEAD until
// its first head), the value since its last head, and the value before its first one.
struct GpWalk {
    key: u32,
    acc: A,
    leading: A,
}

// A head at tile position k: the run before it ends (written if it began in this
// invocation, kept as the leading value if it is the first), and k's segment begins.
fn gp_head_step(k: u32, w: ptr<function, GpWalk>) {
    if (*w).key == NO_HEAD {
        (*w).leading = (*w).acc;
    } else if (*w).key != GAP {
        gp_out[(*w).key] = gp_finish((*w).acc);
    }
    (*w).key = gp_head[gp_slot(k)];
    (*w).acc = gp_identity();
}

// Marks tile position k as a head of `id` (a segment, or GAP).
fn gp_mark(k: u32, id: u32) {
    gp_head[gp_slot(k)] = id;
    atomicOr(&gp_mask[k / V], 1u << (k % V));
}

// What marking needs of segment s, loaded at once: its begin (NONE past the last
// segment), its end, where the next begins (gp_after), and the bounds of segment s - 1
// (prev_begin NONE past the last segment).
struct GpBounds {
    begin: u32,
    end: u32,
    after: u32,
    prev_begin: u32,
    prev_end: u32,
}

fn gp_bounds(s: u32) -> GpBounds {
    var g = GpBounds(NONE, 0u, 0u, 0u, 0u);
    if s < gp_reduce.segments {
        g.begin = gp_begin(s);
        g.end = gp_end(s);
        g.after = gp_after(s);
    }
    // Past the last segment there is no segment s - 1 to meet: prev_begin stays NONE,
    // so only the lane at s = segments (or the first segment after the tile) records
    // `up`. (Rows' bounds past the last row would wrap.)
    g.prev_begin = NONE;
    if s > 0u && s <= gp_reduce.segments {
        g.prev_begin = gp_begin(s - 1u);
        g.prev_end = gp_end(s - 1u);
    }
    return g;
}

// Marks a segment's end e as a gap's head if a gap (elements of no segment, up to
// `after`) follows it within tile..tile_end.
fn gp_mark_gap(e: u32, after: u32, tile: u32, tile_end: u32) {
    if e >= tile && e < tile_end && e < after {
        gp_mark(e - tile, GAP);
    }
}

@compute @workgroup_size({{WG}})
fn tiles_main(group: GpGroup, ids: GpIds) {
    let local_group = gp_linear_group(group);
    if local_group >= gp_reduce.groups {
        return;  // whole workgroup: control flow stays uniform for its barriers
    }
    let lane = ids.lane;
    let pos = gp_position(ids, group);
    let segs = gp_reduce.segments;
    let r = gp_reduce.first / gp_reduce.range + local_group;
    let range_start = r * gp_reduce.range;
    let range_end = min(range_start + gp_reduce.range, gp_reduce.n);
    atomicStore(&gp_mask[lane], 0u);
    // The first tile's values are loaded while its segments are searched: blocked (an
    // invocation's V consecutive values) unless the tile turns out to hold no boundary.
    var xs = gp_load_units(range_start / 4u + pos * UNITS, 1u, range_end);
    var blocked = true;
    // lo: the first segment beginning at or after the tile; B: the first boundary at or
    // after it. Searched from where an even spread of the segments would put it.
    if lane == 0u {
        let guess = u32(f32(range_start) * (f32(segs) / f32(gp_reduce.n)));
        let lo = gp_lower_near(range_start, 0u, segs, guess);
        gp_shared_bounds = vec4<u32>(lo, 0u, gp_boundary(range_start, lo), 0u);
    }
    let found = workgroupUniformLoad(&gp_shared_bounds);
    var lo = found.x;
    var boundary = found.z;
    // This invocation's first segment to mark in the next tile with heads, loaded ahead.
    var ahead = gp_bounds(lo + lane);

    var carry = GpRun(NO_HEAD, gp_identity());
    var running = gp_identity();  // this invocation's share of boundary-free tiles
    var pending = false;          // running holds values the carry lacks
    for (var tile = range_start; tile < range_end; tile += TILE) {
        let tile_end = min(tile + TILE, range_end);
        let cur = xs;
        let cur_blocked = blocked;
        let next = tile + TILE;
        if boundary >= tile_end {
            // No boundary: fold, and load the next tile striped where it has none either.
            if next < range_end {
                blocked = boundary < min(next + TILE, range_end);
                if blocked {
                    xs = gp_load_units(next / 4u + pos * UNITS, 1u, range_end);
                } else {
                    xs = gp_load_units(next / 4u + lane, WG, range_end);
                }
            }
            var u0 = tile / 4u + lane;
            var stride = WG;
            if cur_blocked {
                u0 = tile / 4u + pos * UNITS;
                stride = 1u;
            }
{{FOLD_UNITS}}
            pending = true;
            continue;
        }
        // Boundaries: the next tile is loaded blocked.
        if next < range_end {
            xs = gp_load_units(next / 4u + pos * UNITS, 1u, range_end);
            blocked = true;
        }
        if pending {
            carry = gp_exclusive(GpRun(NO_HEAD, running), carry, ids, group)[1];
            running = gp_identity();
            pending = false;
        }
        // Mark the heads of the segments beginning in the tile, lo..up, lane by lane;
        // empty segments get the identity now. The lane that meets `up` (the first to
        // begin after the tile) records it and the boundary there.
        var g = ahead;
        for (var s = lo + lane; ; s += WG) {
            if g.begin >= tile_end {
                if s == lo || g.prev_begin < tile_end {
                    var bound = g.begin;
                    if s > 0u && g.prev_end >= tile_end {
                        bound = min(bound, g.prev_end);
                    }
                    gp_shared_bounds = vec4<u32>(s, 0u, bound, 0u);
                }
                break;
            }
            if g.end <= g.begin {
                gp_out[s] = gp_finish(gp_identity());
            } else if g.begin >= tile {
                gp_mark(g.begin - tile, s);
            }
            gp_mark_gap(g.end, g.after, tile, tile_end);
            g = gp_bounds(s + WG);
        }
        if lane == 0u {
            if lo > 0u {
                // The segment before lo, from an earlier tile, may end here.
                var after = gp_reduce.n;
                if lo < segs {
                    after = ahead.begin;
                }
                gp_mark_gap(ahead.prev_end, after, tile, tile_end);
            }
            if tile_end < tile + TILE {
                // The values end inside the tile: what follows them is a gap.
                gp_mark(tile_end - tile, GAP);
            }
        }
        let after = workgroupUniformLoad(&gp_shared_bounds);
        let up = max(after.x, lo);
        ahead = gp_bounds(up + lane);
        // The walk: the positions past the values follow the GAP marked at their start.
        let c = tile + pos * V;
        let m = atomicLoad(&gp_mask[pos]);
        atomicStore(&gp_mask[pos], 0u);  // cleared for the next tile, after its scan
        var w = GpWalk(NO_HEAD, gp_identity(), gp_identity());
        if m == 0u {
{{FOLD_OWN_UNITS}}
        } else {
            let k0 = c - tile;
{{WALK_UNITS}}
        }
        var mine = GpRun(NO_HEAD, w.acc);
        if w.key != NO_HEAD {
            mine.key = w.key;
        }
        let scanned = gp_exclusive(mine, carry, ids, group);
        if w.key != NO_HEAD {
            // The values before this invocation's first head close the scan's segment.
            let before = scanned[0];
            let total = gp_combine(before.value, w.leading);
            if before.key == NO_HEAD {
                gp_partial_first[r] = total;  // a segment from an earlier range
            } else if before.key != GAP {
                gp_out[before.key] = gp_finish(total);
            }
        }
        carry = scanned[1];
        lo = up;
        boundary = after.z;
    }
    if pending {
        carry = gp_exclusive(GpRun(NO_HEAD, running), carry, ids, group)[1];
    }
    if lane == 0u {
        gp_partial_last[r] = carry.value;
        if carry.key == NO_HEAD {
            // No head in the range: its segment may end with it.
            gp_partial_first[r] = carry.value;
        } else if carry.key != GAP && gp_end(carry.key) <= range_end {
            gp_out[carry.key] = gp_finish(carry.value);  // ends with the range
        }
    }
}

// Segments that span ranges, each combined where it ends: a thread per range finds the
// segment that ends in its range after starting in an earlier one; short spans it
// combines itself, long ones the whole workgroup, one after another. Also the empty
// segments past the values.
const SERIAL_MAX: u32 = 32u;  // partials one invocation combines alone

var<workgroup> gp_long_count: atomic<u32>;
var<workgroup> gp_long: array<vec2<u32>, WG>;

@compute @workgroup_size({{WG}})
fn fixup_main(workgroup: GpGroup, ids: GpIds) {
    let group = gp_linear_group(workgroup);
    if group >= gp_reduce.groups {
        return;
    }
    let lane = ids.lane;
    let segs = gp_reduce.segments;
    let n = gp_reduce.n;
    let stride = gp_reduce.groups * WG;
    // The empty segments past the values (usually none: one load says so).
    var trailing = segs;
    if segs > 0u && gp_begin(segs - 1u) >= n {
        trailing = gp_lower(n, 0u, segs - 1u);
    }
    for (var k = trailing + group * WG + lane; k < segs; k += stride) {
        gp_out[k] = gp_finish(gp_identity());
    }
    for (var base = group * WG; base < gp_reduce.ranges; base += stride) {
        if lane == 0u {
            atomicStore(&gp_long_count, 0u);
        }
        workgroupBarrier();
        let r = base + lane;
        if r > 0u && r < gp_reduce.ranges {
            let start = r * gp_reduce.range;
            // Searched from where an even spread of the segments would put it.
            let guess = u32(f32(start) * (f32(segs) / f32(n)));
            let s = gp_find(start, 0u, segs, guess);
            let b = gp_begin(s);
            let e = gp_end(s);
            if b < start && e > start && e <= min(start + gp_reduce.range, n) {
                let r0 = min(b / gp_reduce.range, r);
                if r - r0 <= SERIAL_MAX {
                    var acc = gp_identity();
                    for (var j = r0; j < r; j++) {
                        acc = gp_combine(acc, gp_partial_last[j]);
                    }
                    gp_out[s] = gp_finish(gp_combine(acc, gp_partial_first[r]));
                } else {
                    gp_long[atomicAdd(&gp_long_count, 1u)] = vec2<u32>(r, s);
                }
            }
        }
        workgroupBarrier();
        if lane == 0u {
            gp_shared_word = atomicLoad(&gp_long_count);
        }
        let long = workgroupUniformLoad(&gp_shared_word);
        // The long spans in any order: each is combined the same way whatever its place.
        for (var l = 0u; l < long; l++) {
            let r = gp_long[l].x;
            let s = gp_long[l].y;
            let r0 = min(gp_begin(s) / gp_reduce.range, r);
            var acc = gp_identity();
            for (var j = r0 + lane; j < r; j += WG) {
                acc = gp_combine(acc, gp_partial_last[j]);
            }
            if lane == 0u {
                acc = gp_combine(acc, gp_partial_first[r]);
            }
            let total = gp_workgroup_reduce(acc, lane);
            if lane == 0u {
                gp_out[s] = gp_finish(total);
            }
        }
        workgroupBarrier();  // gp_long is read before the next round refills it
    }
}
