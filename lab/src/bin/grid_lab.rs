//! grid_lab: a self-contained experiment for issue #6 (2D kernels).
//!
//! Two questions, on square f32 images (4096^2 and 8192^2 on a GPU, 512^2 on a CPU
//! adapter such as lavapipe):
//!
//! 1. How close can a transpose get to copy bandwidth? The issue's target is >= 0.9x of
//!    a device-to-device copy; `ctx.transpose` (32 x 32 tile, 32 x 8 threads) reached
//!    0.55x / 0.69x of the 2^28 copy kernel on the H100. Here every candidate runs next to
//!    copy kernels of the same size and launch shape.
//! 2. Why does thread-group-ID swizzling make the 5-tap vertical blur (`map2d`, 16 x 16
//!    workgroups) 18-21% slower? Variants separate the swizzle's ALU cost (computed and
//!    discarded; constants baked in; naga's runtime checks off) from its effect on the
//!    order of memory accesses (n = 4, 8, 16, 32; row bands).
//!
//! Every kernel is built here from WGSL in this file, through gpuprim's device
//! (`ctx.device()`, `ctx.queue()`): nothing in `src/` is used except `Ctx` and `GpuVec`,
//! `gpuprim::SWIZZLE_WGSL` (for the `swizzle_tiles` row) and the `ctx.` rows, which call
//! the library's `ctx.map2d` and `ctx.transpose` (one submission per call, as always).
//! Every kernel is checked against a CPU reference on a random image (all pixels
//! different, none zero) before it is timed, at the timed size and at a ragged 200 x 92
//! image (partial tiles, not square). The destination is cleared to zero first: no pixel
//! and no correct output is zero, so an element left unwritten is caught. Copies and
//! transposes must match bit for bit, the blur within 1e-6 relative. A row whose check
//! fails says FAIL (it is still timed) and the run exits with status 1.
//!
//! Timing: GPU timestamps (the bandwidth table's `GpuTimer`, its marks recorded into
//! the round's command buffer) around a round of back-to-back calls recorded into one
//! command buffer (one compute pass per call, so wgpu puts a barrier between calls as it
//! does between gpuprim calls); warm-up of `--warm-ms` (500) per row, then 11 rounds of
//! 20 calls (5 of 4 on a CPU adapter), median ms per call. Rows marked "one submit per
//! call" submit each call separately, as gpuprim's own calls did before gpuprim batched
//! the calls made while the GPU is busy (the library rows are timed that way too: see
//! `Lab::round`).
//! GB/s counts the image read once and written once (8 bytes per pixel); "vs copy" is
//! that bandwidth over the faster of the two vec4 copy kernels at the same size.
//!
//! Rows (the table in `cases`, one line a row; `--wgsl` prints any row's kernel):
//! - copies: vec4 grid-stride (gpuprim's map kernel, <= 32768 groups of 256), vec4 one per
//!   thread, the same with one submit per call, `copy_buffer_to_buffer`, and a plain copy
//!   in the launch shape of each transpose family (32x32/32x8, 64x64/64x4, vec4 64x64/16x16,
//!   vec4 32x32/8x8: loads and stores as the transpose does them, no shared tile).
//! - T-a: the old grid2d_transpose.wgsl verbatim (the library's kernel before T-b replaced
//!   it): swizzle off; n = 16; one submit per call (as `ctx.transpose` is timed in
//!   lab/perf-journal.md); naga's runtime checks off.
//! - T-b: 32x32 tile, 32x8 threads, straight-line: 4 loads, then shared stores, barrier,
//!   4 shared loads, 4 stores; full tiles skip bounds checks. Also checks off, and a
//!   row pitch of side + 32.
//! - T-c: 64x64 tile, 64x4 threads, 16 loads per thread before any store.
//! - T-d: vec4 in, vec4 out: 64x64 tile, 16x16 threads, each a 4x4 block (4 vec4 loads,
//!   register transpose, XOR-swizzled vec4 shared tile, 4 vec4 stores). Also checks
//!   off, pitch side + 32, and T-d32 (32x32 tile, 8x8 = 64-thread groups).
//! - T-e1: T-b and T-d as persistent kernels (`--persistent` groups, grid-stride over
//!   tiles). T-e2: two 32x32 tiles per group (32 wide x 64 tall, or 64 x 32), 8 loads per
//!   thread in flight. T-e3: T-b in Harris's diagonal block order.
//! - `ctx.transpose` (the library's kernel, now T-b), swizzle off and n = 16, one
//!   submit per call.
//! - B: the 5-tap vertical blur (map2d's text, 16x16 groups): linear; swizzle n = 16
//!   (the old `swizzle_group`, three divisions); n = 16 computed and discarded; n = 16
//!   with the grid baked in as constants; n = 16 and linear with naga's checks off;
//!   n = 4, 8, 32; row bands 2, 4, 8 groups tall; linear with 32x8 groups; 32x8 and
//!   64x4 groups, linear and swizzled (n = 16, 8, 4: wider tile rows); n = 16 with
//!   the library's `swizzle_tiles` (host-computed divisors and f32 reciprocals, no
//!   division). And `ctx.map2d` with the blur as its body, swizzle off and n = 16 (now
//!   `swizzle_tiles`), one submit per call.
//!
//! ```sh
//! cargo run --release -p gpuprim-lab --bin grid_lab                      # 4096, 8192 (512 on a CPU)
//! cargo run --release -p gpuprim-lab --bin grid_lab -- --sides 2048,4096 --filter transpose
//! ```
//!
//! Guesses specific to the H100 (SXM/PCIe 80 GB, 132 SMs), stated where they are used:
//! - [H100-1] 132 SMs x 2048 threads: 8 resident workgroups of 256 threads per SM, so
//!   1056 workgroups fill the machine once (the persistent, grid-stride candidates).
//! - [H100-2] HBM3 at ~3.35 TB/s peak and ~600-800 ns latency need ~16-20 KB of loads in
//!   flight per SM; 8 groups x 256 threads x 4 loads x 4 B = 32 KB only if each thread
//!   issues its loads before its first store (candidates b, c, e).
//! - [H100-3] Shared memory: 32 banks of 4 bytes; a 128-bit access is served a quarter
//!   warp (8 lanes) at a time, so vec4 tiles need the 8 lanes of a quarter warp on 8
//!   different 16-byte bank groups (the XOR layout of candidate d).
//! - [H100-4] 50 MB L2: a 4096^2 f32 image (64 MiB) does not fit, so both sizes stream
//!   from DRAM; a 128-byte line holds 32 f32, so a 16 x 16 workgroup's warp reads two
//!   64-byte halves of lines (the 32 x 8 blur row).
//! - [H100-5] No integer divider: each u32 `/` or `%` by a value unknown to the compiler
//!   costs ~20 instructions, plus naga's guard against a zero divisor. `swizzle_group`
//!   has six, in every thread (the "discarded", "baked" and "unchecked" blur rows).
//! - [H100-6] DRAM addresses are hashed over channels, so Harris's "partition camping"
//!   (fixed by a diagonal block order on G80/GT200) should be gone; the diagonal row and
//!   the padded-pitch rows (a row pitch of side + 32 instead of a power of two) test it.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::rc::Rc;
use std::time::Instant;

use gpuprim::{Ctx, GpuVec, Grid2D, Grid2DMut, Swizzle, wgpu};
use rayon::prelude::*;

use gpuprim_lab::harness::{self, Args, LabResult, scoped};
use gpuprim_lab::timing::GpuTimer;

const USAGE: &str = "grid_lab: transpose and swizzle experiments (issue #6)

usage: cargo run --release -p gpuprim-lab --bin grid_lab -- [flags]
  --sides A,B,...    image sides to time (default 4096,8192 on a GPU, 512 on a CPU adapter)
  --warm-ms MS       warm-up per row in ms (default 500 on a GPU, 20 on a CPU adapter)
  --persistent N     workgroups of the grid-stride candidates (default 1056 on a GPU:
                     132 SMs x 8 groups of 256 threads [H100-1]; 64 on a CPU adapter)
  --filter TEXT      only rows whose name contains TEXT (several: --filter a,b)
  --wgsl             print the WGSL of the chosen rows (at the first side) and exit";

/// Rounds and calls per round of a timing: on a GPU, and on a CPU adapter.
const ROUNDS: [usize; 2] = [11, 5];
const REPS: [usize; 2] = [20, 4];

