// One digit pass of a reduce-then-scan radix sort, for adapters without subgroups:
// `upsweep` counts each workgroup's keys per digit, the counts (digit-major: digit d of
// workgroup w at d * total_groups + w) are scanned by the library's exclusive scan, and
// `downsweep` scatters each workgroup's keys from its offsets. A workgroup owns a
// contiguous range of tiles (TILE = WG * KPT keys) and walks them in order; no
// workgroup ever waits for another.
//
// The downsweep ranks a tile in workgroup memory: two stable splits by four bits of the
// digit (low half, then high half), each a raking scan of 16 counters per invocation
// packed two to a word (16 bits each: TILE < 65536). After them the tile is in digit
// order, and each key goes to its digit's offset plus its place in the digit's run.
//
// Every `//#for k < KPT unroll UNROLLED` loop is written out by the template engine when
// UNROLLED (KPT copies of its body with k a constant; all adapters but llvmpipe's GL), so
// the per-key arrays are indexed by constants and each invocation's loads are in flight
// together.

const WG: u32 = {{WG}}u;
const KPT: u32 = {{KPT}}u;
// Whether values move with the keys: only then does the tile keep each key's position in
// the input tile (its origin), to fetch its value by.
const PAIRS: bool = {{PAIRS}};
// With values: whether they are staged through workgroup memory (sort_rts_values.wgsl,
// after the keys' scatter) or gathered from the input key by key
// (sort_rts_values_gathered.wgsl, in it). Staged where the loops are written out; on
// llvmpipe's GL the two more barriers a tile cost more than the gather.
const STAGED: bool = {{STAGED}};
const TILE: u32 = WG * KPT;
const RADIX: u32 = 256u;
// Phases left out, for timing the others (the results are wrong): always 0 but in
// tuning builds (feature `internals`, GP_RTS_KNOCKOUT). 1: the upsweep's counting; 2:
// both splits; 4: the second split; 8: the scatter to the output; 16: the runs.
const KNOCKOUT: u32 = {{KNOCKOUT}}u;

