
    var peers: array<Mask, KPT>;
    for (var k = 0u; k < KPT; k++) {
        let d = row_digit(digits[k / 4u], k);
        let top = (d & 0x80u) != 0u;
        let votes = ballot(top);
        peers[k] = select(~votes, votes, top);
    }
    let d0 = row_digit(digits[0], 0u);
    // The condition is one ballot's count, the same in every lane: the subgroup takes
    // one branch, which WGSL's uniformity analysis cannot see (it takes a ballot for a
    // value that may differ by lane), hence `onesweep`'s filter; the branches' subgroup
    // operations are the built-ins themselves (one-word masks), as a function's filter
    // covers only the calls written in it.
    if bit_count(ballot(d0 == subgroupBroadcastFirst(d0))) >= max(grp.width / 4u, 2u) {
        // Crowded: the low seven bits by ballots too.
        for (var k = 0u; k < KPT; k++) {
            let d = row_digit(digits[k / 4u], k);
            var m = peers[k] & subgroupBallot(row0 + k * grp.width < params.n).x;
            for (var b = 0u; b < 7u; b++) {
                let one = ((d >> b) & 1u) != 0u;
                let votes = subgroupBallot(one).x;
                m &= select(~votes, votes, one);
            }
            peers[k] = m;
        }
    } else {
        let table = COUNTER_WORDS + ids.subgroup * 128u;
        let bit = 1u << ids.lane;
        for (var k = 0u; k < KPT; k++) {
            let valid = row0 + k * grp.width < params.n;
            let slot = table + (row_digit(digits[k / 4u], k) & 127u);
            if valid {
                atomicOr(&counts[slot], bit);
            }
            subgroupBarrier();
            peers[k] &= atomicLoad(&counts[slot]);
            subgroupBarrier();
            if valid {
                atomicAnd(&counts[slot], ~bit);
            }
        }
    }
