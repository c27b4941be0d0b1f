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

use crate::context::Ctx;
use crate::context::check_len;
use crate::dispatch::{elementwise_workgroup_size, run_indexed};
use crate::element::GpuElement;
use crate::error::{Error, Limit, Result};
use crate::pipeline::{PipelineKey, render};
use crate::vec::{GpuVec, LANES};
use crate::view::View;

/// The WGSL library of random functions (see the [module docs](self)), prepended to the
/// random, [`Ctx::map`] and [`Ctx::zip`] kernels. Paste it into your own shaders to
/// reproduce gpuprim's streams there.
pub const RANDOM_WGSL: &str = include_str!("../../wgsl/random_lib.wgsl");

const FILL_WGSL: &str = include_str!("../../wgsl/random.wgsl");
const STATE_WGSL: &str = include_str!("../../wgsl/random_state.wgsl");
const SEED_WGSL: &str = include_str!("../../wgsl/random_seed.wgsl");

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
    words: GpuVec<u32>,
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

/// What a fill writes.
#[derive(Clone, Copy, Debug)]
enum Output {
    /// `T::FROM_BITS` of one `u32`.
    Raw,
    /// f32 in [lo, hi): params lo, hi - lo, hi, below(hi).
    Uniform,
    /// f32 normal: params mean, std.
    Normal,
}

impl Output {
    fn name(self) -> &'static str {
        match self {
            Output::Raw => "raw",
            Output::Uniform => "uniform",
            Output::Normal => "normal",
        }
    }

    /// The body of `value`, in terms of `bits(i)` (stateless) or `bits(s)` (stateful).
    fn body<T: RandomElement>(self, stateful: bool) -> String {
        let arg = if stateful { "s" } else { "i" };
        match self {
            Output::Raw => format!("    let r = bits({arg});\n    {}", T::FROM_BITS),
            Output::Uniform => format!(
                "    let r = params.offset + params.scale * u32_to_unit_f32(bits({arg}));\n    \
                 return select(r, params.below_hi, r >= params.hi);"
            ),
            Output::Normal => {
                let (r1, r2) = if stateful {
                    ("bits(s)", "bits(s)")
                } else {
                    ("bits(2u * i)", "bits(2u * i + 1u)")
                };
                format!(
                    "    let r1 = {r1};\n    let r2 = {r2};\n    \
                     return params.offset + params.scale * box_muller(r1, r2);"
                )
            }
        }
    }
}

/// The generator a fill uses.
enum Source<'a> {
    Stateless(Rng),
    Stateful(&'a mut Xorshift128State),
}

impl Ctx {
    /// Fills `v` with random values from `rng`: `u32` (all 32 bits), `i32` (the same bits)
    /// or `f32` uniform in `[0, 1)` (`(r >> 8) * 2^-24`). Element `i` is
    /// [`rng.value_at(i)`](Rng::value_at), bit-exact, on every adapter and however the
    /// work is split. Recorded without waiting.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`] if `v` belongs to another context, [`Error::TooLarge`]
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
            FillParams::default(),
        )
    }

    /// Fills `v` with `f32` uniform in `[lo, hi)`: `lo + (hi - lo) * u` for the `[0, 1)`
    /// uniform `u` of element `i` (never `hi`: a result rounded up to `hi` becomes the float
    /// below it). `lo` and `hi` travel in a uniform buffer, so new bounds do not recompile.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `lo` and `hi` are finite with `lo < hi` and
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
    /// [`Error::InvalidArgument`] unless `mean` and `std_dev` are finite and
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
        let wg = elementwise_workgroup_size(self);
        let kernel = self.kernel(key("random_seed", "u32", wg, String::new()), || {
            render(
                SEED_WGSL,
                &[("LIB", RANDOM_WGSL.to_string()), ("WG", wg.to_string())],
            )
        })?;
        run_indexed(
            self,
            op,
            &kernel,
            wg,
            n4 as u64,
            &[(View::of(&words), 16)],
            |first_unit| FillParams {
                first_unit,
                seed,
                ..FillParams::default()
            },
        )?;
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

    fn fill<T: RandomElement>(
        &self,
        op: &'static str,
        v: &mut GpuVec<T>,
        source: Source<'_>,
        output: Output,
        p: FillParams,
    ) -> Result<()> {
        self.check_owned(op, &[&v.ctx])?;
        v.require_host_len(op)?;
        check_random_len(op, v.len())?;
        let wg = elementwise_workgroup_size(self);
        let unit_bytes = (LANES * size_of::<T>()) as u64;
        let units = v.lanes4();
        let dst = View::of(v);
        match source {
            Source::Stateless(rng) => {
                let gen_fn = rng.wgsl_fn();
                let variant = format!("{gen_fn}/{}|{}", output.name(), dst.layout());
                let kernel = self.kernel(key("random", T::WGSL, wg, variant), || {
                    render(
                        FILL_WGSL,
                        &[
                            ("LIB", RANDOM_WGSL.to_string()),
                            ("DST", dst.units_wgsl("dst", 0, true)),
                            ("T", T::WGSL.to_string()),
                            ("WG", wg.to_string()),
                            ("GEN", gen_fn.to_string()),
                            ("OUT", output.body::<T>(false)),
                        ],
                    )
                })?;
                run_indexed(
                    self,
                    op,
                    &kernel,
                    wg,
                    units,
                    &[(dst, unit_bytes)],
                    |first_unit| FillParams {
                        first_unit,
                        seed: rng.seed(),
                        ..p
                    },
                )
            }
            Source::Stateful(state) => {
                self.check_owned(op, &[&state.words.ctx])?;
                check_len(op, ("v", v.len()), ("state", state.len()))?;
                let variant = format!("xorshift128/{}|{}", output.name(), dst.layout());
                let kernel = self.kernel(key("random_state", T::WGSL, wg, variant), || {
                    render(
                        STATE_WGSL,
                        &[
                            ("LIB", RANDOM_WGSL.to_string()),
                            ("DST", dst.units_wgsl("dst", 0, true)),
                            ("T", T::WGSL.to_string()),
                            ("WG", wg.to_string()),
                            ("OUT", output.body::<T>(true)),
                        ],
                    )
                })?;
                run_indexed(
                    self,
                    op,
                    &kernel,
                    wg,
                    units,
                    &[
                        (dst, unit_bytes),
                        (View::of(&state.words), 4 * LANES as u64 * 4),
                    ],
                    |first_unit| FillParams { first_unit, ..p },
                )
            }
        }
    }
}

