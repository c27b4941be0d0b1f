// Invocation ids and the scan of 256 digit counts, with subgroup operations.
// Invocations are ordered subgroup by subgroup (`position`); subgroups are assumed
// full (the workgroup size is a multiple of the largest subgroup size).
struct Ids {
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) index: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
}

fn linear_group(ids: Ids) -> u32 {
    return ids.group.x + ids.groups.x * (ids.group.y + ids.groups.y * ids.group.z);
}

fn position(ids: Ids) -> u32 {
    return ids.subgroup * ids.width + ids.lane;
}

var<workgroup> scan_totals: array<u32, MAX_SUBGROUPS>;

// The workgroup's subgroups: the constant SUBGROUPS where the adapter has one subgroup
// size (0 where it has several), so that loops over them have a constant trip count and
// can be unrolled (the sort took 1.05x as long on our H100 with `ids.subgroups` as the
// bound, run R29 in docs/perf-journal.md).
fn subgroup_count(ids: Ids) -> u32 {
    return select(ids.subgroups, SUBGROUPS, SUBGROUPS != 0u);
}

// The subgroups that hold digits (positions below RADIX / DPT) in `scan_digits`: the
// others hold zeros.
fn digit_subgroups(ids: Ids) -> u32 {
    if SUBGROUPS != 0u {
        let width = WG / SUBGROUPS;
        return min(SUBGROUPS, (RADIX / DPT + width - 1u) / width);
    }
    return ids.subgroups;
}

// Exclusive scan over the workgroup of the digit counts `x` (invocation `position`
// holds digits position * DPT ..< (position + 1) * DPT, zeros past RADIX); returns the
// total. Barriers inside: call in uniform control flow.
fn scan_digits(x: ptr<function, array<u32, DPT>>, ids: Ids) -> u32 {
    var sum = 0u;
    for (var j = 0u; j < DPT; j++) {
        let v = (*x)[j];
        (*x)[j] = sum;
        sum += v;
    }
    let before = subgroupExclusiveAdd(sum);
    let subgroup_total = subgroupAdd(sum);
    workgroupBarrier();  // earlier readers of scan_totals are done
    if ids.lane == 0u {
        scan_totals[ids.subgroup] = subgroup_total;
    }
    workgroupBarrier();
    var offset = before;
    var total = 0u;
    for (var s = 0u; s < digit_subgroups(ids); s++) {
        let t = scan_totals[s];
        if s < ids.subgroup {
            offset += t;
        }
        total += t;
    }
    for (var j = 0u; j < DPT; j++) {
        (*x)[j] += offset;
    }
    return total;
}
