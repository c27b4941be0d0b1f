fn gp_fast(a: GpBest, b: GpBest) -> GpBest {
    if gp_beats(b.v, a.v) {
        return b;
    }
    return a;
}
fn gp_mask(v: vec4<T>) -> u32 { return 0u; }
fn gp_first_nan(u0: u32, stride: u32, full: u32, first: u32, best: GpBest) -> GpBest { return best; }
