// Column reduction (Ctx::reduce_columns): one value per column of a row-major grid.
//
// A workgroup takes COLS * LANES consecutive columns (so each row's read is contiguous;
// LANES = 4 where rows start at whole vec4 units, each invocation loading one vec4) and
// a block of rows; its invocations are PHASES rows apart, each folding its columns down
// every PHASES-th row of the block, four rows per step. The phases are then combined in
// order through workgroup memory. With one row block the result is written at once;
// with several (tall grids, few columns), each block leaves a partial per column and
// `finish_main` combines them in block order. No atomics: float results repeat bit for
// bit.
{{ENABLE}}
alias T = {{T}};
alias A = {{A}};

const WG: u32 = {{WG}}u;
const COLS: u32 = {{ACROSS}}u;
const LANES: u32 = {{LANES}}u;
const PHASES: u32 = WG / COLS;

struct GpColumnsParams {
    width: u32,
    height: u32,
    pitch: u32,
    rows_per_block: u32,
    row_blocks: u32,
    col_blocks: u32,
    groups: u32,      // workgroups dispatched (blocks past them are strided over)
    opaque_zero: u32, // always 0; the compiler cannot know it (the compensated sum)
}

@group(0) @binding(0) var<uniform> gp_reduce: GpColumnsParams;
@group(0) @binding(1) var<storage, read_write> gp_partials: array<A>;
@group(0) @binding(4) var<storage, read_write> gp_out: array<T>;

// The operation: gp_identity(), gp_lift(T) -> A, gp_combine(A, A) -> A, gp_finish(A) -> T.
{{OP}}

// The grid at binding 2 and gp_load(y, x) -> Lanes: the LANES elements from (x, y).
{{LOAD}}

alias Lanes = array<A, LANES>;

// The uniform built-ins apart: a struct with a non-uniform member is non-uniform as a
// whole to WGSL's uniformity analysis, and the block loops hold barriers.
struct GpGroup {
    @builtin(workgroup_id) id: vec3<u32>,
    @builtin(num_workgroups) count: vec3<u32>,
}

fn gp_linear_group(group: GpGroup) -> u32 {
    return group.id.x + group.count.x * (group.id.y + group.count.y * group.id.z);
}

var<workgroup> gp_shared_acc: array<A, WG>;

fn gp_identities() -> Lanes {
    var r: Lanes;
    for (var l = 0u; l < LANES; l++) {
        r[l] = gp_identity();
    }
    return r;
}

fn gp_combine_lanes(a: Lanes, b: Lanes) -> Lanes {
    var r: Lanes;
    for (var l = 0u; l < LANES; l++) {
        r[l] = gp_combine(a[l], b[l]);
    }
    return r;
}

// Combines the PHASES accumulators of each column in phase order: valid in the
// invocations below COLS.
fn gp_combine_phases(acc: Lanes, lane: u32) -> Lanes {
    var total = acc;
    for (var l = 0u; l < LANES; l++) {
        workgroupBarrier();  // earlier readers of the shared array are done
        gp_shared_acc[lane] = acc[l];
        workgroupBarrier();
        if lane < COLS {
            for (var p = 1u; p < PHASES; p++) {
                total[l] = gp_combine(total[l], gp_shared_acc[lane + p * COLS]);
            }
        }
    }
    return total;
}

@compute @workgroup_size({{WG}})
fn columns_main(group: GpGroup, @builtin(local_invocation_index) lane: u32) {
    let phase = lane / COLS;
    let blocks = gp_reduce.col_blocks * gp_reduce.row_blocks;
    let start = gp_linear_group(group);
    for (var g = start; g < blocks; g += gp_reduce.groups) {
        let col = ((g % gp_reduce.col_blocks) * COLS + lane % COLS) * LANES;
        let block = g / gp_reduce.col_blocks;
        let y_end = min(gp_reduce.height, (block + 1u) * gp_reduce.rows_per_block);
        var acc = gp_identities();
        if col < gp_reduce.width {
            var y = block * gp_reduce.rows_per_block + phase;
            // Four independent loads per step keep more requests in flight.
            for (; y + 3u * PHASES < y_end; y += 4u * PHASES) {
                let a = gp_combine_lanes(gp_load(y, col), gp_load(y + PHASES, col));
                let b = gp_combine_lanes(gp_load(y + 2u * PHASES, col), gp_load(y + 3u * PHASES, col));
                acc = gp_combine_lanes(acc, gp_combine_lanes(a, b));
            }
            for (; y < y_end; y += PHASES) {
                acc = gp_combine_lanes(acc, gp_load(y, col));
            }
        }
        let total = gp_combine_phases(acc, lane);
        if lane < COLS {
            for (var l = 0u; l < LANES; l++) {
                if col + l < gp_reduce.width {
                    if gp_reduce.row_blocks == 1u {
                        gp_out[col + l] = gp_finish(total[l]);
                    } else {
                        gp_partials[block * gp_reduce.width + col + l] = total[l];
                    }
                }
            }
        }
    }
}

@compute @workgroup_size({{WG}})
fn finish_main(group: GpGroup, @builtin(local_invocation_index) lane: u32) {
    let phase = lane / COLS;
    let w = gp_reduce.width;
    let start = gp_linear_group(group);
    for (var g = start; g < gp_reduce.col_blocks; g += gp_reduce.groups) {
        let col = (g * COLS + lane % COLS) * LANES;
        var acc = gp_identities();
        // Four independent loads per step and lane, the lanes side by side: this pass is
        // a chain of latencies, and each lane's partials are combined in block order.
        var b = phase;
        for (; b + 3u * PHASES < gp_reduce.row_blocks; b += 4u * PHASES) {
            for (var l = 0u; l < LANES; l++) {
                let x = col + l;
                if x < w {
                    let p = gp_combine(gp_partials[b * w + x], gp_partials[(b + PHASES) * w + x]);
                    let q = gp_combine(gp_partials[(b + 2u * PHASES) * w + x], gp_partials[(b + 3u * PHASES) * w + x]);
                    acc[l] = gp_combine(acc[l], gp_combine(p, q));
                }
            }
        }
        for (; b < gp_reduce.row_blocks; b += PHASES) {
            for (var l = 0u; l < LANES; l++) {
                let x = col + l;
                if x < w {
                    acc[l] = gp_combine(acc[l], gp_partials[b * w + x]);
                }
            }
        }
        let total = gp_combine_phases(acc, lane);
        if lane < COLS {
            for (var l = 0u; l < LANES; l++) {
                if col + l < w {
                    gp_out[col + l] = gp_finish(total[l]);
                }
            }
        }
    }
}
