    let r = params.offset + params.scale * u32_to_unit_f32(bits({{ARG}}));
    return select(r, params.below_hi, r >= params.hi);
