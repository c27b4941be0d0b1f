// Workgroup reduction through shared memory: a halving tree, a barrier per level.
struct Ids {
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
}

// `size` is the workgroup's size, a power of two.
fn workgroup_reduce(acc: A, ids: Ids, size: u32) -> A {
    shared_acc[ids.lane] = acc;
    workgroupBarrier();
    for (var s = size / 2u; s > 0u; s >>= 1u) {
        if ids.lane < s {
            shared_acc[ids.lane] = combine(shared_acc[ids.lane], shared_acc[ids.lane + s]);
        }
        workgroupBarrier();
    }
    return shared_acc[0];
}
