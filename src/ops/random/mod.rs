//! Random fills on the GPU: [`Ctx::fill_random`], [`Ctx::fill_uniform`],
//! [`Ctx::fill_normal`] with the stateless generators of [`Rng`], and their `_stateful`
//! twins with per-element xorshift128 state ([`Xorshift128State`]).
//!
//! # Generators
//!
//! Every stateless generator is a pure function of (element index `i`, seed): the value
//! of element `i` does not depend on the vector's length, on how the work is split into
//! bindings and dispatches, or on the adapter. All index arithmetic is `u32` and wraps.
//!
//! | [`Rng`] | `u32` for element `i` |
//! |---|---|
//! | `WangHash { seed }` | `wang_hash((i * 1847483629) ^ seed_mix(seed))`; seed 0 is exactly the articles' `wang_hash(id * 1847483629)` |
//! | `Xorshift32 { seed }` | `x = pcg_hash(i ^ wang_hash(seed))` (0 becomes `0x9e3779b9`), then three xorshift32 (13, 17, 5) steps |
//! | `Pcg32 { seed }` | `pcg_hash(i ^ pcg_hash(seed))`, the "pcg" hash of Jarzynski & Olano, *Hash Functions for GPU Rendering*, JCGT 2020 |
//!
//! with `seed_mix(s) = wang_hash(s) ^ wang_hash(0)` (a bijection with `seed_mix(0) == 0`).
//! `wang_hash`, `pcg_hash` and `seed_mix` are bijections on `u32`, so for one seed the
//! first 2^32 elements of a stream are distinct (WangHash, Pcg32); streams of different seeds
//! are different orderings of the same 2^32 values. WangHash is the weakest of the three
//! (a fast hash, not a generator built for statistical quality); prefer `Pcg32`.
//!
//! The stateful generator is Marsaglia's xorshift128 with four `u32` of state per
//! element ([`Xorshift128State`], made on the GPU by [`Ctx::xorshift128_state`]); every
//! `u32` drawn advances that element's state one step, so successive fills differ.
//!
//! # Outputs
//!
//! - `u32`: all 32 bits; `i32`: the same bits.
//! - `f32` uniform in `[0, 1)`: `(r >> 8) as f32 * 2^-24` (exact: 2^24 equally likely values).
//! - `f32` uniform in `[lo, hi)`: `lo + (hi - lo) * u`, replaced by the float below `hi`
//!   if rounding reaches `hi`.
//! - `f32` normal: Box–Muller (cosine branch) from two `u32` `r1, r2`:
//!   `mean + std_dev * sqrt(-2 ln u1) * cos(2 pi u2)` with `u1 = ((r1 >> 8) + 1) * 2^-24`
//!   in `(0, 1]` (so `ln 0` cannot happen; `|z| <= 5.77`) and `u2` the `[0, 1)` uniform of `r2`.
//!   Stateless generators use `r1, r2` = the generator's values at indices `2i, 2i + 1`;
//!   the stateful one draws two steps.
//!
//! # Reproducing on the CPU
//!
//! [`cpu`] has every generator and conversion; [`Rng::u32_at`], [`Rng::value_at`],
//! [`Rng::uniform_at`], [`Rng::normal_at`] and [`cpu::Xorshift128`] give element `i` of any
//! stream. Integer outputs and the `[0, 1)` uniform are **bit-exact** with the GPU on every
//! adapter. `[lo, hi)` uniforms may differ by one rounding (an adapter may fuse the
//! multiply-add). Normals use the adapter's `log`, `cos`, `sqrt`, which are not exact
//! (Vulkan allows `cos` an absolute error up to 2^-11); on the adapters we test, GPU and
//! CPU normals agree within `1e-4 * std_dev` (plus the `f32` rounding of `mean`).
//!
//! # Using the generators in your own kernels
//!
//! [`RANDOM_WGSL`] (`wang_hash`, `pcg_hash`, `xorshift32`, `xorshift128_next`, `seed_mix`,
//! `rng_wang_hash(i, seed)`, `rng_xorshift32(i, seed)`, `rng_pcg32(i, seed)`,
//! `u32_to_unit_f32`, `u32_to_open_unit_f32`, `box_muller`) is part of every
//! [`Ctx::map`] and [`Ctx::zip`] kernel, so expressions can call it:
//!
//! ```
//! use gpuprim::ops::random::cpu;
//! let ctx = gpuprim::Ctx::new()?;
//! let ids = ctx.upload(&[0u32, 1, 2, 3])?;
//! let r = ctx.map(&ids, "wang_hash(x * 1847483629u)")?;
//! let want: Vec<u32> = (0..4u32).map(|i| cpu::wang_hash(i.wrapping_mul(1847483629))).collect();
//! assert_eq!(r.to_vec()?, want);
//! # Ok::<(), gpuprim::Error>(())
//! ```