/// The ragged shape every kernel is also checked at: partial tiles in both directions,
/// not square, multiples of 4 (the vec4 kernels need that).
const RAGGED: (u32, u32) = (200, 92);

// ---------------------------------------------------------------------------------------
// WGSL

/// wgsl/swizzle.wgsl as it was (swizzle_group, verbatim): the old swizzle of the blur
/// rows and of T-a, kept here as the baseline lab/perf-journal.md quotes. The
/// `swizzle_tiles` row uses the library's text, `gpuprim::SWIZZLE_WGSL`.
const SWIZZLE_OLD_WGSL: &str = r#"// Thread-group ID swizzling (NVIDIA, GDC 2019, with the fix for dispatch widths that are
// not a multiple of n): the workgroups of a 2D dispatch, taken in launch order (row-major
// workgroup_id), are sent to vertical tiles n workgroups wide, column by column, so the
// groups running at one time touch a compact area (better L2 reuse) instead of a full row.
// The last tile is narrower when groups.x is not a multiple of n; n is clamped to
// [1, groups.x]. A bijection on the grid. gpuprim::swizzle is the Rust twin.
fn swizzle_group(group: vec2<u32>, groups: vec2<u32>, n_in: u32) -> vec2<u32> {
    let n = clamp(n_in, 1u, max(groups.x, 1u));
    let flat = group.y * groups.x + group.x;
    let per_tile = n * groups.y;
    let tile = flat / per_tile;
    let local = flat % per_tile;
    let tile_w = select(groups.x % n, n, tile < groups.x / n);
    return vec2<u32>(tile * n + local % tile_w, local / tile_w);
}"#;

/// wgsl/grid2d_transpose.wgsl before T-b replaced it, verbatim (filled with T = f32, no
/// ENABLE, the old swizzle): the T-a rows, the baseline lab/perf-journal.md quotes.
const TRANSPOSE_OLD_WGSL: &str = r#"// transpose: dst(y, x) = src(x, y). One workgroup of 32 x 8 threads moves a 32 x 32 tile
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
"#;

/// wgsl/grid2d.wgsl (map2d) with T = f32, the blur as its body, no random library, and
/// the workgroup-order lines (`var g = ...` + the swizzle) as `{{ORDER}}`, so that the
/// linear and n = 4/8/16/32 rows are the library's kernel text exactly.
const MAP2D_WGSL: &str = r#"// map2d: dst(x, y) = body(x, y) over the W x H output grid, one thread per element,
// WX x WY workgroups; the body reads the input anywhere through load(x, y) (clamped to
// the edges). Threads past the output's edge do nothing.
alias T = f32;

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
    pad: u32,{{SWZ_FIELD}}
}

@group(0) @binding(0) var<storage, read> src: array<T>;
@group(0) @binding(1) var<storage, read_write> dst: array<T>;
@group(0) @binding(2) var<uniform> p: Params;

// The input element at (x, y), coordinates clamped to the input's edges.
fn load(x: i32, y: i32) -> T {
    let cx = u32(clamp(x, 0, i32(p.src_w) - 1));
    let cy = u32(clamp(y, 0, i32(p.src_h) - 1));
    return src[cy * p.src_pitch + cx];
}

fn body(x: i32, y: i32) -> T {
    return ((load(x, y - 2) + load(x, y - 1) + load(x, y) + load(x, y + 1) + load(x, y + 2)) * 0.2);
}

{{ORDER_FN}}

@compute @workgroup_size({{WX}}, {{WY}})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    {{ORDER}}
    let x = g.x * {{WX}}u + lid.x;
    let y = g.y * {{WY}}u + lid.y;
    if x >= p.dst_w || y >= p.dst_h {
        return;
    }
    dst[y * p.dst_pitch + x] = body(i32(x), i32(y));
}
"#;

/// The (old) library's order lines: linear when `p.n == 0`, else `swizzle_group(.., p.n)`.
const ORDER_LIBRARY: &str = "var g = group.xy;
    if p.n != 0u {
        g = swizzle_group(g, groups.xy, p.n);
    }";

/// The swizzle computed but its result thrown away (`p.pad` is 0xffffffff, which no
/// group index equals): the swizzle's ALU cost with the linear order [H100-5].
const ORDER_DISCARDED: &str = "var g = group.xy;
    let s = swizzle_group(g, groups.xy, p.n);
    g.x += u32(s.x == p.pad);";

/// The library's order lines now: `swizzle_tiles` with the host's constants in `p.swz`
/// (words 8..16 of the uniform, [`swizzle_tiles_params`]).
const ORDER_TILES: &str = "var g = group.xy;
    if p.swz.n != 0u {
        g = swizzle_tiles(g, groups.xy, p.swz);
    }";

/// Row bands `p.n` workgroups tall, walked left to right, each column of a band top to
/// bottom (the swizzle's tiles turned on their side); same divisions as swizzle_group.
const ORDER_BANDS_FN: &str =
    "fn band_group(group: vec2<u32>, groups: vec2<u32>, b_in: u32) -> vec2<u32> {
    let b = clamp(b_in, 1u, max(groups.y, 1u));
    let flat = group.y * groups.x + group.x;
    let per_band = b * groups.x;
    let band = flat / per_band;
    let local = flat % per_band;
    let band_h = select(groups.y % b, b, band < groups.y / b);
    return vec2<u32>(local / band_h, band * b + local % band_h);
}";

const ORDER_BANDS: &str = "let g = band_group(group.xy, groups.xy, p.n);";

/// The `SwizzleParams` of `gpuprim::SWIZZLE_WGSL`'s `swizzle_tiles` for a dispatch of
/// `groups` and tile width `n` (0: off), as src/ops/grid2d/swizzle.rs computes them
/// (private there): n clamped, n * groups.y, full tiles, the last tile's width, the f32
/// nearest reciprocals of those three divisors, and 1 past 2^24 workgroups (then it
/// divides).
fn swizzle_tiles_params(groups: (u32, u32), n: u32) -> [u32; 8] {
    let (w, h) = groups;
    if n == 0 || w == 0 || h == 0 {
        return [0; 8];
    }
    let n = n.clamp(1, w);
    let rcp = |d: u32| if d == 0 { 0.0f32 } else { 1.0 / d as f32 };
    let per_tile = n.wrapping_mul(h);
    [
        n,
        per_tile,
        w / n,
        w % n,
        rcp(per_tile).to_bits(),
        rcp(n).to_bits(),
        rcp(w % n).to_bits(),
        u32::from(u64::from(w) * u64::from(h) > 1 << 24),
    ]
}

/// swizzle_group for one grid, with the grid and n as WGSL constants, so the compiler
/// turns the divisions into multiplies and shifts [H100-5].
fn baked_swizzle_fn(gx: u32, gy: u32, n: u32) -> String {
    let n = n.clamp(1, gx.max(1));
    let tile_w = if gx.is_multiple_of(n) {
        format!("{n}u")
    } else {
        format!("select({}u, {n}u, tile < {}u)", gx % n, gx / n)
    };
    format!(
        "fn baked_group(group: vec2<u32>) -> vec2<u32> {{
    let flat = group.y * {gx}u + group.x;
    let tile = flat / {per_tile}u;
    let local = flat % {per_tile}u;
    let tile_w = {tile_w};
    return vec2<u32>(tile * {n}u + local % tile_w, local / tile_w);
}}",
        per_tile = n * gy,
    )
}

/// The shared head of the kernels written here: gpuprim's Params layout (every kernel
/// gets the same 8 u32), the bindings, and bounds-checked element access for partial
/// tiles.
fn head(elem: &str) -> String {
    format!(
        "struct Params {{
    src_w: u32,
    src_h: u32,
    src_pitch: u32,
    dst_w: u32,
    dst_h: u32,
    dst_pitch: u32,
    n: u32,    // persistent: tiles per row
    pad: u32,  // persistent: tiles in all; 1D copies: vec4s
}}

@group(0) @binding(0) var<storage, read> src: array<{elem}>;
@group(0) @binding(1) var<storage, read_write> dst: array<{elem}>;
@group(0) @binding(2) var<uniform> p: Params;
"
    )
}

const SCALAR_EDGE_FNS: &str = "
fn ld(x: u32, y: u32) -> f32 {
    if x < p.src_w && y < p.src_h {
        return src[y * p.src_pitch + x];
    }
    return 0.0;
}

fn st(x: u32, y: u32, v: f32) {
    if x < p.dst_w && y < p.dst_h {
        dst[y * p.dst_pitch + x] = v;
    }
}
";