struct RtsParams {
    n: u32,               // keys in the input binding
    tiles: u32,           // tiles in this dispatch
    tiles_per_group: u32, // consecutive tiles per workgroup
    groups: u32,          // workgroups that take part in this dispatch
    group_base: u32,      // this dispatch's first workgroup, over all dispatches
    total_groups: u32,    // workgroups over all dispatches (the counts' row length)
    first: u32,           // index of the input binding's first key (argsort's indices)
    shift: u32,           // digit = (ordered(key) >> shift) & mask
    mask: u32,
    key_xor: u32,         // see sort_keys.wgsl
    neg_mask: u32,
    indices: u32,         // 1: the values are the keys' indices (argsort's first pass)
    write_keys: u32,      // 0: only the values are wanted (argsort's last pass)
    out_lo: u32,          // the output bindings hold elements out_lo ..< out_hi
    out_hi: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: RtsParams;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
// upsweep: the counts; downsweep: their exclusive scan, the first output position of
// each (digit, workgroup).
@group(0) @binding(5) var<storage, read_write> counts: array<u32>;
{{VALUE_BINDINGS}}

{{KEYS}}

// An invocation's id, and the ids its whole workgroup shares, in two structs: WGSL's
// uniformity analysis takes a struct parameter as one value, and the workgroup's index
// decides whether it returns before its barriers.
struct Ids {
    @builtin(local_invocation_index) index: u32,
}

struct Group {
    @builtin(workgroup_id) id: vec3<u32>,
    @builtin(num_workgroups) count: vec3<u32>,
}

fn linear_group(grp: Group) -> u32 {
    return grp.id.x + grp.count.x * (grp.id.y + grp.count.y * grp.id.z);
}

fn digit_of(key: u32) -> u32 {
    return (ordered(key, params.key_xor, params.neg_mask) >> params.shift) & params.mask;
}

var<workgroup> digit_counts: array<atomic<u32>, RADIX>;

fn count_key(key: u32) {
    if (KNOCKOUT & 1u) == 0u || key == params.n {
        atomicAdd(&digit_counts[digit_of(key)], 1u);
    }
}

@compute @workgroup_size(WG)
fn upsweep(ids: Ids, grp: Group) {
    let group = linear_group(grp);
    if group >= params.groups {
        return;
    }
    for (var d = ids.index; d < RADIX; d += WG) {
        atomicStore(&digit_counts[d], 0u);
    }
    workgroupBarrier();
    let t0 = group * params.tiles_per_group;
    let t1 = min(t0 + params.tiles_per_group, params.tiles);
    let end = min(t1 * TILE, params.n);
    // Four keys loaded before they are counted, so each invocation has four loads in
    // flight.
    var i = t0 * TILE + ids.index;
    for (; i + 3u * WG < end; i += 4u * WG) {
        let a = keys_in[i];
        let b = keys_in[i + WG];
        let c = keys_in[i + 2u * WG];
        let d = keys_in[i + 3u * WG];
        count_key(a);
        count_key(b);
        count_key(c);
        count_key(d);
    }
    for (; i < end; i += WG) {
        count_key(keys_in[i]);
    }
    workgroupBarrier();
    for (var d = ids.index; d < RADIX; d += WG) {
        counts[d * params.total_groups + params.group_base + group] = atomicLoad(&digit_counts[d]);
    }
}

// The tile in its current order: keys and (with values) their positions in the input
// tile, position p at gp_at(p): a word of padding every 32, so that invocations reading
// their KPT consecutive positions side by side (a stride of KPT words) meet in no bank.
const TILE_WORDS: u32 = TILE + TILE / 32u;
var<workgroup> tile_keys: array<u32, TILE_WORDS>;
var<workgroup> tile_origin: array<u32, {{ORIGIN_WORDS}}>;

fn gp_at(p: u32) -> u32 {
    return p + p / 32u;
}
// A split's counters: word w of invocation i (at gp_cell(w * WG + i)) counts the
// invocation's keys of bucket w (low 16 bits) and w + 8 (high 16 bits); after the
// split's scan it holds the bucket's first place for the invocation's keys. A word of
// padding every 32, so that reading eight consecutive words an invocation meets no other
// invocation's bank.
const CELLS: u32 = 8u * WG;
var<workgroup> cells: array<u32, CELLS + CELLS / 32u>;
// The raking totals (eight cells an invocation), their scan in blocks of 16, and the
// blocks' totals.
var<workgroup> rake: array<u32, WG>;
var<workgroup> blocks: array<u32, WG / 16u>;
// Per digit: its run in the sorted tile, and the next output position of the digit.
var<workgroup> run_start: array<u32, RADIX>;
var<workgroup> run_end: array<u32, RADIX>;
var<workgroup> next: array<u32, RADIX>;

fn gp_cell(k: u32) -> u32 {
    return k + k / 32u;
}

// A stable split of the tile (invocation i holds positions i * KPT ..< (i + 1) * KPT in
// `keys` and `origin`) by bits `bit ..< bit + 4` of the digit; positions past `valid`
// go to bucket 15 (they are last, and a stable split keeps them last). Each invocation counts its keys per
// bucket in its own cells, the cells are scanned in bucket-major order (each invocation
// rakes eight consecutive cells; the totals are scanned in blocks of 16, then the
// blocks), and a key's place is its bucket's first place for the invocation plus the
// keys of its bucket before it in the invocation.
fn split(keys: ptr<function, array<u32, KPT>>, origin: ptr<function, array<u32, KPT>>, bit: u32, valid: u32, ids: Ids) {
    let i = ids.index;
    for (var w = 0u; w < 8u; w++) {
        cells[gp_cell(w * WG + i)] = 0u;
    }
    var rank: array<u32, KPT>;
    var bucket: array<u32, KPT>;
    //#for k < KPT unroll UNROLLED
        var b = 15u;
        if i * KPT + k < valid {
            b = (digit_of((*keys)[k]) >> bit) & 15u;
        }
        bucket[k] = b;
        let c = gp_cell((b & 7u) * WG + i);
        let shift = (b >> 3u) * 16u;
        let old = cells[c];
        rank[k] = (old >> shift) & 0xffffu;
        cells[c] = old + (1u << shift);
    //#endfor
    workgroupBarrier();
    // Rake: invocation i sums cells 8i ..< 8i + 8 (packed: the halves never carry).
    var sum = 0u;
    for (var j = 0u; j < 8u; j++) {
        sum += cells[gp_cell(8u * i + j)];
    }
    rake[i] = sum;
    workgroupBarrier();
    if i < WG / 16u {
        var acc = 0u;
        for (var j = 0u; j < 16u; j++) {
            acc += rake[16u * i + j];
            rake[16u * i + j] = acc;
        }
        blocks[i] = acc;
    }
    workgroupBarrier();
    if i == 0u {
        var acc = 0u;
        for (var j = 0u; j < WG / 16u; j++) {
            let v = blocks[j];
            blocks[j] = acc;
            acc += v;
        }
    }
    workgroupBarrier();
    // The packed total: its low half counts buckets 0..7, which come before 8..15.
    let total = blocks[WG / 16u - 1u] + rake[WG - 1u];
    var running = blocks[i / 16u];
    if i % 16u != 0u {
        running += rake[i - 1u];
    }
    for (var j = 0u; j < 8u; j++) {
        let c = gp_cell(8u * i + j);
        let v = cells[c];
        cells[c] = running;
        running += v;
    }
    workgroupBarrier();
    let low_total = total & 0xffffu;
    //#for k < KPT unroll UNROLLED
        let b = bucket[k];
        let first = cells[gp_cell((b & 7u) * WG + i)];
        var p = (first & 0xffffu) + rank[k];
        if b >= 8u {
            p = (first >> 16u) + low_total + rank[k];
        }
        tile_keys[gp_at(p)] = (*keys)[k];
        if PAIRS {
            tile_origin[gp_at(p)] = (*origin)[k];
        }
    //#endfor
    workgroupBarrier();
    //#for k < KPT unroll UNROLLED
        (*keys)[k] = tile_keys[gp_at(i * KPT + k)];
        if PAIRS {
            (*origin)[k] = tile_origin[gp_at(i * KPT + k)];
        }
    //#endfor
}

@compute @workgroup_size(WG)
fn downsweep(ids: Ids, grp: Group) {
    let group = linear_group(grp);
    if group >= params.groups {
        return;
    }
    for (var d = ids.index; d < RADIX; d += WG) {
        next[d] = counts[d * params.total_groups + params.group_base + group];
    }
    let t0 = group * params.tiles_per_group;
    let t1 = min(t0 + params.tiles_per_group, params.tiles);
    for (var t = t0; t < t1; t++) {
        let base = t * TILE;
        let valid = min(params.n - base, TILE);
        // Loaded striped (consecutive invocations, consecutive addresses) into workgroup
        // memory, then taken KPT consecutive keys an invocation.
        //#for k < KPT unroll UNROLLED
            let p = k * WG + ids.index;
            if p < valid {
                tile_keys[gp_at(p)] = keys_in[base + p];
            }
        //#endfor
        workgroupBarrier();
        var keys: array<u32, KPT>;
        var origin: array<u32, KPT>;
        //#for k < KPT unroll UNROLLED
            let p = ids.index * KPT + k;
            origin[k] = p;
            if p < valid {
                keys[k] = tile_keys[gp_at(p)];
            }
        //#endfor
        workgroupBarrier();
        if (KNOCKOUT & 2u) == 0u {
            split(&keys, &origin, 0u, valid, ids);
            if (KNOCKOUT & 4u) == 0u {
                split(&keys, &origin, 4u, valid, ids);
            }
        }
        // Runs of equal digits in the sorted tile.
        for (var d = ids.index; d < RADIX; d += WG) {
            run_start[d] = 0u;
            run_end[d] = 0u;
        }
        workgroupBarrier();
        //#for k < KPT unroll UNROLLED
            let p = ids.index * KPT + k;
            if p < valid && (KNOCKOUT & 16u) == 0u {
                let d = digit_of(keys[k]);
                if p == 0u || digit_of(tile_keys[gp_at(p - 1u)]) != d {
                    run_start[d] = p;
                }
                if p + 1u == valid || digit_of(tile_keys[gp_at(p + 1u)]) != d {
                    run_end[d] = p + 1u;
                }
            }
        //#endfor
        workgroupBarrier();
        // Striped, so consecutive invocations write consecutive addresses. With values
        // staged, each key's destination and origin are kept for the values' pass.
        var dest: array<u32, KPT>;
        var source: array<u32, KPT>;
        //#for k < KPT unroll UNROLLED
            let p = k * WG + ids.index;
            if p < valid {
                let key = tile_keys[gp_at(p)];
                let d = digit_of(key);
                let to = next[d] + p - run_start[d];
                if PAIRS && STAGED {
                    dest[k] = to;
                    source[k] = tile_origin[gp_at(p)];
                }
                if (KNOCKOUT & 8u) != 0u {
                    if to == params.n + 0x7fffffffu {
                        keys_out[0] = key;  // never: keeps the phases before it alive
                    }
                } else if to >= params.out_lo && to < params.out_hi {
                    if params.write_keys != 0u {
                        keys_out[to - params.out_lo] = key;
                    }
//#if GATHERED
                    // The value, gathered from the input by the key's origin.
                    let origin = base + tile_origin[gp_at(p)];
                    var v = params.first + origin;
                    if params.indices == 0u {
                        v = values_in[origin];
                    }
                    values_out[to - params.out_lo] = v;
//#endif
                }
            }
        //#endfor
//#if STAGED
        // The values, staged through workgroup memory (the sorted keys are written out):
        // read from the input by coalesced loads, then each taken from its key's origin,
        // instead of gathered from the input key by key.
        workgroupBarrier();
        if params.indices == 0u {
            //#for k < KPT unroll UNROLLED
                let q = k * WG + ids.index;
                if q < valid {
                    tile_keys[gp_at(q)] = values_in[base + q];
                }
            //#endfor
        }
        workgroupBarrier();
        //#for k < KPT unroll UNROLLED
            let p = k * WG + ids.index;
            let to = dest[k];
            if p < valid {
                var v = params.first + base + source[k];
                if params.indices == 0u {
                    v = tile_keys[gp_at(source[k])];
                }
                if (KNOCKOUT & 8u) != 0u {
                    if to == params.n + 0x7fffffffu {
                        values_out[0] = v;  // never: keeps the phases before it alive
                    }
                } else if to >= params.out_lo && to < params.out_hi {
                    values_out[to - params.out_lo] = v;
                }
            }
        //#endfor
//#endif
        workgroupBarrier();
        for (var d = ids.index; d < RADIX; d += WG) {
            next[d] += run_end[d] - run_start[d];
        }
        workgroupBarrier();
    }
}
