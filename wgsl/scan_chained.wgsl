// Single-pass chained scan with decoupled look-back (see scan.wgsl), for 32-bit types:
// published values travel as u32 words.

var<workgroup> tile_shared: u32;
var<workgroup> kind_shared: u32;
var<workgroup> value_shared: A;

fn status_word(tile: u32, kind: u32) -> u32 {
    return params.counters + tile * 4u + (kind - 1u) * 2u;
}

fn publish(tile: u32, kind: u32, v: A) {
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
        value_shared = bitcast<A>(bits);
        return true;
    }
    return false;
}

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

// The combination of all tiles before global tile g (g > 0), folded from the left.
fn look_back(g: u32, ids: Ids) -> A {
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
            let mine = load_fold(j - params.base, position(ids));
            _ = wg_exclusive(mine, ids);
            let total = wg_total(ids);
            if ids.lane == 0u {
                publish(j, select(AGGREGATE, INCLUSIVE, j == 0u), total);
            }
            kind = select(AGGREGATE, INCLUSIVE, j == 0u);
        }
        if kind == INCLUSIVE || j == 0u {
            break;
        }
        j -= 1u;
    }
    // Fold forward from tile j: its inclusive prefix (tile 0's aggregate is its
    // inclusive prefix), then each later aggregate.
    if ids.lane == 0u {
        _ = probe(j, INCLUSIVE) || probe(j, AGGREGATE);
        var p = value_shared;
        for (var i = j + 1u; i < g; i++) {
            _ = probe(i, AGGREGATE);
            p = combine(p, value_shared);
        }
        value_shared = p;
    }
    return workgroupUniformLoad(&value_shared);
}

@compute @workgroup_size(WG)
fn chained(ids: Ids) {
    if ids.lane == 0u {
        tile_shared = atomicAdd(&status[params.window], 1u);
    }
    let t = workgroupUniformLoad(&tile_shared);
    if t >= params.tiles {
        return;
    }
    let pos = position(ids);
    let mine = load_scan(t, pos);
    let before = wg_exclusive(mine, ids);
    let aggregate = wg_total(ids);
    let g = params.base + t;
    var prefix = identity();
    var inclusive = aggregate;
    if g != 0u {
        if ids.lane == 0u {
            publish(g, AGGREGATE, aggregate);
        }
        prefix = look_back(g, ids);
        inclusive = combine(prefix, aggregate);
    }
    if ids.lane == 0u {
        publish(g, INCLUSIVE, inclusive);
        if params.last != 0u && t + 1u == params.tiles {
            offsets[0] = inclusive;
        }
    }
    store_tile(t, pos, combine(prefix, before));
}