fn key(op: &'static str, element: &'static str, wg: u32, variant: String) -> PipelineKey {
    PipelineKey {
        op,
        element,
        workgroup_size: wg,
        variant,
        code: String::new(),
    }
}

fn check_random_len(op: &'static str, n: usize) -> Result<()> {
    if n > MAX_RANDOM_LEN {
        return Err(Error::TooLarge {
            what: format!("`{op}` (its random indices are u32)"),
            kind: Limit::Elements,
            requested: n as u64,
            limit: MAX_RANDOM_LEN as u64,
        });
    }
    Ok(())
}

/// The parameter block of `wgsl/random*.wgsl` (`struct Params` there).
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct FillParams {
    /// The binding window's first vec4 unit: global index = first_unit + local unit.
    first_unit: u32,
    /// The stateless generator's seed.
    seed: u32,
    /// Uniform: lo; normal: the mean.
    offset: f32,
    /// Uniform: hi - lo; normal: the standard deviation.
    scale: f32,
    /// Uniform: hi. A value that rounds up to it is replaced by `below_hi`.
    hi: f32,
    /// Uniform: the largest f32 below hi.
    below_hi: f32,
    _pad: [u32; 2],
}

fn uniform_params(op: &'static str, lo: f32, hi: f32) -> Result<FillParams> {
    let width = hi - lo;
    if !(lo.is_finite() && hi.is_finite() && lo < hi && width.is_finite()) {
        return Err(Error::InvalidArgument {
            op,
            message: format!(
                "the range [lo, hi) = [{lo}, {hi}) must have finite lo < hi and a finite width \
                 hi - lo (here {width})"
            ),
        });
    }
    Ok(FillParams {
        offset: lo,
        scale: width,
        hi,
        below_hi: hi.next_down(),
        ..FillParams::default()
    })
}

fn normal_params(op: &'static str, mean: f32, std_dev: f32) -> Result<FillParams> {
    if !(mean.is_finite() && std_dev.is_finite() && std_dev >= 0.0) {
        return Err(Error::InvalidArgument {
            op,
            message: format!(
                "mean ({mean}) and std_dev ({std_dev}) must be finite, with std_dev >= 0"
            ),
        });
    }
    Ok(FillParams {
        offset: mean,
        scale: std_dev,
        ..FillParams::default()
    })
}

/// The CPU twins of every generator and conversion, bit-exact with [`RANDOM_WGSL`]
/// (normals: see the [module docs](super::random) on accuracy).
pub mod cpu {
    use super::RandomElement;

    /// Thomas Wang's 32-bit integer hash (the articles' `wang_hash`). A bijection.
    pub fn wang_hash(seed: u32) -> u32 {
        let mut s = (seed ^ 61) ^ (seed >> 16);
        s = s.wrapping_mul(9);
        s ^= s >> 4;
        s = s.wrapping_mul(0x27d4_eb2d);
        s ^ (s >> 15)
    }

