// The workgroup-size article's compute-bound kernel (examples/seed_experiments.rs):
// SinRandom, LOOPS dependent iterations of a sine and a division per thread, one u32
// written per thread. The same N threads run in workgroups of WG threads, WG = 1 .. 256.

const N: u32 = {{N}}u;
const WG: u32 = {{WG}}u;
const LOOPS: u32 = {{LOOPS}}u;

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

fn sin_random(id: u32) -> u32 {
    var x = id;
    for (var i = 0u; i < LOOPS; i++) {
        var y = sin(1.234 * f32(x % 12345u));
        y = 2.3456 / (y + 1.0001);
        // WGSL saturates out-of-range float-to-integer conversions.
        x = u32(100000000.0 * y) + id;
    }
    return x;
}

@compute @workgroup_size(WG)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let id = {{ID}};
    if (id >= N) {
        return;
    }
    out[id] = sin_random(id);
}
