@group(0) @binding(2) var<storage, read> gp_x: array<vec4<{{T}}>>;
fn gp_load(y: u32, x: u32) -> array<A, 4> {
    let v = gp_x[(y * gp_reduce.pitch + x) / 4u];
    return array<A, 4>(gp_lift(v.x), gp_lift(v.y), gp_lift(v.z), gp_lift(v.w));
}
