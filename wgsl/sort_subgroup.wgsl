// Invocation ids and the scan of 256 digit counts, with subgroup operations.
// Invocations are ordered subgroup by subgroup (`position`); subgroups are assumed
// full (the workgroup size is a multiple of the largest subgroup size).
//
// The ids of one invocation (`Ids`) and those its whole workgroup shares (`Group`) are
// two structs: WGSL's uniformity analysis takes a struct parameter as one value, so
// bounds and conditions before a barrier or a subgroup operation may come from `Group`
// only.
struct Ids {
    @builtin(local_invocation_index) index: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_id) subgroup: u32,
}

struct Group {
    @builtin(workgroup_id) id: vec3<u32>,
    @builtin(num_workgroups) count: vec3<u32>,
    @builtin(subgroup_size) width: u32,
    @builtin(num_subgroups) subgroups: u32,
}

fn linear_group(grp: Group) -> u32 {
    return grp.id.x + grp.count.x * (grp.id.y + grp.count.y * grp.id.z);
}

fn position(ids: Ids, grp: Group) -> u32 {
    return ids.subgroup * grp.width + ids.lane;
}

var<workgroup> scan_totals: array<u32, MAX_SUBGROUPS>;

// The workgroup's subgroups: the constant SUBGROUPS where the adapter has one subgroup
// size (0 where it has several), so that loops over them have a constant trip count and
// can be unrolled (`grp.subgroups` as the bound was slower; see lab/perf-journal.md).
fn subgroup_count(grp: Group) -> u32 {
    return select(grp.subgroups, SUBGROUPS, SUBGROUPS != 0u);
}

// The exclusive sum of `x` over the workgroup in `position` order (x) and the total (y).
// Barrier inside: call in uniform control flow, after every earlier reader of
// `scan_totals` is done.
fn workgroup_exclusive_sum(x: u32, ids: Ids, grp: Group) -> vec2<u32> {
    let before = subgroupExclusiveAdd(x);
    if ids.lane == grp.width - 1u {
        scan_totals[ids.subgroup] = before + x;
    }
    workgroupBarrier();
    var offset = before;
    var total = 0u;
    let subgroups = subgroup_count(grp);
    for (var c = 0u; c < subgroups; c += grp.width) {
        let s = c + ids.lane;
        var t = 0u;
        if s < subgroups {
            t = scan_totals[s];
        }
        offset += subgroupAdd(select(0u, t, s < ids.subgroup));
        total += subgroupAdd(t);
    }
    return vec2<u32>(offset, total);
}

// Exclusive scan over the workgroup of the digit counts `x` (invocation `position`
// holds digits position * DPT ..< (position + 1) * DPT, zeros past RADIX); returns the
// total. Barriers inside: call in uniform control flow.
fn scan_digits(x: ptr<function, array<u32, DPT>>, ids: Ids, grp: Group) -> u32 {
    var sum = 0u;
    for (var j = 0u; j < DPT; j++) {
        let v = (*x)[j];
        (*x)[j] = sum;
        sum += v;
    }
    workgroupBarrier();  // earlier readers of scan_totals are done
    let scanned = workgroup_exclusive_sum(sum, ids, grp);
    for (var j = 0u; j < DPT; j++) {
        (*x)[j] += scanned.x;
    }
    return scanned.y;
}
