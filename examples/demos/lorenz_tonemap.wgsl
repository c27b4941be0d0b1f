// The Lorenz demo's tone map (examples/lorenz.rs): pixel counts to 8-bit RGBA on a log
// scale, packed one pixel per u32 (R in the low byte).

const PIXELS: u32 = {{PIXELS}}u;
const WG: u32 = {{WG}}u;
// log(1 + largest count): the top of the tone curve.
const LOG_MAX: f32 = {{LOG_MAX}};

@group(0) @binding(0) var<storage, read> counts: array<u32>;
@group(0) @binding(1) var<storage, read_write> rgba: array<u32>;

@compute @workgroup_size(WG)
fn tonemap(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let id = {{ID}};
    if (id >= PIXELS) {
        return;
    }
    let t = clamp(log(1.0 + f32(counts[id])) / LOG_MAX, 0.0, 1.0);
    // Dark blue to white, after the article's additive blue (0.0154, 0.05, 0.3).
    let c = vec3<f32>(pow(t, 2.6), pow(t, 1.5), pow(t, 0.6));
    let b = vec3<u32>(round(255.0 * c));
    rgba[id] = b.x | (b.y << 8u) | (b.z << 16u) | (255u << 24u);
}