// This file: the generators ([`Rng`]), the element types and the stateless fills.
// `state.rs`: the per-element xorshift128 state and the `_stateful` fills. `fill.rs`: the
// kernels' configurations and the recording of every fill. `cpu.rs`: the CPU twins.
pub mod cpu;
mod fill;
mod permutation;
mod state;

pub use state::Xorshift128State;

use crate::element::GpuElement;
use crate::error::Result;
use crate::runtime::context::Ctx;
use crate::runtime::vec::GpuVec;
use fill::{Output, Source, normal_params, uniform_params};

/// The WGSL library of random functions (see the [module docs](self)), prepended to the
/// random, [`Ctx::map`] and [`Ctx::zip`] kernels. Paste it into your own shaders to
/// reproduce gpuprim's streams there.
pub const RANDOM_WGSL: &str = include_str!("../../../wgsl/random_lib.wgsl");

/// Largest vector a random fill accepts: element indices (and `2i + 1` for normals)
/// are `u32` in the kernels.
pub const MAX_RANDOM_LEN: usize = 1 << 31;

/// A stateless random generator: element `i` of a fill is a pure function of `i` and the
/// seed (see the [module docs](self) for the exact formulas).
///
/// ```
/// use gpuprim::Rng;
/// let ctx = gpuprim::Ctx::new()?;
/// let mut v = ctx.zeros::<u32>(5)?;
/// let rng = Rng::Pcg32 { seed: 42 };
/// ctx.fill_random(&mut v, rng)?;
/// let cpu: Vec<u32> = (0..5).map(|i| rng.u32_at(i)).collect();
/// assert_eq!(v.to_vec()?, cpu);
/// # Ok::<(), gpuprim::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rng {
    /// `wang_hash((i * 1847483629) ^ seed_mix(seed))`; seed 0 gives the articles'
    /// `wang_hash(id * 1847483629)` exactly. Fast, statistically the weakest.
    WangHash {
        /// Seed; 0 is the articles' stream.
        seed: u32,
    },
    /// `pcg_hash(i ^ wang_hash(seed))` (0 replaced by `0x9e3779b9`) then three
    /// xorshift32 steps.
    Xorshift32 {
        /// Seed.
        seed: u32,
    },
    /// `pcg_hash(i ^ pcg_hash(seed))`: the PCG-based hash of Jarzynski & Olano (2020).
    Pcg32 {
        /// Seed.
        seed: u32,
    },
}

impl Rng {
    /// The seed.
    pub fn seed(&self) -> u32 {
        match *self {
            Rng::WangHash { seed } | Rng::Xorshift32 { seed } | Rng::Pcg32 { seed } => seed,
        }
    }

    /// The generator's `u32` for element `i`, exactly as the GPU computes it.
    pub fn u32_at(&self, i: u32) -> u32 {
        match *self {
            Rng::WangHash { seed } => cpu::rng_wang_hash(i, seed),
            Rng::Xorshift32 { seed } => cpu::rng_xorshift32(i, seed),
            Rng::Pcg32 { seed } => cpu::rng_pcg32(i, seed),
        }
    }

    /// Element `i` of [`Ctx::fill_random`] into a `GpuVec<T>` (bit-exact): the `u32`, its
    /// bits as `i32`, or the `[0, 1)` uniform `f32`.
    pub fn value_at<T: RandomElement>(&self, i: u32) -> T {
        T::from_random_bits(self.u32_at(i))
    }

    /// Element `i` of [`Ctx::fill_uniform`] with `lo`, `hi` (the GPU may differ by one
    /// rounding where it fuses the multiply-add).
    pub fn uniform_at(&self, i: u32, lo: f32, hi: f32) -> f32 {
        cpu::uniform_in(cpu::u32_to_unit_f32(self.u32_at(i)), lo, hi)
    }

    /// Element `i` of [`Ctx::fill_normal`], computed in `f64` and rounded (the GPU's
    /// `log`/`cos`/`sqrt` are approximations: see the [module docs](self)).
    pub fn normal_at(&self, i: u32, mean: f32, std_dev: f32) -> f32 {
        let z = cpu::box_muller(
            self.u32_at(i.wrapping_mul(2)),
            self.u32_at(i.wrapping_mul(2).wrapping_add(1)),
        );
        cpu::scale_normal(z, mean, std_dev)
    }

    fn wgsl_fn(&self) -> &'static str {
        match self {
            Rng::WangHash { .. } => "rng_wang_hash",
            Rng::Xorshift32 { .. } => "rng_xorshift32",
            Rng::Pcg32 { .. } => "rng_pcg32",
        }
    }
}

