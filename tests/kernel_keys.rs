//! A kernel's typed configuration is both its pipeline cache key and the only input of
//! its WGSL. This test compiles the kernels of every family on contexts that differ in
//! binding size, dispatch limits, device limits and features (the adapter's, a split one,
//! WebGPU's without subgroups), and checks through the `internals` audit
//! that every configuration compiled twice (on two contexts) rendered the same WGSL. A
//! render that read anything besides its configuration would differ between contexts
//! and fail the call with `Error::Internal`.

mod common;

use common::{ctx, random_vec, split_ctx};
use gpuprim::wgpu;
use gpuprim::{Ctx, Grid2D, Grid2DMut, Reduce, Rng, Scan, ScanOp, Sort, Swizzle};

/// One call of each family, each result checked against the CPU, so every kernel the
/// call compiles ran.
fn every_family(ctx: &Ctx) {
    let n = 3000;
    let x: Vec<f32> = random_vec(n, 1);
    let k: Vec<u32> = random_vec::<u32>(n, 2).iter().map(|v| v % 64).collect();
    let gx = ctx.upload(&x).unwrap();
    let gk = ctx.upload(&k).unwrap();

    let doubled = ctx.map(&gx, "x * 2.0").unwrap().to_vec().unwrap();
    assert!(doubled.iter().zip(&x).all(|(d, x)| *d == x * 2.0));
    let max = ctx.reduce_with(&gx, Reduce::Max).unwrap();
    assert_eq!(max, x.iter().copied().fold(f32::MIN, f32::max));
    let sum: u32 = ctx.reduce(&gk).unwrap();
    assert_eq!(sum, k.iter().sum::<u32>());
    let scanned = ctx
        .scan_with(&gk, &Scan::inclusive(ScanOp::Sum))
        .unwrap()
        .to_vec()
        .unwrap();
    let mut acc = 0;
    assert!(scanned.iter().zip(&k).all(|(s, v)| {
        acc += v;
        *s == acc
    }));
    let kept = ctx.compact(&gk, "x > 31u").unwrap().to_vec().unwrap();
    assert_eq!(
        kept,
        k.iter().copied().filter(|v| *v > 31).collect::<Vec<_>>()
    );
    let h = ctx.histogram(&gk, 64).unwrap();
    assert_eq!(h.iter().sum::<u32>() as usize, n);

    let mut sorted = ctx.upload(&k).unwrap();
    ctx.sort_with(&mut sorted, &Sort::ascending()).unwrap();
    let mut expect = k.clone();
    expect.sort();
    assert_eq!(sorted.to_vec().unwrap(), expect);
    let queries = ctx.upload(&[0u32, 10, 63, 64]).unwrap();
    let at = ctx
        .lower_bound(&sorted, &queries)
        .unwrap()
        .to_vec()
        .unwrap();
    let cpu: Vec<u32> = [0u32, 10, 63, 64]
        .iter()
        .map(|q| expect.partition_point(|v| v < q) as u32)
        .collect();
    assert_eq!(at, cpu);
    let (value, index) = ctx.argmax(&gx).unwrap();
    assert_eq!(x[index as usize], value);
    let by_key = ctx.scan_by_key(&sorted, &gk).unwrap().to_vec().unwrap();
    assert_eq!(by_key.len(), n);
    let (top, _) = ctx.top_k(&gx, 5).unwrap();
    let mut desc = x.clone();
    desc.sort_by(|a, b| b.total_cmp(a));
    assert_eq!(top.to_vec().unwrap(), desc[..5]);
    let offsets = ctx.upload(&[0u32, 100, 100, 2500, 3000]).unwrap();
    let sums = ctx
        .segmented_reduce(&gk, &offsets, Reduce::Sum)
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(sums[1], 0);
    assert_eq!(sums[3], k[2500..].iter().sum::<u32>());
    let mut noise = ctx.zeros::<f32>(n).unwrap();
    ctx.fill_uniform(&mut noise, Rng::WangHash { seed: 7 }, 0.0, 1.0)
        .unwrap();
    assert!(
        noise
            .to_vec()
            .unwrap()
            .iter()
            .all(|v| (0.0..1.0).contains(v))
    );

    assert_eq!(ctx.atomic_sum(&gk).unwrap(), k.iter().sum::<u32>());
    let squares: u32 = ctx
        .transform_reduce("x * x", Reduce::Sum)
        .read("x", &gk)
        .run()
        .unwrap();
    assert_eq!(squares, k.iter().map(|v| v * v).sum::<u32>());
    let mut y = ctx.upload(&k).unwrap();
    ctx.elementwise("y = y + 1u;")
        .read_write("y", &mut y)
        .run()
        .unwrap();
    assert!(y.to_vec().unwrap().iter().zip(&k).all(|(a, b)| *a == b + 1));
    // 2D: 30 x 20 of the values (2D kernels bind a vector whole: it fits 4 KiB).
    let (w, h) = (30usize, 20usize);
    let g2 = ctx.upload(&k[..w * h]).unwrap();
    let grid = Grid2D::new(&g2, w as u32, h as u32).unwrap();
    let mut t = ctx.zeros::<u32>(w * h).unwrap();
    let mut tgrid = Grid2DMut::new(&mut t, h as u32, w as u32).unwrap();
    ctx.transpose(&grid, &mut tgrid, Swizzle::Off).unwrap();
    let t = t.to_vec().unwrap();
    assert!((0..w * h).all(|i| t[(i % w) * h + i / w] == k[i]));
    let rows = ctx
        .reduce_rows(&grid, Reduce::Sum)
        .unwrap()
        .to_vec()
        .unwrap();
    assert!((0..h).all(|r| rows[r] == k[r * w..(r + 1) * w].iter().sum::<u32>()));
    let columns = ctx
        .reduce_columns(&grid, Reduce::Sum)
        .unwrap()
        .to_vec()
        .unwrap();
    assert!((0..w).all(|c| columns[c] == (0..h).map(|r| k[r * w + c]).sum::<u32>()));
}

