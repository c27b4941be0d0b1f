alias Mask = u32;
fn ballot(b: bool) -> Mask { return subgroupBallot(b).x; }
fn lanes_below(lane: u32) -> Mask { return (1u << lane) - 1u; }
fn bit_count(m: Mask) -> u32 { return countOneBits(m); }
// (bit 31 set: an empty mask gives a lane in range)
fn lowest_lane(m: Mask) -> u32 { return firstTrailingBit(m | 0x80000000u); }
