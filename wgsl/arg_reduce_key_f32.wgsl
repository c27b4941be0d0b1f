fn gp_f32_order(x: f32) -> u32 {
    let raw = bitcast<u32>(x);
    let b = select(raw, 0u, (raw & 0x7fffffffu) == 0u);
    return b ^ select(0x80000000u, 0xffffffffu, (b >> 31u) != 0u);
}
fn gp_key(x: T) -> u32 {
    if gp_is_nan(x) {
        return 0xffffffffu;
    }
    return {{KEY}};
}