/// How a kernel's workgroups find their tiles.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Walk {
    /// One tile per workgroup, the tile at `workgroup_id`.
    Grid,
    /// Harris's diagonal block order (partition camping, [H100-6]): the flat launch index
    /// read column-major, each row shifted by its index.
    Diagonal,
    /// A 1D dispatch of a few workgroups (`--persistent`) looping over all tiles.
    Persistent,
}

/// `main` for a kernel whose tile work is `move_tile(tile, lid)`.
fn tile_main(tx: u32, ty: u32, walk: Walk, barrier_between: bool) -> String {
    let body = match walk {
        Walk::Grid => "    move_tile(group.xy, lid.xy);".to_string(),
        Walk::Diagonal => "    let bid = group.x + groups.x * group.y;
    let by = bid % groups.y;
    let bx = (bid / groups.y + by) % groups.x;
    move_tile(vec2<u32>(bx, by), lid.xy);"
            .to_string(),
        Walk::Persistent => format!(
            "    // Grid-stride over tiles; i is uniform (workgroup_id, num_workgroups, p), so
    // the barriers are in uniform control flow.
    for (var i = group.x; i < p.pad; i += groups.x) {{
        move_tile(vec2<u32>(i % p.n, i / p.n), lid.xy);{}
    }}",
            if barrier_between {
                "\n        workgroupBarrier(); // the next tile overwrites the shared tile"
            } else {
                ""
            }
        ),
    };
    format!(
        "
@compute @workgroup_size({tx}, {ty})
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {{
{body}
}}
"
    )
}

/// `base + rows * pitch + cols` without the zero terms.
fn offset(base: &str, rows: u32, pitch: &str, cols: u32) -> String {
    let mut s = base.to_string();
    if rows != 0 {
        write!(s, " + {rows}u * {pitch}").unwrap();
    }
    if cols != 0 {
        write!(s, " + {cols}u").unwrap();
    }
    s
}

/// A TW x TH tile of f32 moved by TX x TY threads, straight-line code: every thread issues
/// all its loads (TW/TX x TH/TY of them) before its first store [H100-2]. A full tile
/// takes a path without bounds checks; a partial one checks each element.
///
/// Transpose: through a shared tile `array<array<f32, TW + 1>, TH>` (the extra column
/// puts a column's 32 elements on 32 banks); src rows are read TX elements at a time and
/// dst rows written TX at a time. Copy: the same loads, stored straight to dst at the
/// same position (the launch shape's ceiling).
fn scalar_tile_wgsl(tw: u32, th: u32, tx: u32, ty: u32, transpose: bool, walk: Walk) -> String {
    assert!(
        tw.is_multiple_of(tx)
            && th.is_multiple_of(ty)
            && th.is_multiple_of(tx)
            && tw.is_multiple_of(ty)
    );
    let mut s = head("f32");
    s += SCALAR_EDGE_FNS;
    if transpose {
        writeln!(
            s,
            "\nvar<workgroup> tile: array<array<f32, {}>, {th}>;",
            tw + 1
        )
        .unwrap();
    }
    let loads: Vec<(u32, u32)> = (0..th / ty)
        .flat_map(|j| (0..tw / tx).map(move |i| (i * tx, j * ty)))
        .collect();
    write!(
        s,
        "
fn move_tile(t: vec2<u32>, lid: vec2<u32>) {{
    let x0 = t.x * {tw}u;
    let y0 = t.y * {th}u;
    let full = x0 + {tw}u <= p.src_w && y0 + {th}u <= p.src_h;
    let sx = x0 + lid.x;
    let sy = y0 + lid.y;
"
    )
    .unwrap();
    for k in 0..loads.len() {
        writeln!(s, "    var v{k}: f32;").unwrap();
    }
    s += "    if full {\n        let base = sy * p.src_pitch + sx;\n";
    for (k, &(dx, dy)) in loads.iter().enumerate() {
        let at = offset("base", dy, "p.src_pitch", dx);
        writeln!(s, "        v{k} = src[{at}];").unwrap();
    }
    s += "    } else {\n";
    for (k, &(dx, dy)) in loads.iter().enumerate() {
        writeln!(s, "        v{k} = ld(sx + {dx}u, sy + {dy}u);").unwrap();
    }
    s += "    }\n";
    if !transpose {
        store_block(&mut s, ("sx", "sy"), "v", &loads);
        s += &tile_main(tx, ty, walk, false);
        return s;
    }
    for (k, &(dx, dy)) in loads.iter().enumerate() {
        writeln!(s, "    tile[lid.y + {dy}u][lid.x + {dx}u] = v{k};").unwrap();
    }
    s += "    workgroupBarrier();\n";
    // Thread (lx, ly) writes dst columns y0 + lx + i*TX of dst rows x0 + ly + j*TY: the
    // element src(x0 + ly + j*TY, y0 + lx + i*TX) = tile[lx + i*TX][ly + j*TY].
    let stores: Vec<(u32, u32)> = (0..tw / ty)
        .flat_map(|j| (0..th / tx).map(move |i| (i * tx, j * ty)))
        .collect();
    for (k, &(dc, dr)) in stores.iter().enumerate() {
        writeln!(s, "    let o{k} = tile[lid.x + {dc}u][lid.y + {dr}u];").unwrap();
    }
    s += "    let dx = y0 + lid.x;\n    let dy = x0 + lid.y;\n";
    store_block(&mut s, ("dx", "dy"), "o", &stores);
    s += &tile_main(tx, ty, walk, true);
    s
}

/// The end of `move_tile`: stores `{v}k` at dst(x + dx_k, y + dy_k) for each (dx_k, dy_k)
/// of `at`, without bounds checks for a full tile, through `st` for a partial one.
fn store_block(s: &mut String, (x, y): (&str, &str), v: &str, at: &[(u32, u32)]) {
    writeln!(
        s,
        "    if full {{\n        let obase = {y} * p.dst_pitch + {x};"
    )
    .unwrap();
    for (k, &(dx, dy)) in at.iter().enumerate() {
        let o = offset("obase", dy, "p.dst_pitch", dx);
        writeln!(s, "        dst[{o}] = {v}{k};").unwrap();
    }
    *s += "    } else {\n";
    for (k, &(dx, dy)) in at.iter().enumerate() {
        writeln!(s, "        st({x} + {dx}u, {y} + {dy}u, {v}{k});").unwrap();
    }
    *s += "    }\n}\n";
}

/// A TILE x TILE tile moved with vec4 loads along src rows and vec4 stores along dst rows,
/// by (TILE/4) x (TILE/4) threads, each owning one 4 x 4 block: 4 vec4 loads from 4
/// consecutive src rows, a 4 x 4 transpose in registers, 4 vec4 stores into a shared tile
/// laid out as dst rows, barrier, 4 vec4 shared loads along dst rows, 4 vec4 stores.
///
/// Shared layout [H100-3]: dst row r, vec4 column j lives at r * T4 + (j ^ ((r >> 2) & 7)).
/// Writing: the 8 lanes of a quarter warp have the same j and r = 4c + k for c = 0..7,
/// so the XOR sends them to 8 different 16-byte bank groups (without it all 8 would hit
/// one: r * T4 is a multiple of 8 vec4s). Reading: 8 lanes with one r and j = 0..7 (or
/// 8..15) stay on 8 different groups. No padding, 16 KB at TILE = 64.
///
/// Needs width, height and both pitches to be multiples of 4 (a 4 x 4 block is then all
/// inside or all outside the image). Copy: the same loads stored straight to dst.
fn vec4_tile_wgsl(tile: u32, transpose: bool, walk: Walk) -> String {
    let t4 = tile / 4;
    let mut s = head("vec4<f32>");
    if transpose {
        writeln!(s, "\nvar<workgroup> tv: array<vec4<f32>, {}>;", tile * t4).unwrap();
    }
    write!(
        s,
        "
fn move_tile(t: vec2<u32>, lid: vec2<u32>) {{
    let x0 = t.x * {tile}u;
    let y0 = t.y * {tile}u;
    let c = lid.x;   // vec4 column of the block in the tile
    let rb = lid.y;  // row block (4 rows) in the tile
    let sp4 = p.src_pitch / 4u;
    let dp4 = p.dst_pitch / 4u;
    let sx = x0 + 4u * c;
    let sy = y0 + 4u * rb;
    let inside = sx < p.src_w && sy < p.src_h;
    var r0 = vec4<f32>();
    var r1 = vec4<f32>();
    var r2 = vec4<f32>();
    var r3 = vec4<f32>();
    if inside {{
        let base = sy * sp4 + sx / 4u;
        r0 = src[base];
        r1 = src[base + sp4];
        r2 = src[base + 2u * sp4];
        r3 = src[base + 3u * sp4];
    }}
"
    )
    .unwrap();
    if !transpose {
        s += "    if inside {
        let obase = sy * dp4 + sx / 4u;
        dst[obase] = r0;
        dst[obase + dp4] = r1;
        dst[obase + 2u * dp4] = r2;
        dst[obase + 3u * dp4] = r3;
    }
}
";
        s += &tile_main(t4, t4, walk, false);
        return s;
    }
    write!(
        s,
        "    // Column k of the block is dst row 4c + k (of the tile), dst vec4 column rb.
    let slot = rb ^ (c & 7u);
    tv[(4u * c) * {t4}u + slot] = vec4<f32>(r0.x, r1.x, r2.x, r3.x);
    tv[(4u * c + 1u) * {t4}u + slot] = vec4<f32>(r0.y, r1.y, r2.y, r3.y);
    tv[(4u * c + 2u) * {t4}u + slot] = vec4<f32>(r0.z, r1.z, r2.z, r3.z);
    tv[(4u * c + 3u) * {t4}u + slot] = vec4<f32>(r0.w, r1.w, r2.w, r3.w);
    workgroupBarrier();
    // Thread (c, rb) now writes vec4 column c of dst rows rb + {t4} * i.
"
    )
    .unwrap();
    for i in 0..4 {
        writeln!(
            s,
            "    let row{i} = rb + {}u;\n    let o{i} = tv[row{i} * {t4}u + (c ^ ((row{i} >> 2u) & 7u))];",
            i * t4
        )
        .unwrap();
    }
    s += "    let dx = y0 + 4u * c;\n";
    for i in 0..4 {
        writeln!(
            s,
            "    if x0 + row{i} < p.dst_h && dx < p.dst_w {{
        dst[(x0 + row{i}) * dp4 + dx / 4u] = o{i};
    }}"
        )
        .unwrap();
    }
    s += "}\n";
    s += &tile_main(t4, t4, walk, true);
    s
}

