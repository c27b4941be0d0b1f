// Workgroup reduction with subgroup operations: each subgroup reduces in registers,
// then invocation 0 combines the subgroup totals in order. Works for any subgroup size.
struct GpIds {
    @builtin(local_invocation_index) lane: u32,
    @builtin(subgroup_invocation_id) subgroup_lane: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
}

// Any workgroup size (`size` is not needed here: the subgroups are counted).
fn gp_workgroup_reduce(acc: A, ids: GpIds, size: u32) -> A {
    let s = {{SUBGROUP_OP}}(acc);
    if ids.subgroup_lane == 0u {
        gp_shared_acc[ids.subgroup] = s;
    }
    workgroupBarrier();
    var total = gp_shared_acc[0];
    if ids.lane == 0u {
        for (var i = 1u; i < ids.subgroups; i++) {
            total = gp_combine(total, gp_shared_acc[i]);
        }
    }
    return total;
}
