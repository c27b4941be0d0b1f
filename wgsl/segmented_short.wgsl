// Segmented reduction of short segments (Ctx::segmented_reduce where the segments are
// short on average): G invocations of one subgroup take a segment, read the vec4 units
// it touches (the lanes of a unit outside the segment left out), four units in flight
// at a time, and meet by a butterfly of subgroup shuffles; the first of them writes the
// segment's value. Workgroups walk the segments in a grid-stride loop, so the work is a
// reduction's with the offsets read once more, and no tile is marked or scanned.
//
// A segment of more than G * PIECES units would leave its invocations alone at work
// long after the others: such a segment is not reduced here. Its invocations write the
// grids of the segmented kernel (`wgsl/segmented.wgsl`) into the indirect dispatch
// arguments, which were zero, and that kernel, dispatched after this one, reduces every
// segment again. So a call either takes this kernel's values for all segments or the
// segmented kernel's for all; which depends only on the lengths, and the order of
// combination in each only on the lengths, so float results repeat bit for bit.
//
// Bounds are clamped to the values: offsets that are not ascending or point past the
// values give unspecified results, never an access outside the buffers.
{{ENABLE}}
alias T = {{T}};
alias A = {{A}};

const WG: u32 = {{WG}}u;
const G: u32 = {{ACROSS}}u;    // invocations per segment: a power of two, at most the subgroup size
const SLOTS: u32 = WG / G;     // segments a workgroup takes at once
const PIECES: u32 = {{PIECES}}u; // units per invocation at most, for a segment taken here

struct GpShortParams {
    n: u32,           // values in all
    segments: u32,
    groups: u32,      // workgroups that take part; surplus ones of a folded grid return
    opaque_zero: u32, // always 0; the compiler cannot know it (the compensated sum)
    tiles: vec4<u32>, // the segmented kernel's grids: tiles_main's (x, y, z) ...
    fixup: vec4<u32>, // ... and fixup_main's
}

@group(0) @binding(0) var<uniform> gp_reduce: GpShortParams;
@group(0) @binding(4) var<storage, read_write> gp_out: array<T>;
@group(0) @binding(5) var<storage, read> gp_offsets: array<u32>;
// The segmented kernel's indirect dispatch arguments: tiles_main's, then fixup_main's.
@group(0) @binding(6) var<storage, read_write> gp_args: array<atomic<u32>, 6>;

// The operation: gp_identity(), gp_lift(T) -> A, gp_combine(A, A) -> A, gp_finish(A) -> T.
{{OP}}

// The values at binding 2: gp_x_load(u) -> vec4<T>, unit u.
{{VALUES}}

// Unit u's values that lie in b..e.
fn gp_unit(u: u32, b: u32, e: u32) -> A {
    let x = gp_x_load(u);
    let base = 4u * u;
    if base >= b && base + 4u <= e {
        return gp_combine(gp_combine(gp_lift(x.x), gp_lift(x.y)), gp_combine(gp_lift(x.z), gp_lift(x.w)));
    }
    var acc = gp_identity();
    for (var j = 0u; j < 4u; j++) {
        if base + j >= b && base + j < e {
            acc = gp_combine(acc, gp_lift(x[j]));
        }
    }
    return acc;
}

@compute @workgroup_size({{WG}})
fn short_main(
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
    // Invocations numbered subgroup by subgroup, so a segment's G are in one subgroup.
    let position = subgroup * subgroup_size + subgroup_lane;
    let slot = position / G;
    let l = position % G;
    let segs = gp_reduce.segments;
    // The workgroup's segments a block at a time, so that every invocation runs the loop
    // alike and the shuffles stay in (subgroup-)uniform control flow; the slots of the
    // last block past the segments are left out around them.
    for (var first = g * SLOTS; first < segs; first += gp_reduce.groups * SLOTS) {
        let s = first + slot;
        var acc = gp_identity();
        var done = false;  // this slot's segment is reduced here, to be written
        if s < segs {
            let e = min(gp_offsets[s + 1u], gp_reduce.n);
            let b = min(gp_offsets[s], e);
            let u1 = (e + 3u) / 4u;
            let units = u1 - b / 4u;
            if units > G * PIECES {
                if l == 0u {
                    for (var k = 0u; k < 3u; k++) {
                        atomicStore(&gp_args[k], gp_reduce.tiles[k]);
                        atomicStore(&gp_args[3u + k], gp_reduce.fixup[k]);
                    }
                }
            } else {
                done = true;
                var u = b / 4u + l;
                for (; u + 3u * G < u1; u += 4u * G) {
                    let p = gp_unit(u, b, e);
                    let q = gp_unit(u + G, b, e);
                    let r = gp_unit(u + 2u * G, b, e);
                    let t = gp_unit(u + 3u * G, b, e);
                    acc = gp_combine(acc, gp_combine(gp_combine(p, q), gp_combine(r, t)));
                }
                for (; u < u1; u += G) {
                    acc = gp_combine(acc, gp_unit(u, b, e));
                }
            }
        }
        for (var m = G / 2u; m > 0u; m >>= 1u) {
            acc = gp_combine(acc, subgroupShuffleXor(acc, m));
        }
        if l == 0u && done {
            gp_out[s] = gp_finish(acc);
        }
    }
}