/// 1D vec4 copy over `p.pad` vec4s, 256 threads a group, the launch folded into 2D past
/// 65535 groups; `grid_stride` loops (gpuprim's map kernel), else one vec4 per thread.
fn vec4_copy_wgsl(grid_stride: bool) -> String {
    let mut s = head("vec4<f32>");
    let body = if grid_stride {
        "    let stride = groups.x * groups.y * 256u;
    for (var i = first; i < p.pad; i += stride) {
        dst[i] = src[i];
    }"
    } else {
        "    if first < p.pad {
        dst[first] = src[first];
    }"
    };
    write!(
        s,
        "
@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {{
    let first = (group.x + groups.x * group.y) * 256u + lane;
{body}
}}
"
    )
    .unwrap();
    s
}

/// The blur (map2d's text) with an order of workgroups.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Order {
    /// gpuprim's lines: linear when n = 0, else swizzle_group(n).
    Library,
    /// swizzle_group(n) computed, result discarded.
    Discarded,
    /// Row bands n workgroups tall.
    Bands,
    /// swizzle_group with the grid and n baked in as constants.
    Baked(u32),
    /// The library's swizzle_tiles (gpuprim::SWIZZLE_WGSL), constants in `p.swz`.
    Tiles,
}

fn blur_wgsl(order: Order, wx: u32, wy: u32, g: Geom) -> String {
    let (order_fn, order_line) = match order {
        Order::Library => (String::new(), ORDER_LIBRARY.to_string()),
        Order::Discarded => (String::new(), ORDER_DISCARDED.to_string()),
        Order::Bands => (ORDER_BANDS_FN.to_string(), ORDER_BANDS.to_string()),
        Order::Baked(n) => (
            baked_swizzle_fn(g.w.div_ceil(wx), g.h.div_ceil(wy), n),
            "let g = baked_group(group.xy);".to_string(),
        ),
        Order::Tiles => (String::new(), ORDER_TILES.to_string()),
    };
    let (swizzle, swz_field) = match order {
        Order::Tiles => (gpuprim::SWIZZLE_WGSL, "\n    swz: SwizzleParams,"),
        _ => (SWIZZLE_OLD_WGSL, ""),
    };
    MAP2D_WGSL
        .replace("{{SWIZZLE}}", swizzle)
        .replace("{{SWZ_FIELD}}", swz_field)
        .replace("{{ORDER_FN}}", &order_fn)
        .replace("{{ORDER}}", &order_line)
        .replace("{{WX}}", &wx.to_string())
        .replace("{{WY}}", &wy.to_string())
}

fn transpose_old_wgsl() -> String {
    TRANSPOSE_OLD_WGSL
        .replace("{{ENABLE}}", "")
        .replace("{{T}}", "f32")
        .replace("{{SWIZZLE}}", SWIZZLE_OLD_WGSL)
}

// ---------------------------------------------------------------------------------------
// Cases

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Kind {
    Copy,
    Transpose,
    Blur,
}

/// An image shape: `w` x `h` pixels, rows `pad` elements longer than the image (src; dst
/// of a transpose is h wide and w tall, with the same padding).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Geom {
    w: u32,
    h: u32,
    pad: u32,
}

impl Geom {
    fn src_pitch(self) -> u32 {
        self.w + self.pad
    }

    fn src_len(self) -> usize {
        self.h as usize * self.src_pitch() as usize
    }

    /// (width, height, pitch) of the destination.
    fn dst(self, kind: Kind) -> (u32, u32, u32) {
        match kind {
            Kind::Transpose => (self.h, self.w, self.h + self.pad),
            Kind::Copy | Kind::Blur => (self.w, self.h, self.w + self.pad),
        }
    }

    fn dst_len(self, kind: Kind) -> usize {
        let (_, h, pitch) = self.dst(kind);
        h as usize * pitch as usize
    }
}

#[derive(Clone, Copy, Debug)]
enum Launch {
    /// One workgroup per tw x th tile of the source.
    Tiles { tw: u32, th: u32 },
    /// `--persistent` workgroups (at most one per tile) over tw x th tiles.
    Persistent { tw: u32, th: u32 },
    /// One workgroup per 256 vec4s, at most `max_groups` (grid-stride beyond).
    Vec4 { max_groups: u32 },
    /// `encoder.copy_buffer_to_buffer`, no kernel.
    BufferCopy,
    /// A gpuprim call (its own kernel, dispatch and submission).
    Library(LibOp),
}

/// The library calls timed.
#[derive(Clone, Copy, Debug)]
enum LibOp {
    /// `ctx.map2d` with [`BLUR_BODY`].
    Map2dBlur(Swizzle),
    /// `ctx.transpose`.
    Transpose(Swizzle),
}

/// The 5-tap vertical blur as a `ctx.map2d` body: MAP2D_WGSL's body, word for word.
const BLUR_BODY: &str =
    "(load(x, y - 2) + load(x, y - 1) + load(x, y) + load(x, y + 1) + load(x, y + 2)) * 0.2";

type WgslFn = Rc<dyn Fn(Geom) -> String>;

/// How a row runs its kernel, besides the kernel text and launch shape.
#[derive(Clone, Copy, Debug)]
struct Knobs {
    /// Params.n (swizzle width or band height; 0 = off).
    n: u32,
    /// Params.pad.
    pad: u32,
    /// Compiled with `ShaderRuntimeChecks::unchecked()`: no naga bounds clamping on
    /// arrays, no loop-bounding counters, no zero-divisor guards. Safe here: every index
    /// is checked by the kernel itself and every loop ends.
    unchecked: bool,
    /// Each call its own submission (as gpuprim's calls), instead of one command buffer.
    submit_each: bool,
    /// Each call its own command buffer, all of a round in one submission (as gpuprim
    /// batches calls made while the GPU is busy).
    buffer_each: bool,
    /// Extra row pitch (elements) of src and dst.
    pitch_pad: u32,
}

const PLAIN: Knobs = Knobs {
    n: 0,
    pad: 0,
    unchecked: false,
    submit_each: false,
    buffer_each: false,
    pitch_pad: 0,
};
const UNCHECKED: Knobs = PLAIN.unchecked();
const SUBMIT_EACH: Knobs = PLAIN.submit_each();
const BUFFER_EACH: Knobs = Knobs {
    buffer_each: true,
    ..PLAIN
};
const PITCH_32: Knobs = PLAIN.pitch_pad(32);

