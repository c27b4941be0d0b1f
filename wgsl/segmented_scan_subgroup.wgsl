// The WORKGROUP_SCAN part of wgsl/segmented.wgsl with subgroups: invocations ordered subgroup
// by subgroup, each subgroup scans its lanes by shuffles, and the subgroups' totals meet
// once in workgroup memory (two barriers a tile).
struct GpIds {
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(subgroup_invocation_id) subgroup_lane: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
}

fn gp_position(ids: GpIds) -> u32 {
    return ids.subgroup * (WG / ids.subgroups) + ids.subgroup_lane;
}

// What comes before this invocation (from `first`), and the whole workgroup after `first`.
fn gp_exclusive(mine: GpRun, first: GpRun, ids: GpIds) -> array<GpRun, 2> {
    let size = WG / ids.subgroups;
    var acc = mine;
    for (var d = 1u; d < size; d <<= 1u) {
        let heads = subgroupShuffleUp(acc.heads, d);
        let value = subgroupShuffleUp(acc.value, d);
        if ids.subgroup_lane >= d {
            acc = gp_join(GpRun(heads, value), acc);
        }
    }
    let up_heads = subgroupShuffleUp(acc.heads, 1u);
    let up_value = subgroupShuffleUp(acc.value, 1u);
    workgroupBarrier();  // earlier readers of the shared arrays are done
    if ids.subgroup_lane == size - 1u {
        gp_shared_heads[ids.subgroup] = acc.heads;
        gp_shared_acc[ids.subgroup] = acc.value;
    }
    workgroupBarrier();
    var before = first;
    for (var k = 0u; k < ids.subgroup; k++) {
        before = gp_join(before, GpRun(gp_shared_heads[k], gp_shared_acc[k]));
    }
    var total = before;
    for (var k = ids.subgroup; k < ids.subgroups; k++) {
        total = gp_join(total, GpRun(gp_shared_heads[k], gp_shared_acc[k]));
    }
    if ids.subgroup_lane > 0u {
        before = gp_join(before, GpRun(up_heads, up_value));
    }
    return array<GpRun, 2>(before, total);
}
