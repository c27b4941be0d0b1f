//! [`Ctx::random_permutation`]: a shuffle of `0..n` by sorting random keys.

use super::Rng;
use crate::error::{Error, Limit, Result};
use crate::runtime::context::Ctx;
use crate::runtime::vec::GpuVec;

impl Ctx {
    /// A random permutation of `0..n` (torch's `randperm`, NumPy's `permutation`), the
    /// same for the same `n` and `seed` on every adapter.
    ///
    /// Each index draws 64 random bits from [`Rng::Pcg32`] streams of `seed`, and the
    /// indices are sorted by them with two stable radix sorts (the low 32 bits, then the
    /// high): every permutation is equally likely, except that indices whose 64 bits
    /// agree (about `n^2 / 2^65` pairs) keep their order. Costs two key-value sorts of `n`.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut p = ctx.random_permutation(10, 7)?.to_vec()?;
    /// assert_eq!(p, ctx.random_permutation(10, 7)?.to_vec()?);
    /// p.sort();
    /// assert_eq!(p, (0..10).collect::<Vec<u32>>());
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::TooLarge`] past 2^32 - 4 elements (the values are `u32` indices) or past
    /// what one sort takes; out-of-memory errors as [`Error::OutOfMemory`].
    pub fn random_permutation(&self, n: usize, seed: u32) -> Result<GpuVec<u32>> {
        let op = "random_permutation";
        let limit = u64::from(u32::MAX) - 4;
        if n as u64 > limit {
            return Err(Error::TooLarge {
                what: format!("`{op}` (its indices are u32)"),
                kind: Limit::Elements,
                requested: n as u64,
                limit,
            });
        }
        let mut perm = self.iota(op, n)?;
        if n == 0 {
            return Ok(perm);
        }
        let mut keys = self.zeros::<u32>(n)?;
        // The second pass's keys come from another seed, drawn for the positions after
        // the first sort: independent of the first keys, so the order is by 64 bits.
        for seed in [seed, seed ^ 0x5851_f42d] {
            self.fill_random(&mut keys, Rng::Pcg32 { seed })?;
            self.sort_by_key(&mut keys, &mut perm)?;
        }
        Ok(perm)
    }
}
