// GPU particles (examples/particles.rs), after the article's compute shader: each thread
// updates PPT particles; a particle whose life has ended or that fell below the floor is
// respawned at the origin with a random velocity and spin drawn from its own xorshift128
// state; then it moves one step under gravity. The CPU twin in particles.rs does the
// same operations in the same order (speeds and gravity are powers of two, so the
// multiplies are exact and a fused multiply-add changes nothing).

{{LIB}}

const N: u32 = {{N}}u;
const WG: u32 = {{WG}}u;
// Particles per thread: more work per thread hides memory latency (the article used 4).
const PPT: u32 = {{PPT}}u;
const MAX_SPEED: f32 = {{MAX_SPEED}};
const MAX_SPIN: f32 = {{MAX_SPIN}};
const GRAVITY: f32 = {{GRAVITY}};
const FLOOR: f32 = {{FLOOR}};
const LIFE_MIN: u32 = {{LIFE_MIN}}u;

@group(0) @binding(0) var<storage, read_write> pos: array<vec4<f32>>;  // x, y, z, angle
@group(0) @binding(1) var<storage, read_write> vel: array<vec4<f32>>;  // vx, vy, vz, spin
@group(0) @binding(2) var<storage, read_write> rng: array<vec4<u32>>;  // xorshift128 state
@group(0) @binding(3) var<storage, read_write> life: array<u32>;       // steps left

// Uniform in [-1, 1) from the top 24 bits: exact.
fn signed_unit(r: u32) -> f32 {
    return f32(r >> 8u) * (1.0 / 8388608.0) - 1.0;
}

fn update(i: u32) {
    var p = pos[i];
    var v = vel[i];
    var l = life[i];
    if (l == 0u || p.y < FLOOR) {
        // Five draws, each one xorshift128 step: vx, vy (upwards), vz, spin, life.
        var s = rng[i];
        s = xorshift128_next(s);
        let vx = MAX_SPEED * signed_unit(s.w);
        s = xorshift128_next(s);
        let vy = MAX_SPEED * u32_to_unit_f32(s.w);
        s = xorshift128_next(s);
        let vz = MAX_SPEED * signed_unit(s.w);
        s = xorshift128_next(s);
        let spin = MAX_SPIN * signed_unit(s.w);
        s = xorshift128_next(s);
        l = LIFE_MIN + (s.w >> 25u);
        rng[i] = s;
        p = vec4<f32>(0.0);
        v = vec4<f32>(vx, vy, vz, spin);
    }
    p = vec4<f32>(p.xyz + v.xyz, p.w + v.w);
    v.y = v.y - GRAVITY;
    pos[i] = p;
    vel[i] = v;
    life[i] = l - 1u;
}

@compute @workgroup_size(WG)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // A workgroup owns WG * PPT consecutive particles; its threads step through them WG
    // apart, so each load instruction of a workgroup reads consecutive particles.
    let base = (wid.x + wid.y * nwg.x) * WG * PPT + lid.x;
    for (var k = 0u; k < PPT; k++) {
        let i = base + k * WG;
        if (i < N) {
            update(i);
        }
    }
}
