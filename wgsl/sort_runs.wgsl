// Runs of equal keys (unique, run_length_encode, reduce_by_key): a segmented reduction
// in three passes, with no workgroup waiting on another.
//
// Element i starts a run (is a head) when i == 0 or its key's bits differ from key
// i - 1's. A segment value (h, v) is a number of heads and the reduction of the
// elements since the last of them; segments combine as
//     (h1, v1) + (h2, v2) = (h1 + h2, v2 if h2 > 0 else combine(v1, v2)),
// which is associative, so tiles and invocations can fold their parts separately:
// - `tile_reduce`: each tile's segment value (partials);
// - `spine`: one workgroup folds them left to right into each tile's carry (the
//   segment value of everything before it) and writes the number of runs;
// - `tile_write`: each tile again, from its carry: the last element of every run
//   writes the run's key and value at the run's index.
// Invocations own V consecutive elements of a tile; the workgroup scans their segment
// values in shared memory (Hillis-Steele), so no subgroups are needed.
{{ENABLE}}
const WG: u32 = {{WG}}u;
const V: u32 = {{V}}u;
const TILE: u32 = WG * V;

alias T = {{T}};  // the value type
// A key as the kernels compare it (by its bits): `u32` for one-word and `f16` keys (an
// f16's 16 bits), `vec2<u32>` for 8-byte ones; `keys` holds KW words.
alias K = {{K}};
alias KW = {{KEY_WORD}};

struct RunParams {
    n: u32,      // elements
    tiles: u32,  // tiles
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: RunParams;
@group(0) @binding(1) var<storage, read> keys: array<KW>;
// Per tile: its heads and value (tile_reduce), then its carry (spine, in place).
@group(0) @binding(2) var<storage, read_write> part_heads: array<u32>;
@group(0) @binding(3) var<storage, read_write> part_values: array<T>;
@group(0) @binding(4) var<storage, read_write> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> keys_out: array<K>;
{{VALUE_BINDINGS}}

// (statements: an infinite identity is built at run time, never a constant expression)
fn identity() -> T { {{IDENTITY}} }
fn combine(a: T, b: T) -> T { return {{COMBINE}}; }
fn value_at(i: u32) -> T { return {{VALUE_AT}}; }
fn key_at(i: u32) -> K { return {{KEY_AT}}; }
fn differs(a: K, b: K) -> bool { return {{DIFFERS}}; }
{{HELPERS}}
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

struct Segment {
    heads: u32,
    value: T,
}

fn join(a: Segment, b: Segment) -> Segment {
    if b.heads > 0u {
        return Segment(a.heads + b.heads, b.value);
    }
    return Segment(a.heads, combine(a.value, b.value));
}

fn is_head(i: u32) -> bool {
    return i == 0u || differs(key_at(i), key_at(i - 1u));
}

fn is_last(i: u32) -> bool {
    return i + 1u == params.n || differs(key_at(i), key_at(i + 1u));
}

var<workgroup> shared_heads: array<u32, WG>;
var<workgroup> shared_values: array<T, WG>;

// The segment values of the invocations before this one (exclusive; the first gets
// `first`), and of the whole workgroup after `first`, in the returned pair.
fn wg_exclusive(mine: Segment, first: Segment, ids: Ids) -> array<Segment, 2> {
    var acc = mine;
    workgroupBarrier();  // earlier readers of the shared arrays are done
    shared_heads[ids.index] = acc.heads;
    shared_values[ids.index] = acc.value;
    workgroupBarrier();
    for (var d = 1u; d < WG; d <<= 1u) {
        if ids.index >= d {
            acc = join(Segment(shared_heads[ids.index - d], shared_values[ids.index - d]), acc);
        }
        workgroupBarrier();
        shared_heads[ids.index] = acc.heads;
        shared_values[ids.index] = acc.value;
        workgroupBarrier();
    }
    var before = first;
    if ids.index > 0u {
        before = join(first, Segment(shared_heads[ids.index - 1u], shared_values[ids.index - 1u]));
    }
    let total = join(first, Segment(shared_heads[WG - 1u], shared_values[WG - 1u]));
    return array<Segment, 2>(before, total);
}

// This invocation's elements of tile t as one segment value.
fn fold_own(t: u32, ids: Ids) -> Segment {
    var s = Segment(0u, identity());
    for (var k = 0u; k < V; k++) {
        let i = t * TILE + ids.index * V + k;
        if i < params.n {
            s = join(s, Segment(select(0u, 1u, is_head(i)), value_at(i)));
        }
    }
    return s;
}

@compute @workgroup_size(WG)
fn tile_reduce(ids: Ids, grp: Group) {
    let t = linear_group(grp);
    if t >= params.tiles {
        return;
    }
    let r = wg_exclusive(fold_own(t, ids), Segment(0u, identity()), ids);
    if ids.index == 0u {
        part_heads[t] = r[1].heads;
        part_values[t] = r[1].value;
    }
}

@compute @workgroup_size(WG)
fn spine(ids: Ids) {
    var carry = Segment(0u, identity());
    for (var base = 0u; base < params.tiles; base += TILE) {
        var mine = Segment(0u, identity());
        for (var k = 0u; k < V; k++) {
            let t = base + ids.index * V + k;
            if t < params.tiles {
                mine = join(mine, Segment(part_heads[t], part_values[t]));
            }
        }
        let r = wg_exclusive(mine, carry, ids);
        var s = r[0];
        for (var k = 0u; k < V; k++) {
            let t = base + ids.index * V + k;
            if t < params.tiles {
                let own = Segment(part_heads[t], part_values[t]);
                part_heads[t] = s.heads;
                part_values[t] = s.value;
                s = join(s, own);
            }
        }
        carry = r[1];
    }
    if ids.index == 0u {
        count[0] = carry.heads;
    }
}

@compute @workgroup_size(WG)
fn tile_write(ids: Ids, grp: Group) {
    let t = linear_group(grp);
    if t >= params.tiles {
        return;
    }
    let carry = Segment(part_heads[t], part_values[t]);
    let r = wg_exclusive(fold_own(t, ids), carry, ids);
    var s = r[0];
    for (var k = 0u; k < V; k++) {
        let i = t * TILE + ids.index * V + k;
        if i < params.n {
            s = join(s, Segment(select(0u, 1u, is_head(i)), value_at(i)));
            if is_last(i) {
                let run = s.heads - 1u;
                keys_out[run] = key_at(i);
{{WRITE_VALUE}}
            }
        }
    }
}
