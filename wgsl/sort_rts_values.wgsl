        // The values, staged through workgroup memory (the sorted keys are written out):
        // read from the input by coalesced loads, then each taken from its key's origin,
        // instead of gathered from the input key by key.
        workgroupBarrier();
        if params.indices == 0u {
            for (var k = 0u; k < KPT; k++) {
                let q = k * WG + ids.index;
                if q < valid {
                    tile_keys[gp_at(q)] = values_in[base + q];
                }
            }
        }
        workgroupBarrier();
        for (var k = 0u; k < KPT; k++) {
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
        }
