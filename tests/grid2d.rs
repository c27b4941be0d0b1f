//! 2D kernels: the swizzle mapping (Rust, and its WGSL twin on the GPU), map2d with
//! neighbour reads, transpose and colour filter against CPU references on odd sizes,
//! every element written, and every error by variant and message.

mod common;

use common::*;
use gpuprim::wgpu;
use gpuprim::{
    AUTO_CANDIDATES, AUTO_MARGIN, AUTO_MIN_WORKGROUPS, Ctx, Error, Grid2D, Grid2DMut, SWIZZLE_WGSL,
    Swizzle, swizzle, swizzle_bands,
};
use proptest::prelude::*;

const NS: [u32; 5] = [1, 2, 8, 16, 32];

/// NVIDIA's corrected HLSL, transcribed literally: an independent reference for n <= w.
#[allow(clippy::manual_checked_ops)]
fn nvidia_reference(group: (u32, u32), dim: (u32, u32), n: u32) -> (u32, u32) {
    let ctas_in_perfect_tile = n * dim.1;
    let perfect_tiles = dim.0 / n;
    let total_in_perfect_tiles = (perfect_tiles * n * dim.1).wrapping_sub(1);
    let flat = dim.0 * group.1 + group.0;
    let tile = flat / ctas_in_perfect_tile;
    let local = flat % ctas_in_perfect_tile;
    let (mut ly, mut lx) = (local / n, local % n);
    if total_in_perfect_tiles < flat {
        let last_w = dim.0 % n;
        if last_w > 0 {
            ly = local / last_w;
            lx = local % last_w;
        }
    }
    let s = tile * n + ly * dim.0 + lx;
    (s % dim.0, s / dim.0)
}

/// Checks that `order` (`what` in messages) maps the `w` x `h` grid onto itself one to
/// one, and that each group lands where `reference` says.
fn check_grid_order(
    (w, h): (u32, u32),
    what: &str,
    order: impl Fn((u32, u32)) -> (u32, u32),
    reference: impl Fn((u32, u32)) -> (u32, u32),
) {
    let mut seen = vec![false; (w * h) as usize];
    for y in 0..h {
        for x in 0..w {
            let (sx, sy) = order((x, y));
            assert!(
                sx < w && sy < h,
                "{w}x{h} {what}: ({x},{y}) -> ({sx},{sy}) out of grid"
            );
            let i = (sy * w + sx) as usize;
            assert!(!seen[i], "{w}x{h} {what}: ({sx},{sy}) reached twice");
            seen[i] = true;
            assert_eq!(
                (sx, sy),
                reference((x, y)),
                "{w}x{h} {what}: group ({x},{y}) differs from the reference"
            );
        }
    }
}

/// Checks that `swizzle` maps the `w` x `h` grid onto itself one to one, as NVIDIA's code
/// does (the identity when n > width).
fn check_bijection(w: u32, h: u32, n: u32) {
    check_grid_order(
        (w, h),
        &format!("n={n}"),
        |g| swizzle(g, (w, h), n),
        |g| {
            if n <= w {
                nvidia_reference(g, (w, h), n)
            } else {
                g
            }
        },
    );
}

