// Segmented sorts (src/ops/segmented_sort): every segment of a vector of 4-byte keys
// sorted on its own, stable, keys compared as `u32` words whose unsigned order is the
// key order (`ordered`, as wgsl/sort_keys.wgsl makes them), flipped for descending
// sorts and masked to the bits sorted by.
//
// Two ways, one per kernel group:
// - rows_main: rows of at most TILE keys. A workgroup takes TILE / BLOCK rows, each in
//   a block of BLOCK slots (a power of two at least the width, padded with keys that
//   sort last), sorts every block at once by one bitonic network in workgroup memory
//   and writes each row back: keys, indices within the row, values gathered.
// - tiles_main, span_main, args_main, merge_main, finish_main: any segments. tiles_main
//   sorts each tile of TILE consecutive keys by (segment, key, position), which sorts
//   each segment's part of the tile and keeps everything else in place, into scratch
//   words and original positions. A segment spanning several tiles is then merged, a
//   level per pass: pass L merges, within each segment, runs of 2^L of its tiles pairwise
//   (each key finds its place by a binary search in the other run). span_main and
//   args_main find on the device how many levels the longest segment needs and write the
//   indirect grids (zero workgroups for the levels not needed), so nothing is read back.
//   finish_main writes keys, indices and values from the scratch the last level left.
//
// Offsets that are not ascending or point past the keys give unspecified results; every
// position is clamped into its segment and the vector, so no access leaves the buffers.

const TILE: u32 = {{TILE}}u;      // slots of the workgroup sort (a power of two)
const TILE_BITS: u32 = {{TILE_BITS}}u;
const WG: u32 = {{WG}}u;
const CHUNK: u32 = {{CHUNK}}u; // slots an invocation holds in registers: TILE / WG
const ITEMS: u32 = {{ITEMS}}u;  // merge_main: places per invocation
const NO_POSITION: u32 = 0xffffffffu; // a scratch position outside every segment
const LAST_GROUP: u32 = 0xffffffffu >> TILE_BITS; // the group of the padding slots

