//! Sort keys of every form for the tests of the calls that take any `RadixKey`: the
//! 8-byte keys, `f16`, and `u32` beside them.

use gpuprim::RadixKey;
use gpuprim::half::f16;

/// A key type under test: a key from 64 random bits, its CPU order, and a poison value.
pub trait WideKey: RadixKey + Copy + std::fmt::Debug {
    fn from_bits(bits: u64) -> Self;
    /// The sortable 64-bit word: its unsigned order is the key order.
    fn ordered(self) -> u64;
    const POISON: Self;
}

impl WideKey for u32 {
    fn from_bits(bits: u64) -> Self {
        bits as u32 ^ (bits >> 32) as u32
    }
    fn ordered(self) -> u64 {
        u64::from(self)
    }
    const POISON: Self = 0xdead_beef;
}
impl WideKey for u64 {
    fn from_bits(bits: u64) -> Self {
        bits
    }
    fn ordered(self) -> u64 {
        self
    }
    const POISON: Self = 0xdead_beef_dead_beef;
}
impl WideKey for i64 {
    fn from_bits(bits: u64) -> Self {
        bits as i64
    }
    fn ordered(self) -> u64 {
        self as u64 ^ (1 << 63)
    }
    const POISON: Self = 0x5eed_dead_5eed_dead;
}
impl WideKey for [u32; 2] {
    fn from_bits(bits: u64) -> Self {
        [(bits >> 32) as u32, bits as u32]
    }
    fn ordered(self) -> u64 {
        (u64::from(self[0]) << 32) | u64::from(self[1])
    }
    const POISON: Self = [0xdead_beef, 0x5eed_dead];
}
impl WideKey for f64 {
    /// Any bits; one in 8 a special (zeros and NaNs of both signs, a NaN payload,
    /// infinities).
    fn from_bits(bits: u64) -> Self {
        let specials = [
            0.0,
            -0.0,
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff8_0000_0000_0001),
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        if bits.is_multiple_of(8) {
            return specials[(bits >> 8) as usize % specials.len()];
        }
        f64::from_bits(bits)
    }
    fn ordered(self) -> u64 {
        let x = self.to_bits();
        if x >> 63 == 1 { !x } else { x ^ (1 << 63) }
    }
    const POISON: Self = -1.25e300;
}
impl WideKey for f16 {
    /// Every 16-bit pattern: NaNs, infinities, zeros and subnormals among them.
    fn from_bits(bits: u64) -> Self {
        f16::from_bits((bits ^ (bits >> 32)) as u16)
    }
    fn ordered(self) -> u64 {
        let x = self.to_bits();
        u64::from(if x >> 15 == 1 { !x } else { x ^ 0x8000 })
    }
    const POISON: Self = f16::from_bits(0x5eed);
}

/// `n` keys from `seed`; with `few`, from a handful of high and low words, so equal high
/// words with different low words, the reverse, and equal keys are common.
pub fn wide_keys<K: WideKey>(n: usize, seed: u64, few: bool) -> Vec<K> {
    let bits: Vec<u32> = super::random_vec(2 * n, seed);
    (0..n)
        .map(|i| {
            let (h, l) = (bits[2 * i], bits[2 * i + 1]);
            let (h, l) = if few {
                (
                    (h % 3).rotate_right(1) | (h % 3),
                    (l % 4).rotate_right(2) | (l % 2),
                )
            } else {
                (h, l)
            };
            K::from_bits((u64::from(h) << 32) | u64::from(l))
        })
        .collect()
}

/// Whether `a` and `b` hold the same bits.
pub fn same_bits<T: bytemuck::Pod>(a: &[T], b: &[T]) -> bool {
    bytemuck::cast_slice::<T, u8>(a) == bytemuck::cast_slice::<T, u8>(b)
}

/// The tests `u64_keys`, `i64_keys`, `pair_keys`, `f64_keys` and `f16_keys`, each calling
/// `$check::<K>(ctx(), name)` (f64 and f16 where the adapter has them; where it has not,
/// `supports` checks the error instead).
#[macro_export]
macro_rules! every_wide_key {
    ($check:ident) => {
        #[test]
        fn u64_keys() {
            $check::<u64>(ctx(), "u64");
        }

        #[test]
        fn i64_keys() {
            $check::<i64>(ctx(), "i64");
        }

        #[test]
        fn pair_keys() {
            $check::<[u32; 2]>(ctx(), "[u32; 2]");
        }

        #[test]
        fn f64_keys() {
            if supports::<f64>(ctx()) {
                $check::<f64>(ctx(), "f64");
            }
        }

        #[test]
        fn f16_keys() {
            if supports::<gpuprim::half::f16>(ctx()) {
                $check::<gpuprim::half::f16>(ctx(), "f16");
            }
        }
    };
}
