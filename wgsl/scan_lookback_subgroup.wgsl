// Look-back by the first subgroup: each invocation probes one predecessor, so a step
// covers a subgroup's width of tiles.
//
// The cost that matters is per predecessor walked over: tiles start at a steady rate,
// so the distance to the nearest inclusive prefix grows with the time a look-back
// takes, and a look-back slower than the tiles' arrival falls further behind. So the
// values a probe reads are kept in workgroup memory (`stash`, by distance from this
// tile) and folded there by one invocation, without subgroup operations in the serial
// loop; only predecessors further back than the stash holds are loaded again.

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
fn look_back(g: u32, ids: Ids) -> A {
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
                let end = valid && (st.x == INCLUSIVE || (tile == 0u && st.x == AGGREGATE));
                let first_end = lowest_lane(subgroupBallot(end));
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
                if ids.lane == 0u {
                    publish(step.y, select(AGGREGATE, INCLUSIVE, step.y == 0u), total);
                }
            }
            continue;  // probe the same window again (an earlier dispatch's tile: soon visible)
        }
        top -= width;
    }
    // Phase 2: fold forward from `found` (its inclusive prefix; tile 0's aggregate is
    // its inclusive prefix), one aggregate after another, in tile order.
    let far = g - 1u - found;
    if far < STASH {
        // Everything is in the stash (the barrier in workgroupUniformLoad above made
        // the first subgroup's writes visible).
        if ids.lane == 0u {
            var p = bitcast<A>(stash[far]);
            for (var d = far; d > 0u; d--) {
                p = combine(p, bitcast<A>(stash[d - 1u]));
            }
            value_shared = p;
        }
        return workgroupUniformLoad(&value_shared);
    }
    if ids.subgroup == 0u {
        var p = bitcast<A>(status_of(found).y);
        for (var base = found + 1u; base < g; base += width) {
            let tile = base + ids.subgroup_lane;
            var v = identity();
            if tile < g {
                v = bitcast<A>(atomicLoad(&status[status_word(tile, AGGREGATE)]));
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
