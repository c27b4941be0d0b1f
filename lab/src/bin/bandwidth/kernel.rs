//! Rows for kernels of your own: an axpy with a new scalar every call next to a
//! fixed-expression zip of the same traffic, and a fused sum of squares next to the plain
//! sum of the same vector.

use gpuprim::{Reduce, Result};

use gpuprim_lab::timing::Bench;

pub fn rows(b: &mut Bench) -> Result<()> {
    let (ctx, n) = (b.ctx, b.n);
    let x = b.random_f32(11)?;
    let mut y = b.random_f32(12)?;
    let mut out = ctx.zeros::<f32>(n)?;
    b.row("zip 2a+b f32 (fixed expression)", 12 * n, || {
        ctx.zip_into(&x, &y, "2.0 * a + b", &mut out)
    })?;
    // Alternating signs keep y bounded however many calls the timing makes.
    let mut step = 0u32;
    b.row(
        "axpy f32 (elementwise, new alpha each call)",
        12 * n,
        || {
            step += 1;
            let alpha =
                if step.is_multiple_of(2) { 1e-3 } else { -1e-3 } * (1.0 + (step % 7) as f32);
            ctx.elementwise("y = alpha * x + y;")
                .read("x", &x)
                .read_write("y", &mut y)
                .scalar("alpha", alpha)
                .run()
        },
    )?;
    let mut sum = ctx.zeros::<f32>(1)?;
    b.row("sum f32 (reduce_into, same vector)", 4 * n, || {
        ctx.reduce_into(&x, &mut sum)
    })?;
    b.row("sum of squares f32 (transform_reduce)", 4 * n, || {
        ctx.transform_reduce("x * x", Reduce::Sum)
            .read("x", &x)
            .run_into(&mut sum)
    })?;
    Ok(())
}
