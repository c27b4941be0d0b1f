// Look-back by the first subgroup: each invocation probes one predecessor, so a step
// covers a subgroup's width of tiles.

var<workgroup> step_shared: vec2<u32>;

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

fn look_back(g: u32, ids: Ids) -> A {
    let width = ids.subgroup_size;
    // Phase 1: walk back, a window of `width` tiles per step (invocation l probes tile
    // top - l), to the nearest tile with an inclusive prefix, with every aggregate on
    // the way published: by its owner or, once SPIN probes have not shown it, by this
    // workgroup, which reduces that tile's input itself.
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
                if first_end < first_none {
                    step = vec2<u32>(FOUND, top - first_end);
                    break;
                }
                if first_none == NO_LANE {
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
                let mine = load_fold(step.y - params.base, position(ids));
                _ = wg_exclusive(mine, ids);
                let total = wg_total(ids);
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
