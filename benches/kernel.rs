//! Throughput of kernels of your own: an axpy with a new scalar every call
//! (`Ctx::elementwise`) and a fused sum of squares (`Ctx::transform_reduce`), swept over
//! sizes; bytes read + written per second.
//!
//! `cargo bench --bench kernel`. Each iteration submits and waits for the GPU, so the
//! time includes one submit + wait; the `bandwidth` table (lab/) (section `kernel`) gives GPU-only
//! figures at large sizes.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use gpuprim::{Ctx, Reduce};

fn bench(c: &mut Criterion) {
    let ctx = Ctx::new().expect("a GPU context");
    let filled = |n: usize, x: f32| ctx.upload(&vec![x; n]).unwrap();
    let mut step = 0u32;
    common::sweep(
        c,
        &ctx,
        "axpy_new_scalar",
        |n| ((filled(n, 1.5), filled(n, 0.5)), 12 * n),
        |(x, y)| {
            step = step.wrapping_add(1);
            let alpha = if step.is_multiple_of(2) { 1e-3 } else { -1e-3 };
            ctx.elementwise("y = alpha * x + y;")
                .read("x", x)
                .read_write("y", y)
                .scalar("alpha", alpha)
                .run()
                .unwrap();
            ctx.synchronize().unwrap();
        },
    );
    common::sweep(
        c,
        &ctx,
        "sum_of_squares",
        |n| ((filled(n, 1.5), ctx.zeros::<f32>(1).unwrap()), 4 * n),
        |(x, out)| {
            ctx.transform_reduce("x * x", Reduce::Sum)
                .read("x", x)
                .run_into(out)
                .unwrap();
            ctx.synchronize().unwrap();
        },
    );
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}
criterion_main!(benches);
