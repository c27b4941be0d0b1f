                    // The value, gathered from the input by the key's origin.
                    let origin = base + tile_origin[gp_at(p)];
                    var v = params.first + origin;
                    if params.indices == 0u {
                        v = values_in[origin];
                    }
                    values_out[to - params.out_lo] = v;