impl Knobs {
    const fn n(self, n: u32) -> Knobs {
        Knobs { n, ..self }
    }

    const fn pad(self, pad: u32) -> Knobs {
        Knobs { pad, ..self }
    }

    const fn unchecked(self) -> Knobs {
        Knobs {
            unchecked: true,
            ..self
        }
    }

    const fn submit_each(self) -> Knobs {
        Knobs {
            submit_each: true,
            ..self
        }
    }

    const fn pitch_pad(self, pitch_pad: u32) -> Knobs {
        Knobs { pitch_pad, ..self }
    }
}

/// One row: a kernel (or a library call, or `copy_buffer_to_buffer`) and how it runs.
struct Case {
    name: &'static str,
    kind: Kind,
    launch: Launch,
    wgsl: WgslFn,
    knobs: Knobs,
}

impl Case {
    /// A vec4 copy batched in one command buffer: the "vs copy" reference is the faster
    /// of these.
    fn reference(&self) -> bool {
        self.kind == Kind::Copy
            && matches!(self.launch, Launch::Vec4 { .. })
            && !self.knobs.submit_each
            && !self.knobs.buffer_each
    }
}

/// The rows in order: [`Table::kernel`] (or [`Table::blur`]) sets the kernel of the
/// [`Table::row`]s after it, each a name and its knobs.
struct Table {
    cases: Vec<Case>,
    kind: Kind,
    launch: Launch,
    wgsl: WgslFn,
}

impl Table {
    fn kernel_fn(
        &mut self,
        kind: Kind,
        launch: Launch,
        wgsl: impl Fn(Geom) -> String + 'static,
    ) -> &mut Table {
        (self.kind, self.launch, self.wgsl) = (kind, launch, Rc::new(wgsl));
        self
    }

    /// A kernel whose text is the same at every size.
    fn kernel(&mut self, kind: Kind, launch: Launch, wgsl: String) -> &mut Table {
        self.kernel_fn(kind, launch, move |_| wgsl.clone())
    }

    /// A library call or `copy_buffer_to_buffer`: no WGSL of its own.
    fn call(&mut self, kind: Kind, launch: Launch) -> &mut Table {
        self.kernel(kind, launch, String::new())
    }

    /// The blur (map2d's text) in `order`, `wx` x `wy` workgroups.
    fn blur(&mut self, order: Order, wx: u32, wy: u32) -> &mut Table {
        let launch = Launch::Tiles { tw: wx, th: wy };
        self.kernel_fn(Kind::Blur, launch, move |g| blur_wgsl(order, wx, wy, g))
    }

    fn row(&mut self, name: &'static str, knobs: Knobs) -> &mut Table {
        self.cases.push(Case {
            name,
            kind: self.kind,
            launch: self.launch,
            wgsl: self.wgsl.clone(),
            knobs,
        });
        self
    }
}

fn cases(cpu: bool) -> Vec<Case> {
    use Kind::*;
    use Launch::*;
    // gpuprim's map kernel: at most 32768 groups of 256 on a GPU, 256 on a CPU adapter.
    let map = Vec4 {
        max_groups: if cpu { 256 } else { 32768 },
    };
    let per_thread = Vec4 {
        max_groups: u32::MAX,
    };
    let (t32, t64) = (Tiles { tw: 32, th: 32 }, Tiles { tw: 64, th: 64 });
    let (p32, p64) = (Persistent { tw: 32, th: 32 }, Persistent { tw: 64, th: 64 });
    let (t32x64, t64x32) = (Tiles { tw: 32, th: 64 }, Tiles { tw: 64, th: 32 });
    let scalar = scalar_tile_wgsl;
    let (grid, persistent) = (Walk::Grid, Walk::Persistent);
    let tb = scalar(32, 32, 32, 8, true, grid);
    let transpose = |sw| Library(LibOp::Transpose(sw));
    let map2d = |sw| Library(LibOp::Map2dBlur(sw));
    let n16 = Swizzle::Tiles { n: 16 };
    let mut t = Table {
        cases: Vec::new(),
        kind: Copy,
        launch: BufferCopy,
        wgsl: Rc::new(|_| String::new()),
    };
    // -- copies: the reference and each launch shape's ceiling
    t.kernel(Copy, map, vec4_copy_wgsl(true))
        .row("copy vec4, grid-stride <=32768 groups (gpuprim map)", PLAIN);
    t.kernel(Copy, per_thread, vec4_copy_wgsl(false))
        .row("copy vec4, one vec4 per thread", PLAIN);
    t.kernel(Copy, map, vec4_copy_wgsl(true))
        .row("copy vec4 gpuprim map, one submit per call", SUBMIT_EACH);
    t.kernel(Copy, map, vec4_copy_wgsl(true)).row(
        "copy vec4 gpuprim map, a command buffer per call, one submit",
        BUFFER_EACH,
    );
    t.call(Copy, BufferCopy).row("copy_buffer_to_buffer", PLAIN);
    t.kernel(Copy, t32, scalar(32, 32, 32, 8, false, grid))
        .row("copy 2D 32x32 tile, 32x8 thr (shape of T-a, T-b)", PLAIN);
    t.kernel(Copy, t64, scalar(64, 64, 64, 4, false, grid))
        .row("copy 2D 64x64 tile, 64x4 thr (shape of T-c)", PLAIN);
    t.kernel(Copy, t64, vec4_tile_wgsl(64, false, grid))
        .row("copy 2D vec4 64x64 tile, 16x16 thr (shape of T-d)", PLAIN);
    t.kernel(Copy, t32, vec4_tile_wgsl(32, false, grid))
        .row("copy 2D vec4 32x32 tile, 8x8 thr (shape of T-d32)", PLAIN);
    // -- transposes
    t.kernel(Transpose, t32, transpose_old_wgsl())
        .row("T-a old grid2d_transpose.wgsl, swizzle off", PLAIN)
        .row("T-a old, swizzle n=16", PLAIN.n(16))
        .row(
            "T-a old, one submit per call (as ctx.transpose was)",
            SUBMIT_EACH,
        )
        .row("T-a old, naga runtime checks off", UNCHECKED);
    t.call(Transpose, transpose(Swizzle::Off)).row(
        "ctx.transpose (T-b), swizzle off, one submit per call",
        SUBMIT_EACH,
    );
    t.call(Transpose, transpose(n16)).row(
        "ctx.transpose (T-b), swizzle n=16, one submit per call",
        SUBMIT_EACH,
    );
    t.kernel(Transpose, t32, tb)
        .row("T-b 32x32, 32x8 thr, 4 loads then stores", PLAIN)
        .row("T-b, naga runtime checks off", UNCHECKED)
        .row("T-b, row pitch side+32 (not a power of 2)", PITCH_32);
    t.kernel(Transpose, t64, scalar(64, 64, 64, 4, true, grid))
        .row("T-c 64x64, 64x4 thr, 16 loads then stores", PLAIN);
    // The vec4 kernels need w, h and pitches to be multiples of 4 (--sides and RAGGED
    // are).
    t.kernel(Transpose, t64, vec4_tile_wgsl(64, true, grid))
        .row("T-d vec4 64x64, 16x16 thr, 4x4 in registers", PLAIN)
        .row("T-d, naga runtime checks off", UNCHECKED)
        .row("T-d, row pitch side+32 (not a power of 2)", PITCH_32);
    t.kernel(Transpose, t32, vec4_tile_wgsl(32, true, grid))
        .row("T-d32 vec4 32x32, 8x8 thr (64-thread groups)", PLAIN);
    t.kernel(Transpose, p32, scalar(32, 32, 32, 8, true, persistent))
        .row("T-e1 T-b grid-stride over tiles (--persistent)", PLAIN);
    t.kernel(Transpose, p64, vec4_tile_wgsl(64, true, persistent))
        .row("T-e1 T-d grid-stride over tiles (--persistent)", PLAIN);
    t.kernel(Transpose, t32x64, scalar(32, 64, 32, 8, true, grid))
        .row("T-e2 2 tiles/group: 32w x 64h, 32x8 thr, 8 loads", PLAIN);
    t.kernel(Transpose, t64x32, scalar(64, 32, 32, 8, true, grid))
        .row("T-e2 2 tiles/group: 64w x 32h, 32x8 thr, 8 loads", PLAIN);
    t.kernel(Transpose, t32, scalar(32, 32, 32, 8, true, Walk::Diagonal))
        .row("T-e3 T-b in Harris's diagonal block order", PLAIN);
    // -- the 5-tap vertical blur, 16 x 16 workgroups, in several workgroup orders
    t.blur(Order::Library, 16, 16)
        .row("B linear (map2d, swizzle off)", PLAIN)
        .row("B swizzle_group n=16 (old map2d default)", PLAIN.n(16));
    t.blur(Order::Tiles, 16, 16)
        .row("B swizzle_tiles n=16 (new map2d default)", PLAIN.n(16));
    t.blur(Order::Discarded, 16, 16).row(
        "B swizzle n=16 computed, result discarded",
        PLAIN.n(16).pad(u32::MAX),
    );
    t.blur(Order::Baked(16), 16, 16)
        .row("B swizzle n=16, grid + n baked as constants", PLAIN);
    t.blur(Order::Library, 16, 16)
        .row("B swizzle n=16, naga runtime checks off", UNCHECKED.n(16))
        .row("B linear, naga runtime checks off", UNCHECKED)
        .row("B swizzle n=4", PLAIN.n(4))
        .row("B swizzle n=8", PLAIN.n(8))
        .row("B swizzle n=32", PLAIN.n(32));
    t.blur(Order::Bands, 16, 16)
        .row("B row bands 2 groups tall", PLAIN.n(2))
        .row("B row bands 4 groups tall", PLAIN.n(4))
        .row("B row bands 8 groups tall", PLAIN.n(8));
    t.blur(Order::Library, 32, 8)
        .row("B linear, 32x8 workgroups (full lines)", PLAIN);
    // Wider workgroups: each row of a swizzle tile is wider, so the groups running at
    // one time cover a shorter, wider strip of the image.
    t.blur(Order::Tiles, 32, 8)
        .row("B 32x8 swizzle_tiles n=16", PLAIN.n(16))
        .row("B 32x8 swizzle_tiles n=8", PLAIN.n(8));
    t.blur(Order::Library, 64, 4)
        .row("B linear, 64x4 workgroups", PLAIN);
    t.blur(Order::Tiles, 64, 4)
        .row("B 64x4 swizzle_tiles n=16", PLAIN.n(16))
        .row("B 64x4 swizzle_tiles n=4", PLAIN.n(4));
    t.call(Blur, map2d(Swizzle::Off))
        .row("B ctx.map2d swizzle off, one submit per call", SUBMIT_EACH);
    t.call(Blur, map2d(n16)).row(
        "B ctx.map2d swizzle_tiles n=16, one submit per call",
        SUBMIT_EACH,
    );
    t.cases
}

