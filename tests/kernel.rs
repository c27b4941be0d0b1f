//! Kernels of your own (`Ctx::elementwise`) and fused reductions (`Ctx::transform_reduce`)
//! against CPU references: mixed element types, several outputs, scalars, device scalars,
//! raw vectors with neighbour access at both ends, edge lengths and binding windows;
//! compile counts; and every error a kernel's arguments can cause.

mod common;

use common::*;
use gpuprim::{Ctx, Error, Limit, Reduce};
use proptest::prelude::*;

/// Contexts every kernel runs on: the default one and the split one (4 KiB bindings, at
/// most 3 workgroups per dimension), where element vectors span many binding windows.
fn contexts() -> [&'static Ctx; 2] {
    [ctx(), split_ctx()]
}

/// Whether `len` f32 fit one storage binding of `ctx` (raw vectors are bound whole).
fn fits_one_binding(ctx: &Ctx, len: usize) -> bool {
    (len.max(1) * 4) as u64 <= ctx.info().max_binding_bytes
}

/// Mixed types, two inputs, a read-write and two write-only outputs, two scalars and the
/// index: every output element against the CPU. Outputs start poisoned (the
/// read-write one with random values), so an element the kernel skips shows.
fn check_mixed(ctx: &Ctx, len: usize, seed: u64, alpha: f32, k: u32) {
    let hx = random_vec::<f32>(len, seed);
    let hk = random_vec::<u32>(len, seed + 1);
    let hy = random_vec::<f32>(len, seed + 2);
    let x = ctx.upload(&hx).unwrap();
    let kv = ctx.upload(&hk).unwrap();
    let mut y = ctx.upload(&hy).unwrap();
    let mut q = poisoned::<i32>(ctx, len);
    let mut bin = poisoned::<u32>(ctx, len);
    ctx.elementwise(
        "y = alpha * x + y;
         q = i32(kv >> 8u) - i32(i);
         bin = (kv ^ k) % 7u + select(0u, 100u, x < 0.0);",
    )
    .read("x", &x)
    .read("kv", &kv)
    .read_write("y", &mut y)
    .write("q", &mut q)
    .write("bin", &mut bin)
    .scalar("alpha", alpha)
    .scalar("k", k)
    .run()
    .unwrap();
    let want_y: Vec<f32> = hx.iter().zip(&hy).map(|(&x, &y)| alpha * x + y).collect();
    let scale: Vec<f32> = hx
        .iter()
        .zip(&hy)
        .map(|(&x, &y)| (alpha * x).abs().max(y.abs()))
        .collect();
    // One multiply and one add: a fused multiply-add on the GPU skips one rounding.
    assert_all_close_f32(
        &y.to_vec().unwrap(),
        &want_y,
        &scale,
        2.0,
        "y = alpha x + y",
    );
    let want_q: Vec<i32> = (0..len)
        .map(|i| ((hk[i] >> 8) as i32).wrapping_sub(i as i32))
        .collect();
    assert_all_eq(&q.to_vec().unwrap(), &want_q, "q");
    let want_bin: Vec<u32> = (0..len)
        .map(|i| (hk[i] ^ k) % 7 + if hx[i] < 0.0 { 100 } else { 0 })
        .collect();
    assert_all_eq(&bin.to_vec().unwrap(), &want_bin, "bin");
}