#[test]
fn swizzle_is_a_bijection_on_every_grid_up_to_60x60() {
    for w in 1..=60 {
        for h in 1..=60 {
            for n in NS {
                check_bijection(w, h, n);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn swizzle_is_a_bijection_up_to_200x200(
        w in 1u32..=200,
        h in 1u32..=200,
        n in proptest::sample::select(NS.to_vec()),
    ) {
        check_bijection(w, h, n);
    }
}

/// Band sizes for the band-order tests: one row, partial rows, several rows, more than
/// the grid.
const BAND_SIZES: [u32; 6] = [1, 2, 7, 64, 1024, 1 << 20];

/// Checks that `swizzle_bands` maps the `w` x `h` grid onto itself one to one, walking
/// each band of whole rows column by column.
fn check_band_bijection(w: u32, h: u32, workgroups: u32) {
    let rows = (workgroups / w).clamp(1, h);
    // Independently: launch index f is band f / (rows * w), and within the band (height
    // hb) column (f % (rows * w)) / hb, row (f % (rows * w)) % hb.
    let reference = |(x, y): (u32, u32)| {
        let f = y * w + x;
        let band = f / (rows * w);
        let hb = (h - band * rows).min(rows);
        let local = f % (rows * w);
        (local / hb, band * rows + local % hb)
    };
    check_grid_order(
        (w, h),
        &format!("bands of {workgroups}"),
        |g| swizzle_bands(g, (w, h), workgroups),
        reference,
    );
}

#[test]
fn swizzle_bands_is_a_bijection_on_every_grid_up_to_60x60() {
    for w in 1..=60 {
        for h in 1..=60 {
            for b in BAND_SIZES {
                check_band_bijection(w, h, b);
            }
        }
    }
    assert_eq!(swizzle_bands((3, 4), (0, 0), 16), (3, 4), "an empty grid");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn swizzle_bands_is_a_bijection_up_to_200x200(
        w in 1u32..=200,
        h in 1u32..=200,
        b in proptest::sample::select(BAND_SIZES.to_vec()),
    ) {
        check_band_bijection(w, h, b);
    }
}

#[test]
fn swizzle_walks_tiles_column_block_by_column_block() {
    // 40 x 3 groups, n = 16: the first 48 launches stay in columns 0..16.
    for f in 0..48u32 {
        let (x, y) = swizzle((f % 40, f / 40), (40, 3), 16);
        assert!(x < 16 && y < 3);
    }
    // n = 0 is clamped to 1 (the Ctx methods reject it instead), and nothing panics
    // on an empty grid.
    assert_eq!(swizzle((1, 0), (2, 2), 0), swizzle((1, 0), (2, 2), 1));
    assert_eq!(swizzle((3, 4), (0, 0), 16), (3, 4));
}

/// Runs SWIZZLE_WGSL on the GPU: one workgroup per grid cell writes its swizzled
/// coordinates (`call`, a WGSL call of `g.xy` and `gs.xy`) at its launch-order index.
fn gpu_swizzle(ctx: &Ctx, groups: (u32, u32), call: &str) -> Vec<(u32, u32)> {
    let src = format!(
        "{SWIZZLE_WGSL}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) g: vec3<u32>, @builtin(num_workgroups) gs: vec3<u32>) {{
    let s = {call};
    let flat = g.y * gs.x + g.x;
    out[2u * flat] = s.x;
    out[2u * flat + 1u] = s.y;
}}"
    );
    let device = ctx.device();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("swizzle probe"),
        source: wgpu::ShaderSource::Wgsl(src.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("swizzle probe"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let cells = (groups.0 * groups.1) as usize;
    let out = poisoned::<u32>(ctx, 2 * cells);
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: out.buffer().as_entire_binding(),
        }],
    });
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(groups.0, groups.1, 1);
    }
    ctx.queue().submit([enc.finish()]);
    let v = out.to_vec().unwrap();
    v.chunks(2).map(|c| (c[0], c[1])).collect()
}

#[test]
fn wgsl_swizzle_equals_the_rust_twin() {
    let ctx = ctx();
    for groups in [(1, 1), (5, 2), (17, 3), (33, 7), (40, 40), (100, 3)] {
        for n in [1, 2, 3, 8, 16, 32, 100] {
            let gpu = gpu_swizzle(ctx, groups, &format!("swizzle_group(g.xy, gs.xy, {n}u)"));
            let cpu: Vec<_> = (0..groups.1)
                .flat_map(|y| (0..groups.0).map(move |x| swizzle((x, y), groups, n)))
                .collect();
            assert_eq!(gpu, cpu, "groups {groups:?}, n = {n}");
        }
    }
}

#[test]
fn wgsl_bands_equal_the_rust_twin() {
    let ctx = ctx();
    for groups in [(1, 1), (5, 2), (17, 3), (33, 7), (40, 40), (3, 100)] {
        // Bands of 1 row, of several rows with a shorter last band, and of the whole grid.
        for workgroups in [1, 5, 17, 40, 99, 120, 1024, 100_000] {
            let call = format!("swizzle_bands_group(g.xy, gs.xy, {workgroups}u)");
            let gpu = gpu_swizzle(ctx, groups, &call);
            let cpu: Vec<_> = (0..groups.1)
                .flat_map(|y| (0..groups.0).map(move |x| swizzle_bands((x, y), groups, workgroups)))
                .collect();
            assert_eq!(gpu, cpu, "groups {groups:?}, workgroups = {workgroups}");
        }
    }
}

const ODD_SIZES: [(u32, u32); 5] = [(1, 1), (17, 5), (33, 257), (100, 3), (257, 129)];
const SWIZZLES: [Swizzle; 9] = [
    Swizzle::Off,
    Swizzle::Tiles { n: 16 },
    Swizzle::Tiles { n: 1 },
    Swizzle::Tiles { n: 3 },
    Swizzle::Tiles { n: 64 },
    Swizzle::Bands { workgroups: 1 },
    Swizzle::Bands { workgroups: 7 },
    Swizzle::Bands { workgroups: 1024 },
    Swizzle::Auto,
];

#[test]
fn map2d_writes_every_element_once_on_odd_grids() {
    let ctx = ctx();
    for (w, h) in ODD_SIZES {
        // Rows padded to a pitch of w + 3: the padding must stay poisoned.
        let pitch = w + 3;
        let len = (pitch * h) as usize;
        let input = ctx.upload(&vec![0u32; len]).unwrap();
        let src = Grid2D::with_pitch(&input, w, h, pitch).unwrap();
        let mut want = vec![u32::POISON; len];
        for y in 0..h {
            for x in 0..w {
                want[(y * pitch + x) as usize] = x * 4096 + y;
            }
        }
        for sw in SWIZZLES {
            let mut out = poisoned::<u32>(ctx, len);
            let mut dst = Grid2DMut::with_pitch(&mut out, w, h, pitch).unwrap();
            ctx.map2d(&src, &mut dst, "u32(x) * 4096u + u32(y) + load(x, y)", sw)
                .unwrap();
            assert_all_eq(&out.to_vec().unwrap(), &want, &format!("{w}x{h} {sw:?}"));
        }
    }
}

