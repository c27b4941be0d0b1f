//! The pipeline cache: the same call compiles once; a new expression or type compiles anew.

use gpuprim::Ctx;

#[test]
fn repeated_calls_compile_once() {
    // A fresh context so no other test's kernels are counted.
    let ctx = Ctx::new().unwrap();
    assert_eq!(ctx.pipelines_compiled(), 0);
    let a = ctx.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let u = ctx.upload(&[1u32, 2, 3]).unwrap();

    ctx.map(&a, "x * 2.0").unwrap();
    assert_eq!(ctx.pipelines_compiled(), 1);
    for _ in 0..5 {
        ctx.map(&a, "x * 2.0").unwrap();
    }
    assert_eq!(
        ctx.pipelines_compiled(),
        1,
        "same call again must not compile"
    );

    ctx.map(&a, "x * 3.0").unwrap();
    assert_eq!(ctx.pipelines_compiled(), 2, "new expression compiles");
    ctx.map(&u, "x * 2").unwrap();
    assert_eq!(ctx.pipelines_compiled(), 3, "new element type compiles");
    ctx.zip(&a, &a, "a * 2.0").unwrap();
    assert_eq!(ctx.pipelines_compiled(), 4, "new op compiles");

    // Clones share the cache.
    let clone = ctx.clone();
    clone.map(&a, "x * 3.0").unwrap();
    assert_eq!(ctx.pipelines_compiled(), 4);
    assert_eq!(ctx.pipelines_cached(), 4);
}