    /// The "pcg" hash of Jarzynski & Olano (JCGT 2020): an LCG step and PCG's RXS-M-XS
    /// output permutation. A bijection.
    pub fn pcg_hash(v: u32) -> u32 {
        let state = v.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
        let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277_803_737);
        (word >> 22) ^ word
    }

    /// One xorshift32 (13, 17, 5) step.
    pub fn xorshift32(mut x: u32) -> u32 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    }

    /// One xorshift128 step on `[x, y, z, w]`: returns `[y, z, w, w']`; `w'` is the output.
    pub fn xorshift128_next(s: [u32; 4]) -> [u32; 4] {
        let t = s[0] ^ (s[0] << 11);
        let w = (s[3] ^ (s[3] >> 19)) ^ (t ^ (t >> 8));
        [s[1], s[2], s[3], w]
    }

    /// `wang_hash(seed) ^ wang_hash(0)`: a bijection with `seed_mix(0) == 0`.
    pub fn seed_mix(seed: u32) -> u32 {
        wang_hash(seed) ^ wang_hash(0)
    }

    /// [`Rng::WangHash`](super::Rng::WangHash) at element `i`.
    pub fn rng_wang_hash(i: u32, seed: u32) -> u32 {
        wang_hash(i.wrapping_mul(1_847_483_629) ^ seed_mix(seed))
    }

    /// [`Rng::Xorshift32`](super::Rng::Xorshift32) at element `i`.
    pub fn rng_xorshift32(i: u32, seed: u32) -> u32 {
        let mut x = pcg_hash(i ^ wang_hash(seed));
        if x == 0 {
            x = 0x9e37_79b9;
        }
        xorshift32(xorshift32(xorshift32(x)))
    }

    /// [`Rng::Pcg32`](super::Rng::Pcg32) at element `i`.
    pub fn rng_pcg32(i: u32, seed: u32) -> u32 {
        pcg_hash(i ^ pcg_hash(seed))
    }

    /// `(r >> 8) * 2^-24`: uniform in `[0, 1)`, exact.
    pub fn u32_to_unit_f32(r: u32) -> f32 {
        (r >> 8) as f32 * (1.0 / 16_777_216.0)
    }

    /// `((r >> 8) + 1) * 2^-24`: uniform in `(0, 1]`, exact, never 0.
    pub fn u32_to_open_unit_f32(r: u32) -> f32 {
        ((r >> 8) + 1) as f32 * (1.0 / 16_777_216.0)
    }

    /// `lo + (hi - lo) * u` in `f32`, the float below `hi` if it rounds to `hi`.
    pub fn uniform_in(u: f32, lo: f32, hi: f32) -> f32 {
        let r = lo + (hi - lo) * u;
        if r >= hi { hi.next_down() } else { r }
    }

    /// Standard normal from two `u32` (Box–Muller, cosine branch), computed in `f64` from
    /// the same exact `f32` uniforms the GPU uses.
    pub fn box_muller(r1: u32, r2: u32) -> f64 {
        let u1 = f64::from(u32_to_open_unit_f32(r1));
        let u2 = f64::from(u32_to_unit_f32(r2));
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// `mean + std_dev * z`, rounded to `f32`.
    pub fn scale_normal(z: f64, mean: f32, std_dev: f32) -> f32 {
        (f64::from(mean) + f64::from(std_dev) * z) as f32
    }

    /// One element's xorshift128 generator: the CPU twin of an element of
    /// [`Xorshift128State`](super::Xorshift128State) and the `_stateful` fills.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Xorshift128 {
        s: [u32; 4],
    }

    impl Xorshift128 {
        /// Element `index`'s initial state for `seed`, as
        /// [`Ctx::xorshift128_state`](crate::Ctx::xorshift128_state) makes it: word `k` is
        /// `pcg_hash((4 * index + k) ^ pcg_hash(seed ^ 0xa511e9b3))` (u32, wrapping).
        pub fn seeded(seed: u32, index: u32) -> Self {
            let k = pcg_hash(seed ^ 0xa511_e9b3);
            let b = index.wrapping_mul(4);
            Xorshift128 {
                s: std::array::from_fn(|j| pcg_hash(b.wrapping_add(j as u32) ^ k)),
            }
        }

        /// A generator with the given state. An all-zero state only ever yields zeros.
        pub fn from_state(s: [u32; 4]) -> Self {
            Xorshift128 { s }
        }

        /// The current state `[x, y, z, w]`.
        pub fn state(&self) -> [u32; 4] {
            self.s
        }

        /// Advances one step and returns the new `w`.
        pub fn next_u32(&mut self) -> u32 {
            self.s = xorshift128_next(self.s);
            self.s[3]
        }

        /// The next element of [`Ctx::fill_random_stateful`](crate::Ctx::fill_random_stateful)
        /// into a `GpuVec<T>` (one step).
        pub fn next_value<T: RandomElement>(&mut self) -> T {
            T::from_random_bits(self.next_u32())
        }

        /// The next element of
        /// [`Ctx::fill_uniform_stateful`](crate::Ctx::fill_uniform_stateful) (one step).
        pub fn next_uniform(&mut self, lo: f32, hi: f32) -> f32 {
            uniform_in(u32_to_unit_f32(self.next_u32()), lo, hi)
        }

        /// The next element of
        /// [`Ctx::fill_normal_stateful`](crate::Ctx::fill_normal_stateful) (two steps).
        pub fn next_normal(&mut self, mean: f32, std_dev: f32) -> f32 {
            let r1 = self.next_u32();
            let r2 = self.next_u32();
            scale_normal(box_muller(r1, r2), mean, std_dev)
        }
    }
}