#[test]
fn map2d_body_that_never_loads_the_input() {
    // The input is bound whether or not the body reads it (its binding is in the
    // kernel's layout even when the entry point leaves it unused).
    let ctx = ctx();
    let (w, h) = (13u32, 6u32);
    let input = ctx.upload(&random_vec::<u32>((w * h) as usize, 3)).unwrap();
    let mut out = poisoned::<u32>(ctx, (w * h) as usize);
    ctx.map2d(
        &Grid2D::new(&input, w, h).unwrap(),
        &mut Grid2DMut::new(&mut out, w, h).unwrap(),
        "u32(x) * 100u + u32(y)",
        Swizzle::Off,
    )
    .unwrap();
    let want: Vec<u32> = (0..h)
        .flat_map(|y| (0..w).map(move |x| x * 100 + y))
        .collect();
    assert_all_eq(&out.to_vec().unwrap(), &want, "map2d without load");
}

fn clamp_at(v: &[f32], w: u32, h: u32, x: i64, y: i64) -> f32 {
    let cx = x.clamp(0, i64::from(w) - 1) as usize;
    let cy = y.clamp(0, i64::from(h) - 1) as usize;
    v[cy * w as usize + cx]
}

#[test]
fn map2d_neighbour_reads_clamp_at_the_edges() {
    let ctx = ctx();
    let body = "load(x, y) * 0.5 + load(x, y - 1) * 0.25 + load(x + 1, y + 1) * 0.25";
    for (w, h) in [(1, 1), (17, 5), (33, 40), (3, 100)] {
        let host = random_vec::<f32>((w * h) as usize, u64::from(w * 1000 + h));
        let input = ctx.upload(&host).unwrap();
        let mut want = Vec::new();
        let mut scale = Vec::new();
        for y in 0..i64::from(h) {
            for x in 0..i64::from(w) {
                let (a, b, c) = (
                    clamp_at(&host, w, h, x, y),
                    clamp_at(&host, w, h, x, y - 1),
                    clamp_at(&host, w, h, x + 1, y + 1),
                );
                want.push(a * 0.5 + b * 0.25 + c * 0.25);
                scale.push(a.abs() * 0.5 + b.abs() * 0.25 + c.abs() * 0.25);
            }
        }
        for sw in [Swizzle::Off, Swizzle::Tiles { n: 16 }] {
            let mut out = poisoned::<f32>(ctx, (w * h) as usize);
            ctx.map2d(
                &Grid2D::new(&input, w, h).unwrap(),
                &mut Grid2DMut::new(&mut out, w, h).unwrap(),
                body,
                sw,
            )
            .unwrap();
            // Two additions and three exact-by-power-of-two products: within 2 ulps of
            // the sum of magnitudes, fused or not.
            assert_all_close_f32(&out.to_vec().unwrap(), &want, &scale, 2.0, "blur");
        }
    }
}

#[test]
fn map2d_output_may_differ_in_size_from_input() {
    let ctx = ctx();
    let (sw_, sh) = (7u32, 5u32);
    let (dw, dh) = (9u32, 8u32);
    let host: Vec<i32> = (0..(sw_ * sh) as i32).collect();
    let input = ctx.upload(&host).unwrap();
    let mut out = poisoned::<i32>(ctx, (dw * dh) as usize);
    ctx.map2d(
        &Grid2D::new(&input, sw_, sh).unwrap(),
        &mut Grid2DMut::new(&mut out, dw, dh).unwrap(),
        "load(x - 1, y * 2) - 1",
        Swizzle::Tiles { n: 16 },
    )
    .unwrap();
    let mut want = Vec::new();
    for y in 0..dh as i64 {
        for x in 0..dw as i64 {
            let cx = (x - 1).clamp(0, i64::from(sw_) - 1);
            let cy = (y * 2).clamp(0, i64::from(sh) - 1);
            want.push(host[(cy * i64::from(sw_) + cx) as usize] - 1);
        }
    }
    assert_all_eq(&out.to_vec().unwrap(), &want, "resampled map2d");
}

#[test]
fn transpose_matches_cpu_on_odd_sizes() {
    let ctx = ctx();
    for (w, h) in [
        (1, 1),
        (17, 5),
        (33, 257),
        (100, 3),
        (31, 33),
        (64, 32),
        (96, 64),
        (1, 70),
        (70, 1),
        (63, 65),
    ] {
        let (sp, dp) = (w + 2, h + 5);
        let host = random_vec::<u32>((sp * h) as usize, u64::from(w + 7 * h));
        let input = ctx.upload(&host).unwrap();
        let mut want = vec![u32::POISON; (dp * w) as usize];
        for y in 0..h {
            for x in 0..w {
                want[(x * dp + y) as usize] = host[(y * sp + x) as usize];
            }
        }
        for sw in [
            Swizzle::Off,
            Swizzle::Tiles { n: 16 },
            Swizzle::Tiles { n: 2 },
            Swizzle::Tiles { n: 3 },
            Swizzle::Bands { workgroups: 5 },
            Swizzle::Auto,
        ] {
            let mut out = poisoned::<u32>(ctx, (dp * w) as usize);
            ctx.transpose(
                &Grid2D::with_pitch(&input, w, h, sp).unwrap(),
                &mut Grid2DMut::with_pitch(&mut out, h, w, dp).unwrap(),
                sw,
            )
            .unwrap();
            assert_all_eq(
                &out.to_vec().unwrap(),
                &want,
                &format!("transpose {w}x{h} {sw:?}"),
            );
        }
    }
}

