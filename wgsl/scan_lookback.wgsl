// Look-back by one invocation, one predecessor at a time (adapters without subgroups).

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
            let total = tile_fold(j - params.base, ids);
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
