//! Every error a user can cause, by variant and message, and the context still working
//! afterwards. (`OutOfMemory` is caused in tests/faults.rs, in a process of its own;
//! `DeviceLost` throughout tests/device_lost.rs. `Internal` is a gpuprim bug.)

mod common;

use common::*;
use gpuprim::{Ctx, Error, Limit};

fn assert_still_works(ctx: &Ctx) {
    let v = ctx.upload(&[1u32, 2, 3]).unwrap();
    assert_eq!(
        ctx.map(&v, "x + 1u").unwrap().to_vec().unwrap(),
        vec![2, 3, 4]
    );
}

#[test]
fn no_adapter() {
    let err = Ctx::builder()
        .backends(gpuprim::wgpu::Backends::empty())
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::NoAdapter { .. }), "{err:?}");
    assert!(err.to_string().contains("mesa-vulkan-drivers"), "{err}");
}

#[test]
fn length_mismatch() {
    let ctx = ctx();
    let a = ctx.upload(&[1.0f32; 10]).unwrap();
    let b = ctx.upload(&[1.0f32; 11]).unwrap();
    let err = ctx.zip(&a, &b, "a + b").unwrap_err();
    assert_eq!(
        err,
        Error::LengthMismatch {
            op: "zip",
            left_name: "a".into(),
            left: 10,
            right_name: "b".into(),
            right: 11
        }
    );
    assert!(
        err.to_string().contains("a has 10 elements but b has 11"),
        "{err}"
    );

    let mut out = ctx.zeros::<f32>(9).unwrap();
    let err = ctx.map_into(&a, "x", &mut out).unwrap_err();
    assert!(
        matches!(
            err,
            Error::LengthMismatch {
                left: 9,
                right: 10,
                ..
            }
        ),
        "{err:?}"
    );
    let err = ctx.zip_into(&a, &a, "a", &mut out).unwrap_err();
    assert!(
        matches!(
            err,
            Error::LengthMismatch {
                left: 9,
                right: 10,
                ..
            }
        ),
        "{err:?}"
    );
    let err = out.copy_from(&a).unwrap_err();
    assert!(
        matches!(
            err,
            Error::LengthMismatch {
                op: "GpuVec::copy_from",
                ..
            }
        ),
        "{err:?}"
    );
    assert_still_works(ctx);
}

#[test]
fn wgsl_that_does_not_compile() {
    let ctx = ctx();
    let a = ctx.upload(&[1.0f32, 2.0]).unwrap();
    // One expression (`*2.0` dereferences a number), but not WGSL that compiles.
    let err = ctx.map(&a, "x +* 2.0").unwrap_err();
    match &err {
        Error::Compile { op, code, message } => {
            assert_eq!(*op, "map");
            assert_eq!(code, "x +* 2.0");
            assert!(!message.is_empty());
        }
        other => panic!("expected Compile, got {other:?}"),
    }
    assert!(err.to_string().contains("x +* 2.0"), "{err}");
    // Type error: an f32 expression on u32.
    let u = ctx.upload(&[1u32]).unwrap();
    let err = ctx.map(&u, "x * 2.5").unwrap_err();
    assert!(matches!(err, Error::Compile { op: "map", .. }), "{err:?}");
    // Unknown name.
    let err = ctx.zip(&a, &a, "a + c").unwrap_err();
    assert!(matches!(err, Error::Compile { op: "zip", .. }), "{err:?}");
    assert!(err.to_string().contains('c'), "{err}");
    // A failed compile is not cached; the context keeps working.
    let compiled = ctx.pipelines_compiled();
    assert!(ctx.map(&a, "x +* 2.0").is_err());
    assert_eq!(ctx.pipelines_compiled(), compiled);
    assert_still_works(ctx);
}

/// Asserts `InvalidArgument` for `op` that quotes `text`.
fn not_an_expression<T: std::fmt::Debug>(r: gpuprim::Result<T>, op: &str, text: &str) {
    match r {
        Err(Error::InvalidArgument { op: o, message }) => {
            assert_eq!(o, op);
            assert!(message.contains(&format!("{text:?}")), "{message}");
            assert!(message.contains("not one WGSL expression"), "{message}");
        }
        other => panic!("{op} with {text:?}: expected InvalidArgument, got {other:?}"),
    }
}

