//! Rows for the random fills: `b.n` f32 written (4 bytes each, nothing read, except the
//! stateful row, which also reads and writes 16 bytes of state per element).

use gpuprim::{Result, Rng};

use crate::timing::Bench;

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
    let mut state = ctx.xorshift128_state(n, 1)?;
    b.row("fill_stateful xorshift128 f32 (+state r/w)", 36 * n, || {
        ctx.fill_random_stateful(&mut v, &mut state)
    })?;
    Ok(())
}
