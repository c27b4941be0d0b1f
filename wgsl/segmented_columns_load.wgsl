@group(0) @binding(2) var<storage, read> gp_x: array<{{T}}>;
fn gp_load(y: u32, x: u32) -> array<A, 1> {
    return array<A, 1>(gp_lift(gp_x[y * gp_reduce.pitch + x]));
}
