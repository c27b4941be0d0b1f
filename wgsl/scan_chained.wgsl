// Single-pass chained scan with decoupled look-back (see scan.wgsl), for 32-bit types:
// published values travel as u32 words.

var<workgroup> tile_shared: u32;
// Tile t is workgroup t (BY_ID), or the t-th workgroup to start (a counter per window).
// Either is correct: a predecessor that has not started is stood in for after SPIN
// probes. By id saves the counter's round trip before the loads; the counter keeps the
// one-at-a-time look-back from waiting on workgroups that start late.
const BY_ID: bool = {{BY_ID}};
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

// look_back(g, ids): the combination of all tiles before global tile g (g > 0).
{{LOOK_BACK}}

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
    let before = tile_scan(t, ids);
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
    store_tile(t, ids, combine(prefix, before));
}