// ---------------------------------------------------------------------------------------
// Host data and references

/// A bijection of [0, 2^28): the image's values are all different (a misplaced element
/// cannot match by chance) and look random.
fn mix28(i: u32) -> u32 {
    const M: u32 = (1 << 28) - 1;
    let mut x = i & M;
    x = x.wrapping_mul(0x9e37_79b1) & M;
    x ^= x >> 14;
    x = x.wrapping_mul(0x85eb_ca6b) & M;
    x ^= x >> 13;
    x
}

/// Pixel i of the test image: a normal float in [2^-31, 2): distinct for i < 2^28, and
/// the blur's sums of five, times 0.2, stay normal (no denormals to be flushed).
fn pixel(i: u32) -> f32 {
    f32::from_bits(0x3000_0000 + mix28(i))
}

/// The source image with its row padding (zeros).
fn source_image(g: Geom) -> Vec<f32> {
    let sp = g.src_pitch() as usize;
    let mut host = vec![0.0f32; g.src_len()];
    host.par_chunks_mut(sp).enumerate().for_each(|(y, row)| {
        for (x, v) in row[..g.w as usize].iter_mut().enumerate() {
            *v = pixel(y as u32 * g.w + x as u32);
        }
    });
    host
}

/// The expected destination, packed (no padding).
fn reference(kind: Kind, g: Geom, src: &[f32]) -> Vec<f32> {
    let (w, h, sp) = (g.w as usize, g.h as usize, g.src_pitch() as usize);
    match kind {
        Kind::Copy => (0..h)
            .flat_map(|y| src[y * sp..y * sp + w].iter().copied())
            .collect(),
        Kind::Transpose => {
            // dst is h wide, w tall: dst(x', y') = src(y', x').
            let mut out = vec![0.0f32; w * h];
            out.par_chunks_mut(h).enumerate().for_each(|(yd, row)| {
                for (xd, v) in row.iter_mut().enumerate() {
                    *v = src[xd * sp + yd];
                }
            });
            out
        }
        Kind::Blur => {
            let mut out = vec![0.0f32; w * h];
            out.par_chunks_mut(w).enumerate().for_each(|(y, row)| {
                let at = |d: i64| {
                    let yy = (y as i64 + d).clamp(0, h as i64 - 1) as usize;
                    &src[yy * sp..yy * sp + w]
                };
                let (a, b, c, d, e) = (at(-2), at(-1), at(0), at(1), at(2));
                for x in 0..w {
                    row[x] = ((((a[x] + b[x]) + c[x]) + d[x]) + e[x]) * 0.2;
                }
            });
            out
        }
    }
}

/// Compares the GPU's destination (with padding) to the packed reference: exact for
/// copies and transposes, 1e-6 relative for the blur (sums in the same order).
fn compare(kind: Kind, g: Geom, got: &[f32], want: &[f32]) -> Result<(), String> {
    let (w, h, pitch) = g.dst(kind);
    let (w, h, pitch) = (w as usize, h as usize, pitch as usize);
    // Per row: how many elements are wrong, and the first (x, got, want).
    type RowErrors = (usize, Option<(usize, f32, f32)>);
    let rows: Vec<RowErrors> = (0..h)
        .into_par_iter()
        .map(|y| {
            let row = &got[y * pitch..y * pitch + w];
            let exp = &want[y * w..(y + 1) * w];
            let mut count = 0;
            let mut first = None;
            for x in 0..w {
                let ok = match kind {
                    Kind::Blur => (row[x] - exp[x]).abs() <= 1e-6 * exp[x].abs(),
                    _ => row[x].to_bits() == exp[x].to_bits(),
                };
                if !ok {
                    count += 1;
                    first.get_or_insert((x, row[x], exp[x]));
                }
            }
            (count, first)
        })
        .collect();
    let total: usize = rows.iter().map(|r| r.0).sum();
    let Some((y, (x, got, exp))) = rows
        .iter()
        .enumerate()
        .find_map(|(y, r)| r.1.map(|f| (y, f)))
    else {
        return Ok(());
    };
    Err(format!(
        "{total} of {} wrong; first at (x {x}, y {y}): got {got:e} ({:#010x}), want {exp:e}",
        w * h,
        got.to_bits()
    ))
}

// ---------------------------------------------------------------------------------------
// GPU side

/// One call's recorded work.
enum Work {
    Kernel {
        pipeline: wgpu::ComputePipeline,
        bind: wgpu::BindGroup,
        groups: [u32; 3],
    },
    BufferCopy {
        src: wgpu::Buffer,
        dst: wgpu::Buffer,
        bytes: u64,
    },
    /// A gpuprim call on the images of `g`: run with [`run_library`], not recorded.
    Library { op: LibOp, g: Geom },
}

/// Calls the library on `im` (the images of `g`): dst in the kind's shape and pitch.
fn run_library(ctx: &Ctx, im: &mut Images, op: LibOp, g: Geom) -> LabResult<()> {
    let src = Grid2D::with_pitch(&im.src, g.w, g.h, g.src_pitch())?;
    let kind = match op {
        LibOp::Map2dBlur(_) => Kind::Blur,
        LibOp::Transpose(_) => Kind::Transpose,
    };
    let (w, h, pitch) = g.dst(kind);
    let mut dst = Grid2DMut::with_pitch(&mut im.dst, w, h, pitch)?;
    match op {
        LibOp::Map2dBlur(sw) => ctx.map2d(&src, &mut dst, BLUR_BODY, sw)?,
        LibOp::Transpose(sw) => ctx.transpose(&src, &mut dst, sw)?,
    }
    Ok(())
}

