@group(0) @binding(3) var<storage, read> gp_count: array<u32>;
fn gp_n() -> u32 {
    let c = gp_count[0];
    return select(0u, min(c - params.first, params.n), c > params.first);
}
