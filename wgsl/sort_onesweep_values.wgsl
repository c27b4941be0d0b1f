
    // The values, the same way (the stage's keys are all read: `dst` holds where
    // each goes).
    // Every value is loaded before the first is staged, as the keys were, so no load
    // waits on a store (each load followed by its store was slower for pairs).
    var vals: array<u32, KPT>;
    for (var k = 0u; k < KPT; k++) {
        let i = row0 + k * grp.width;
        vals[k] = params.first + i;
        if i < params.n && params.indices == 0u {
            vals[k] = values_in[i];
        }
    }
    workgroupBarrier();
    for (var k = 0u; k < KPT; k++) {
        if row0 + k * grp.width < params.n {
            stage_store(pos[k], vals[k]);
        }
    }
    workgroupBarrier();
    for (var k = 0u; k < KPT; k++) {
        let j = k * WG + me;
        if j < kept {
            let to = dst[k];
            if to >= params.out_lo && to < params.out_hi {
                values_out[to - params.out_lo] = stage_load(j);
            }
        }
    }
