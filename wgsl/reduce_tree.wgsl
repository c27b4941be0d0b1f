// Workgroup reduction through shared memory: a halving tree, a barrier per level.
struct GpIds {
    @builtin(local_invocation_index) lane: u32,
}

// `size` is the workgroup's size, a power of two.
fn gp_workgroup_reduce(acc: A, ids: GpIds, size: u32) -> A {
    gp_shared_acc[ids.lane] = acc;
    workgroupBarrier();
    for (var s = size / 2u; s > 0u; s >>= 1u) {
        if ids.lane < s {
            gp_shared_acc[ids.lane] = gp_combine(gp_shared_acc[ids.lane], gp_shared_acc[ids.lane + s]);
        }
        workgroupBarrier();
    }
    return gp_shared_acc[0];
}
