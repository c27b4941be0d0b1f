// transpose: dst(y, x) = src(x, y). One workgroup of 32 x 8 threads moves a 32 x 32 tile
// through workgroup memory: coalesced row reads of src, coalesced row writes of dst. The
// tile has 33 columns so the column-wise read back hits 32 different banks.
//
// Straight-line code: each thread issues its 4 loads before its first store (more
// memory in flight per thread), and a tile wholly inside the grid (all but the ragged
// right and bottom edge tiles) takes a path without per-element bounds checks; edge tiles
// check every element. Why: an earlier kernel (the same tile moved in two loops, a
// bounds check on every element) ran well below a vec4 copy's speed, lost to naga's
// runtime checks on its looped code (index checks and loop bounding) and to its
// per-element checks; this kernel runs near copy speed with naga's checks on (figures:
// docs/PERFORMANCE.md; history: lab/perf-journal.md; lab/src/bin/grid_lab.rs).
{{ENABLE}}
alias T = {{T}};

// Bindings and Params (wgsl/grid2d_params.wgsl).
{{PARAMS}}

const TILE: u32 = 32u;

var<workgroup> tile: array<array<T, 33>, 32>;

@compute @workgroup_size(32, 8)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // Uniform per workgroup (workgroup_id, num_workgroups, constants, a uniform), so `full` is
    // uniform too and the barrier below is in uniform control flow.
    let g = remap(group.xy, groups.xy);
    let x0 = g.x * TILE;
    let y0 = g.y * TILE;
    let full = x0 + TILE <= p.src_w && y0 + TILE <= p.src_h;

    // Thread (lx, ly) loads src(x0 + lx, y0 + ly + 8k), k = 0..3: 32-wide row segments.
    let sx = x0 + lid.x;
    let sy = y0 + lid.y;
    var v0: T;
    var v1: T;
    var v2: T;
    var v3: T;
    if full {
        let at = sy * p.src_pitch + sx;
        v0 = src[at];
        v1 = src[at + 8u * p.src_pitch];
        v2 = src[at + 16u * p.src_pitch];
        v3 = src[at + 24u * p.src_pitch];
    } else if sx < p.src_w {
        // A ragged edge tile: rows past the bottom are skipped (their tile slots hold
        // zeros that no store below reads back).
        let at = sy * p.src_pitch + sx;
        if sy < p.src_h {
            v0 = src[at];
        }
        if sy + 8u < p.src_h {
            v1 = src[at + 8u * p.src_pitch];
        }
        if sy + 16u < p.src_h {
            v2 = src[at + 16u * p.src_pitch];
        }
        if sy + 24u < p.src_h {
            v3 = src[at + 24u * p.src_pitch];
        }
    }
    tile[lid.y][lid.x] = v0;
    tile[lid.y + 8u][lid.x] = v1;
    tile[lid.y + 16u][lid.x] = v2;
    tile[lid.y + 24u][lid.x] = v3;
    workgroupBarrier();

    // Thread (lx, ly) stores dst(y0 + lx, x0 + ly + 8k) = src(x0 + ly + 8k, y0 + lx)
    // = tile[lx][ly + 8k]: 32-wide row segments of dst.
    let o0 = tile[lid.x][lid.y];
    let o1 = tile[lid.x][lid.y + 8u];
    let o2 = tile[lid.x][lid.y + 16u];
    let o3 = tile[lid.x][lid.y + 24u];
    let dx = y0 + lid.x;
    let dy = x0 + lid.y;
    if full {
        let at = dy * p.dst_pitch + dx;
        dst[at] = o0;
        dst[at + 8u * p.dst_pitch] = o1;
        dst[at + 16u * p.dst_pitch] = o2;
        dst[at + 24u * p.dst_pitch] = o3;
    } else if dx < p.dst_w {
        let at = dy * p.dst_pitch + dx;
        if dy < p.dst_h {
            dst[at] = o0;
        }
        if dy + 8u < p.dst_h {
            dst[at + 8u * p.dst_pitch] = o1;
        }
        if dy + 16u < p.dst_h {
            dst[at + 16u * p.dst_pitch] = o2;
        }
        if dy + 24u < p.dst_h {
            dst[at + 24u * p.dst_pitch] = o3;
        }
    }
}
