//! matmul_lab: does thread-group ID swizzling help a kernel whose workgroups each read a
//! whole row of A and a whole column of B (issue #6)? C = A * B, all three n x n f32,
//! row-major, in three kernels of increasing quality, each dispatched in several
//! workgroup orders: linear, gpuprim's `swizzle_group` (tiles n workgroups wide), and row
//! bands.
//!
//! - `naive`: 16 x 16 threads, one element each, every operand from global memory (only
//!   up to n = 4096: at 8192 one call would take most of a second).
//! - `smem16`: the same, through 16 x 16 shared tiles of A and B.
//! - `reg4x4`: 64 x 64 tiles of C per workgroup of 16 x 16 threads, 4 x 4 elements per
//!   thread, 16-deep slices of A and B through shared memory.
//!
//! In linear order the workgroups running at one time cover a few rows of C across its
//! whole width, so together they read all of B (n^2 * 4 bytes: 64 MiB at n = 4096, more
//! than the H100's 50 MB L2); tiles n workgroups wide read only n * 16 (or 64) columns
//! of it. Orders: linear; tiles n = 4, 8, 16, 32 (`swizzle_group`, gpuprim's public
//! WGSL); "n=16 computed, unused" (the swizzle's arithmetic with the linear order, to
//! tell the order's effect from the compiler's response to the extra code); row bands of
//! `1024 / groups per row` rows (`swizzle_bands_group`, the order of `Swizzle::Bands {
//! workgroups: 1024 }`) and of 8 rows, each band walked column by column.
//!
//! Each kernel is checked before timing: C poisoned with NaN, 4096 elements
//! (random positions) against an f64 dot product, within K * 2^-22 * sum |a||b|
//! (K products summed in f32 in order, each rounding by at most 2^-24 relative, with
//! room for fused multiply-adds).
//!
//! ```sh
//! cargo run --release -p gpuprim-lab --bin matmul_lab -- --sides 4096
//! ```

use std::fmt::Write as _;

use gpuprim::{Ctx, SWIZZLE_WGSL};

use gpuprim_lab::harness::{self, Args, Checks, Kernel, LabResult, gpu_ms, scoped};

const USAGE: &str = "matmul_lab: swizzled workgroup orders on a matrix multiply (issue #6)

usage: cargo run --release -p gpuprim-lab --bin matmul_lab -- [flags]
  --sides A,B,...   matrix sides, multiples of 64 (default 4096 on a GPU, 256 on a CPU)
  --round-ms MS     GPU time per timed round (default 200 on a GPU, 50 on a CPU)";

const HEAD: &str = r#"
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

const N: u32 = {{N}}u;

{{SWIZZLE}}

fn order(group: vec2<u32>, groups: vec2<u32>) -> vec2<u32> {
    {{ORDER}}
}
"#;

const NAIVE: &str = r#"
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let g = order(wid.xy, nwg.xy);
    let row = g.y * 16u + lid.y;
    let col = g.x * 16u + lid.x;
    var acc = 0.0;
    for (var k = 0u; k < N; k++) {
        acc += a[row * N + k] * b[k * N + col];
    }
    c[row * N + col] = acc;
}
"#;

const SMEM16: &str = r#"
var<workgroup> ta: array<array<f32, 16>, 16>;
var<workgroup> tb: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let g = order(wid.xy, nwg.xy);
    let row = g.y * 16u + lid.y;
    let col = g.x * 16u + lid.x;
    var acc = 0.0;
    for (var k0 = 0u; k0 < N; k0 += 16u) {
        ta[lid.y][lid.x] = a[row * N + k0 + lid.x];
        tb[lid.y][lid.x] = b[(k0 + lid.y) * N + col];
        workgroupBarrier();
        for (var k = 0u; k < 16u; k++) {
            acc += ta[lid.y][k] * tb[k][lid.x];
        }
        workgroupBarrier();
    }
    c[row * N + col] = acc;
}
"#;