#[test]
fn equal_kernel_configurations_render_equal_wgsl() {
    // Held to WebGPU's default limits (16 KiB of workgroup memory, 256 invocations),
    // without subgroups, bindings of 4 KiB and 3 workgroups a dimension.
    let webgpu = Ctx::builder()
        .webgpu()
        .without_features(wgpu::Features::SUBGROUP)
        .max_binding_bytes(1 << 12)
        .max_workgroups_per_dimension(3)
        .build()
        .unwrap();
    let contexts = [ctx(), split_ctx(), &webgpu];
    // The contexts differ in what a render could read: binding size and dispatch limits
    // (the adapter's against the split context's), device limits (against WebGPU's),
    // and features where the adapter has subgroups (Mesa's GL adapter has none: there
    // the WebGPU context differs in its limits alone).
    let (full, split, webgpu_info) = (ctx().info(), split_ctx().info(), webgpu.info());
    assert!(full.max_binding_bytes > split.max_binding_bytes);
    assert!(full.max_workgroups_per_dimension > split.max_workgroups_per_dimension);
    // Under `GPUPRIM_PROFILE` (.ci/run's WebGPU runs) every context is held to WebGPU's
    // limits, the default one too: there they differ in bindings and dispatches alone.
    let held = std::env::var_os("GPUPRIM_PROFILE").is_some();
    assert!(
        held || full.limits.max_compute_workgroup_storage_size
            > webgpu_info.limits.max_compute_workgroup_storage_size
            || full.limits.max_compute_invocations_per_workgroup
                > webgpu_info.limits.max_compute_invocations_per_workgroup,
        "the adapter's limits are WebGPU's defaults: {full}"
    );
    assert!(!webgpu_info.features.contains(wgpu::Features::SUBGROUP));
    if full.backend == wgpu::Backend::Vulkan && !held {
        assert!(
            full.features.contains(wgpu::Features::SUBGROUP),
            "a Vulkan adapter without subgroups: {full}"
        );
    }
    for c in contexts {
        every_family(c);
    }
    let (distinct, compared) = gpuprim::internals::kernel_audit();
    assert!(distinct > 0, "no kernel went through the typed cache");
    // The same configurations were compiled on several contexts and compared.
    assert!(
        compared > 0,
        "{distinct} configurations, none compiled twice"
    );
}