#[test]
fn transpose_f32_twice_is_the_identity() {
    let ctx = ctx();
    let (w, h) = (45u32, 70u32);
    let host = random_vec::<f32>((w * h) as usize, 3);
    let a = ctx.upload(&host).unwrap();
    let mut t = poisoned::<f32>(ctx, (w * h) as usize);
    let mut back = poisoned::<f32>(ctx, (w * h) as usize);
    ctx.transpose(
        &Grid2D::new(&a, w, h).unwrap(),
        &mut Grid2DMut::new(&mut t, h, w).unwrap(),
        Swizzle::Tiles { n: 16 },
    )
    .unwrap();
    ctx.transpose(
        &Grid2D::new(&t, h, w).unwrap(),
        &mut Grid2DMut::new(&mut back, w, h).unwrap(),
        Swizzle::Off,
    )
    .unwrap();
    assert_all_eq(&back.to_vec().unwrap(), &host, "transpose twice");
}

#[test]
fn color_filter_matches_cpu_on_odd_sizes() {
    let ctx = ctx();
    let m = [
        [0.393f32, 0.769, 0.189, 0.0],
        [0.349, 0.686, 0.168, 0.0],
        [0.272, 0.534, 0.131, 0.0],
        [-0.5, 0.25, 0.125, 1.0],
    ];
    for (w, h) in [(1, 1), (17, 5), (33, 65), (100, 3)] {
        let host = random_vec::<f32>((4 * w * h) as usize, u64::from(w * 31 + h));
        let img = ctx.upload(&host).unwrap();
        let mut want = Vec::new();
        let mut scale = Vec::new();
        for px in host.chunks(4) {
            for row in &m {
                want.push(row[0] * px[0] + row[1] * px[1] + row[2] * px[2] + row[3] * px[3]);
                scale.push(row.iter().zip(px).map(|(a, b)| (a * b).abs()).sum());
            }
        }
        for sw in [
            Swizzle::Off,
            Swizzle::Tiles { n: 16 },
            Swizzle::Tiles { n: 3 },
            Swizzle::Bands { workgroups: 5 },
            Swizzle::Auto,
        ] {
            let mut out = poisoned::<f32>(ctx, host.len());
            ctx.color_filter(&img, w, h, m, &mut out, sw).unwrap();
            // 4 products and 3 sums, each rounding within half an ulp of the sum of
            // magnitudes, on both sides (fused or not): 8 ulps of that sum.
            assert_all_close_f32(
                &out.to_vec().unwrap(),
                &want,
                &scale,
                8.0,
                &format!("color filter {w}x{h} {sw:?}"),
            );
        }
    }
}

/// The `InvalidArgument` message of `r`, checking the op.
fn invalid<T: std::fmt::Debug>(r: Result<T, Error>, want_op: &str) -> String {
    match r {
        Err(Error::InvalidArgument { op, message }) => {
            assert_eq!(op, want_op);
            message
        }
        other => panic!("expected InvalidArgument from {want_op}, got {other:?}"),
    }
}

#[test]
fn view_errors_name_the_numbers() {
    let ctx = ctx();
    let mut v = ctx.zeros::<f32>(20).unwrap();
    let m = invalid(Grid2D::new(&v, 0, 5), "Grid2D::new");
    assert!(m.contains("0 x 5") && m.contains("at least 1"), "{m}");
    let m = invalid(Grid2D::new(&v, 5, 0), "Grid2D::new");
    assert!(m.contains("5 x 0"), "{m}");
    let m = invalid(Grid2D::with_pitch(&v, 5, 2, 4), "Grid2D::new");
    assert!(m.contains("pitch 4") && m.contains("width 5"), "{m}");
    let m = invalid(Grid2D::with_pitch(&v, 5, 3, 8), "Grid2D::new");
    assert!(m.contains("21 elements") && m.contains("has 20"), "{m}");
    let m = invalid(Grid2DMut::new(&mut v, 7, 3), "Grid2DMut::new");
    assert!(m.contains("21 elements") && m.contains("has 20"), "{m}");
    // Exactly fitting is fine: pitch * (height - 1) + width = 20.
    assert!(Grid2D::with_pitch(&v, 4, 3, 8).is_ok());
}

