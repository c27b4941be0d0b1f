//! Timing by submit + wait over many repetitions (medians), and the table printer.

use std::time::Instant;

use gpuprim::{Ctx, GpuVec, Result};

/// One table: a context, a size, and the copy kernel's time as the reference.
pub struct Bench<'a> {
    pub ctx: &'a Ctx,
    pub n: usize,
    pub software: bool,
    copy_ms: Option<f64>,
}

impl<'a> Bench<'a> {
    pub fn new(ctx: &'a Ctx, n: usize, software: bool) -> Self {
        Bench {
            ctx,
            n,
            software,
            copy_ms: None,
        }
    }

    pub fn header(&self) {
        println!(
            "{:44} {:>12} {:>10} {:>9}",
            "primitive", "time", "GB/s", "vs copy"
        );
    }

    /// `n` uniform f32 in [0, 1) from a seeded stream, uploaded.
    pub fn random_f32(&self, seed: u64) -> Result<GpuVec<f32>> {
        let host: Vec<f32> = xorshift(self.n, seed)
            .map(|r| (r >> 40) as f32 / (1u64 << 24) as f32)
            .collect();
        self.ctx.upload(&host)
    }

    /// `n` u32 over the whole range from a seeded stream, uploaded.
    #[allow(dead_code)] // used by the reduce and atomic rows
    pub fn random_u32(&self, seed: u64) -> Result<GpuVec<u32>> {
        let host: Vec<u32> = xorshift(self.n, seed).map(|r| (r >> 32) as u32).collect();
        self.ctx.upload(&host)
    }

    /// Median milliseconds per call of `f` (which submits GPU work without waiting).
    pub fn time(&self, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
        for _ in 0..3 {
            f()?;
        }
        self.ctx.synchronize()?;
        // Enough calls per round that submission overhead overlaps GPU work.
        let (reps, rounds) = if self.software { (3, 3) } else { (20, 7) };
        let mut ms = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let t0 = Instant::now();
            for _ in 0..reps {
                f()?;
            }
            self.ctx.synchronize()?;
            ms.push(t0.elapsed().as_secs_f64() * 1e3 / reps as f64);
        }
        ms.sort_by(f64::total_cmp);
        Ok(ms[ms.len() / 2])
    }

    /// Times `f` and prints a row; `bytes` is what one call reads plus writes.
    pub fn row(&mut self, name: &str, bytes: usize, f: impl FnMut() -> Result<()>) -> Result<f64> {
        let ms = self.time(f)?;
        let gbs = bytes as f64 / ms / 1e6;
        let ratio = match self.copy_ms {
            Some(c) => format!("{:8.2}x", (bytes as f64 / ms) / (8.0 * self.n as f64 / c)),
            None => "".into(),
        };
        println!("{name:44} {ms:9.4} ms {gbs:10.1} {ratio:>9}");
        Ok(ms)
    }

    /// The copy kernel's row: later rows print their bandwidth relative to it.
    pub fn reference(
        &mut self,
        name: &str,
        bytes: usize,
        f: impl FnMut() -> Result<()>,
    ) -> Result<()> {
        let ms = self.row(name, bytes, f)?;
        self.copy_ms = Some(ms);
        Ok(())
    }
}

fn xorshift(n: usize, seed: u64) -> impl Iterator<Item = u64> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n).map(move |_| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    })
}