/// A 3-point stencil over a raw vector with zero boundaries (neighbours at both ends),
/// written to an element vector, and a gather through an index vector.
fn check_raw(ctx: &Ctx, len: usize, seed: u64) {
    let hu = random_vec::<f32>(len, seed);
    let hidx: Vec<u32> = random_vec::<u32>(len, seed + 1)
        .iter()
        .map(|r| if len == 0 { 0 } else { r % len as u32 })
        .collect();
    let u = ctx.upload(&hu).unwrap();
    let idx = ctx.upload(&hidx).unwrap();
    let mut d = poisoned::<f32>(ctx, len);
    let mut g = poisoned::<f32>(ctx, len);
    let run = ctx
        .elementwise(
            "let l = select(0.0, u[i - 1u], i > 0u);
         let r = select(0.0, u[i + 1u], i + 1u < n);
         d = l - 2.0 * u[i] + r;
         g = u[j];",
        )
        .raw("u", &u)
        .read("j", &idx)
        .write("d", &mut d)
        .write("g", &mut g)
        .run();
    if !fits_one_binding(ctx, len) {
        assert!(matches!(run, Err(Error::TooLarge { .. })), "{run:?}");
        return;
    }
    run.unwrap();
    let at = |i: isize| {
        if i < 0 || i >= len as isize {
            0.0
        } else {
            hu[i as usize]
        }
    };
    let want: Vec<f32> = (0..len as isize)
        .map(|i| at(i - 1) - 2.0 * at(i) + at(i + 1))
        .collect();
    let scale: Vec<f32> = (0..len as isize)
        .map(|i| at(i - 1).abs() + 2.0 * at(i).abs() + at(i + 1).abs())
        .collect();
    assert_all_close_f32(&d.to_vec().unwrap(), &want, &scale, 3.0, "stencil");
    let want: Vec<f32> = hidx.iter().map(|&j| hu[j as usize]).collect();
    assert_all_eq(&g.to_vec().unwrap(), &want, "gather");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn mixed_types_outputs_and_scalars(len in lengths(), seed: u64, alpha in -4.0f32..4.0, k: u32, which in 0usize..2) {
        check_mixed(contexts()[which], len, seed, alpha, k);
    }

    #[test]
    fn raw_neighbours_and_gathers(len in lengths(), seed: u64, which in 0usize..2) {
        check_raw(contexts()[which], len, seed);
    }

    #[test]
    fn sum_of_squares(len in lengths(), seed: u64, which in 0usize..2) {
        check_sum_of_squares(contexts()[which], len, seed);
    }
}

#[test]
fn edge_lengths_on_both_contexts() {
    // 256 invocations x 4 lanes per unit: WG - 1, WG, WG + 1 in elements and units.
    for len in [0, 1, 3, 4, 5, 255, 256, 257, 1023, 1024, 1025, 4097] {
        for ctx in contexts() {
            check_mixed(ctx, len, len as u64 + 7, 1.5, 0x55);
            check_raw(ctx, len, len as u64 + 9);
            check_sum_of_squares(ctx, len, len as u64 + 11);
        }
    }
}

#[test]
fn f64_and_f16_element_vectors_where_supported() {
    let ctx = ctx();
    let len = 1001;
    let hx = random_vec::<f32>(len, 3);
    let x = ctx.upload(&hx).unwrap();
    if ctx.has_features(gpuprim::wgpu::Features::SHADER_F64) {
        let mut wide = poisoned::<f64>(ctx, len);
        ctx.elementwise("w = f64(x) * 3.0lf;")
            .read("x", &x)
            .write("w", &mut wide)
            .run()
            .unwrap();
        let want: Vec<f64> = hx.iter().map(|&x| x as f64 * 3.0).collect();
        assert_all_eq(&wide.to_vec().unwrap(), &want, "f64 output");
    } else {
        let err = ctx.zeros::<f64>(len).map(drop).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
    }
    if ctx.has_features(gpuprim::wgpu::Features::SHADER_F16) {
        use gpuprim::half::f16;
        let hh = random_vec::<f16>(len, 4);
        let h = ctx.upload(&hh).unwrap();
        let mut out = poisoned::<f32>(ctx, len);
        ctx.elementwise("o = f32(h) + x;")
            .read("h", &h)
            .read("x", &x)
            .write("o", &mut out)
            .run()
            .unwrap();
        let want: Vec<f32> = hh.iter().zip(&hx).map(|(h, &x)| h.to_f32() + x).collect();
        assert_all_eq(&out.to_vec().unwrap(), &want, "f16 input");
    }
}

#[test]
fn device_scalars_stay_on_the_gpu() {
    let ctx = ctx();
    let len = 5000;
    let hx = random_vec::<f32>(len, 21);
    let x = ctx.upload(&hx).unwrap();
    // alpha = sum(x * x) / len, computed on the device and never read by the host.
    let mut stats = poisoned::<f32>(ctx, 2);
    ctx.transform_reduce("x * x", Reduce::Sum)
        .read("x", &x)
        .run_into(&mut stats)
        .unwrap();
    let mut y = poisoned::<f32>(ctx, len);
    ctx.elementwise("y = x / (ss / f32(n));")
        .read("x", &x)
        .device_scalar("ss", &stats, 0)
        .write("y", &mut y)
        .run()
        .unwrap();
    let ss = stats.to_vec().unwrap()[0];
    let want: Vec<f32> = hx.iter().map(|&x| x / (ss / len as f32)).collect();
    let scale: Vec<f32> = want.iter().map(|w| w.abs()).collect();
    assert_all_close_f32(&y.to_vec().unwrap(), &want, &scale, 2.0, "device scalar");
}

