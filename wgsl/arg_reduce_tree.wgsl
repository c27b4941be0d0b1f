// The best of a workgroup through workgroup memory: a halving tree, a barrier per level.
struct GpIds {
    @builtin(local_invocation_index) lane: u32,
}

// `size` is the workgroup's size, a power of two.
fn gp_workgroup_best(b: GpBest, ids: GpIds, size: u32) -> GpBest {
    gp_shared_v[ids.lane] = b.v;
    gp_shared_i[ids.lane] = b.i;
    workgroupBarrier();
    for (var s = size / 2u; s > 0u; s >>= 1u) {
        if ids.lane < s {
            let mine = GpBest(gp_shared_v[ids.lane], gp_shared_i[ids.lane]);
            let other = GpBest(gp_shared_v[ids.lane + s], gp_shared_i[ids.lane + s]);
            let best = gp_either(mine, other);
            gp_shared_v[ids.lane] = best.v;
            gp_shared_i[ids.lane] = best.i;
        }
        workgroupBarrier();
    }
    return GpBest(gp_shared_v[0], gp_shared_i[0]);
}