struct GpSegSortParams {
    n: u32,           // keys in all (rows: the grid's span)
    segments: u32,    // segments (rows: the height)
    width: u32,       // rows: keys per row
    pitch: u32,       // rows: keys from one row's start to the next
    key_xor: u32,     // the key type's word transform (see `ordered`)
    neg_mask: u32,
    flip: u32,        // 0xffffffff for descending sorts
    mask: u32,        // the bits sorted by
    block: u32,       // rows_main: slots per row
    level: u32,       // merge_main: the level merged
    groups: u32,      // workgroups that take part; surplus ones of a folded grid return
    value_pitch: u32, // rows_main: the values' pitch
    grid_x: u32,      // args_main: merge_main's grid ...
    grid_y: u32,
    grid_z: u32,
    levels_max: u32,  // args_main: merge passes recorded
    finish_x: u32,    // ... and finish_main's
    finish_y: u32,
    finish_z: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: GpSegSortParams;
//#if WRITE_KEYS
@group(0) @binding(1) var<storage, read_write> gp_keys: array<u32>;
//#else
@group(0) @binding(1) var<storage, read> gp_keys: array<u32>;
//#endif
//#if OFFSETS
@group(0) @binding(2) var<storage, read> gp_offsets: array<u32>;
//#endif
@group(0) @binding(3) var<storage, read> gp_src_w: array<u32>;
@group(0) @binding(4) var<storage, read> gp_src_p: array<u32>;
@group(0) @binding(5) var<storage, read_write> gp_dst_w: array<u32>;
@group(0) @binding(6) var<storage, read_write> gp_dst_p: array<u32>;
//#if ARGSORT
@group(0) @binding(7) var<storage, read_write> gp_idx: array<u32>;
//#endif
//#if VALUES
@group(0) @binding(8) var<storage, read_write> gp_values: array<u32>;
@group(0) @binding(9) var<storage, read> gp_values_copy: array<u32>;
//#endif
// The longest segment's span in tiles, the levels, then the indirect grids.
@group(0) @binding(10) var<storage, read_write> gp_state: array<atomic<u32>>;

// The slots of the workgroup sort: words, and (rows_main) the index in the row or
// (tiles_main) the group above the slot's position in the tile.
var<workgroup> wg_w: array<u32, TILE>;
var<workgroup> wg_b: array<u32, TILE>;

// A key's word: unsigned order is the sort order.
fn ordered(x: u32) -> u32 {
    return (x ^ params.key_xor ^ (bitcast<u32>(bitcast<i32>(x) >> 31u) & params.neg_mask)) ^ params.flip;
}

// The key whose word is `w`.
fn unordered(w: u32) -> u32 {
    let y = w ^ params.flip;
    let negative = ((y ^ params.key_xor) >> 31u) == 1u;
    return y ^ params.key_xor ^ select(0u, params.neg_mask, negative);
}

fn linear_group(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + nwg.x * (wid.y + nwg.y * wid.z);
}

// Where slot x lives in workgroup memory: its low five bits XORed with the next five,
// so an invocation's CHUNK consecutive slots and consecutive slots across invocations
// both fall in distinct banks.
fn ix(x: u32) -> u32 {
    return x ^ ((x >> 5u) & 31u);
}

//#if NETWORK
// Whether slot (wa, ba) goes before slot (wb, bb): rows_main's order is the word, then
// the index (the padding's is the largest); tiles_main's the group, the word, the
// position (`b` holds the group above the position).
fn before(wa: u32, ba: u32, wb: u32, bb: u32, tiles: bool) -> bool {
    let ka = wa & params.mask;
    let kb = wb & params.mask;
    if tiles {
        let ga = ba >> TILE_BITS;
        let gb = bb >> TILE_BITS;
        return ga < gb || (ga == gb && (ka < kb || (ka == kb && ba < bb)));
    }
    return ka < kb || (ka == kb && ba < bb);
}

// Compare-exchange of two slots in workgroup memory.
fn exchange(lo: u32, hi: u32, tiles: bool) {
    let l = ix(lo);
    let h = ix(hi);
    let wl = wg_w[l];
    let bl = wg_b[l];
    let wh = wg_w[h];
    let bh = wg_b[h];
    if before(wh, bh, wl, bl, tiles) {
        wg_w[l] = wh;
        wg_b[l] = bh;
        wg_w[h] = wl;
        wg_b[h] = bl;
    }
}
//#endif

// An invocation's CHUNK consecutive slots, held in registers for the steps whose pairs
// lie inside them.
var<private> rw: array<u32, CHUNK>;
var<private> rb: array<u32, CHUNK>;

fn regs_load(base: u32) {
//#for m < CHUNK unroll UNROLL
    rw[m] = wg_w[ix(base + m)];
    rb[m] = wg_b[ix(base + m)];
//#endfor
}

fn regs_store(base: u32) {
//#for m < CHUNK unroll UNROLL
    wg_w[ix(base + m)] = rw[m];
    wg_b[ix(base + m)] = rb[m];
//#endfor
}

//#if NETWORK
// The steps inside a chunk, written out pair by pair (constant indices keep the chunk in
// registers): gp_mirror(k) compares slot m with m ^ (k - 1) (the first step of stage k),
// gp_half(j) slot m with m + j.
{{REGISTER_STEPS}}

// Sorts every aligned block of `size` slots ascending (`size` uniform, a power of two up
// to TILE): a bitonic network whose first step of each stage compares mirrored slots, so
// every block comes out ascending. Steps of pairs closer than CHUNK run in registers;
// the others in workgroup memory, where pair t of a step of distance j is slot (t with a
// zero bit inserted at j) and its partner. The slots are in workgroup memory before and
// after.
fn bitonic(lid: u32, size: u32, tiles: bool) {
    workgroupBarrier();
    let base = lid * CHUNK;
    regs_load(base);
    for (var k = 2u; k <= min(size, CHUNK); k <<= 1u) {
        gp_mirror(k, tiles);
        for (var j = k >> 2u; j > 0u; j >>= 1u) {
            gp_half(j, tiles);
        }
    }
    for (var k = 2u * CHUNK; k <= size; k <<= 1u) {
        regs_store(base);
        workgroupBarrier();
        let half = k >> 1u;
        for (var t = lid; t < TILE / 2u; t += WG) {
            let lo = ((t & ~(half - 1u)) << 1u) | (t & (half - 1u));
            exchange(lo, lo ^ (k - 1u), tiles);
        }
        workgroupBarrier();
        for (var j = half >> 1u; j >= CHUNK; j >>= 1u) {
            for (var t = lid; t < TILE / 2u; t += WG) {
                let lo = ((t & ~(j - 1u)) << 1u) | (t & (j - 1u));
                exchange(lo, lo + j, tiles);
            }
            workgroupBarrier();
        }
        regs_load(base);
        for (var j = CHUNK >> 1u; j > 0u; j >>= 1u) {
            gp_half(j, tiles);
        }
    }
    regs_store(base);
    workgroupBarrier();
}
//#endif

//#if RADIX
// Sorts every aligned block of `block` slots ascending by its words' bits under
// `params.mask` (`block` uniform, a power of two from CHUNK to TILE; CHUNK is 16): a
// stable LSD radix sort of four bits a pass, so equal words keep their slots' order.
// Invocation `lid` holds slots lid * CHUNK .. + CHUNK in registers. Each pass counts the
// digits of its slots, scans the counters in (block, digit, invocation) order, which
// gives every slot its new place inside its block, and moves words and indices there
// through workgroup memory (the counters share wg_w, the scan's totals wg_b). The slots
// are in workgroup memory before and after.
const RADIX_BITS: u32 = 4u;
const DIGITS: u32 = {{DIGITS}}u;  // 1 << RADIX_BITS
const GROUP: u32 = {{GROUP}}u;    // invocations whose totals one scans: min(16, WG)
const GROUPS: u32 = {{GROUPS}}u;  // WG / GROUP
var<private> rk: array<u32, CHUNK>; // a slot's digit, then its place

fn radix(lid: u32, block: u32) {
    workgroupBarrier();
    let base = lid * CHUNK;
    regs_load(base);
    let per_block = block / CHUNK; // invocations per block
    let cell = (lid / per_block) * (DIGITS * per_block) + lid % per_block;
    let lo = countTrailingZeros(params.mask);
    let hi = 32u - countLeadingZeros(params.mask);
    for (var shift = lo; shift < hi; shift += RADIX_BITS) {
        // Each digit's count among the slots so far, eight bits each, four to a word.
        var counts = vec4<u32>(0u);
//#for m < CHUNK unroll UNROLL
        {
            let d = ((rw[m] & params.mask) >> shift) & (DIGITS - 1u);
            let sh = (d & 3u) * 8u;
            // The word of d's count, picked without indexing the vector by a value
            // (which some drivers compile to memory).
            let word_of_d = vec4<u32>(d >> 2u) == vec4<u32>(0u, 1u, 2u, 3u);
            let picked = select(vec4<u32>(0u), counts, word_of_d);
            let word = picked.x | picked.y | picked.z | picked.w;
            rk[m] = d | (((word >> sh) & 0xffu) << 8u);
            counts += select(vec4<u32>(0u), vec4<u32>(1u << sh), word_of_d);
        }
//#endfor
        workgroupBarrier();
//#for d < DIGITS unroll UNROLL
        wg_w[ix(cell + d * per_block)] = (counts[d >> 2u] >> ((d & 3u) * 8u)) & 0xffu;
//#endfor
        workgroupBarrier();
        // The exclusive scan of the counters: CHUNK an invocation, then the invocations'
        // totals in groups of GROUP, then the groups.
        var mine: array<u32, CHUNK>;
        var run = 0u;
//#for j < CHUNK unroll UNROLL
        mine[j] = wg_w[ix(base + j)];
//#endfor
//#for j < CHUNK unroll UNROLL
        run += mine[j];
//#endfor
        wg_b[lid] = run;
        workgroupBarrier();
        if lid % GROUP == 0u {
            var totals: array<u32, GROUP>;
//#for j < GROUP unroll UNROLL
            totals[j] = wg_b[lid + j];
//#endfor
            var group_run = 0u;
//#for j < GROUP unroll UNROLL
            wg_b[lid + j] = group_run;
            group_run += totals[j];
//#endfor
            wg_b[WG + lid / GROUP] = group_run;
        }
        workgroupBarrier();
        var at = wg_b[lid];
//#for g < GROUPS unroll UNROLL
        at += select(0u, wg_b[WG + g], g < lid / GROUP);
//#endfor
//#for j < CHUNK unroll UNROLL
        wg_w[ix(base + j)] = at;
        at += mine[j];
//#endfor
        workgroupBarrier();
//#for m < CHUNK unroll UNROLL
        rk[m] = wg_w[ix(cell + (rk[m] & 0xffu) * per_block)] + (rk[m] >> 8u);
//#endfor
        workgroupBarrier();
//#for m < CHUNK unroll UNROLL
        wg_w[ix(rk[m])] = rw[m];
        wg_b[ix(rk[m])] = rb[m];
//#endfor
        workgroupBarrier();
        regs_load(base);
    }
    // The last pass left the slots in workgroup memory.
    workgroupBarrier();
}
//#endif

//#if ROWS
@compute @workgroup_size(WG)
fn rows_main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let block = params.block;
    let block_bits = countTrailingZeros(block);
    let rows = TILE / block;
    let stride = nwg.x * nwg.y * nwg.z;
    for (var group = linear_group(wid, nwg); group < params.groups; group += stride) {
    let first_row = group * rows;
    // Slot s = lid + m * WG: the loops are written out, so each invocation's loads are
    // all in flight at once and `moved` stays in registers.
//#for m < CHUNK unroll UNROLL
    {
        let s = lid + m * WG;
        let row = first_row + (s >> block_bits);
        let e = s & (block - 1u);
        var w = 0xffffffffu;
        var at = 0xffffffffu;
        if row < params.segments && e < params.width {
            w = ordered(gp_keys[row * params.pitch + e]);
            at = e;
        }
        wg_w[ix(s)] = w;
        wg_b[ix(s)] = at;
    }
//#endfor
//#if RADIX
    radix(lid, block);
//#else
    bitonic(lid, block, false);
//#endif
//#if VALUES
    // Each row's values are read before any is written (the workgroup owns its rows).
    var moved: array<u32, CHUNK>;
//#for m < CHUNK unroll UNROLL
    {
        let s = lid + m * WG;
        let row = first_row + (s >> block_bits);
        if row < params.segments && (s & (block - 1u)) < params.width {
            moved[m] = gp_values[row * params.value_pitch + wg_b[ix(s)]];
        }
    }
//#endfor
    workgroupBarrier();
//#endif
//#for m < CHUNK unroll UNROLL
    {
        let s = lid + m * WG;
        let row = first_row + (s >> block_bits);
        let e = s & (block - 1u);
        if row < params.segments && e < params.width {
//#if WRITE_KEYS
            gp_keys[row * params.pitch + e] = unordered(wg_w[ix(s)]);
//#endif
//#if ARGSORT
            gp_idx[row * params.width + e] = wg_b[ix(s)];
//#endif
//#if VALUES
            gp_values[row * params.value_pitch + e] = moved[m];
//#endif
        }
    }
//#endfor
    workgroupBarrier();
    }
}
//#endif

