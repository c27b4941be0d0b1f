//! Throughput of the 2D kernels (bytes read + written per second) over square f32 images,
//! in each workgroup order (linear, tiles of 16, bands of 1024, `Swizzle::Auto`, whose
//! measuring first call falls in criterion's warm-up): transpose, a map2d vertical blur,
//! the radius-32 `blur_vertical` and color_filter.
//!
//! `cargo bench --bench grid2d`. Each iteration submits the kernel and waits for the GPU,
//! so the time includes one submit + wait; see the `bandwidth` table (lab/) for GPU-only figures.

mod common;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gpuprim::{Ctx, Grid2D, Grid2DMut, Swizzle};

const BLUR: &str = "load(x, y) * 0.5 + load(x, y - 1) * 0.25 + load(x, y + 1) * 0.25";

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    let swizzles = [
        ("off", Swizzle::Off),
        ("n16", Swizzle::Tiles { n: 16 }),
        ("bands1024", Swizzle::Bands { workgroups: 1024 }),
        ("auto", Swizzle::Auto),
    ];
    let kernels = [
        ("transpose", 8u64),
        ("map2d_blur", 8),
        ("blur_vertical_r32", 8),
        ("color_filter", 32),
    ];
    for (kernel, bytes_per_px) in kernels {
        let mut group = c.benchmark_group(format!("grid2d_{kernel}"));
        for side in common::sides2d(&ctx) {
            let px = (side * side) as usize;
            let elems = if kernel == "color_filter" { 4 * px } else { px };
            let a = ctx.upload(&vec![1.5f32; elems]).unwrap();
            let mut out = ctx.zeros::<f32>(elems).unwrap();
            group.throughput(Throughput::Bytes(bytes_per_px * px as u64));
            for (name, sw) in swizzles {
                let id = BenchmarkId::new(name, format!("{side}x{side}"));
                group.bench_with_input(id, &side, |bch, _| {
                    bch.iter(|| {
                        match kernel {
                            "transpose" => ctx.transpose(
                                &Grid2D::new(&a, side, side).unwrap(),
                                &mut Grid2DMut::new(&mut out, side, side).unwrap(),
                                sw,
                            ),
                            "map2d_blur" => ctx.map2d(
                                &Grid2D::new(&a, side, side).unwrap(),
                                &mut Grid2DMut::new(&mut out, side, side).unwrap(),
                                BLUR,
                                sw,
                            ),
                            "blur_vertical_r32" => ctx.blur_vertical(
                                &Grid2D::new(&a, side, side).unwrap(),
                                &mut Grid2DMut::new(&mut out, side, side).unwrap(),
                                32,
                                sw,
                            ),
                            _ => ctx.color_filter(&a, side, side, IDENTITY, &mut out, sw),
                        }
                        .unwrap();
                        ctx.synchronize().unwrap();
                    })
                });
            }
        }
        group.finish();
    }
}

const IDENTITY: [[f32; 4]; 4] = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}
criterion_main!(benches);
