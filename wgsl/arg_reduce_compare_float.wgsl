fn gp_is_nan(x: T) -> bool { return ({{BITS}} & 0x7fffffffu) > 0x7f800000u; }
fn gp_beats(a: T, b: T) -> bool { return !gp_is_nan(b) && (gp_is_nan(a) || a {{BETTER}} b); }
