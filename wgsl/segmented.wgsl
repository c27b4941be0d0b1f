// Segmented reduction (Ctx::segmented_reduce, Ctx::reduce_rows): one value per segment,
// segment s being the elements begin(s)..end(s) of the values.
//
// The VALUES are split evenly: workgroup range r is the elements [r * range, (r + 1) *
// range), walked in tiles of WG * V elements, each invocation V consecutive ones. An
// invocation finds the segment of its first element in the segment bounds, searching
// outward from where an even spread would put it (rows: arithmetically), and follows the
// boundaries from there. A segment
// whose elements all lie in one invocation is written at once; the others are joined
// across the workgroup by a segmented exclusive scan of (heads, value since the last
// head) pairs, carried from tile to tile. A segment that starts in an earlier range is
// left as this range's `partial_first`, and every range leaves the value after its last
// head as `partial_last`; `fixup_main` combines, for each segment spanning ranges, the
// partials of the ranges it covers in range order, and writes the empty segments past
// the values. No float atomics, no waiting between workgroups: the order of combination
// depends only on the lengths, so float results repeat bit for bit (atomics only count
// the fix-up's long spans, whose order does not change any result).
//
// An empty segment is written by the invocation that owns the element at its position
// (or by `fixup_main` when that is past the values). Elements between segments (before
// begin(0), after the last end, a row's padding) belong to none and are skipped.
// Indices read from the bounds are clamped: bounds that are not ascending or point past
// the values give unspecified results, never an access outside the buffers.
{{ENABLE}}
alias T = {{T}};
alias A = {{A}};

const WG: u32 = {{WG}}u;
const V: u32 = {{V}}u;        // elements per invocation and tile row, a multiple of 4
const UNITS: u32 = V / 4u;    // vec4 units per invocation
const TILE: u32 = WG * V;
const NONE: u32 = 0xffffffffu;

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
// gp_begin(s) >= x, else hi) and gp_find(i, lo, hi, guess) (gp_segment_of(i, lo, hi),
// searched outward from a guess).
{{SEGMENTS}}

var<workgroup> gp_shared_acc: array<A, WG>;
var<workgroup> gp_shared_heads: array<u32, WG>;
var<workgroup> gp_shared_word: u32;
var<workgroup> gp_shared_pair: vec2<u32>;

// GpIds (the built-ins), gp_position(ids) (which V values of a tile an invocation owns:
// subgroup by subgroup where the scan uses subgroups, so each subgroup's are
// consecutive) and gp_exclusive(mine, first, ids) (see below).
{{WORKGROUP_SCAN}}

// The workgroup's total, in invocation 0: a shared-memory halving tree.
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

fn gp_linear_group(ids: GpIds) -> u32 {
    return ids.group.x + ids.groups.x * (ids.group.y + ids.groups.y * ids.group.z);
}

// The segment of element i: the last s in lo..hi with gp_begin(s) <= i, else lo.
fn gp_segment_of(i: u32, lo: u32, hi: u32) -> u32 {
    return max(gp_upper(i, lo, hi), lo + 1u) - 1u;
}

// Where the segment after s begins (NONE after the last).
fn gp_next_begin(s: u32) -> u32 {
    if s + 1u >= gp_reduce.segments {
        return NONE;
    }
    return gp_begin(s + 1u);
}

// The identity into segments lo..hi (empty ones).
fn gp_write_empty(lo: u32, hi: u32) {
    for (var k = lo; k < min(hi, gp_reduce.segments); k++) {
        gp_out[k] = gp_finish(gp_identity());
    }
}

// A segment value: heads seen, and the reduction since the last of them.
struct GpRun {
    heads: u32,
    value: A,
}

fn gp_join(a: GpRun, b: GpRun) -> GpRun {
    if b.heads > 0u {
        return GpRun(a.heads + b.heads, b.value);
    }
    return GpRun(a.heads, gp_combine(a.value, b.value));
}

// The V values from c (those below `end`). The units are written out (constant
// indices), so they stay in registers.
fn gp_load_values(c: u32, end: u32) -> array<vec4<T>, UNITS> {
    var xs: array<vec4<T>, UNITS>;
    let u = (c - gp_reduce.first) / 4u;
{{LOAD_UNITS}}
    return xs;
}

fn gp_fold4(x: vec4<T>) -> A {
    return gp_combine(gp_combine(gp_lift(x.x), gp_lift(x.y)), gp_combine(gp_lift(x.z), gp_lift(x.w)));
}

// An invocation's walk over its values: the current segment and its bounds, heads seen,
// the value since the last head, and a segment that started before the invocation and
// ends in it (finished after the tile's scan).
struct GpWalk {
    s: u32,
    begin: u32,
    end: u32,
    next: u32,
    heads: u32,
    acc: A,
    pending: A,
    pending_segment: u32,
}