#[test]
fn raw_only_kernel_with_a_length_and_a_scatter() {
    let ctx = ctx();
    let len = 777;
    let hu = random_vec::<u32>(len, 5);
    let u = ctx.upload(&hu).unwrap();
    // Reverse u into r through a raw read-write scatter: r[n - 1 - i] = u[i].
    let mut r = poisoned::<u32>(ctx, len);
    ctx.elementwise("r[n - 1u - i] = u[i];")
        .raw("u", &u)
        .raw_read_write("r", &mut r)
        .len(len)
        .run()
        .unwrap();
    let want: Vec<u32> = hu.iter().rev().copied().collect();
    assert_all_eq(&r.to_vec().unwrap(), &want, "scatter");
}

#[test]
fn vectors_and_device_scalars_the_code_never_reads_are_still_bound() {
    // A raw vector, a raw read-write vector and a device scalar that the body leaves
    // unused: their bindings stay in the kernel's layout, so the call's bind group fits.
    let ctx = ctx();
    let len = 301;
    let hx = random_vec::<f32>(len, 11);
    let x = ctx.upload(&hx).unwrap();
    let u = ctx.upload(&random_vec::<f32>(len, 12)).unwrap();
    let mut r = ctx.upload(&random_vec::<u32>(len, 13)).unwrap();
    let before = r.to_vec().unwrap();
    let mut y = poisoned::<f32>(ctx, len);
    ctx.elementwise("y = x * 2.0;")
        .read("x", &x)
        .raw("u", &u)
        .raw_read_write("r", &mut r)
        .device_scalar("d", &u, 3)
        .write("y", &mut y)
        .run()
        .unwrap();
    let want: Vec<f32> = hx.iter().map(|x| x * 2.0).collect();
    assert_all_eq(
        &y.to_vec().unwrap(),
        &want,
        "elementwise with unused bindings",
    );
    assert_all_eq(
        &r.to_vec().unwrap(),
        &before,
        "an unused raw_read_write vector",
    );
    // transform_reduce likewise: x * 2 summed exactly (small integers).
    let hi: Vec<f32> = (0..len).map(|i| (i % 17) as f32).collect();
    let xi = ctx.upload(&hi).unwrap();
    let sum = ctx
        .transform_reduce::<f32>("x * 2.0", Reduce::Sum)
        .read("x", &xi)
        .raw("u", &u)
        .device_scalar("d", &u, 5)
        .run()
        .unwrap();
    assert_eq!(sum, hi.iter().map(|x| x * 2.0).sum::<f32>());
}

#[test]
fn out_of_range_raw_indices_stay_inside_the_vector() {
    let ctx = ctx();
    let len = 100;
    let hu = random_vec::<u32>(len, 8);
    let u = ctx.upload(&hu).unwrap();
    let mut far = poisoned::<u32>(ctx, len);
    // Reads far past the end: WGSL's bounds checks clamp them into u (or give 0).
    ctx.elementwise("f = u[i + 1000000u];")
        .raw("u", &u)
        .write("f", &mut far)
        .len(len)
        .run()
        .unwrap();
    for (i, f) in far.to_vec().unwrap().into_iter().enumerate() {
        assert!(
            f == 0 || hu.contains(&f),
            "element {i}: {f:#x} is neither 0 nor an element of u"
        );
    }
    // Writes far past the end land inside the vector: a guard vector made right after
    // it keeps its values.
    let mut target = ctx.upload(&vec![7u32; len]).unwrap();
    let guard = ctx.upload(&hu).unwrap();
    ctx.elementwise("t[i + 1000000u] = 1u;")
        .raw_read_write("t", &mut target)
        .len(len)
        .run()
        .unwrap();
    assert_all_eq(
        &guard.to_vec().unwrap(),
        &hu,
        "guard after the scattered vector",
    );
    let t = target.to_vec().unwrap();
    assert!(t.iter().all(|&v| v == 7 || v == 1));
}

