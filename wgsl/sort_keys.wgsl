// Keys as u32 words whose unsigned order is the sort order. `key_xor` and `neg_mask`
// come from the key type and direction (src/ops/sort/mod.rs, `SortKey`):
// - u32: 0 and 0 (the key itself);
// - i32: 0x80000000 and 0 (the sign bit flipped);
// - f32: 0x80000000 and 0x7fffffff (positive: sign flipped; negative: every bit
//   flipped), which is the order of `f32::total_cmp`;
// and descending sorts flip every bit on top (key_xor ^ 0xffffffff).
fn ordered(x: u32, key_xor: u32, neg_mask: u32) -> u32 {
    return x ^ key_xor ^ (bitcast<u32>(bitcast<i32>(x) >> 31u) & neg_mask);
}
