
    var peers: array<Mask, KPT>;
    for (var k = 0u; k < KPT; k++) {
        peers[k] = peers_of(row_digit(digits[k / 4u], k), row0 + k * grp.width < params.n);
    }