#[test]
fn user_code_must_be_one_expression() {
    use gpuprim::{Grid2D, Grid2DMut, Reduce, Scan, ScanOp, Swizzle};
    // A context of its own: other tests compile on the shared one meanwhile.
    let ctx = &Ctx::new().unwrap();
    let a = ctx.upload(&[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let mut out = ctx.zeros::<f32>(4).unwrap();
    let compiled = ctx.pipelines_compiled();
    // The example, which used to compile and run: it closes the template's
    // parentheses and adds a function of its own.
    let escape = "x); } fn g() -> f32 { return (1.0";
    not_an_expression(ctx.map(&a, escape), "map", escape);
    not_an_expression(ctx.map_into(&a, escape, &mut out), "map", escape);
    let escape_ab = "a); } fn g() -> f32 { return (1.0";
    not_an_expression(ctx.zip(&a, &a, escape_ab), "zip", escape_ab);
    not_an_expression(
        ctx.reduce_with(&a, Reduce::custom(escape_ab, 0.0)),
        "reduce_with",
        escape_ab,
    );
    not_an_expression(
        ctx.scan_with(&a, &Scan::inclusive(ScanOp::custom(escape_ab, 0.0))),
        "scan",
        escape_ab,
    );
    let pred = "x > 0.0); } fn g() -> bool { return (true";
    not_an_expression(ctx.compact(&a, pred), "compact", pred);
    not_an_expression(ctx.compact_indices(&a, pred), "compact_indices", pred);
    let body = "load(x, y)); } fn g() -> f32 { return (1.0";
    let src = Grid2D::new(&a, 2, 2).unwrap();
    not_an_expression(
        ctx.map2d(
            &src,
            &mut Grid2DMut::new(&mut out, 2, 2).unwrap(),
            body,
            Swizzle::Off,
        ),
        "map2d",
        body,
    );
    // Statements, a loop, two expressions, an empty one, a comment that hides a brace.
    for text in ["x; loop { }", "x * 2.0, 1.0", "", "x /* } */", "x y", "(x"] {
        not_an_expression(ctx.map(&a, text), "map", text);
    }
    // naga's message says where: "x y" stops at the y.
    let err = ctx.map(&a, "x y").unwrap_err();
    assert!(err.to_string().contains("at byte 2"), "{err}");
    // Nothing was compiled for any of them; one expression still works.
    assert_eq!(ctx.pipelines_compiled(), compiled);
    assert_eq!(
        ctx.map(&a, "(x * 2.0) - select(0.0, 1.0, x > 2.5)")
            .unwrap()
            .to_vec()
            .unwrap(),
        vec![2.0, 4.0, 5.0, 7.0]
    );
    assert_still_works(ctx);
}

#[test]
fn unsupported_element_type() {
    let ctx = Ctx::builder()
        .without_features(gpuprim::wgpu::Features::SHADER_F64 | gpuprim::wgpu::Features::SHADER_F16)
        .build()
        .unwrap();
    let err = ctx.upload(&[1.0f64]).unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
    assert!(
        err.to_string().contains("f64") && err.to_string().contains("SHADER_F64"),
        "{err}"
    );
    let err = ctx.zeros::<gpuprim::half::f16>(4).unwrap_err();
    assert!(err.to_string().contains("SHADER_F16"), "{err}");
    assert_still_works(&ctx);
}

#[test]
fn too_large() {
    let ctx = ctx();
    let limit = ctx.info().limits.max_buffer_size;
    let n = (limit / 4 + 16) as usize;
    let err = ctx.zeros::<f32>(n).unwrap_err();
    match &err {
        Error::TooLarge {
            kind: Limit::BufferBytes,
            requested,
            limit: l,
            ..
        } => {
            assert!(*requested > limit);
            assert_eq!(*l, limit);
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    assert!(err.to_string().contains(&limit.to_string()), "{err}");
    // A length whose byte size overflows usize.
    let err = ctx.zeros::<f64>(usize::MAX / 2).unwrap_err();
    assert!(
        matches!(err, Error::TooLarge { .. } | Error::Unsupported { .. }),
        "{err:?}"
    );
    assert_still_works(ctx);
}

#[test]
fn invalid_builder_arguments() {
    let err = Ctx::builder().max_binding_bytes(16).build().unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
    assert!(err.to_string().contains("16 bytes"), "{err}");
    let err = Ctx::builder()
        .max_workgroups_per_dimension(0)
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
    let err = Ctx::builder().batch_limit(0).build().unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
    assert!(err.to_string().contains("at least 1"), "{err}");
    for percent in [0, 101] {
        let err = Ctx::builder().memory_budget(percent).build().unwrap_err();
        assert!(
            matches!(
                err,
                Error::InvalidArgument {
                    op: "CtxBuilder::memory_budget",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains(&format!("{percent}%")), "{err}");
    }
}

#[test]
fn request_device() {
    // More than the adapter offers: the adapter refuses the device, naming the limit.
    let adapter = ctx().info().limits.clone();
    let err = Ctx::builder()
        .limits(gpuprim::wgpu::Limits {
            max_compute_workgroups_per_dimension: u32::MAX,
            ..adapter.clone()
        })
        .build()
        .unwrap_err();
    match &err {
        Error::RequestDevice {
            adapter: name,
            message,
        } => {
            assert_eq!(*name, ctx().info().name);
            assert!(
                message.contains("max_compute_workgroups_per_dimension"),
                "{message}"
            );
        }
        other => panic!("expected RequestDevice, got {other:?}"),
    }
    assert!(
        err.to_string().contains("could not create a device"),
        "{err}"
    );
    // Within them, lower than the adapter's: the context keeps to them.
    let small = Ctx::builder()
        .limits(gpuprim::wgpu::Limits {
            max_compute_workgroups_per_dimension: 7,
            ..adapter
        })
        .build()
        .unwrap();
    assert_eq!(small.info().max_workgroups_per_dimension, 7);
    let host = random_vec::<u32>(100_000, 17);
    let v = small.upload(&host).unwrap();
    let want = host.iter().fold(0u32, |s, &x| s.wrapping_add(x));
    assert_eq!(small.reduce(&v).unwrap(), want);
    assert_still_works(&small);
}

#[test]
fn vectors_of_another_context() {
    let other = Ctx::new().unwrap();
    let ctx = ctx();
    let a = ctx.upload(&[1u32, 2]).unwrap();
    let b = other.upload(&[1u32, 2]).unwrap();
    let err = ctx.zip(&a, &b, "a + b").unwrap_err();
    assert_eq!(err, Error::ContextMismatch { op: "zip" });
    let err = other.map(&a, "x").unwrap_err();
    assert_eq!(err, Error::ContextMismatch { op: "map" });
    assert_still_works(ctx);
    assert_still_works(&other);
}
