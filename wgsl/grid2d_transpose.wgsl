// transpose: dst(y, x) = src(x, y). One workgroup of 32 x 8 threads moves a 32 x 32 tile
// through workgroup memory: coalesced row reads of src, coalesced row writes of dst. The
// tile has 33 columns so the column-wise read back hits 32 different banks.
{{ENABLE}}
alias T = {{T}};

// gpuprim::SWIZZLE_WGSL
{{SWIZZLE}}

struct Params {
    src_w: u32,
    src_h: u32,
    src_pitch: u32,
    dst_w: u32,
    dst_h: u32,
    dst_pitch: u32,
    n: u32,    // swizzle tile width in workgroups; 0 = off
    pad: u32,
}

@group(0) @binding(0) var<storage, read> src: array<T>;
@group(0) @binding(1) var<storage, read_write> dst: array<T>;
@group(0) @binding(2) var<uniform> p: Params;

const TILE: u32 = 32u;
const ROWS: u32 = 8u;

var<workgroup> tile: array<array<T, 33>, 32>;

@compute @workgroup_size(32, 8)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // Uniform per workgroup (workgroup_id, num_workgroups, a uniform), so the barrier
    // below is in uniform control flow.
    var g = group.xy;
    if p.n != 0u {
        g = swizzle_group(g, groups.xy, p.n);
    }
    let x = g.x * TILE + lid.x;
    for (var j = 0u; j < TILE; j += ROWS) {
        let y = g.y * TILE + lid.y + j;
        if x < p.src_w && y < p.src_h {
            tile[lid.y + j][lid.x] = src[y * p.src_pitch + x];
        }
    }
    workgroupBarrier();
    let ox = g.y * TILE + lid.x;
    for (var j = 0u; j < TILE; j += ROWS) {
        let oy = g.x * TILE + lid.y + j;
        if ox < p.dst_w && oy < p.dst_h {
            dst[oy * p.dst_pitch + ox] = tile[lid.x][lid.y + j];
        }
    }
}
