alias Mask = vec4<u32>;
const WORDS: vec4<u32> = vec4<u32>({{WORDS}});
fn ballot(b: bool) -> Mask { return subgroupBallot(b) & WORDS; }
fn lanes_below(lane: u32) -> Mask {
    var m = vec4<u32>(0u);
    for (var w = 0u; w < 4u; w++) {
        let low = w * 32u;
        if lane >= low + 32u {
            m[w] = 0xffffffffu;
        } else if lane > low {
            m[w] = (1u << (lane - low)) - 1u;
        }
    }
    return m & WORDS;
}
fn bit_count(m: Mask) -> u32 {
    let c = countOneBits(m & WORDS);
    return c.x + c.y + c.z + c.w;
}
fn lowest_lane(m: Mask) -> u32 {
    let w = m & WORDS;
    for (var i = 0u; i < 4u; i++) {
        if w[i] != 0u {
            return i * 32u + firstTrailingBit(w[i]);
        }
    }
    return 0u;
}