impl Work {
    /// Records a kernel or copy (a library call is run instead: see [`run_library`]).
    fn record(&self, enc: &mut wgpu::CommandEncoder) {
        match self {
            Work::Kernel {
                pipeline,
                bind,
                groups,
            } => {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: None,
                    timestamp_writes: None,
                });
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, bind, &[]);
                pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
            }
            Work::BufferCopy { src, dst, bytes } => {
                enc.copy_buffer_to_buffer(src, 0, dst, 0, *bytes);
            }
            Work::Library { .. } => unreachable!("library calls are run, not recorded"),
        }
    }
}

/// Buffers of one shape: the source image (host copy too) and a destination large
/// enough for every kind.
struct Images {
    host: Vec<f32>,
    src: GpuVec<f32>,
    dst: GpuVec<f32>,
    refs: HashMap<Kind, Vec<f32>>,
}

struct Lab {
    ctx: Ctx,
    cpu: bool,
    warm_ms: u64,
    persistent: u32,
    pipelines: HashMap<(String, bool), wgpu::ComputePipeline>,
    images: HashMap<Geom, Images>,
    /// The bandwidth table's timer (its query set and buffers; its marks are recorded
    /// into each round's own command buffer, see [`Lab::round`]).
    timer: Option<GpuTimer>,
}

impl Lab {
    fn new(ctx: Ctx, warm_ms: Option<u64>, persistent: Option<u32>) -> Lab {
        let cpu = harness::is_software(&ctx);
        let timer = GpuTimer::new(&ctx);
        Lab {
            cpu,
            warm_ms: warm_ms.unwrap_or(if cpu { 20 } else { 500 }),
            // [H100-1] 132 SMs x 8 resident groups of 256 threads.
            persistent: persistent.unwrap_or(if cpu { 64 } else { 1056 }),
            pipelines: HashMap::new(),
            images: HashMap::new(),
            timer,
            ctx,
        }
    }

    fn pipeline(
        &mut self,
        label: &str,
        wgsl: String,
        unchecked: bool,
    ) -> LabResult<wgpu::ComputePipeline> {
        let key = (wgsl, unchecked);
        if let Some(p) = self.pipelines.get(&key) {
            return Ok(p.clone());
        }
        let d = self.ctx.device().clone();
        let src = key.0.as_str();
        let pipeline = scoped(&self.ctx, &format!("compiling `{label}`"), || {
            let desc = wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(src.into()),
            };
            let module = if unchecked {
                // SAFETY: the kernels here bound every index themselves (full-tile
                // paths only run for tiles inside the image, whose buffers hold
                // pitch x rows elements) and every loop ends.
                unsafe {
                    d.create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
                }
            } else {
                d.create_shader_module(desc)
            };
            d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            })
        })
        .map_err(|e| format!("{e}\n--- WGSL ---\n{src}"))?;
        self.pipelines.insert(key, pipeline.clone());
        Ok(pipeline)
    }

    fn images(&mut self, g: Geom) -> LabResult<&mut Images> {
        if !self.images.contains_key(&g) {
            let host = source_image(g);
            let src = self.ctx.upload(&host)?;
            let dst_len = [Kind::Copy, Kind::Transpose, Kind::Blur]
                .iter()
                .map(|&k| g.dst_len(k))
                .max()
                .unwrap_or(0);
            let dst = self.ctx.zeros::<f32>(dst_len)?;
            self.images.insert(
                g,
                Images {
                    host,
                    src,
                    dst,
                    refs: HashMap::new(),
                },
            );
        }
        Ok(self.images.get_mut(&g).expect("inserted above"))
    }

    /// The recorded call of `case` on shape `g`.
    fn work(&mut self, case: &Case, g: Geom) -> LabResult<Work> {
        let persistent = self.persistent;
        let max_dim = self.ctx.info().limits.max_compute_workgroups_per_dimension;
        if let Launch::Library(op) = case.launch {
            self.images(g)?;
            return Ok(Work::Library { op, g });
        }
        if let Launch::BufferCopy = case.launch {
            let im = self.images(g)?;
            return Ok(Work::BufferCopy {
                src: im.src.buffer().clone(),
                dst: im.dst.buffer().clone(),
                bytes: 4 * g.src_len() as u64,
            });
        }
        let (dst_w, dst_h, dst_pitch) = g.dst(case.kind);
        let (mut n, mut pad) = (case.knobs.n, case.knobs.pad);
        let groups = match case.launch {
            Launch::Tiles { tw, th } => [g.w.div_ceil(tw), g.h.div_ceil(th), 1],
            Launch::Persistent { tw, th } => {
                let (tiles_x, tiles_y) = (g.w.div_ceil(tw), g.h.div_ceil(th));
                n = tiles_x;
                pad = tiles_x * tiles_y;
                [pad.min(persistent).max(1), 1, 1]
            }
            Launch::Vec4 { max_groups } => {
                pad = g.w * g.h / 4;
                let wanted = pad.div_ceil(256).clamp(1, max_groups);
                let rows = wanted.div_ceil(max_dim);
                [wanted.div_ceil(rows), rows, 1]
            }
            Launch::BufferCopy | Launch::Library(_) => unreachable!("handled above"),
        };
        // gpuprim's 8 words, then swizzle_tiles' constants (read by the swizzle_tiles row
        // only; the other kernels declare the first 8 words).
        let mut params = [0u32; 16];
        params[..8].copy_from_slice(&[g.w, g.h, g.src_pitch(), dst_w, dst_h, dst_pitch, n, pad]);
        params[8..].copy_from_slice(&swizzle_tiles_params((groups[0], groups[1]), n));
        let pipeline = self.pipeline(case.name, (case.wgsl)(g), case.knobs.unchecked)?;
        let uniform = self.ctx.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("grid_lab params"),
            size: 64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.ctx
            .queue()
            .write_buffer(&uniform, 0, bytemuck::cast_slice(&params));
        let im = self.images(g)?;
        let (src, dst) = (im.src.buffer().clone(), im.dst.buffer().clone());
        let layout = pipeline.get_bind_group_layout(0);
        let bind = scoped(&self.ctx, &format!("binding `{}`", case.name), || {
            self.ctx
                .device()
                .create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("grid_lab"),
                    layout: &layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: src.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: dst.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: uniform.as_entire_binding(),
                        },
                    ],
                })
        })?;
        Ok(Work::Kernel {
            pipeline,
            bind,
            groups,
        })
    }

    /// Clears dst (zero is no pixel's value and no correct output), runs `case` once on
    /// `g`, compares with the CPU reference.
    fn check(&mut self, case: &Case, g: Geom) -> LabResult<Result<(), String>> {
        let work = self.work(case, g)?;
        let dst_buffer = self.images(g)?.dst.buffer().clone();
        scoped(&self.ctx, &format!("running `{}`", case.name), || {
            let mut enc = self
                .ctx
                .device()
                .create_command_encoder(&Default::default());
            enc.clear_buffer(&dst_buffer, 0, None);
            if !matches!(work, Work::Library { .. }) {
                work.record(&mut enc);
            }
            self.ctx.queue().submit([enc.finish()]);
        })?;
        if let Work::Library { op, g } = work {
            let im = self.images.get_mut(&g).expect("made by work()");
            run_library(&self.ctx, im, op, g)?;
        }
        let im = self.images(g)?;
        let got = im.dst.to_vec()?;
        if !im.refs.contains_key(&case.kind) {
            let r = reference(case.kind, g, &im.host);
            im.refs.insert(case.kind, r);
        }
        Ok(compare(case.kind, g, &got, &im.refs[&case.kind]))
    }

    /// One round of `reps` calls: GPU ms per call (host clock without timestamps).
    /// A library call (`Work::Library`) always runs as if `submit_each`: the round's own
    /// submission before each call goes through `ctx.queue()`, which first submits what
    /// gpuprim holds, so every library call goes in a submission of its own (as gpuprim's
    /// calls did before they were batched). The timer's two marks are recorded into the round's command
    /// buffers (not submitted alone, as `GpuTimer::mark` does), so a batched round is one
    /// submission from the first mark to the last.
    fn round(&mut self, work: &Work, reps: usize, knobs: Knobs) -> LabResult<f64> {
        let (submit_each, buffer_each) = (knobs.submit_each, knobs.buffer_each);
        let library = matches!(work, Work::Library { .. });
        let submit_each = submit_each || library;
        let ctx = self.ctx.clone();
        let (d, q) = (ctx.device(), ctx.queue());
        let t0 = Instant::now();
        let mut enc = d.create_command_encoder(&Default::default());
        let mark = |enc: &mut wgpu::CommandEncoder, index: u32| {
            if let Some(t) = &self.timer {
                drop(enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("grid_lab mark"),
                    timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                        query_set: &t.queries,
                        beginning_of_pass_write_index: (index == 0).then_some(0),
                        end_of_pass_write_index: (index == 1).then_some(1),
                    }),
                }));
            }
        };
        mark(&mut enc, 0);
        let mut buffers = Vec::new();
        for _ in 0..reps {
            if submit_each {
                q.submit([enc.finish()]);
                enc = d.create_command_encoder(&Default::default());
            } else if buffer_each {
                buffers.push(enc.finish());
                enc = d.create_command_encoder(&Default::default());
            }
            if let Work::Library { op, g } = *work {
                let im = self.images.get_mut(&g).expect("made by work()");
                run_library(&ctx, im, op, g)?;
            } else {
                work.record(&mut enc);
            }
        }
        if submit_each {
            q.submit([enc.finish()]);
            enc = d.create_command_encoder(&Default::default());
        }
        mark(&mut enc, 1);
        if let Some(t) = &self.timer {
            enc.resolve_query_set(&t.queries, 0..2, &t.resolved, 0);
            enc.copy_buffer_to_buffer(&t.resolved, 0, &t.read, 0, 16);
        }
        buffers.push(enc.finish());
        q.submit(buffers);
        let Some(t) = &self.timer else {
            ctx.synchronize()?;
            return Ok(t0.elapsed().as_secs_f64() * 1e3 / reps as f64);
        };
        t.read.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        ctx.synchronize()?;
        let ticks: [u64; 2] = {
            let view = t
                .read
                .slice(..)
                .get_mapped_range()
                .map_err(|e| format!("reading timestamps: {e:?}"))?;
            bytemuck::pod_read_unaligned(&view[..16])
        };
        t.read.unmap();
        let ns = ticks[1].wrapping_sub(ticks[0]) as f64 * f64::from(q.get_timestamp_period());
        Ok(ns / 1e6 / reps as f64)
    }

    /// Warm-up, then the median of ROUNDS rounds of REPS calls: ms per call.
    fn time(&mut self, case: &Case, g: Geom) -> LabResult<f64> {
        let work = self.work(case, g)?;
        let (rounds, reps) = (ROUNDS[usize::from(self.cpu)], REPS[usize::from(self.cpu)]);
        let warm = Instant::now();
        while warm.elapsed().as_millis() < u128::from(self.warm_ms) {
            self.round(&work, reps, case.knobs)?;
        }
        let ms = (0..rounds)
            .map(|_| self.round(&work, reps, case.knobs))
            .collect::<LabResult<Vec<f64>>>()?;
        Ok(harness::median(ms))
    }
}