#[test]
fn kernel_errors_by_variant_and_message() {
    let ctx = ctx();
    let a = ctx.zeros::<f32>(64).unwrap();
    let mut b = ctx.zeros::<f32>(64).unwrap();
    let src = Grid2D::new(&a, 8, 8).unwrap();

    // A body that does not compile.
    let mut dst = Grid2DMut::new(&mut b, 8, 8).unwrap();
    match ctx.map2d(&src, &mut dst, "load(x) + 1.0", Swizzle::Off) {
        Err(Error::Compile { op, code, .. }) => {
            assert_eq!(op, "map2d");
            assert_eq!(code, "load(x) + 1.0");
        }
        other => panic!("expected Compile, got {other:?}"),
    }
    // A body of the wrong type.
    assert!(matches!(
        ctx.map2d(&src, &mut dst, "1u", Swizzle::Off),
        Err(Error::Compile { .. })
    ));
    // n = 0, on every kernel.
    let zero = Swizzle::Tiles { n: 0 };
    let m = invalid(ctx.map2d(&src, &mut dst, "load(x, y)", zero), "map2d");
    assert!(m.contains("n: 0"), "{m}");
    invalid(ctx.transpose(&src, &mut dst, zero), "transpose");
    let mut c = ctx.zeros::<f32>(64).unwrap();
    invalid(
        ctx.color_filter(&a, 4, 4, [[0.0; 4]; 4], &mut c, zero),
        "color_filter",
    );
    // A band of no workgroups.
    let no_band = Swizzle::Bands { workgroups: 0 };
    let m = invalid(ctx.map2d(&src, &mut dst, "load(x, y)", no_band), "map2d");
    assert!(m.contains("workgroups: 0"), "{m}");
    invalid(ctx.transpose(&src, &mut dst, no_band), "transpose");

    // transpose into the wrong shape.
    let mut dst = Grid2DMut::new(&mut b, 4, 16).unwrap();
    let src = Grid2D::new(&a, 16, 4).unwrap();
    assert!(ctx.transpose(&src, &mut dst, Swizzle::Off).is_ok());
    let src = Grid2D::new(&a, 8, 8).unwrap();
    let m = invalid(ctx.transpose(&src, &mut dst, Swizzle::Off), "transpose");
    assert!(
        m.contains("8 x 8 src") && m.contains("dst is 4 x 16"),
        "{m}"
    );

    // color_filter: zero size, wrong lengths.
    let id = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let m = invalid(
        ctx.color_filter(&a, 0, 4, id, &mut c, Swizzle::Off),
        "color_filter",
    );
    assert!(m.contains("0 x 4"), "{m}");
    match ctx.color_filter(&a, 5, 3, id, &mut c, Swizzle::Off) {
        Err(Error::LengthMismatch {
            op, left, right, ..
        }) => {
            assert_eq!((op, left, right), ("color_filter", 64, 60));
        }
        other => panic!("expected LengthMismatch, got {other:?}"),
    }
    let mut short = ctx.zeros::<f32>(60).unwrap();
    match ctx.color_filter(&a, 4, 4, id, &mut short, Swizzle::Off) {
        Err(Error::LengthMismatch {
            op,
            left,
            right,
            left_name,
            ..
        }) => {
            assert_eq!(
                (op, left_name.as_str(), left, right),
                ("color_filter", "out", 60, 64)
            );
        }
        other => panic!("expected LengthMismatch, got {other:?}"),
    }
}

#[test]
fn limits_and_contexts_are_checked() {
    // split_ctx: 4 KiB bindings, at most 3 workgroups per dimension.
    let small = split_ctx();
    let a = small.zeros::<u32>(49 * 2).unwrap();
    let mut b = small.zeros::<u32>(49 * 2).unwrap();
    let mut dst = Grid2DMut::new(&mut b, 49, 2).unwrap();
    let m = invalid(
        small.map2d(
            &Grid2D::new(&a, 49, 2).unwrap(),
            &mut dst,
            "load(x, y)",
            Swizzle::Off,
        ),
        "map2d",
    );
    assert!(
        m.contains("4 x 1 workgroups") && m.contains("3 per dimension") && m.contains("at most 48"),
        "{m}"
    );
    // 48 wide fits 3 groups of 16.
    let mut dst = Grid2DMut::new(&mut b, 48, 2).unwrap();
    small
        .map2d(
            &Grid2D::new(&a, 48, 2).unwrap(),
            &mut dst,
            "load(x, y)",
            Swizzle::Off,
        )
        .unwrap();
    // Larger than one binding (1056 u32 = 4224 bytes > 4096), with few enough groups.
    let big = small.zeros::<u32>(1056).unwrap();
    let mut out = small.zeros::<u32>(1056).unwrap();
    let mut dst = Grid2DMut::new(&mut out, 33, 32).unwrap();
    let m = invalid(
        small.map2d(
            &Grid2D::new(&big, 33, 32).unwrap(),
            &mut dst,
            "load(x, y)",
            Swizzle::Off,
        ),
        "map2d",
    );
    assert!(m.contains("4224 bytes") && m.contains("4096 bytes"), "{m}");

    // Vectors of another context.
    let ctx = ctx();
    let mine = ctx.zeros::<u32>(98).unwrap();
    let mut dst = Grid2DMut::new(&mut b, 49, 2).unwrap();
    assert!(matches!(
        ctx.map2d(
            &Grid2D::new(&mine, 49, 2).unwrap(),
            &mut dst,
            "load(x, y)",
            Swizzle::Off
        ),
        Err(Error::ContextMismatch { op: "map2d" })
    ));
}

