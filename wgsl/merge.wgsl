// merge: two sorted key vectors `a` and `b` into `out`, stably (a's keys first among
// equals), along the merge path (Green, McColl & Bader; Odeh et al.): the output is cut
// into tiles of TILE keys, and the place where tile t's first diagonal d = t * TILE
// crosses the path (how many of its keys come from `a`) is found by a binary search
// (`split_main`, one invocation per diagonal). A workgroup then loads its tile's keys
// of `a` and `b` into workgroup memory, each invocation finds its own V-key diagonal
// there and merges V keys sequentially, writing where each output key comes from; the
// workgroup writes the tile out in order, keys (and with VALUES, values) side by side.
//
// Keys are KW: one u32 word compared by `ordered` (wgsl/sort_keys.wgsl) with the key
// type's `key_xor` and `neg_mask`, so one kernel serves u32, i32 and f32 keys (and f16
// keys, widened to the high half of a word); or, for 8-byte keys, a vec2<u32> whose
// sortable words `key` makes and `le` compares, high word first.
// Splits that are not ascending (inputs that were not sorted) are clamped, so every
// read stays inside `a` and `b` and every tile writes only its own keys.
{{ENABLE}}

const WG: u32 = {{WG}}u;
const V: u32 = {{V}}u;
const TILE: u32 = WG * V;

alias KW = {{KEY_WORD}};

struct Params {
    na: u32,
    nb: u32,
    tiles: u32,
    key_xor: u32,
    neg_mask: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<KW>;
@group(0) @binding(2) var<storage, read> b: array<KW>;
@group(0) @binding(3) var<storage, read_write> out: array<KW>;
// splits[t]: the keys of `a` before diagonal t * TILE (t in 0..=tiles).
@group(0) @binding(4) var<storage, read_write> splits: array<u32>;
{{VALUE_BINDINGS}}

{{KEYS}}

// Whether key x goes before or with key y.
{{KEY_ORDER}}

// The workgroup's linear index in a dispatch folded into 2D/3D.
fn linear_group(group: vec3<u32>, groups: vec3<u32>) -> u32 {
    return group.x + groups.x * (group.y + groups.y * group.z);
}

@compute @workgroup_size(WG)
fn split_main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let t = linear_group(group, groups) * WG + lane;
    if t > params.tiles {
        return;
    }
    let total = params.na + params.nb;
    let d = min(t * TILE, total);
    // The smallest i with a[i] > b[d - 1 - i]: keys of `a` up to an equal key of `b`
    // go first.
    var lo = select(0u, d - params.nb, d > params.nb);
    var hi = min(d, params.na);
    while lo < hi {
        let mid = (lo + hi) / 2u;
        if le(a[mid], b[d - 1u - mid]) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    splits[t] = lo;
}

// The tile's keys, a's then b's, and where each output key of the tile comes from (an
// index into `tile_keys`).
var<workgroup> tile_keys: array<KW, TILE>;
var<workgroup> source: array<u32, TILE>;

@compute @workgroup_size(WG)
fn merge_main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let t = linear_group(group, groups);
    if t >= params.tiles {
        return;
    }
    let total = params.na + params.nb;
    let d0 = t * TILE;
    let d1 = min(d0 + TILE, total);
    let i0 = splits[t];
    // Clamped so that la + lb = d1 - d0 and both ranges stay inside their inputs.
    let i1 = min(max(splits[t + 1u], i0), i0 + (d1 - d0));
    let la = i1 - i0;
    let len = d1 - d0;
    let lb = len - la;
    let j0 = d0 - i0;
    for (var p = lane; p < len; p += WG) {
        if p < la {
            tile_keys[p] = a[i0 + p];
        } else {
            tile_keys[p] = b[j0 + p - la];
        }
    }
    workgroupBarrier();
    // This invocation's diagonal within the tile, then V keys merged in order.
    let dk = min(lane * V, len);
    var lo = select(0u, dk - lb, dk > lb);
    var hi = min(dk, la);
    while lo < hi {
        let mid = (lo + hi) / 2u;
        if le(tile_keys[mid], tile_keys[la + dk - 1u - mid]) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    var ia = lo;
    var ib = dk - lo;
    for (var s = 0u; s < V; s++) {
        let p = dk + s;
        if p >= len {
            break;
        }
        let take_a = ia < la && (ib >= lb || le(tile_keys[ia], tile_keys[la + ib]));
        if take_a {
            source[p] = ia;
            ia += 1u;
        } else {
            source[p] = la + ib;
            ib += 1u;
        }
    }
    workgroupBarrier();
    for (var p = lane; p < len; p += WG) {
        let q = source[p];
        out[d0 + p] = tile_keys[q];
{{WRITE_VALUE}}
    }
}
