fn gp_unit(u: u32) -> vec4<T> {
    return gp_x_load(u) * gp_y_load(u);
}
