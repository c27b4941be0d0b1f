// The dot-product article's kernels (examples/seed_experiments.rs). T threads each sum
// their share of a[i] * b[i] into partial[t]; `coalesced` gives thread t the elements
// t, t + T, t + 2T, ... (neighbouring threads read neighbouring elements), `strided`
// the block t * CHUNK .. (t + 1) * CHUNK (neighbouring threads read CHUNK apart): the
// same work, another index mapping. `combine` then sums the T partials in one workgroup
// of 256 with a shared-memory tree (the groupshared-reduction article), into out[0].

const N: u32 = {{N}}u;
const T: u32 = {{T}}u;
const WG: u32 = {{WG}}u;
const CHUNK: u32 = {{CHUNK}}u;
const COMBINE_WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> partial: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(WG)
fn coalesced(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let t = {{ID}};
    if (t >= T) {
        return;
    }
    var s = 0.0;
    for (var i = t; i < N; i += T) {
        s += a[i] * b[i];
    }
    partial[t] = s;
}

@compute @workgroup_size(WG)
fn strided(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let t = {{ID}};
    if (t >= T) {
        return;
    }
    var s = 0.0;
    let end = min(t * CHUNK + CHUNK, N);
    for (var i = t * CHUNK; i < end; i++) {
        s += a[i] * b[i];
    }
    partial[t] = s;
}

var<workgroup> tree: array<f32, COMBINE_WG>;

@compute @workgroup_size(COMBINE_WG)
fn combine(@builtin(local_invocation_index) l: u32) {
    var s = 0.0;
    for (var i = l; i < T; i += COMBINE_WG) {
        s += partial[i];
    }
    tree[l] = s;
    workgroupBarrier();
    for (var w = COMBINE_WG / 2u; w > 0u; w /= 2u) {
        if (l < w) {
            tree[l] += tree[l + w];
        }
        workgroupBarrier();
    }
    if (l == 0u) {
        out[0] = tree[0];
    }
}