//#if NETWORK
// The segment holding position i: its bounds, with `inside` false where i lies in none
// (before the first, after the last, in a row's padding, or where offsets that are not
// ascending put it), and a count that grows with i across segments (the number of
// offsets at most i; rows: twice the row).
struct GpSegment {
    start: u32,
    end: u32,
    count: u32,
    inside: bool,
}

fn segment_of(i: u32) -> GpSegment {
    var s: GpSegment;
//#if OFFSETS
    // Offsets at most i, by a binary search over the segments + 1 offsets.
    var lo = 0u;
    var hi = params.segments + 1u;
    while lo < hi {
        let mid = (lo + hi) / 2u;
        if gp_offsets[mid] <= i {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    s.count = lo;
    if lo == 0u || lo > params.segments {
        s.inside = false;
        s.start = i;
        s.end = i + 1u;
        return s;
    }
    s.end = min(gp_offsets[lo], params.n);
    s.start = min(gp_offsets[lo - 1u], s.end);
//#else
    let row = i / params.pitch;
    s.count = 2u * row;
    s.start = row * params.pitch;
    s.end = s.start + params.width;
    if row >= params.segments {
        s.inside = false;
        return s;
    }
//#endif
    s.inside = s.start <= i && i < s.end;
    return s;
}

@compute @workgroup_size(WG)
fn tiles_main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let stride = nwg.x * nwg.y * nwg.z;
    for (var group = linear_group(wid, nwg); group < params.groups; group += stride) {
    let base = group * TILE;
    let first = segment_of(base).count;
    for (var s = lid; s < TILE; s += WG) {
        let i = base + s;
        if i < params.n {
            let seg = segment_of(i);
            // Inside a segment: an even group per segment; outside: the odd group
            // after the segment before, with one word, so such keys keep their order.
            let g = min(2u * (seg.count - min(first, seg.count)) + select(1u, 0u, seg.inside), LAST_GROUP - 1u);
            wg_w[ix(s)] = select(0u, ordered(gp_keys[i]), seg.inside);
            wg_b[ix(s)] = (g << TILE_BITS) | s;
        } else {
            wg_w[ix(s)] = 0xffffffffu;
            wg_b[ix(s)] = (LAST_GROUP << TILE_BITS) | s;
        }
    }
    bitonic(lid, TILE, true);
    for (var s = lid; s < TILE; s += WG) {
        let i = base + s;
        if i < params.n {
            let b = wg_b[ix(s)];
            gp_dst_w[i] = wg_w[ix(s)];
            gp_dst_p[i] = select(NO_POSITION, base + (b & (TILE - 1u)), ((b >> TILE_BITS) & 1u) == 0u);
        }
    }
    workgroupBarrier();
    }
}

// The longest segment's span in tiles (state word 0, cleared before).
@compute @workgroup_size(WG)
fn span_main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let stride = nwg.x * nwg.y * nwg.z * WG;
    for (var s = linear_group(wid, nwg) * WG + lid; s < params.segments; s += stride) {
//#if OFFSETS
    let end = min(gp_offsets[s + 1u], params.n);
    let start = min(gp_offsets[s], end);
//#else
    let start = s * params.pitch;
    let end = start + params.width;
//#endif
    if end > start {
        atomicMax(&gp_state[0], (end - 1u) / TILE - start / TILE + 1u);
    }
    }
}

