// Workgroup scan through shared memory (Hillis-Steele): log2(WG) steps, two barriers
// each. For adapters without subgroup operations.
struct Ids {
    @builtin(local_invocation_index) lane: u32,
}

fn position(ids: Ids) -> u32 {
    return ids.lane;
}

var<workgroup> scan_shared: array<A, WG>;

fn wg_exclusive(x: A, ids: Ids) -> A {
    workgroupBarrier();  // the previous scan's readers are done with scan_shared
    scan_shared[ids.lane] = x;
    workgroupBarrier();
    var v = x;
    for (var d = 1u; d < WG; d <<= 1u) {
        if ids.lane >= d {
            v = combine(scan_shared[ids.lane - d], v);
        }
        workgroupBarrier();
        scan_shared[ids.lane] = v;
        workgroupBarrier();
    }
    if ids.lane == 0u {
        return identity();
    }
    return scan_shared[ids.lane - 1u];
}

fn wg_total(ids: Ids) -> A {
    return scan_shared[WG - 1u];
}

// Blocked tiles: an invocation owns V consecutive units.
fn unit_of(t: u32, ids: Ids, k: u32) -> u32 {
    return t * TILE_UNITS + ids.lane * V + k;
}

// Unit k's offset within the invocation; `carry` folds the invocation's unit totals.
fn row_offset(k: u32, total: A, ids: Ids, carry: ptr<function, A>) -> A {
    let before = *carry;
    if k == 0u {
        *carry = total;
    } else {
        *carry = combine(before, total);
    }
    return before;
}

// The invocation's prefix within the tile, from its total.
fn invocation_prefix(carry: A, ids: Ids) -> A {
    return wg_exclusive(carry, ids);
}
