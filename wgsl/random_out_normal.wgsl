    let r1 = {{R1}};
    let r2 = {{R2}};
    return params.offset + params.scale * box_muller(r1, r2);
