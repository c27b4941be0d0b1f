// gpuprim random library (`gpuprim::RANDOM_WGSL`): prepended to the random, map and zip
// kernels, so map/zip expressions may call these functions. Every integer function has a
// bit-exact CPU twin in `gpuprim::ops::random::cpu`.

// Thomas Wang's 32-bit integer hash, as in "Quick And Easy GPU Random Numbers In D3D11"
// (Nathan Reed) and the Lorenz-attractor article: wang_hash(id * 1847483629u).
fn wang_hash(seed_in: u32) -> u32 {
    var s = seed_in;
    s = (s ^ 61u) ^ (s >> 16u);
    s = s * 9u;
    s = s ^ (s >> 4u);
    s = s * 0x27d4eb2du;
    s = s ^ (s >> 15u);
    return s;
}

// The "pcg" hash of Jarzynski & Olano, "Hash Functions for GPU Rendering" (JCGT 2020):
// one LCG step, then PCG's RXS-M-XS output permutation. A bijection on u32.
fn pcg_hash(v: u32) -> u32 {
    let state = v * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// One step of Marsaglia's xorshift32 (13, 17, 5). Zero maps to zero.
fn xorshift32(x_in: u32) -> u32 {
    var x = x_in;
    x = x ^ (x << 13u);
    x = x ^ (x >> 17u);
    x = x ^ (x << 5u);
    return x;
}

// One step of Marsaglia's xorshift128 on the state (x, y, z, w): returns the new state
// (y, z, w, w'); w' (the .w of the result) is the output.
fn xorshift128_next(s: vec4<u32>) -> vec4<u32> {
    let t = s.x ^ (s.x << 11u);
    let w = (s.w ^ (s.w >> 19u)) ^ (t ^ (t >> 8u));
    return vec4<u32>(s.y, s.z, s.w, w);
}

// Seed mixing: a bijection on u32 with seed_mix(0) == 0.
fn seed_mix(seed: u32) -> u32 {
    return wang_hash(seed) ^ wang_hash(0u);
}

// Rng::WangHash: wang_hash((i * 1847483629) ^ seed_mix(seed)). Seed 0 is the articles' stream.
fn rng_wang_hash(i: u32, seed: u32) -> u32 {
    return wang_hash((i * 1847483629u) ^ seed_mix(seed));
}

// Rng::Xorshift32: x = pcg_hash(i ^ wang_hash(seed)) (0 replaced by 0x9e3779b9), then
// three xorshift32 steps.
fn rng_xorshift32(i: u32, seed: u32) -> u32 {
    var x = pcg_hash(i ^ wang_hash(seed));
    x = select(x, 0x9e3779b9u, x == 0u);
    return xorshift32(xorshift32(xorshift32(x)));
}

// Rng::Pcg32: pcg_hash(i ^ pcg_hash(seed)).
fn rng_pcg32(i: u32, seed: u32) -> u32 {
    return pcg_hash(i ^ pcg_hash(seed));
}

// Uniform f32 in [0, 1) from the top 24 bits: exact (no rounding), 2^24 equally likely values.
fn u32_to_unit_f32(r: u32) -> f32 {
    return f32(r >> 8u) * bitcast<f32>(0x33800000u); // 2^-24
}

// Uniform f32 in (0, 1]: ((r >> 8) + 1) * 2^-24, never 0 (safe for log).
fn u32_to_open_unit_f32(r: u32) -> f32 {
    return f32((r >> 8u) + 1u) * bitcast<f32>(0x33800000u);
}

// A standard normal from two u32 (Box-Muller, cosine branch): |z| <= sqrt(48 ln 2) ~ 5.77.
fn box_muller(r1: u32, r2: u32) -> f32 {
    let u1 = u32_to_open_unit_f32(r1);
    let u2 = u32_to_unit_f32(r2);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
