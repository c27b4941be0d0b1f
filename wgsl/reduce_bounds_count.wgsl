@group(0) @binding({{BINDING}}) var<storage, read> gp_count: array<u32>;
fn gp_n() -> u32 { return min(gp_count[0], gp_reduce.n_cap); }
fn gp_window() -> vec2<u32> {
    let cap = 4u * gp_reduce.full_units + gp_reduce.tail;
    let n = gp_n();
    let first = 4u * gp_reduce.first_unit;
    var e = 0u;
    if n > first {
        e = min(n - first, cap);
    }
    return vec2<u32>(e / 4u, e % 4u);
}