// 64 x 64 tile of C; thread (tx, ty) owns rows ty + 16 i and columns tx + 16 j (i, j < 4),
// so each shared read of B is 16 consecutive words and each store a 64-byte run. The
// 4 x 4 block lives in four vec4 accumulators (no arrays indexed at run time).
const REG4X4: &str = r#"
var<workgroup> ta: array<array<f32, 64>, 16>;  // ta[k][r]: A's 64 rows x 16 k, transposed
var<workgroup> tb: array<array<f32, 64>, 16>;  // tb[k][c]

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let g = order(wid.xy, nwg.xy);
    let r0 = g.y * 64u;
    let c0 = g.x * 64u;
    let t = lid.y * 16u + lid.x;
    var acc0 = vec4<f32>();
    var acc1 = vec4<f32>();
    var acc2 = vec4<f32>();
    var acc3 = vec4<f32>();
    for (var k0 = 0u; k0 < N; k0 += 16u) {
        for (var i = 0u; i < 4u; i++) {
            let e = t + 256u * i;          // 0..1024: 64 rows x 16 k of A, 16 k x 64 cols of B
            ta[e % 16u][e / 16u] = a[(r0 + e / 16u) * N + k0 + e % 16u];
            tb[e / 64u][e % 64u] = b[(k0 + e / 64u) * N + c0 + e % 64u];
        }
        workgroupBarrier();
        for (var k = 0u; k < 16u; k++) {
            let av = vec4<f32>(ta[k][lid.y], ta[k][lid.y + 16u], ta[k][lid.y + 32u], ta[k][lid.y + 48u]);
            let bv = vec4<f32>(tb[k][lid.x], tb[k][lid.x + 16u], tb[k][lid.x + 32u], tb[k][lid.x + 48u]);
            acc0 += av.x * bv;
            acc1 += av.y * bv;
            acc2 += av.z * bv;
            acc3 += av.w * bv;
        }
        workgroupBarrier();
    }
    let accs = array<vec4<f32>, 4>(acc0, acc1, acc2, acc3);
    for (var i = 0u; i < 4u; i++) {
        let row = (r0 + lid.y + 16u * i) * N + c0 + lid.x;
        let v = accs[i];
        c[row] = v.x;
        c[row + 16u] = v.y;
        c[row + 32u] = v.z;
        c[row + 48u] = v.w;
    }
}
"#;

