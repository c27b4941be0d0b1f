// Binding 3: (ordered query word, query index) pairs, exactly one per query, grouped by
// table range (wgsl/search_buckets.wgsl); binding 4: the answers, exactly one per query,
// each written at its query's index. One table window only: nothing accumulates.
@group(0) @binding(3) var<storage, read> gp_pairs: array<vec2<u32>>;
@group(0) @binding(4) var<storage, read_write> gp_out: array<u32>;

fn gp_query(u: u32) -> vec4<u32> {
    let b = 4u * u;
    let last = arrayLength(&gp_pairs) - 1u;
    return vec4<u32>(gp_pairs[min(b, last)].x, gp_pairs[min(b + 1u, last)].x, gp_pairs[min(b + 2u, last)].x, gp_pairs[min(b + 3u, last)].x);
}

fn gp_answer(u: u32, a: vec4<u32>) {
    let b = 4u * u;
    let n = arrayLength(&gp_pairs);
    for (var k = 0u; k < 4u; k++) {
        if b + k < n {
            gp_out[gp_pairs[b + k].y] = a[k];
        }
    }
}