#[test]
fn scalars_change_without_compiling() {
    let ctx = &Ctx::new().unwrap();
    let len = 300;
    let hx = random_vec::<f32>(len, 31);
    let x = ctx.upload(&hx).unwrap();
    let mut y = ctx.zeros::<f32>(len).unwrap();
    let mut want = vec![0.0f32; len];
    let before = ctx.pipelines_compiled();
    for step in 0..20 {
        let alpha = 0.25 * step as f32 - 1.0;
        ctx.elementwise("y = alpha * x + y;")
            .read("x", &x)
            .read_write("y", &mut y)
            .scalar("alpha", alpha)
            .run()
            .unwrap();
        for (w, &x) in want.iter_mut().zip(&hx) {
            *w += alpha * x;
        }
    }
    assert_eq!(
        ctx.pipelines_compiled() - before,
        1,
        "20 alphas, one pipeline"
    );
    let scale: Vec<f32> = hx.iter().map(|x| 20.0 * x.abs()).collect();
    assert_all_close_f32(&y.to_vec().unwrap(), &want, &scale, 8.0, "axpy loop");
    // A new body compiles once; so does a new signature (another type of `x`).
    ctx.elementwise("y = alpha * x - y;")
        .read("x", &x)
        .read_write("y", &mut y)
        .scalar("alpha", 1.0f32)
        .run()
        .unwrap();
    ctx.elementwise("y = alpha * x - y;")
        .read("x", &x)
        .read_write("y", &mut y)
        .scalar("alpha", 2.0f32)
        .run()
        .unwrap();
    assert_eq!(ctx.pipelines_compiled() - before, 2);
    let xu = ctx.upload(&vec![3u32; len]).unwrap();
    for alpha in [1.0f32, 2.0] {
        ctx.elementwise("y = alpha * f32(x) - y;")
            .read("x", &xu)
            .read_write("y", &mut y)
            .scalar("alpha", alpha)
            .run()
            .unwrap();
    }
    assert_eq!(ctx.pipelines_compiled() - before, 3);
    // The fused reduction: scalars change without compiling too.
    for w in [1.0f32, 2.0, 3.0] {
        let got: f32 = ctx
            .transform_reduce("w * f32(x)", Reduce::Sum)
            .read("x", &xu)
            .scalar("w", w)
            .run()
            .unwrap();
        assert_eq!(got, 3.0 * w * len as f32, "w = {w}");
    }
    // Two pipelines (partials and finish) for all three weights.
    assert_eq!(ctx.pipelines_compiled() - before, 5);
}

/// transform_reduce of x * x against an f64 CPU sum, within the bound the default sum
/// guarantees (one more rounding per term: the square); every operator on the same
/// expression; and the run-to-run determinism.
fn check_sum_of_squares(ctx: &Ctx, len: usize, seed: u64) {
    let hx = random_vec::<f32>(len, seed);
    let hy = random_vec::<f32>(len, seed + 1);
    let x = ctx.upload(&hx).unwrap();
    let y = ctx.upload(&hy).unwrap();
    let exact: f64 = hx.iter().map(|&x| x as f64 * x as f64).sum();
    let got: f32 = ctx
        .transform_reduce("x * x", Reduce::Sum)
        .read("x", &x)
        .run()
        .unwrap();
    let per_thread = (4 * len.div_ceil(4 * 32 * 256)) as f64;
    let bound = (per_thread + 18.0) * f32::EPSILON as f64 * exact;
    assert!(
        (got as f64 - exact).abs() <= bound,
        "sum of squares of {len}: {got} vs {exact}"
    );
    // Run to run: the same bits.
    let again: f32 = ctx
        .transform_reduce("x * x", Reduce::Sum)
        .read("x", &x)
        .run()
        .unwrap();
    assert_eq!(got.to_bits(), again.to_bits(), "deterministic");
    // Squared distance and a count where a predicate holds, into a poisoned vector.
    let exact: f64 = hx
        .iter()
        .zip(&hy)
        .map(|(&a, &b)| (a as f64 - b as f64).powi(2))
        .sum();
    let got: f32 = ctx
        .transform_reduce("(a - b) * (a - b)", Reduce::Sum)
        .read("a", &x)
        .read("b", &y)
        .run()
        .unwrap();
    assert!(
        (got as f64 - exact).abs() <= 2.0 * bound.max(f32::EPSILON as f64 * exact),
        "squared distance of {len}: {got} vs {exact}"
    );
    let mut count = poisoned::<u32>(ctx, 2);
    ctx.transform_reduce("select(0u, 1u, a > b + t)", Reduce::Sum)
        .read("a", &x)
        .read("b", &y)
        .scalar("t", 10.0f32)
        .run_into(&mut count)
        .unwrap();
    let want = hx.iter().zip(&hy).filter(|&(&a, &b)| a > b + 10.0).count() as u32;
    assert_eq!(count.to_vec().unwrap(), vec![want, u32::POISON]);
    // Max of |u[i + 1] - u[i]| over a raw vector, with the index.
    if len > 1 && fits_one_binding(ctx, len) {
        let got: f32 = ctx
            .transform_reduce("abs(u[min(i + 1u, n - 1u)] - u[i])", Reduce::Max)
            .raw("u", &x)
            .len(len)
            .run()
            .unwrap();
        let want = hx
            .windows(2)
            .map(|w| (w[1] - w[0]).abs())
            .fold(0.0f32, f32::max);
        assert_eq!(got, want, "max step of {len}");
    }
}

