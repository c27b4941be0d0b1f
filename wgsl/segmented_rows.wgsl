fn gp_begin(s: u32) -> u32 { return s * gp_reduce.pitch; }
fn gp_end(s: u32) -> u32 { return s * gp_reduce.pitch + gp_reduce.width; }
fn gp_upper(x: u32, lo: u32, hi: u32) -> u32 {
    return clamp(x / gp_reduce.pitch + 1u, lo, max(lo, hi));
}
fn gp_lower(x: u32, lo: u32, hi: u32) -> u32 {
    let q = x / gp_reduce.pitch + select(0u, 1u, x % gp_reduce.pitch != 0u);
    return clamp(q, lo, max(lo, hi));
}
fn gp_find(i: u32, lo: u32, hi: u32, guess: u32) -> u32 {
    return gp_segment_of(i, lo, hi);
}
fn gp_lower_near(x: u32, lo: u32, hi: u32, guess: u32) -> u32 {
    return gp_lower(x, lo, hi);
}
