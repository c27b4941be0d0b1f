fn gp_window() -> vec2<u32> { return vec2<u32>(gp_reduce.full_units, gp_reduce.tail); }
fn gp_n() -> u32 { return gp_reduce.n_cap; }