#[test]
fn transform_reduce_of_an_empty_run() {
    let ctx = ctx();
    let x = ctx.zeros::<f32>(0).unwrap();
    let s: f32 = ctx
        .transform_reduce("x * x", Reduce::Sum)
        .read("x", &x)
        .run()
        .unwrap();
    assert_eq!(s, 0.0);
    let err = ctx
        .transform_reduce::<f32>("x * x", Reduce::Min)
        .read("x", &x)
        .run()
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
}

#[test]
fn map_to_and_zip_to_change_the_type() {
    let ctx = ctx();
    let hx = random_vec::<f32>(1234, 41);
    let x = ctx.upload(&hx).unwrap();
    let bins = ctx
        .map_to::<f32, u32>(&x, "u32(clamp((x + 1000.0) / 20.0, 0.0, 99.0))")
        .unwrap();
    let want: Vec<u32> = hx
        .iter()
        .map(|&x| ((x + 1000.0) / 20.0).clamp(0.0, 99.0) as u32)
        .collect();
    assert_all_eq(&bins.to_vec().unwrap(), &want, "map_to u32");
    let y = ctx.upload(&random_vec::<f32>(1234, 42)).unwrap();
    let hy = y.to_vec().unwrap();
    let cmp = ctx
        .zip_to::<f32, i32>(&x, &y, "select(-1, 1, a > b)")
        .unwrap();
    let want: Vec<i32> = hx
        .iter()
        .zip(&hy)
        .map(|(a, b)| if a > b { 1 } else { -1 })
        .collect();
    assert_all_eq(&cmp.to_vec().unwrap(), &want, "zip_to i32");
}

fn assert_still_works(ctx: &Ctx) {
    let v = ctx.upload(&[1u32, 2, 3]).unwrap();
    assert_eq!(
        ctx.map(&v, "x + 1u").unwrap().to_vec().unwrap(),
        vec![2, 3, 4]
    );
}

fn invalid(err: Error, needle: &str) {
    match &err {
        Error::InvalidArgument { op, message } => {
            assert!(["elementwise", "transform_reduce"].contains(op), "{err:?}");
            assert!(message.contains(needle), "{needle:?} not in {message:?}");
        }
        other => panic!("expected InvalidArgument containing {needle:?}, got {other:?}"),
    }
}

