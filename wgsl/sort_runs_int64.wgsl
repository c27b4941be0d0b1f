// 64-bit integers as vec2<u32>, x the low word and y the high: wrapping sum and product
// (the same bits for u64 and i64), and the orders of u64 and i64.
fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

// The whole 64-bit product of two words, from their 16-bit halves.
fn mul32_wide(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    let lo = (p00 & 0xffffu) | (mid << 16u);
    let hi = a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
    return vec2<u32>(lo, hi);
}

fn mul64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let p = mul32_wide(a.x, b.x);
    return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}

fn less_u64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn less_i64(a: vec2<u32>, b: vec2<u32>) -> bool {
    let ah = bitcast<i32>(a.y);
    let bh = bitcast<i32>(b.y);
    return ah < bh || (ah == bh && a.x < b.x);
}

fn min_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return select(a, b, less_u64(b, a));
}

fn max_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return select(a, b, less_u64(a, b));
}

fn min_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return select(a, b, less_i64(b, a));
}

fn max_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return select(a, b, less_i64(a, b));
}
