// Row reductions of grids with short rows (Ctx::reduce_rows): G invocations of one
// subgroup take a row, read it in LANES-element pieces (vec4 units where every row
// starts at a whole unit), four pieces in flight at a time, and meet by a butterfly of
// subgroup shuffles; the first of them writes the row's value. Workgroups walk the rows
// in a grid-stride loop. The order of combination depends only on the width and G, so
// float results repeat bit for bit.
{{ENABLE}}
alias T = {{T}};
alias A = {{A}};

const WG: u32 = {{WG}}u;
const G: u32 = {{ACROSS}}u;        // invocations per row: a power of two, at most the subgroup size
const ROWS: u32 = WG / G;     // rows a workgroup takes at once
const LANES: u32 = {{LANES}}u;

struct GpRowsParams {
    width: u32,       // elements per row
    height: u32,      // rows
    pitch: u32,       // elements from one row's start to the next
    units: u32,       // pieces per row: width / LANES, rounded up
    groups: u32,      // workgroups that take part; surplus ones of a folded grid return
    opaque_zero: u32, // always 0; the compiler cannot know it (the compensated sum)
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> gp_reduce: GpRowsParams;
@group(0) @binding(4) var<storage, read_write> gp_out: array<T>;

// The operation: gp_identity(), gp_lift(T) -> A, gp_combine(A, A) -> A, gp_finish(A) -> T.
{{OP}}

// The values at binding 2: gp_load(y, x) -> array<A, LANES>, the piece at (x, y).
{{LOAD}}

// Piece u of row y, its elements past the width left out.
fn gp_piece(y: u32, u: u32) -> A {
    let x = u * LANES;
    let v = gp_load(y, x);
    var acc = v[0];
    for (var j = 1u; j < LANES; j++) {
        if x + j < gp_reduce.width {
            acc = gp_combine(acc, v[j]);
        }
    }
    return acc;
}

@compute @workgroup_size({{WG}})
fn rows_main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(subgroup_invocation_id) subgroup_lane: u32,
    @builtin(subgroup_size) subgroup_size: u32,
    @builtin(subgroup_id) subgroup: u32,
) {
    let g = group.x + groups.x * (group.y + groups.y * group.z);
    if g >= gp_reduce.groups {
        return;
    }
    // Invocations numbered subgroup by subgroup, so a row's G are in one subgroup.
    let position = subgroup * subgroup_size + subgroup_lane;
    let slot = position / G;
    let l = position % G;
    let units = gp_reduce.units;
    // The workgroup's rows a block at a time, so that every invocation runs the loop
    // alike and the shuffles stay in (subgroup-)uniform control flow; the rows of the
    // last block past the height are left out around them.
    for (var first = g * ROWS; first < gp_reduce.height; first += gp_reduce.groups * ROWS) {
        let y = first + slot;
        let row = y < gp_reduce.height;
        var acc = gp_identity();
        if row {
            var u = l;
            for (; u + 3u * G < units; u += 4u * G) {
                let a = gp_piece(y, u);
                let b = gp_piece(y, u + G);
                let c = gp_piece(y, u + 2u * G);
                let d = gp_piece(y, u + 3u * G);
                acc = gp_combine(acc, gp_combine(gp_combine(a, b), gp_combine(c, d)));
            }
            for (; u < units; u += G) {
                acc = gp_combine(acc, gp_piece(y, u));
            }
        }
        for (var m = G / 2u; m > 0u; m >>= 1u) {
            acc = gp_combine(acc, subgroupShuffleXor(acc, m));
        }
        if l == 0u && row {
            gp_out[y] = gp_finish(acc);
        }
    }
}
