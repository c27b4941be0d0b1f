// The Lorenz demo's splat kernel (examples/lorenz.rs): projects each particle through a
// pinhole camera and counts it in its pixel (atomicAdd into a u32 image).

const N: u32 = {{N}}u;
const WG: u32 = {{WG}}u;
const W: u32 = {{W}}u;
const H: u32 = {{H}}u;

// Camera: eye position, orthonormal right / up / forward axes, focal length in pixels.
const EYE: vec3<f32> = {{EYE}};
const RIGHT: vec3<f32> = {{RIGHT}};
const UP: vec3<f32> = {{UP}};
const FWD: vec3<f32> = {{FWD}};
const FOCAL: f32 = {{FOCAL}};

@group(0) @binding(0) var<storage, read> pos: array<{{T}}>;
@group(0) @binding(1) var<storage, read_write> image: array<atomic<u32>>;

@compute @workgroup_size(WG)
fn splat(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let id = {{ID}};
    if (id >= N) {
        return;
    }
    let p = vec3<f32>(f32(pos[3u * id]), f32(pos[3u * id + 1u]), f32(pos[3u * id + 2u]));
    let d = p - EYE;
    let depth = dot(d, FWD);
    // Negated comparisons are also false for NaN, so a diverged particle draws nothing.
    if (!(depth > 0.1)) {
        return;
    }
    let sx = 0.5 * f32(W) + FOCAL * dot(d, RIGHT) / depth;
    let sy = 0.5 * f32(H) - FOCAL * dot(d, UP) / depth;
    if (!(sx >= 0.0 && sx < f32(W) && sy >= 0.0 && sy < f32(H))) {
        return;
    }
    atomicAdd(&image[u32(sy) * W + u32(sx)], 1u);
}