/// Deterministic values in [-1, 1).
fn random(len: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn main() -> std::process::ExitCode {
    harness::main_with("matmul_lab", run)
}

fn run() -> LabResult<()> {
    let mut args = Args::parse(USAGE)?;
    let sides: Option<Vec<u32>> = args.list("sides")?;
    let round_ms: Option<f64> = args.value("round-ms")?;
    args.finish()?;
    let ctx = Ctx::new()?;
    let cpu = harness::is_software(&ctx);
    let sides = sides.unwrap_or(if cpu { vec![256] } else { vec![4096] });
    let round_ms = round_ms.unwrap_or(if cpu { 50.0 } else { 200.0 });
    println!("adapter: {}", ctx.info().name);
    let mut checks = Checks::default();
    for &n in &sides {
        if n == 0 || !n.is_multiple_of(64) {
            return Err(format!("side {n} is not a positive multiple of 64").into());
        }
        let len = n as usize * n as usize;
        let (ha, hb) = (random(len, 1 + u64::from(n)), random(len, 2 + u64::from(n)));
        let a = ctx.upload(&ha)?;
        let b = ctx.upload(&hb)?;
        let c = ctx.upload(&vec![f32::NAN; len])?;
        let nan = vec![f32::NAN; len];
        let picks: Vec<(usize, usize)> = random(2 * 4096, 7)
            .chunks(2)
            .map(|p| {
                let f = |v: f32| (((v + 1.0) * 0.5 * n as f32) as usize).min(n as usize - 1);
                (f(p[0]), f(p[1]))
            })
            .collect();
        let expect: Vec<(f64, f64)> = picks
            .iter()
            .map(|&(r, col)| {
                let (mut s, mut m) = (0.0f64, 0.0f64);
                for k in 0..n as usize {
                    let p = f64::from(ha[r * n as usize + k]) * f64::from(hb[k * n as usize + col]);
                    s += p;
                    m += p.abs();
                }
                (s, m)
            })
            .collect();
        println!(
            "\nn = {n} ({:.1} GFLOP per call)",
            2.0 * f64::from(n).powi(3) / 1e9
        );
        println!(
            "{:<8} {:<26} {:>10} {:>9} {:>10}",
            "kernel", "order", "ms", "TFLOP/s", "vs linear"
        );
        for (kname, body, tile) in [
            ("naive", NAIVE, 16u32),
            ("smem16", SMEM16, 16),
            ("reg4x4", REG4X4, 64),
        ] {
            if kname == "naive" && n > 4096 {
                continue;
            }
            let groups = [n / tile, n / tile, 1];
            let band_rows = |wgs: u32| (wgs / groups[0]).clamp(1, groups[1]);
            let mut orders: Vec<(String, String)> = vec![("linear".into(), "return group;".into())];
            for t in [4, 8, 16, 32] {
                orders.push((
                    format!("tiles n={t}"),
                    format!("return swizzle_group(group, groups, {t}u);"),
                ));
            }
            // The swizzle's arithmetic without its order (no group index is 0xffffffff).
            orders.push((
                "n=16 computed, unused".into(),
                "let s = swizzle_group(group, groups, 16u);\n    return select(group, s, s.x == 0xffffffffu);"
                    .into(),
            ));
            // Row bands (`swizzle_bands_group`, the order of Swizzle::Bands): 1024
            // workgroups, and 8 rows where that is not the same.
            let bands = |wgs: u32| format!("return swizzle_bands_group(group, groups, {wgs}u);");
            orders.push((
                format!("bands 1024 wgs ({} rows)", band_rows(1024)),
                bands(1024),
            ));
            if band_rows(1024) != 8 {
                orders.push(("bands 8 rows".into(), bands(8 * groups[0])));
            }
            let mut linear = f64::NAN;
            for (oname, line) in orders {
                let wgsl = format!("{HEAD}{body}")
                    .replace("{{N}}", &n.to_string())
                    .replace("{{SWIZZLE}}", SWIZZLE_WGSL)
                    .replace("{{ORDER}}", &line);
                let k = Kernel::new(&ctx, &format!("{kname} {oname}"), &wgsl, "main")?;
                let bind = k.bind(&ctx, &[a.buffer(), b.buffer(), c.buffer()])?;
                scoped(&ctx, "poison", || {
                    ctx.queue()
                        .write_buffer(c.buffer(), 0, bytemuck::cast_slice(&nan))
                })?;
                k.run(&ctx, &bind, groups, 1)?;
                let got = c.to_vec()?;
                let mut worst = String::new();
                let mut ok = 0;
                for (&(r, col), &(s, m)) in picks.iter().zip(&expect) {
                    let v = f64::from(got[r * n as usize + col]);
                    let tol = f64::from(n) * 2f64.powi(-22) * m;
                    if (v - s).abs() <= tol {
                        ok += 1;
                    } else if worst.is_empty() {
                        let _ = write!(
                            worst,
                            "; first miss C[{r}][{col}] = {v}, expected {s} +- {tol:e}"
                        );
                    }
                }
                checks.check(
                    ok == picks.len(),
                    format!(
                        "{kname} {oname} n={n}: {ok} of {} sampled elements{worst}",
                        picks.len()
                    ),
                );
                let ms = gpu_ms(&ctx, round_ms, |reps| k.run(&ctx, &bind, groups, reps))?;
                if oname == "linear" {
                    linear = ms;
                }
                let tflops = 2.0 * f64::from(n).powi(3) / (ms * 1e-3) / 1e12;
                println!(
                    "{kname:<8} {oname:<26} {ms:>10.4} {tflops:>9.2} {:>9.3}x",
                    linear / ms
                );
            }
        }
    }
    checks.finish()
}
