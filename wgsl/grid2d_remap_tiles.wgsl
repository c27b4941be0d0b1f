fn remap(g: vec2<u32>, groups: vec2<u32>) -> vec2<u32> {
    let s = SwizzleParams({{SWIZZLE_PARAMS}});
    return swizzle_tiles(g, vec2<u32>({{GROUPS}}), s);
}