mod sealed {
    pub trait Sealed {
        /// WGSL statement returning the element from one `u32` `r`.
        const FROM_BITS: &'static str;
        /// The CPU twin of `FROM_BITS`.
        fn from_random_bits(r: u32) -> Self;
    }
    impl Sealed for u32 {
        const FROM_BITS: &'static str = "return r;";
        fn from_random_bits(r: u32) -> Self {
            r
        }
    }
    impl Sealed for i32 {
        const FROM_BITS: &'static str = "return bitcast<i32>(r);";
        fn from_random_bits(r: u32) -> Self {
            r as i32
        }
    }
    impl Sealed for f32 {
        const FROM_BITS: &'static str = "return u32_to_unit_f32(r);";
        fn from_random_bits(r: u32) -> Self {
            super::cpu::u32_to_unit_f32(r)
        }
    }
}

/// Element types [`Ctx::fill_random`] can fill: `u32` (all 32 bits), `i32` (the same
/// bits) and `f32` (uniform in `[0, 1)`). Sealed; `f64` and `f16` do not implement it.
pub trait RandomElement: GpuElement + sealed::Sealed {}
impl RandomElement for u32 {}
impl RandomElement for i32 {}
impl RandomElement for f32 {}

impl Ctx {
    /// Fills `v` with random values from `rng`: `u32` (all 32 bits), `i32` (the same bits)
    /// or `f32` uniform in `[0, 1)` (`(r >> 8) * 2^-24`). Element `i` is
    /// [`rng.value_at(i)`](Rng::value_at), bit-exact, on every adapter and however the
    /// work is split. Recorded without waiting.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`](crate::Error::ContextMismatch) if `v` belongs to another context, [`Error::TooLarge`](crate::Error::TooLarge)
    /// past [`MAX_RANDOM_LEN`] elements.
    ///
    /// # Examples
    /// ```
    /// use gpuprim::Rng;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut v = ctx.zeros::<f32>(1000)?;
    /// ctx.fill_random(&mut v, Rng::WangHash { seed: 7 })?;
    /// let host = v.to_vec()?;
    /// assert!(host.iter().all(|&x| (0.0..1.0).contains(&x)));
    /// assert_eq!(host[10], Rng::WangHash { seed: 7 }.value_at::<f32>(10));
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn fill_random<T: RandomElement>(&self, v: &mut GpuVec<T>, rng: Rng) -> Result<()> {
        self.fill(
            "fill_random",
            v,
            Source::Stateless(rng),
            Output::Raw,
            fill::FillParams::default(),
        )
    }

    /// Fills `v` with `f32` uniform in `[lo, hi)`: `lo + (hi - lo) * u` for the `[0, 1)`
    /// uniform `u` of element `i` (never `hi`: a result rounded up to `hi` becomes the float
    /// below it). `lo` and `hi` travel in a uniform buffer, so new bounds do not recompile.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) unless `lo` and `hi` are finite with `lo < hi` and
    /// `hi - lo` finite; as [`Ctx::fill_random`] otherwise.
    ///
    /// # Examples
    /// ```
    /// use gpuprim::Rng;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut v = ctx.zeros::<f32>(1000)?;
    /// ctx.fill_uniform(&mut v, Rng::Pcg32 { seed: 1 }, -2.0, 3.0)?;
    /// assert!(v.to_vec()?.iter().all(|&x| (-2.0..3.0).contains(&x)));
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn fill_uniform(&self, v: &mut GpuVec<f32>, rng: Rng, lo: f32, hi: f32) -> Result<()> {
        let p = uniform_params("fill_uniform", lo, hi)?;
        self.fill(
            "fill_uniform",
            v,
            Source::Stateless(rng),
            Output::Uniform,
            p,
        )
    }

    /// Fills `v` with `f32` normal deviates of mean `mean` and standard deviation
    /// `std_dev` (Box–Muller from the generator's values at `2i` and `2i + 1`; see the
    /// [module docs](crate::ops::random) for accuracy: not bit-exact across adapters).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) unless `mean` and `std_dev` are finite and
    /// `std_dev >= 0`; as [`Ctx::fill_random`] otherwise.
    ///
    /// # Examples
    /// ```
    /// use gpuprim::Rng;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut v = ctx.zeros::<f32>(4096)?;
    /// ctx.fill_normal(&mut v, Rng::Pcg32 { seed: 3 }, 10.0, 2.0)?;
    /// let host = v.to_vec()?;
    /// let mean = host.iter().sum::<f32>() / host.len() as f32;
    /// assert!((mean - 10.0).abs() < 0.2);
    /// assert!((host[5] - Rng::Pcg32 { seed: 3 }.normal_at(5, 10.0, 2.0)).abs() < 1e-3);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn fill_normal(
        &self,
        v: &mut GpuVec<f32>,
        rng: Rng,
        mean: f32,
        std_dev: f32,
    ) -> Result<()> {
        let p = normal_params("fill_normal", mean, std_dev)?;
        self.fill("fill_normal", v, Source::Stateless(rng), Output::Normal, p)
    }
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`).
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    fill::catalog(c);
}
