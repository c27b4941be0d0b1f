var<workgroup> counts: array<atomic<u32>, {{COUNTER_WORDS}}u>;
var<workgroup> stage: array<u32, TILE>;
fn stage_store(i: u32, v: u32) { stage[i] = v; }
fn stage_load(i: u32) -> u32 { return stage[i]; }
