var<workgroup> counts: array<atomic<u32>, {{STAGING_WORDS}}u>;
fn stage_store(i: u32, v: u32) { atomicStore(&counts[i], v); }
fn stage_load(i: u32) -> u32 { return atomicLoad(&counts[i]); }
