// Workgroup scan with subgroup operations. Invocations are ordered subgroup by subgroup
// (`position`), so each subgroup's scan covers consecutive elements whatever the
// hardware's mapping of invocations to subgroups.
struct Ids {
    @builtin(local_invocation_index) lane: u32,
    @builtin(subgroup_invocation_id) subgroup_lane: u32,
    @builtin(subgroup_size) subgroup_size: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
}

fn position(ids: Ids) -> u32 {
    return ids.subgroup * ids.subgroup_size + ids.subgroup_lane;
}

// Inclusive scan across the subgroup. Subgroup-uniform at run time, though not to the
// spec's analysis: the shuffle scan's loop runs to `ids.subgroup_size`, uniform, but Tint
// takes `ids` as one value, non-uniform for the invocation ids it holds.
@diagnostic(off, subgroup_uniformity)
fn subgroup_inclusive(x: A, ids: Ids) -> A {
{{SUBGROUP_INCLUSIVE}}
}

var<workgroup> subgroup_totals: array<A, WG>;

fn wg_exclusive(x: A, ids: Ids) -> A {
    let inclusive = subgroup_inclusive(x, ids);
    let shifted = subgroupShuffleUp(inclusive, 1u);
    var before = invocation_prefix(subgroupShuffle(inclusive, ids.subgroup_size - 1u), ids);
    if ids.subgroup_lane != 0u {
        before = combine(before, shifted);
    }
    return before;
}

// Striped tiles: unit k of lane l of subgroup s is the tile's unit
// (s * V + k) * size + l, so a subgroup's loads and stores are contiguous.
fn unit_of(t: u32, ids: Ids, k: u32) -> u32 {
    return t * TILE_UNITS + (ids.subgroup * V + k) * ids.subgroup_size + ids.subgroup_lane;
}

// Unit k's offset within the subgroup's units: the rows before k (`carry`, which
// folds the subgroup's row totals) and the lanes before this one in row k.
fn row_offset(k: u32, total: A, ids: Ids, carry: ptr<function, A>) -> A {
    let inclusive = subgroup_inclusive(total, ids);
    var lanes = subgroupShuffleUp(inclusive, 1u);
    if ids.subgroup_lane == 0u {
        lanes = identity();
    }
    let row = subgroupShuffle(inclusive, ids.subgroup_size - 1u);
    let before = *carry;
    if k == 0u {
        *carry = row;
        return lanes;
    }
    *carry = combine(before, row);
    return combine(before, lanes);
}

// The subgroup's prefix within the tile, from its total `carry` (the same in every
// lane): the totals of the subgroups before it.
fn invocation_prefix(carry: A, ids: Ids) -> A {
    workgroupBarrier();  // the previous scan's readers are done with subgroup_totals
    if ids.subgroup_lane == 0u {
        subgroup_totals[ids.subgroup] = carry;
    }
    workgroupBarrier();
    var before = identity();
    for (var i = 0u; i < ids.subgroup; i++) {
        before = combine(before, subgroup_totals[i]);
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