#[test]
fn blur_vertical_matches_cpu() {
    let ctx = ctx();
    for (w, h) in [(1, 1), (17, 5), (33, 40), (3, 100)] {
        let (sp, dp) = (w + 1, w + 4);
        let host = random_vec::<f32>((sp * h) as usize, u64::from(w * 77 + h));
        let input = ctx.upload(&host).unwrap();
        for radius in [0u32, 1, 3, 7] {
            let mut want = vec![f32::NAN; (dp * h) as usize];
            let mut scale = vec![0.0f32; want.len()];
            let r = i64::from(radius);
            for y in 0..i64::from(h) {
                for x in 0..i64::from(w) {
                    let (mut sum, mut mag) = (0.0f32, 0.0f32);
                    for k in -r..=r {
                        let yy = (y + k).clamp(0, i64::from(h) - 1);
                        let v = host[(yy * i64::from(sp) + x) as usize];
                        sum += v;
                        mag += v.abs();
                    }
                    let at = (y * i64::from(dp) + x) as usize;
                    want[at] = sum / (2 * radius + 1) as f32;
                    scale[at] = mag / (2 * radius + 1) as f32;
                }
            }
            for sw in [Swizzle::Off, Swizzle::Tiles { n: 16 }, Swizzle::Auto] {
                let mut out = poisoned::<f32>(ctx, want.len());
                ctx.blur_vertical(
                    &Grid2D::with_pitch(&input, w, h, sp).unwrap(),
                    &mut Grid2DMut::with_pitch(&mut out, w, h, dp).unwrap(),
                    radius,
                    sw,
                )
                .unwrap();
                let got = out.to_vec().unwrap();
                // Padding between width and pitch stays untouched.
                for i in 0..want.len() {
                    if want[i].is_nan() {
                        assert!(got[i].is_nan(), "padding element {i} written");
                    }
                }
                let keep = |v: &[f32]| -> Vec<f32> {
                    v.iter()
                        .zip(&want)
                        .filter(|(_, w)| !w.is_nan())
                        .map(|(g, _)| *g)
                        .collect()
                };
                // Same summation order on both sides; WGSL's division is within 2.5 ulp.
                assert_all_close_f32(
                    &keep(&got),
                    &keep(&want),
                    &keep(&scale),
                    4.0,
                    &format!("blur {w}x{h} r={radius} {sw:?}"),
                );
            }
        }
    }
    // Errors: shapes, radius.
    let a = ctx.zeros::<f32>(64).unwrap();
    let mut b = ctx.zeros::<f32>(64).unwrap();
    let src = Grid2D::new(&a, 8, 8).unwrap();
    let mut dst = Grid2DMut::new(&mut b, 4, 16).unwrap();
    let m = invalid(
        ctx.blur_vertical(&src, &mut dst, 1, Swizzle::Off),
        "blur_vertical",
    );
    assert!(m.contains("src is 8 x 8 but dst is 4 x 16"), "{m}");
    let mut dst = Grid2DMut::new(&mut b, 8, 8).unwrap();
    let big = gpuprim::MAX_BLUR_RADIUS + 1;
    let m = invalid(
        ctx.blur_vertical(&src, &mut dst, big, Swizzle::Off),
        "blur_vertical",
    );
    assert!(m.contains(&format!("radius {big}")), "{m}");
}

fn check_transpose<T: TestElement>(ctx: &Ctx, w: u32, h: u32) {
    let host = random_vec::<T>((w * h) as usize, u64::from(w ^ (h << 8)));
    let input = ctx.upload(&host).unwrap();
    let mut out = poisoned::<T>(ctx, (w * h) as usize);
    ctx.transpose(
        &Grid2D::new(&input, w, h).unwrap(),
        &mut Grid2DMut::new(&mut out, h, w).unwrap(),
        Swizzle::Bands { workgroups: 5 },
    )
    .unwrap();
    let mut want = Vec::with_capacity(host.len());
    for x in 0..w {
        for y in 0..h {
            want.push(host[(y * w + x) as usize]);
        }
    }
    assert_all_eq(
        &out.to_vec().unwrap(),
        &want,
        &format!("transpose {}", T::WGSL),
    );
}

#[test]
fn transpose_every_element_type() {
    let ctx = ctx();
    for (w, h) in [(37, 70), (129, 3)] {
        check_transpose::<i32>(ctx, w, h);
        check_transpose::<f32>(ctx, w, h);
        if ctx.has_features(wgpu::Features::SHADER_F64) {
            check_transpose::<f64>(ctx, w, h);
        }
        if ctx.has_features(wgpu::Features::SHADER_F16) {
            check_transpose::<gpuprim::half::f16>(ctx, w, h);
        }
    }
}

