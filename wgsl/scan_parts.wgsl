// Parts of wgsl/scan.wgsl that differ between its kernels, as sections (`//#section
// NAME`) that src/ops/scan/kernel.rs puts in its placeholders. A section is the text
// between its marker and the next one, less the line break that ends it.
//
// `scan_io`, `compact_io` and `spine_io` fill `{{IO}}`: load(u) (vec4 unit u as scanned
// values, the identity past n) and store(u, s) (the scanned values s of unit u) of a
// scan, of a compaction or partition (`{{PREDICATE}}`: the user's predicate in `x`;
// `{{STORE_KEPT}}` and `{{STORE_REST}}`: what a kept and a rejected element write, where
// `s[k]` is the number of kept elements before it) and of the spine (reads `partials`,
// writes `offsets`). `shuffle_scan` fills scan_subgroup.wgsl's `{{SUBGROUP_INCLUSIVE}}`
// for operators without a subgroup built-in.
//#section scan_io
fn load(u: u32) -> vec4<A> {
    var r = vec4<A>(identity());
    if u < params.units {
        r = src_load(u);
        let first = u * 4u;
        if first + 4u > params.n {
            for (var k = 0u; k < 4u; k++) {
                if first + k >= params.n {
                    r[k] = identity();
                }
            }
        }
    }
    return r;
}
fn store(u: u32, s: vec4<A>) {
    if u < params.units {
        out_store(u, s);
    }
}

//#section compact_io
fn keep(x: T) -> bool { return ({{PREDICATE}}); }
fn flag(x: T) -> u32 { return select(0u, 1u, keep(x)); }
fn load(u: u32) -> vec4<A> {
    var r = vec4<A>(identity());
    if u < params.units {
        let v = src_load(u);
        r = vec4<u32>(flag(v.x), flag(v.y), flag(v.z), flag(v.w));
        let first = u * 4u;
        if first + 4u > params.n {
            for (var k = 0u; k < 4u; k++) {
                if first + k >= params.n {
                    r[k] = identity();
                }
            }
        }
    }
    return r;
}
fn store(u: u32, s: vec4<A>) {
    if u >= params.units {
        return;
    }
    let v = src_load(u);
    for (var k = 0u; k < 4u; k++) {
        let i = u * 4u + k;
        if i < params.n {
            if keep(v[k]) {
                {{STORE_KEPT}}
            } else {
                {{STORE_REST}}
            }
        }
    }
}

//#section spine_io
fn load(u: u32) -> vec4<A> {
    var r = vec4<A>(identity());
    for (var k = 0u; k < 4u; k++) {
        if u * 4u + k < params.groups {
            r[k] = partials[u * 4u + k];
        }
    }
    return r;
}
fn store(u: u32, s: vec4<A>) {
    for (var k = 0u; k < 4u; k++) {
        if u * 4u + k < params.groups {
            offsets[u * 4u + k] = s[k];
        }
    }
}

//#section shuffle_scan
    var v = x;
    for (var d = 1u; d < ids.subgroup_size; d <<= 1u) {
        let y = subgroupShuffleUp(v, d);
        if ids.subgroup_lane >= d {
            v = combine(y, v);
        }
    }
    return v;
