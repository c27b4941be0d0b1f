//! Quickstart: upload, map, zip, read back, check against the CPU.
//!
//! `cargo run --release --example quickstart`

use gpuprim::Ctx;

fn main() -> Result<(), gpuprim::Error> {
    let ctx = Ctx::new()?;
    println!("adapter: {}", ctx.info());

    let n = 1_000_000;
    let a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.001).collect();
    let b: Vec<f32> = (0..n).map(|i| ((i * 7) % 1000) as f32 * 0.002).collect();

    let ga = ctx.upload(&a)?;
    let gb = ctx.upload(&b)?;
    let gc = ctx.map(&ga, "x * 2.0 + 1.0")?; // c = 2a + 1
    let gd = ctx.zip(&gc, &gb, "a * b")?; // d = c * b
    let d = gd.to_vec()?;

    // Each element is two roundings of exact inputs; a fused multiply-add on the GPU may
    // skip one, so allow a few units in the last place.
    let mut worst = 0.0f32;
    for i in 0..n {
        let expect = (a[i] * 2.0 + 1.0) * b[i];
        let err = (d[i] - expect).abs() / expect.abs().max(f32::MIN_POSITIVE);
        worst = worst.max(err);
        assert!(
            err <= 4.0 * f32::EPSILON,
            "element {i}: GPU {} CPU {expect}",
            d[i]
        );
    }
    println!(
        "d = (2a + 1) * b for {n} elements: d[0..4] = {:?}, largest relative difference to the CPU {worst:e}",
        &d[..4]
    );
    println!("pipelines compiled: {}", ctx.pipelines_compiled());
    Ok(())
}
