//! Rows for the random fills: `b.n` f32 written (4 bytes each, nothing read, except the
//! stateful row, which also reads and writes 16 bytes of state per element).

use gpuprim::{Result, Rng};

use gpuprim_lab::timing::Bench;

pub fn rows(b: &mut Bench) -> Result<()> {
    let ctx = b.ctx;
    let n = b.n;
    let mut v = ctx.zeros::<f32>(n)?;
    for (name, rng) in [
        ("fill_random wang_hash f32", Rng::WangHash { seed: 1 }),
        ("fill_random xorshift32 f32", Rng::Xorshift32 { seed: 1 }),
        ("fill_random pcg32 f32", Rng::Pcg32 { seed: 1 }),
    ] {
        b.row(name, 4 * n, || ctx.fill_random(&mut v, rng))?;
    }
    b.row("fill_uniform pcg32 f32 [-1,1)", 4 * n, || {
        ctx.fill_uniform(&mut v, Rng::Pcg32 { seed: 1 }, -1.0, 1.0)
    })?;
    b.row("fill_normal pcg32 f32", 4 * n, || {
        ctx.fill_normal(&mut v, Rng::Pcg32 { seed: 1 }, 0.0, 1.0)
    })?;
    // 16 bytes of state per element: at 2^28 that is 4 GiB, past the H100's largest
    // buffer, so the stateful row uses as many elements as one state buffer holds.
    let max_state = (ctx.info().limits.max_buffer_size / 16) as usize;
    let m = n.min(1 << max_state.ilog2());
    let mut w = ctx.zeros::<f32>(m)?;
    let mut state = ctx.xorshift128_state(m, 1)?;
    b.row(
        &format!(
            "fill_stateful xorshift128 f32 n=2^{} (+state r/w)",
            m.ilog2()
        ),
        36 * m,
        || ctx.fill_random_stateful(&mut w, &mut state),
    )?;
    Ok(())
}
