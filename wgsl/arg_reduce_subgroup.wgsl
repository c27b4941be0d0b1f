// The best of a workgroup with subgroup operations (32-bit types): each subgroup finds
// its best key (gp_key: a u32 whose order is gp_beats's, NaN at the top) and the lowest
// index holding it; the one invocation that holds that pair stores it, and invocation 0
// picks the best of the subgroups'. Any subgroup size.
struct GpIds {
    @builtin(local_invocation_index) lane: u32,
    @builtin(subgroup_invocation_id) subgroup_lane: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
}

fn gp_workgroup_best(b: GpBest, ids: GpIds, size: u32) -> GpBest {
    let key = gp_key(b.v);
    let top = subgroupMax(key);
    let first = subgroupMin(select(GP_NONE, b.i, key == top));
    // A subgroup that saw no element: its first invocation stores its (empty) pair.
    let mine = select(b.i == first, ids.subgroup_lane == 0u, first == GP_NONE);
    if mine {
        gp_shared_v[ids.subgroup] = b.v;
        gp_shared_i[ids.subgroup] = b.i;
    }
    workgroupBarrier();
    var total = GpBest(gp_shared_v[0], gp_shared_i[0]);
    if ids.lane == 0u {
        for (var s = 1u; s < ids.subgroups; s++) {
            total = gp_either(total, GpBest(gp_shared_v[s], gp_shared_i[s]));
        }
    }
    return total;
}