#[test]
fn errors_by_variant_and_message() {
    let ctx = ctx();
    let x = ctx.upload(&[1.0f32; 10]).unwrap();
    let short = ctx.upload(&[1.0f32; 9]).unwrap();
    let mut y = ctx.zeros::<f32>(10).unwrap();

    // A body that does not compile: the compiler's message.
    let err = ctx
        .elementwise("y = x +;")
        .read("x", &x)
        .write("y", &mut y)
        .run()
        .unwrap_err();
    match &err {
        Error::Compile { op, code, message } => {
            assert_eq!((*op, code.as_str()), ("elementwise", "y = x +;"));
            assert!(message.contains("expected"), "{message}");
        }
        other => panic!("expected Compile, got {other:?}"),
    }
    // A parameter missing from the call: the compiler names it.
    let err = ctx
        .elementwise("y = alpha * x;")
        .read("x", &x)
        .write("y", &mut y)
        .run()
        .unwrap_err();
    assert!(
        matches!(&err, Error::Compile { message, .. } if message.contains("alpha")),
        "{err:?}"
    );
    // A scalar of the wrong type: the compiler says which types met.
    let err = ctx
        .elementwise("y = alpha * x;")
        .read("x", &x)
        .write("y", &mut y)
        .scalar("alpha", 2u32)
        .run()
        .unwrap_err();
    assert!(
        matches!(&err, Error::Compile { message, .. } if message.contains("u32") && message.contains("f32")),
        "{err:?}"
    );
    // A name given twice, a bad name, a taken name, a kept prefix.
    let err = ctx
        .elementwise("y = x;")
        .read("x", &x)
        .scalar("x", 1.0f32)
        .write("y", &mut y)
        .run()
        .unwrap_err();
    invalid(err, "\"x\" is given twice");
    for (name, needle) in [
        ("1x", "not a WGSL identifier"),
        ("i", "taken"),
        ("n", "taken"),
        ("gp_x", "prefix"),
        ("", "not a WGSL identifier"),
    ] {
        let err = ctx
            .elementwise("y = 1.0;")
            .read(name, &x)
            .write("y", &mut y)
            .run()
            .unwrap_err();
        invalid(err, needle);
    }
    // Element vectors of different lengths: both names and lengths.
    let err = ctx
        .elementwise("y = x + s;")
        .read("x", &x)
        .read("s", &short)
        .write("y", &mut y)
        .run()
        .unwrap_err();
    assert_eq!(
        err,
        Error::LengthMismatch {
            op: "elementwise",
            left_name: "x".into(),
            left: 10,
            right_name: "s".into(),
            right: 9,
        }
    );
    assert!(
        err.to_string().contains("x has 10 elements but s has 9"),
        "{err}"
    );
    // A length given with .len that differs from the element vectors'.
    let err = ctx
        .elementwise("y = x;")
        .len(11)
        .read("x", &x)
        .write("y", &mut y)
        .run()
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::LengthMismatch {
                left: 11,
                right: 10,
                ..
            }
        ),
        "{err:?}"
    );
    // No length at all.
    let mut r = ctx.zeros::<f32>(4).unwrap();
    let err = ctx
        .elementwise("r[i] = 1.0;")
        .raw_read_write("r", &mut r)
        .run()
        .unwrap_err();
    invalid(err, ".len(n)");
    // A device scalar past its vector.
    let err = ctx
        .elementwise("y = a;")
        .device_scalar("a", &x, 10)
        .write("y", &mut y)
        .run()
        .unwrap_err();
    invalid(err, "element 10 of a vector of 10");
    // Statements that close the kernel's function and declare functions of their own
    // (one with a loop that would run with naga's loop bounding off).
    let err = ctx
        .elementwise(
            "y = x; } return GpOut(0u, y); } fn spin() { loop { } } \
             fn gp_user_pad() -> GpOut { var y = 0.0; {",
        )
        .read("x", &x)
        .write("y", &mut y)
        .run()
        .unwrap_err();
    invalid(err, "not only statements");
    let err = ctx
        .transform_reduce::<f32>("x); } fn g() -> f32 { return (1.0", Reduce::Sum)
        .read("x", &x)
        .run()
        .unwrap_err();
    assert!(
        matches!(err, Error::InvalidArgument { .. } | Error::Compile { .. }),
        "{err:?}"
    );
    // A raw vector larger than one storage binding (4 KiB on the split context).
    let split = split_ctx();
    let big = split.zeros::<f32>(2000).unwrap();
    let mut out = split.zeros::<f32>(10).unwrap();
    let err = split
        .elementwise("o = b[i];")
        .raw("b", &big)
        .write("o", &mut out)
        .run()
        .unwrap_err();
    assert!(
        matches!(&err, Error::TooLarge { kind: Limit::BindingBytes, requested: 8000, limit: 4096, what } if what.contains("\"b\"")),
        "{err:?}"
    );
    // A vector of another context.
    let err = ctx
        .elementwise("y = o;")
        .read("o", &out)
        .write("y", &mut y)
        .run()
        .unwrap_err();
    assert!(matches!(err, Error::ContextMismatch { .. }), "{err:?}");
    assert_still_works(ctx);
    assert_still_works(split);
}
