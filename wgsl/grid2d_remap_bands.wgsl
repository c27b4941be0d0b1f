fn remap(g: vec2<u32>, groups: vec2<u32>) -> vec2<u32> {
    let flat = g.y * {{WIDTH}}u + g.x;
    let band = flat / {{PER_BAND}}u;
    let local = flat % {{PER_BAND}}u;
    let band_h = {{BAND_H}};
    return vec2<u32>(local / band_h, band * {{ROWS}}u + local % band_h);
}
