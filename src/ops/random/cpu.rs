//! The CPU twins of every generator and conversion, bit-exact with
//! [`RANDOM_WGSL`](super::RANDOM_WGSL) (normals: see the [module docs](crate::ops::random) on
//! accuracy).

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