// The four values of unit x, elements base..base + 4 (those below e), of an invocation
// whose values start at c; segments are searched below hi.
fn gp_walk_unit(x: vec4<T>, base: u32, c: u32, e: u32, hi: u32, w: ptr<function, GpWalk>) {
    for (var j = 0u; j < 4u; j++) {
        let i = base + j;
        if i < e {
            if i >= (*w).next {
                // A later segment: usually the next one.
                var s = (*w).s + 1u;
                if gp_next_begin(s) <= i {
                    s = gp_segment_of(i, s + 1u, hi);
                }
                (*w).s = s;
                (*w).begin = gp_begin(s);
                (*w).end = gp_end(s);
                (*w).next = gp_next_begin(s);
            }
            let s = (*w).s;
            let begin = (*w).begin;
            let end = (*w).end;
            if begin == i {
                // A boundary: the empty segments here (those before s with the same
                // begin, and s if it is empty) get the identity.
                var first_empty = s;
                if s > 0u && gp_begin(s - 1u) == i {
                    first_empty = gp_lower(i, 0u, s);
                }
                gp_write_empty(first_empty, select(s, s + 1u, end <= i));
                if i < end {
                    (*w).heads += 1u;
                    (*w).acc = gp_identity();
                }
            }
            if begin <= i && i < end {
                (*w).acc = gp_combine((*w).acc, gp_lift(x[j]));
                if i + 1u == end {
                    if begin >= c {
                        gp_out[s] = gp_finish((*w).acc);
                    } else {
                        (*w).pending = (*w).acc;
                        (*w).pending_segment = s;
                    }
                }
            }
        }
    }
}

@compute @workgroup_size({{WG}})
fn tiles_main(ids: GpIds) {
    let local_group = gp_linear_group(ids);
    if local_group >= gp_reduce.groups {
        return;  // whole workgroup: control flow stays uniform for its barriers
    }
    let lane = ids.lane;
    let segs = gp_reduce.segments;
    let r = gp_reduce.first / gp_reduce.range + local_group;
    let range_start = r * gp_reduce.range;
    let range_end = min(range_start + gp_reduce.range, gp_reduce.n);
    let own = gp_position(ids) * V;
    // Each tile's values are loaded while the one before it is processed; the first
    // tile's before the searches below.
    var xs_next = gp_load_values(range_start + own, range_end);
    // The segments this range touches: lo..hi, searched by two invocations at once.
    // (Each from where an even spread of the segments would put it.)
    let spread = f32(segs) / f32(gp_reduce.n);
    if lane == 0u {
        gp_shared_pair.x = gp_find(range_start, 0u, segs, u32(f32(range_start) * spread));
    }
    if lane == WG - 1u {
        let last = range_end - 1u;
        gp_shared_pair.y = gp_find(last, 0u, segs, u32(f32(last) * spread)) + 1u;
    }
    let bounds = workgroupUniformLoad(&gp_shared_pair);
    let lo = bounds.x;
    let hi = max(bounds.y, lo + 1u);
    // Where an invocation's first segment is likely to be, were the segments even.
    let density = f32(hi - lo) / f32(range_end - range_start);

    var carry = GpRun(0u, gp_identity());
    var hint = lo;  // segments only grow from tile to tile
    for (var tile = range_start; tile < range_end; tile += TILE) {
        let c = tile + own;
        let e = min(c + V, range_end);
        var xs = xs_next;
        if tile + TILE < range_end {
            xs_next = gp_load_values(c + TILE, range_end);
        }
        var w = GpWalk(0u, 0u, 0u, 0u, 0u, gp_identity(), gp_identity(), NONE);
        if c < e {
            let guess = lo + u32(f32(c - range_start) * density);
            let s = gp_find(c, hint, hi, guess);
            w.s = s;
            w.begin = gp_begin(s);
            w.end = gp_end(s);
            w.next = gp_next_begin(s);
            if w.begin < c && e == c + V && c + V < w.end && w.next >= c + V {
                // All V values inside one segment that neither starts nor ends here (long
                // segments): a plain fold, as reduce_with folds a vec4.
{{FOLD_UNITS}}
            } else {
{{WALK_UNITS}}
            }
            hint = w.s;
        }
        let scanned = gp_exclusive(GpRun(w.heads, w.acc), carry, ids);
        if w.pending_segment != NONE {
            let total = gp_combine(scanned[0].value, w.pending);
            if gp_begin(w.pending_segment) >= range_start {
                gp_out[w.pending_segment] = gp_finish(total);
            } else {
                gp_partial_first[r] = total;
            }
        }
        carry = scanned[1];
    }
    if lane == 0u {
        gp_partial_last[r] = carry.value;
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
fn fixup_main(ids: GpIds) {
    let group = gp_linear_group(ids);
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
