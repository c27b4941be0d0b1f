// The WORKGROUP_SCAN part of wgsl/segmented.wgsl without subgroups: invocation `lane` owns
// the tile's `lane`-th values; Hillis-Steele in workgroup memory (two barriers a step).
// The built-ins in two structs: the uniform ones apart, since a struct that holds a
// non-uniform member is non-uniform as a whole to WGSL's uniformity analysis.
struct GpGroup {
    @builtin(workgroup_id) id: vec3<u32>,
    @builtin(num_workgroups) count: vec3<u32>,
}
struct GpIds {
    @builtin(local_invocation_index) lane: u32,
}

fn gp_position(ids: GpIds, group: GpGroup) -> u32 {
    return ids.lane;
}

// What comes before this invocation (from `first`), and the whole workgroup after `first`.
fn gp_exclusive(mine: GpRun, first: GpRun, ids: GpIds, group: GpGroup) -> array<GpRun, 2> {
    let lane = ids.lane;
    var acc = mine;
    workgroupBarrier();  // earlier readers of the shared arrays are done
    gp_shared_keys[lane] = acc.key;
    gp_shared_acc[lane] = acc.value;
    workgroupBarrier();
    for (var d = 1u; d < WG; d <<= 1u) {
        if lane >= d {
            acc = gp_join(GpRun(gp_shared_keys[lane - d], gp_shared_acc[lane - d]), acc);
        }
        workgroupBarrier();
        gp_shared_keys[lane] = acc.key;
        gp_shared_acc[lane] = acc.value;
        workgroupBarrier();
    }
    var before = first;
    if lane > 0u {
        before = gp_join(first, GpRun(gp_shared_keys[lane - 1u], gp_shared_acc[lane - 1u]));
    }
    let total = gp_join(first, GpRun(gp_shared_keys[WG - 1u], gp_shared_acc[WG - 1u]));
    return array<GpRun, 2>(before, total);
}