// The levels the longest segment needs, and the grids of every merge pass (zero
// workgroups past the levels needed) and of the two finishing passes (the one reading
// the scratch the last level wrote).
@compute @workgroup_size(1)
fn args_main() {
    let span = atomicLoad(&gp_state[0]);
    var levels = 0u;
    while levels < params.levels_max && (1u << levels) < span {
        levels += 1u;
    }
    atomicStore(&gp_state[1], levels);
    for (var l = 0u; l < params.levels_max + 2u; l++) {
        var on: bool;
        if l < params.levels_max {
            on = l < levels;
        } else {
            on = (levels & 1u) == l - params.levels_max;
        }
        let at = 4u + 3u * l;
        var grid = vec3(params.grid_x, params.grid_y, params.grid_z);
        if l >= params.levels_max {
            grid = vec3(params.finish_x, params.finish_y, params.finish_z);
        }
        atomicStore(&gp_state[at], select(0u, grid.x, on));
        atomicStore(&gp_state[at + 1u], select(1u, grid.y, on));
        atomicStore(&gp_state[at + 2u], select(1u, grid.z, on));
    }
}

// Where tile t of a segment starts, clamped into it.
fn tile_start(t: u32, seg: GpSegment) -> u32 {
    if t > seg.end / TILE {
        return seg.end;
    }
    return clamp(t * TILE, seg.start, seg.end);
}

