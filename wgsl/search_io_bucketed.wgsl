// Binding 3: (ordered query word, query index) pairs, exactly one per query, grouped by
// table range (wgsl/search_buckets.wgsl); binding 4: the answers, exactly one per query,
// each written at its query's index. One table window only: nothing accumulates.
//
// Where the bucketing found the queries' ranges in order already (gp_bins[unsorted_at]
// is 0), it wrote no pairs, and the queries (binding 5) are searched where they stand.
@group(0) @binding(3) var<storage, read> gp_pairs: array<vec2<u32>>;
@group(0) @binding(4) var<storage, read_write> gp_out: array<u32>;
{{QUERIES}}
@group(0) @binding(6) var<storage, read> gp_bins: array<u32>;

var<private> gp_in_order: bool;

fn gp_io_begin() {
    gp_in_order = gp_bins[gp_params.unsorted_at] == 0u;
}

fn gp_query(u: u32) -> vec4<u32> {
    if gp_in_order {
        return gp_ordered4(gp_queries_load(u));
    }
    let b = 4u * u;
    let last = arrayLength(&gp_pairs) - 1u;
    return vec4<u32>(gp_pairs[min(b, last)].x, gp_pairs[min(b + 1u, last)].x, gp_pairs[min(b + 2u, last)].x, gp_pairs[min(b + 3u, last)].x);
}

fn gp_answer(u: u32, a: vec4<u32>) {
    let b = 4u * u;
    let n = arrayLength(&gp_out);
    for (var k = 0u; k < 4u; k++) {
        if b + k < n {
            var at = b + k;
            if !gp_in_order {
                at = gp_pairs[b + k].y;
            }
            gp_out[at] = a[k];
        }
    }
}