#[test]
fn map2d_compiles_once_per_body_and_swizzled_grid() {
    // A context of its own, so other tests' compiles do not interfere.
    let ctx = Ctx::new().unwrap();
    let a = ctx.zeros::<f32>(100).unwrap();
    let mut b = ctx.zeros::<f32>(100).unwrap();
    let body = "load(x, y) + 0.125";
    let mut run = |w, h, sw| {
        let before = ctx.pipelines_compiled();
        ctx.map2d(
            &Grid2D::new(&a, w, h).unwrap(),
            &mut Grid2DMut::new(&mut b, w, h).unwrap(),
            body,
            sw,
        )
        .unwrap();
        ctx.pipelines_compiled() - before
    };
    // Unswizzled: one pipeline for the body, whatever the size.
    assert_eq!(run(10, 10, Swizzle::Off), 1);
    assert_eq!(run(7, 9, Swizzle::Off), 0);
    // Swizzled: the grid and tile width are constants of the pipeline.
    assert_eq!(run(7, 9, Swizzle::Tiles { n: 16 }), 1);
    assert_eq!(
        run(7, 9, Swizzle::Tiles { n: 16 }),
        0,
        "same grid and n: reused"
    );
    assert_eq!(run(1, 100, Swizzle::Tiles { n: 5 }), 1, "another grid");
    assert_eq!(b.to_vec().unwrap()[..100], [0.125f32; 100]);
}

