// The Lorenz-attractor demo's kernels (examples/lorenz.rs): `init` places particle `id`
// exactly as the article does, `step` integrates STEPS explicit Euler steps (one frame).
// {{T}} is f32 or f64 (the article used double3); literals carry the suffix {{F}}.
// Positions are a flat array: particle i is pos[3i], pos[3i + 1], pos[3i + 2].

{{LIB}}

const N: u32 = {{N}}u;
const WG: u32 = {{WG}}u;
const STEPS: u32 = {{STEPS}}u;
const DT: {{T}} = 0.0001{{F}};

@group(0) @binding(0) var<storage, read_write> pos: array<{{T}}>;

@compute @workgroup_size(WG)
fn init(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let id = {{ID}};
    if (id >= N) {
        return;
    }
    // r = wang_hash(id * 1847483629): ten bits each for x, y, z, 0.005 apart.
    var r = wang_hash(id * 1847483629u);
    let x = 0.005{{F}} * {{T}}(r % 1024u) - 1.5{{F}};
    r = r / 1024u;
    let y = 0.005{{F}} * {{T}}(r % 1024u) - 3.5{{F}};
    r = r / 1024u;
    let z = 0.005{{F}} * {{T}}(r % 1024u) + 23.0{{F}};
    pos[3u * id] = x;
    pos[3u * id + 1u] = y;
    pos[3u * id + 2u] = z;
}

@compute @workgroup_size(WG)
fn step(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let id = {{ID}};
    if (id >= N) {
        return;
    }
    var x = pos[3u * id];
    var y = pos[3u * id + 1u];
    var z = pos[3u * id + 2u];
    // sigma = 10, rho = 28, beta = 8/3, written as the article writes them.
    for (var i = 0u; i < STEPS; i++) {
        let nx = x + DT * (-10.0{{F}} * x + 10.0{{F}} * y);
        let ny = y + DT * (-x * z + 28.0{{F}} * x - y);
        let nz = z + DT * (x * y - 8.0{{F}} * z / 3.0{{F}});
        x = nx;
        y = ny;
        z = nz;
    }
    pos[3u * id] = x;
    pos[3u * id + 1u] = y;
    pos[3u * id + 2u] = z;
}
