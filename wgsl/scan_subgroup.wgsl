// Workgroup scan with subgroup operations. Invocations are ordered subgroup by subgroup
// (`position`), so each subgroup's scan covers consecutive elements whatever the
// hardware's mapping of invocations to subgroups.
struct Ids {
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(subgroup_invocation_id) subgroup_lane: u32,
    @builtin(subgroup_size) subgroup_size: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
}

fn position(ids: Ids) -> u32 {
    return ids.subgroup * ids.subgroup_size + ids.subgroup_lane;
}

// Inclusive scan across the subgroup.
fn subgroup_inclusive(x: A, ids: Ids) -> A {
{{SUBGROUP_INCLUSIVE}}
}

var<workgroup> subgroup_totals: array<A, WG>;

fn wg_exclusive(x: A, ids: Ids) -> A {
    let inclusive = subgroup_inclusive(x, ids);
    let shifted = subgroupShuffleUp(inclusive, 1u);
    workgroupBarrier();  // the previous scan's readers are done with subgroup_totals
    if ids.subgroup_lane + 1u == ids.subgroup_size {
        subgroup_totals[ids.subgroup] = inclusive;
    }
    workgroupBarrier();
    var before = identity();
    for (var i = 0u; i < ids.subgroup; i++) {
        before = combine(before, subgroup_totals[i]);
    }
    if ids.subgroup_lane != 0u {
        before = combine(before, shifted);
    }
    return before;
}

fn wg_total(ids: Ids) -> A {
    var total = subgroup_totals[0];
    for (var i = 1u; i < ids.subgroups; i++) {
        total = combine(total, subgroup_totals[i]);
    }
    return total;
}