/// Each 2D kernel with `sw` on a 200 x 150 grid (every dispatch at least
/// AUTO_MIN_WORKGROUPS), outputs poisoned first: map2d, transpose, colour filter, blur.
fn all_kernels(ctx: &Ctx, host: &[f32], sw: Swizzle) -> Vec<Vec<f32>> {
    let (w, h) = (200, 150);
    let px = (w * h) as usize;
    let input = ctx.upload(&host[..px]).unwrap();
    let src = Grid2D::new(&input, w, h).unwrap();
    let mut outs = Vec::new();
    let mut out = poisoned::<f32>(ctx, px);
    let body = "load(x, y - 3) * 0.25 + load(x + 1, y) * 0.5";
    ctx.map2d(&src, &mut Grid2DMut::new(&mut out, w, h).unwrap(), body, sw)
        .unwrap();
    outs.push(out.to_vec().unwrap());
    let mut out = poisoned::<f32>(ctx, px);
    ctx.transpose(&src, &mut Grid2DMut::new(&mut out, h, w).unwrap(), sw)
        .unwrap();
    outs.push(out.to_vec().unwrap());
    let rgba = ctx.upload(&host[..4 * px]).unwrap();
    let mut out = poisoned::<f32>(ctx, 4 * px);
    let m = [
        [0.5, 0.25, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    ctx.color_filter(&rgba, w, h, m, &mut out, sw).unwrap();
    outs.push(out.to_vec().unwrap());
    let mut out = poisoned::<f32>(ctx, px);
    ctx.blur_vertical(&src, &mut Grid2DMut::new(&mut out, w, h).unwrap(), 5, sw)
        .unwrap();
    outs.push(out.to_vec().unwrap());
    outs
}

#[test]
fn auto_measures_once_per_kernel_and_grid_and_computes_what_linear_order_does() {
    // A context of its own: its choices and compiles are this test's only.
    let ctx = Ctx::new().unwrap();
    let host = random_vec::<f32>(4 * 200 * 150, 77);
    let linear = all_kernels(&ctx, &host, Swizzle::Off);
    assert!(ctx.swizzle_choices().is_empty(), "Off measures nothing");
    let auto = all_kernels(&ctx, &host, Swizzle::Auto);
    for (k, (a, l)) in auto.iter().zip(&linear).enumerate() {
        // Same arithmetic per element in every order: the same bits (NaN poison included,
        // which no kernel may leave).
        assert!(
            l.iter().all(|v| !v.is_nan()),
            "kernel {k}: an element left unwritten"
        );
        assert_eq!(
            a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            l.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "kernel {k}: Auto's output differs from linear order's"
        );
    }
    let choices = ctx.swizzle_choices();
    let ops: Vec<_> = choices.iter().map(|c| c.op).collect();
    assert_eq!(ops, ["blur_vertical", "color_filter", "map2d", "transpose"]);
    // 16 x 16 workgroups (8 x 8 where 256 invocations are not allowed), map2d's 4 rows
    // each, the transpose's 32 x 32 tiles.
    let side = if ctx.info().limits.max_compute_invocations_per_workgroup >= 256 {
        16
    } else {
        8
    };
    let groups: Vec<_> = choices.iter().map(|c| c.groups).collect();
    let per = |gw: u32, gh: u32| (200u32.div_ceil(gw), 150u32.div_ceil(gh));
    let want = [
        per(side, side),
        per(side, side),
        per(side, 4 * side),
        per(32, 32),
    ];
    assert_eq!(groups, want);
    for g in want {
        // Else this test would not measure: make the grid larger.
        assert!(g.0 * g.1 >= AUTO_MIN_WORKGROUPS, "{g:?}");
    }
    assert!(choices.iter().all(|c| c.element == "f32"));
    assert_eq!(
        choices[2].code,
        "load(x, y - 3) * 0.25 + load(x + 1, y) * 0.5"
    );
    // Both grids' width, height and pitch, the blur's radius.
    let sizes = |s: gpuprim::ops::grid2d::SwizzleShape| {
        [
            s.src_width,
            s.src_height,
            s.src_pitch,
            s.dst_width,
            s.dst_height,
            s.dst_pitch,
            s.radius,
        ]
    };
    assert_eq!(
        sizes(choices[0].shape),
        [200, 150, 200, 200, 150, 200, 5],
        "the blur's radius"
    );
    assert_eq!(sizes(choices[1].shape), [200, 150, 0, 0, 0, 0, 0]);
    for c in &choices {
        let orders: Vec<_> = c.ms.iter().map(|m| m.0).collect();
        assert_eq!(orders, AUTO_CANDIDATES, "{c:?}");
        assert!(c.ms.iter().all(|m| m.1.is_finite() && m.1 > 0.0), "{c:?}");
        assert!(AUTO_CANDIDATES.contains(&c.chosen), "{c:?}");
        let linear_ms = c.ms[0].1;
        let chosen_ms = c.ms.iter().find(|m| m.0 == c.chosen).unwrap().1;
        // Another order only when it measured AUTO_MARGIN faster, and the fastest then;
        // linear order when none did.
        if c.chosen != Swizzle::Off {
            assert!(chosen_ms <= linear_ms * (1.0 - AUTO_MARGIN), "{c:?}");
            assert!(c.ms.iter().all(|m| m.1 >= chosen_ms), "{c:?}");
        } else {
            assert!(
                c.ms.iter().all(|m| m.1 > linear_ms * (1.0 - AUTO_MARGIN)),
                "{c:?}"
            );
        }
    }
    // Later calls reuse the choice: nothing measured or compiled again.
    let compiled = ctx.pipelines_compiled();
    assert_eq!(all_kernels(&ctx, &host, Swizzle::Auto), linear);
    assert_eq!(ctx.pipelines_compiled(), compiled);
    assert_eq!(ctx.swizzle_choices(), choices);
    // A dispatch below AUTO_MIN_WORKGROUPS runs linear, unmeasured.
    let small = ctx.upload(&host[..100]).unwrap();
    let mut out = poisoned::<f32>(&ctx, 100);
    let (src, mut dst) = (
        Grid2D::new(&small, 10, 10).unwrap(),
        Grid2DMut::new(&mut out, 10, 10).unwrap(),
    );
    ctx.blur_vertical(&src, &mut dst, 2, Swizzle::Auto).unwrap();
    assert_eq!(ctx.swizzle_choices().len(), choices.len());
    assert!(out.to_vec().unwrap().iter().all(|v| !v.is_nan()));
    // Another body, radius or element type on the same grid is another choice.
    let (w, h) = (200, 150);
    let input = ctx.upload(&host[..w * h]).unwrap();
    let src = Grid2D::new(&input, w as u32, h as u32).unwrap();
    let mut out = poisoned::<f32>(&ctx, w * h);
    let mut dst = Grid2DMut::new(&mut out, w as u32, h as u32).unwrap();
    ctx.map2d(&src, &mut dst, "load(x, y) * 2.0", Swizzle::Auto)
        .unwrap();
    ctx.blur_vertical(&src, &mut dst, 6, Swizzle::Auto).unwrap();
    let ints = ctx.upload(&random_vec::<u32>(w * h, 5)).unwrap();
    let mut int_out = poisoned::<u32>(&ctx, w * h);
    ctx.transpose(
        &Grid2D::new(&ints, w as u32, h as u32).unwrap(),
        &mut Grid2DMut::new(&mut int_out, h as u32, w as u32).unwrap(),
        Swizzle::Auto,
    )
    .unwrap();
    let more = ctx.swizzle_choices();
    assert_eq!(more.len(), choices.len() + 3);
    assert!(
        more.iter()
            .any(|c| c.op == "map2d" && c.code == "load(x, y) * 2.0")
    );
    assert!(
        more.iter()
            .any(|c| c.op == "blur_vertical" && c.shape.radius == 6)
    );
    assert!(
        more.iter()
            .any(|c| c.op == "transpose" && c.element == "u32")
    );
    let choices = more;
    // A body that does not compile is the same error under Auto, and nothing is chosen.
    let big = ctx.upload(&host[..200 * 150]).unwrap();
    let mut out = poisoned::<f32>(&ctx, 200 * 150);
    let (src, mut dst) = (
        Grid2D::new(&big, 200, 150).unwrap(),
        Grid2DMut::new(&mut out, 200, 150).unwrap(),
    );
    match ctx.map2d(&src, &mut dst, "load(x) + 1.0", Swizzle::Auto) {
        Err(Error::Compile { op: "map2d", .. }) => {}
        other => panic!("expected Compile, got {other:?}"),
    }
    assert_eq!(ctx.swizzle_choices().len(), choices.len());
}
