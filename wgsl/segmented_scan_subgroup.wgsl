// The WORKGROUP_SCAN part of wgsl/segmented.wgsl with subgroups: invocations ordered subgroup
// by subgroup, each subgroup scans its lanes by shuffles, and the subgroups' totals meet
// once in workgroup memory (two barriers a tile), where each subgroup reads and scans
// them by shuffles too (one a lane; a loop over them where there are more subgroups
// than lanes).
// The built-ins in two structs: the uniform ones apart (the scan's loops and branches
// depend on num_subgroups), since a struct that holds a non-uniform member is
// non-uniform as a whole to WGSL's uniformity analysis.
struct GpGroup {
    @builtin(workgroup_id) id: vec3<u32>,
    @builtin(num_workgroups) count: vec3<u32>,
    @builtin(num_subgroups) subgroups: u32,
}
struct GpIds {
    @builtin(local_invocation_index) lane: u32,
    @builtin(subgroup_invocation_id) subgroup_lane: u32,
    @builtin(subgroup_id) subgroup: u32,
}

fn gp_position(ids: GpIds, group: GpGroup) -> u32 {
    return ids.subgroup * (WG / group.subgroups) + ids.subgroup_lane;
}

// What comes before this invocation (from `first`), and the whole workgroup after `first`.
fn gp_exclusive(mine: GpRun, first: GpRun, ids: GpIds, group: GpGroup) -> array<GpRun, 2> {
    let subgroups = group.subgroups;
    let size = WG / subgroups;
    var acc = mine;
    for (var d = 1u; d < size; d <<= 1u) {
        let key = subgroupShuffleUp(acc.key, d);
        let value = subgroupShuffleUp(acc.value, d);
        if ids.subgroup_lane >= d {
            acc = gp_join(GpRun(key, value), acc);
        }
    }
    let up_key = subgroupShuffleUp(acc.key, 1u);
    let up_value = subgroupShuffleUp(acc.value, 1u);
    workgroupBarrier();  // earlier readers of the shared arrays are done
    if ids.subgroup_lane == size - 1u {
        gp_shared_keys[ids.subgroup] = acc.key;
        gp_shared_acc[ids.subgroup] = acc.value;
    }
    workgroupBarrier();
    var before = first;
    var total = first;
    if subgroups <= size {
        // Each subgroup scans the subgroups' totals, one a lane.
        var t = GpRun(NO_HEAD, gp_identity());
        if ids.subgroup_lane < subgroups {
            t = GpRun(gp_shared_keys[ids.subgroup_lane], gp_shared_acc[ids.subgroup_lane]);
        }
        for (var d = 1u; d < subgroups; d <<= 1u) {
            let key = subgroupShuffleUp(t.key, d);
            let value = subgroupShuffleUp(t.value, d);
            if ids.subgroup_lane >= d {
                t = gp_join(GpRun(key, value), t);
            }
        }
        let below = max(ids.subgroup, 1u) - 1u;
        let b = GpRun(subgroupShuffle(t.key, below), subgroupShuffle(t.value, below));
        if ids.subgroup > 0u {
            before = gp_join(before, b);
        }
        let last = subgroups - 1u;
        total = gp_join(total, GpRun(subgroupShuffle(t.key, last), subgroupShuffle(t.value, last)));
    } else {
        for (var k = 0u; k < ids.subgroup; k++) {
            before = gp_join(before, GpRun(gp_shared_keys[k], gp_shared_acc[k]));
        }
        total = before;
        for (var k = ids.subgroup; k < subgroups; k++) {
            total = gp_join(total, GpRun(gp_shared_keys[k], gp_shared_acc[k]));
        }
    }
    if ids.subgroup_lane > 0u {
        before = gp_join(before, GpRun(up_key, up_value));
    }
    return array<GpRun, 2>(before, total);
}
