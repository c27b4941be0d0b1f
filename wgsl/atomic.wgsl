// atomic_sum: adds every element of `src` (one binding window, `params.n` valid
// elements; the padding of the last vec4 is masked) into acc[0] with atomics.
//
// After the prelude, one `add_*` part (how a value is added atomically for the element
// type) and one strategy (per_element, hybrid, subgroup), chosen by `//#if`.
//
// Every strategy is a grid-stride loop over vec4 units with a capped number of
// workgroups (folded into 2D/3D): all dispatched invocations take part, so there is no
// early return and barriers / subgroup operations stay in uniform control flow.
alias T = {{T}};

// Params, first_unit, grid_stride (wgsl/atomic_params.wgsl).
{{PARAMS}}

// src at binding 0, with src_load(u) -> vec4 and src_units() (src/runtime/view.rs).
{{SRC}}
@group(0) @binding(1) var<storage, read_write> acc: array<atomic<{{ATOM}}>>;
@group(0) @binding(2) var<uniform> params: Params;

// The unit `i` with lanes at or past `params.n` replaced by zero.
fn masked(i: u32) -> vec4<T> {
    let idx = vec4<u32>(i * 4u) + vec4<u32>(0u, 1u, 2u, 3u);
    return select(vec4<T>(T(0)), src_load(i), idx < vec4<u32>(params.n));
}

// This invocation's partial sum over its grid-stride units.
fn thread_sum(first: u32, stride: u32) -> T {
    let units = (params.n + 3u) / 4u;
    var s = T(0);
    for (var i = first; i < units; i += stride) {
        let v = masked(i);
        s += (v.x + v.y) + (v.z + v.w);
    }
    return s;
}

//#if ADD_INT
// add_int
// Integer atomics wrap on overflow, like the CPU's wrapping_add.
var<workgroup> wsum: atomic<T>;

fn acc_add(v: T) {
    atomicAdd(&acc[0], v);
}

fn wsum_add(v: T) {
    atomicAdd(&wsum, v);
}

fn wsum_load() -> T {
    return atomicLoad(&wsum);
}
//#endif

//#if ADD_F32
// add_f32
// No float atomics in WGSL: add to the bit pattern with a compare-exchange loop. It is
// lock-free (a failed exchange means another invocation's add succeeded).
var<workgroup> wsum: atomic<u32>;

fn acc_add(v: f32) {
    var old = atomicLoad(&acc[0]);
    loop {
        let r = atomicCompareExchangeWeak(&acc[0], old, bitcast<u32>(bitcast<f32>(old) + v));
        if r.exchanged {
            break;
        }
        old = r.old_value;
    }
}

fn wsum_add(v: f32) {
    var old = atomicLoad(&wsum);
    loop {
        let r = atomicCompareExchangeWeak(&wsum, old, bitcast<u32>(bitcast<f32>(old) + v));
        if r.exchanged {
            break;
        }
        old = r.old_value;
    }
}

fn wsum_load() -> f32 {
    return bitcast<f32>(atomicLoad(&wsum));
}
//#endif

//#if PER_ELEMENT
// per_element
// The articles' InterlockedAdd sample: one global atomic per element.
@compute @workgroup_size({{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let units = (params.n + 3u) / 4u;
    let stride = grid_stride(groups);
    for (var i = first_unit(group, groups, lane); i < units; i += stride) {
        let v = src_load(i);
        for (var k = 0u; k < 4u; k++) {
            if i * 4u + k < params.n {
                acc_add(v[k]);
            }
        }
    }
}
//#endif

//#if HYBRID
// hybrid
// Workgroup tree reduction in shared memory, then one global atomic per workgroup.
var<workgroup> part: array<T, {{WG}}>;

@compute @workgroup_size({{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    part[lane] = thread_sum(first_unit(group, groups, lane), grid_stride(groups));
    workgroupBarrier();
    for (var w = {{WG}}u / 2u; w > 0u; w >>= 1u) {
        if lane < w {
            part[lane] += part[lane + w];
        }
        workgroupBarrier();
    }
    if lane == 0u {
        let t = part[0];
        if t != T(0) {
            acc_add(t);
        }
    }
}
//#endif

//#if SUBGROUP
// subgroup
// subgroupAdd per subgroup; the first invocation of each subgroup adds its subgroup's
// sum into a workgroup atomic (correct for any subgroup size and any layout of
// subgroups in the workgroup); then one global atomic per workgroup.
@compute @workgroup_size({{WG}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(subgroup_invocation_id) sub_lane: u32,
) {
    if lane == 0u {
        atomicStore(&wsum, {{ATOM}}(0));
    }
    let s = thread_sum(first_unit(group, groups, lane), grid_stride(groups));
    workgroupBarrier();
    let t = subgroupAdd(s);
    if sub_lane == 0u {
        wsum_add(t);
    }
    workgroupBarrier();
    if lane == 0u {
        let total = wsum_load();
        if total != T(0) {
            acc_add(total);
        }
    }
}
//#endif