// The pair of runs of 2^level tiles that position i of `seg` is merged in at this
// level: the first run is a0..a1, the second a1..b1 (empty where the segment ends first).
fn pair_of(i: u32, seg: GpSegment) -> vec3<u32> {
    let first_tile = seg.start / TILE;
    let q = i / TILE - first_tile;
    let run = 1u << params.level;
    let pair = first_tile + ((q >> (params.level + 1u)) << (params.level + 1u));
    return vec3(tile_start(pair, seg), tile_start(pair + run, seg), tile_start(pair + 2u * run, seg));
}

// How many of the first d keys of the merge of the sorted runs a0..a1 and a1..b1 come
// from the first run (its keys go before equal ones of the second): the merge path's
// split at diagonal d, by a binary search.
fn split(a0: u32, a1: u32, b1: u32, d: u32) -> u32 {
    let len_b = b1 - a1;
    var lo = select(0u, d - len_b, d > len_b);
    var hi = min(d, a1 - a0);
    while lo < hi {
        let mid = (lo + hi) / 2u;
        if (gp_src_w[a0 + mid] & params.mask) <= (gp_src_w[a1 + d - 1u - mid] & params.mask) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// One merge level: within each segment, runs of 2^level tiles (sorted) are merged in
// pairs, the first run's keys before the second's equal ones. Each invocation writes
// ITEMS consecutive places: it finds where its first place's key comes from by one
// search of the merge path, then merges on sequentially (a new search only where its
// places cross into another pair or segment).
@compute @workgroup_size(WG)
fn merge_main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let stride = nwg.x * nwg.y * nwg.z * WG;
    for (var t = linear_group(wid, nwg) * WG + lid; t < (params.n + ITEMS - 1u) / ITEMS; t += stride) {
        var o = t * ITEMS;
        let end = min(o + ITEMS, params.n);
        while o < end {
            let seg = segment_of(o);
            if !seg.inside {
                gp_dst_w[o] = gp_src_w[o];
                gp_dst_p[o] = gp_src_p[o];
                o += 1u;
                continue;
            }
            let r = pair_of(o, seg);
            let a0 = r.x;
            let a1 = r.y;
            let b1 = r.z;
            let stop = min(end, b1);
            var ia = a0 + split(a0, a1, b1, o - a0);
            var ib = a1 + (o - a0) - (ia - a0);
            var wa = 0u;
            var wb = 0u;
            if ia < a1 {
                wa = gp_src_w[ia];
            }
            if ib < b1 {
                wb = gp_src_w[ib];
            }
            while o < stop {
                let take_a = ib >= b1 || (ia < a1 && (wa & params.mask) <= (wb & params.mask));
                if take_a {
                    gp_dst_w[o] = wa;
                    gp_dst_p[o] = gp_src_p[ia];
                    ia += 1u;
                    if ia < a1 {
                        wa = gp_src_w[ia];
                    }
                } else {
                    gp_dst_w[o] = wb;
                    gp_dst_p[o] = gp_src_p[ib];
                    ib += 1u;
                    if ib < b1 {
                        wb = gp_src_w[ib];
                    }
                }
                o += 1u;
            }
        }
    }
}

// Keys, indices and values from the scratch the last level wrote.
@compute @workgroup_size(WG)
fn finish_main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let stride = nwg.x * nwg.y * nwg.z * WG;
    for (var i = linear_group(wid, nwg) * WG + lid; i < params.n; i += stride) {
    let position = gp_src_p[i];
    if position == NO_POSITION {
//#if ARGSORT
//#if OFFSETS
        gp_idx[i] = NO_POSITION;
//#endif
//#endif
        continue;
    }
//#if WRITE_KEYS
    gp_keys[i] = unordered(gp_src_w[i]);
//#endif
    let seg = segment_of(i);
//#if VALUES
//#if OFFSETS
    gp_values[i] = gp_values_copy[position];
//#else
    let row = i / params.pitch;
    gp_values[row * params.value_pitch + (i - seg.start)] = gp_values_copy[row * params.value_pitch + (position - seg.start)];
//#endif
//#endif
//#if ARGSORT
//#if OFFSETS
    gp_idx[i] = position - seg.start;
//#else
    gp_idx[(i / params.pitch) * params.width + (i - seg.start)] = position - seg.start;
//#endif
//#endif
    }
}
//#endif
