//! The stateful generator: per-element xorshift128 state on the GPU
//! ([`Xorshift128State`], [`Ctx::xorshift128_state`]) and the `_stateful` fills that
//! advance it.

#[cfg(doc)]
use super::MAX_RANDOM_LEN;
use super::RandomElement;
#[cfg(doc)]
use super::cpu;
use super::fill::{FillParams, Output, Source, check_random_len, normal_params, uniform_params};
#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
use crate::runtime::context::Ctx;
use crate::runtime::vec::{GpuVec, LANES};

/// Per-element xorshift128 state on the GPU: four `u32` per element, made from one seed by
/// [`Ctx::xorshift128_state`] and advanced by every `_stateful` fill.
///
/// Element `e`'s initial state, word `k`, is `pcg_hash((4e + k) ^ pcg_hash(seed ^ 0xa511e9b3))`
/// ([`cpu::Xorshift128::seeded`]); the four words are distinct, so never all zero.
///
/// ```
/// use gpuprim::ops::random::cpu::Xorshift128;
/// let ctx = gpuprim::Ctx::new()?;
/// let mut state = ctx.xorshift128_state(3, 7)?;
/// let mut v = ctx.zeros::<u32>(3)?;
/// ctx.fill_random_stateful(&mut v, &mut state)?;
/// let first = v.to_vec()?;
/// ctx.fill_random_stateful(&mut v, &mut state)?;
/// let second = v.to_vec()?;
/// let mut g = Xorshift128::seeded(7, 2);
/// assert_eq!((first[2], second[2]), (g.next_u32(), g.next_u32()));
/// # Ok::<(), gpuprim::Error>(())
/// ```
#[derive(Debug)]
pub struct Xorshift128State {
    pub(super) words: GpuVec<u32>,
    len: usize,
    seed: u32,
}

impl Xorshift128State {
    /// Number of elements (generators).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The seed it was made from.
    pub fn seed(&self) -> u32 {
        self.seed
    }

    /// The raw state: element `e` is words `4e..4e + 4` (x, y, z, w). The length is padded
    /// to whole groups of four elements (`4 * len.next_multiple_of(4)` words); the padding
    /// elements are generators too, that nobody reads.
    pub fn words(&self) -> &GpuVec<u32> {
        &self.words
    }

    /// Reads the state of the first [`len`](Self::len) elements back (blocking).
    pub fn to_vec(&self) -> Result<Vec<[u32; 4]>> {
        let w = self.words.to_vec()?;
        Ok(w.chunks_exact(4)
            .take(self.len)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect())
    }
}

impl Ctx {
    /// Per-element xorshift128 state for `n` elements, seeded on the GPU from `seed` (see
    /// [`Xorshift128State`] for the formula). Use it with the `_stateful` fills.
    ///
    /// # Errors
    /// [`Error::TooLarge`] past [`MAX_RANDOM_LEN`] elements or the device's buffer size,
    /// [`Error::OutOfMemory`].
    ///
    /// # Examples
    /// ```
    /// use gpuprim::ops::random::cpu::Xorshift128;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let state = ctx.xorshift128_state(10, 5)?;
    /// assert_eq!(state.to_vec()?[9], Xorshift128::seeded(5, 9).state());
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn xorshift128_state(&self, n: usize, seed: u32) -> Result<Xorshift128State> {
        let op = "xorshift128_state";
        check_random_len(op, n)?;
        let n4 = n.next_multiple_of(LANES);
        let words = self.zeros::<u32>(4 * n4)?;
        self.seed_xorshift128(op, &words, n4, seed)?;
        Ok(Xorshift128State {
            words,
            len: n,
            seed,
        })
    }

    /// [`Ctx::fill_random`] from per-element xorshift128 state: element `i` is the next
    /// `u32` of generator `i` (converted as in `fill_random`), and the state advances one
    /// step, so the next fill gives new values. Bit-exact with [`cpu::Xorshift128`].
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `v` and `state` have the same length;
    /// [`Error::ContextMismatch`] if they belong to another context.
    ///
    /// # Examples
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut state = ctx.xorshift128_state(100, 1)?;
    /// let mut v = ctx.zeros::<f32>(100)?;
    /// ctx.fill_random_stateful(&mut v, &mut state)?;
    /// let a = v.to_vec()?;
    /// ctx.fill_random_stateful(&mut v, &mut state)?;
    /// assert_ne!(a, v.to_vec()?);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn fill_random_stateful<T: RandomElement>(
        &self,
        v: &mut GpuVec<T>,
        state: &mut Xorshift128State,
    ) -> Result<()> {
        self.fill(
            "fill_random_stateful",
            v,
            Source::Stateful(state),
            Output::Raw,
            FillParams::default(),
        )
    }

    /// [`Ctx::fill_uniform`] from per-element xorshift128 state (one step per element).
    ///
    /// # Errors
    /// As [`Ctx::fill_uniform`] and [`Ctx::fill_random_stateful`].
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut state = ctx.xorshift128_state(64, 9)?;
    /// let mut v = ctx.zeros::<f32>(64)?;
    /// ctx.fill_uniform_stateful(&mut v, &mut state, 1.0, 2.0)?;
    /// assert!(v.to_vec()?.iter().all(|&x| (1.0..2.0).contains(&x)));
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn fill_uniform_stateful(
        &self,
        v: &mut GpuVec<f32>,
        state: &mut Xorshift128State,
        lo: f32,
        hi: f32,
    ) -> Result<()> {
        let op = "fill_uniform_stateful";
        let p = uniform_params(op, lo, hi)?;
        self.fill(op, v, Source::Stateful(state), Output::Uniform, p)
    }

    /// [`Ctx::fill_normal`] from per-element xorshift128 state (two steps per element).
    ///
    /// # Errors
    /// As [`Ctx::fill_normal`] and [`Ctx::fill_random_stateful`].
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut state = ctx.xorshift128_state(64, 9)?;
    /// let mut v = ctx.zeros::<f32>(64)?;
    /// ctx.fill_normal_stateful(&mut v, &mut state, 0.0, 1.0)?;
    /// assert!(v.to_vec()?.iter().all(|x| x.abs() < 5.8));
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn fill_normal_stateful(
        &self,
        v: &mut GpuVec<f32>,
        state: &mut Xorshift128State,
        mean: f32,
        std_dev: f32,
    ) -> Result<()> {
        let op = "fill_normal_stateful";
        let p = normal_params(op, mean, std_dev)?;
        self.fill(op, v, Source::Stateful(state), Output::Normal, p)
    }
}
