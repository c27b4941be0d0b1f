fn gp_fast(a: GpBest, b: GpBest) -> GpBest {
    if b.v {{BETTER}} a.v {
        return b;
    }
    return a;
}
fn gp_mask(v: vec4<T>) -> u32 {
    let m = bitcast<vec4<u32>>(v) & vec4<u32>(0x7fffffffu);
    return max(max(m.x, m.y), max(m.z, m.w));
}
fn gp_first_nan(u0: u32, stride: u32, full: u32, first: u32, best: GpBest) -> GpBest {
    for (var u = u0; u < full; u += stride) {
        let v = gp_x_load(u);
        for (var k = 0u; k < 4u; k++) {
            if gp_is_nan(v[k]) {
                return GpBest(v[k], first + 4u * u + k);
            }
        }
    }
    return best;
}