// ---------------------------------------------------------------------------------------
// The run

/// A row of the table: the time per call (`None`: not timed) and the check column.
struct Row {
    name: &'static str,
    ms: Option<f64>,
    check: String,
    reference: bool,
}

impl Lab {
    /// Builds `case`, checks it at `side` x `side` and at [`RAGGED`], and times it at
    /// `side` (a failed check is still timed, an error is not).
    fn row(&mut self, case: &Case, side: u32) -> Row {
        let full = Geom {
            w: side,
            h: side,
            pad: case.knobs.pitch_pad,
        };
        let ragged = Geom {
            w: RAGGED.0,
            h: RAGGED.1,
            ..full
        };
        let checked = self
            .check(case, full)
            .and_then(|a| Ok((a, self.check(case, ragged)?)));
        let (check, ms) = match checked {
            Ok((Ok(()), Ok(()))) => ("OK".to_string(), self.time(case, full)),
            Ok((a, b)) => {
                let mut why = Vec::new();
                if let Err(e) = a {
                    why.push(format!("{side}^2: {e}"));
                }
                if let Err(e) = b {
                    why.push(format!("{}x{}: {e}", RAGGED.0, RAGGED.1));
                }
                // Timed anyway (marked FAIL): a wrong kernel's time says little.
                (format!("FAIL {}", why.join("; ")), self.time(case, full))
            }
            Err(e) => (format!("ERROR {e}"), Err("not timed".into())),
        };
        let (ms, check) = match ms {
            Ok(ms) => (Some(ms), check),
            Err(_) if check.starts_with("ERROR") => (None, check),
            Err(e) => (None, format!("{check}; timing: {e}")),
        };
        Row {
            name: case.name,
            ms,
            check,
            reference: case.reference(),
        }
    }
}

impl Row {
    /// Prints the row; `bytes` per call, `copy_ms` the reference copy's time.
    fn print(&self, bytes: f64, copy_ms: Option<f64>) {
        let (ms, gbs, ratio) = match self.ms {
            Some(ms) => (
                format!("{ms:9.4}"),
                format!("{:8.1}", bytes / ms / 1e6),
                copy_ms.map_or(String::new(), |c| format!("{:7.2}x", c / ms)),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        println!(
            "{:54} {ms:>9} {gbs:>8} {ratio:>8}  {}",
            self.name, self.check
        );
    }
}

fn main() -> std::process::ExitCode {
    harness::main_with("grid_lab", run)
}

fn run() -> LabResult<()> {
    let mut args = Args::parse(USAGE)?;
    let sides = args.list::<u32>("sides")?;
    let warm_ms = args.value::<u64>("warm-ms")?;
    let persistent = args.value::<u32>("persistent")?;
    let filter = args.list::<String>("filter")?.unwrap_or_default();
    let print_wgsl = args.flag("wgsl")?;
    args.finish()?;
    let ctx = Ctx::new()?;
    let mut lab = Lab::new(ctx, warm_ms, persistent);
    let sides = sides.unwrap_or(if lab.cpu { vec![512] } else { vec![4096, 8192] });
    if let Some(bad) = sides.iter().find(|&&s| s == 0 || s % 4 != 0) {
        return Err(format!("--sides: {bad} is not a positive multiple of 4").into());
    }
    println!("adapter: {}", lab.ctx.info());
    println!(
        "timing: {}; warm-up {} ms per row, median of {} rounds x {} calls; \
         persistent groups {}",
        if lab.timer.is_some() {
            "GPU timestamps"
        } else {
            "host clock (no TIMESTAMP_QUERY)"
        },
        lab.warm_ms,
        ROUNDS[usize::from(lab.cpu)],
        REPS[usize::from(lab.cpu)],
        lab.persistent
    );
    println!(
        "check: each kernel vs a CPU reference at the timed size and at {} x {}, dst cleared",
        RAGGED.0, RAGGED.1
    );
    let all = cases(lab.cpu);
    let chosen: Vec<&Case> = all
        .iter()
        .filter(|c| filter.is_empty() || filter.iter().any(|f| c.name.contains(f.as_str())))
        .collect();
    if print_wgsl {
        for case in &chosen {
            let g = Geom {
                w: sides[0],
                h: sides[0],
                pad: case.knobs.pitch_pad,
            };
            let wgsl = match case.launch {
                Launch::Library(op) => {
                    format!("// a gpuprim call, its kernel the library's: {op:?}")
                }
                _ => (case.wgsl)(g),
            };
            println!("\n// ==== {} ====\n{wgsl}", case.name);
        }
        return Ok(());
    }
    let mut all_ok = true;
    let started = Instant::now();
    for &side in &sides {
        let bytes = 8.0 * f64::from(side) * f64::from(side);
        println!(
            "\n== {side} x {side} f32: {:.1} MB per call (read + write once) ==",
            bytes / 1e6
        );
        let rows: Vec<Row> = chosen.iter().map(|case| lab.row(case, side)).collect();
        all_ok &= rows.iter().all(|r| r.check.starts_with("OK"));
        let copy_ms = rows
            .iter()
            .filter(|r| r.reference)
            .filter_map(|r| r.ms)
            .min_by(f64::total_cmp);
        println!(
            "{:54} {:>9} {:>8} {:>8}  check",
            "kernel", "ms", "GB/s", "vs copy"
        );
        for r in &rows {
            r.print(bytes, copy_ms);
        }
        lab.images.retain(|g, _| g.w != side);
    }
    println!(
        "\nvs copy: GB/s over the faster vec4 copy kernel's at the same size; total {:.1} s",
        started.elapsed().as_secs_f64()
    );
    if !all_ok {
        return Err("SOME CHECKS FAILED (see the check column)".into());
    }
    Ok(())
}
