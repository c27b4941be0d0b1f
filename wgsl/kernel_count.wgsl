@group(0) @binding({{BINDING}}) var<storage, read> gp_count: array<u32>;
fn gp_n() -> u32 { return min(gp_params.n, gp_count[0]); }
