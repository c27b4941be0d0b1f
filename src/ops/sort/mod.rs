//! Radix sorts: [`Ctx::sort`], [`Ctx::sort_by_key`], [`Ctx::argsort`] and their
//! [`Sort`] options; and on top of them runs of equal elements: [`Ctx::unique`],
//! [`Ctx::run_length_encode`], [`Ctx::reduce_by_key`] (any [`RadixKey`]; values any
//! [`RunValue`]).
//!
//! LSD radix sorts with 8-bit digits, stable, in place on the device. Keys are `u32`,
//! `i32` or `f32` ([`SortKey`]), seen by the kernels as `u32` words whose unsigned order
//! is the key order (`f32` in [`f32::total_cmp`] order), or the 8-byte `u64`, `i64`,
//! `[u32; 2]` and `f64` and the 2-byte `f16` ([`RadixKey`]: two such words, sorted low
//! word first, or a 16-bit word, in `wide.rs`); `sort_by_key` values are any element of 4, 8 or 16 bytes
//! ([`SortPayload`]). Two algorithms ([`SortAlgorithm`]):
//! - OneSweep (adapters with subgroups, `wgsl/sort_onesweep.wgsl`): one pass builds the
//!   histograms of every digit, then one pass per digit scatters the keys, each tile
//!   finding its digits' offsets by a decoupled look-back that never waits on another
//!   workgroup being scheduled (it counts a stalled predecessor's digits itself).
//! - reduce-then-scan (any adapter, `wgsl/sort_rts.wgsl`): per digit, count each
//!   workgroup's keys per digit, scan the counts, scatter.
//!
//! Keys and values may be larger than one storage binding (each pass reads and writes
//! them window by window). The runs (`unique` and the others) need their input in one
//! binding.
//!
//! Keys and values may be views of your own buffers ([`GpuVec::from_buffer_at`]): a
//! sort writes only their elements. `sort_by_key`'s keys and values may be two views of
//! one buffer whose bytes do not overlap. Every call here can be recorded into your
//! encoder ([`Ctx::record`]) except the blocking `unique`, `run_length_encode` and
//! `reduce_by_key` (use their `_into` forms). A sort's scratch buffers, as large as its
//! keys and values, are kept by the context for the next sort of the same size.

use std::ops::Range;

use crate::element::{Element, GpuElement};
use crate::error::{Error, Result};
use crate::runtime::context::{Ctx, check_apart, check_len};
use crate::runtime::vec::GpuVec;
use crate::runtime::view::View;

mod engine;
mod kernels;
mod onesweep;
mod rts;
mod runs;
pub use runs::RunValue;
pub(crate) mod tuning;

mod wide;
pub(crate) use wide::gather_in_place;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for i32 {}
    impl Sealed for f32 {}
    impl Sealed for u64 {}
    impl Sealed for i64 {}
    impl Sealed for [u32; 2] {}
    impl Sealed for f64 {}
    impl Sealed for [f32; 2] {}
    impl Sealed for [i32; 2] {}
    impl Sealed for [u32; 4] {}
    impl Sealed for [f32; 4] {}
    impl Sealed for [i32; 4] {}
    impl Sealed for half::f16 {}
}

/// How the kernels see a [`RadixKey`]'s bytes.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyForm {
    /// One 32-bit word, sorted as `ordered(x, key_xor, neg_mask)` (`wgsl/sort_keys.wgsl`).
    Word { key_xor: u32, neg_mask: u32 },
    /// Two 32-bit words, word `high` the more significant: the high word is sorted as
    /// `ordered(h, key_xor, neg_mask)`, the low one XORed with `low_neg_mask` where the
    /// high word's sign bit is set (`f64`: a negative float's every bit flipped).
    Pair {
        high: u32,
        key_xor: u32,
        neg_mask: u32,
        low_neg_mask: u32,
    },
    /// A 16-bit float, two to a word: sorted as its 16 bits with the sign flipped (every
    /// bit of a negative one).
    Half,
}

/// The 16 bits of the `f16` at index `at` (a WGSL expression) of `words` (a WGSL array
/// of the `u32` words that hold two each, the first in the low half), as a `u32`.
pub(crate) fn half_bits(words: &str, at: &str) -> String {
    format!("(({words}[({at}) >> 1u] >> ((({at}) & 1u) * 16u)) & 0xffffu)")
}

/// An 8-byte key's sortable words in WGSL ([`KeyForm::Pair`], as `wide.rs`'s split kernel
/// makes them): statements that read its words (`word(j)`, the WGSL expression of its
/// word `j`) into `let`s, and the `vec2<u32>` expression of the (low, high) sortable
/// words, whose unsigned order, high word first, is the key order.
pub(crate) fn pair_sortable(form: KeyForm, word: impl Fn(u32) -> String) -> (String, String) {
    let KeyForm::Pair {
        high,
        key_xor,
        neg_mask,
        low_neg_mask,
    } = form
    else {
        unreachable!("only 8-byte keys have two words")
    };
    (
        format!(
            "let gp_a = {}; let gp_b = {}; \
             let gp_neg = select(0u, 0xffffffffu, (gp_a >> 31u) == 1u);",
            word(high),
            word(1 - high)
        ),
        format!(
            "vec2<u32>(gp_b ^ (gp_neg & {low_neg_mask}u), gp_a ^ {key_xor}u ^ (gp_neg & {neg_mask}u))"
        ),
    )
}

/// A one-word key's `(key_xor, neg_mask)` ([`KeyForm::Word`]); `None` for the 8-byte
/// and `f16` keys, which the calls that take any [`RadixKey`] send down paths of their
/// own before their one-word kernels.
pub(crate) fn word_masks<K: RadixKey>() -> Option<(u32, u32)> {
    match K::FORM {
        KeyForm::Word { key_xor, neg_mask } => Some((key_xor, neg_mask)),
        _ => None,
    }
}

/// A key type [`Ctx::sort`], [`Ctx::sort_by_key`], [`Ctx::argsort`] and the runs
/// ([`Ctx::unique`], [`Ctx::run_length_encode`], [`Ctx::reduce_by_key`],
/// [`Ctx::unique_with`], [`Ctx::unique_by_key`]), the scans by key
/// ([`Ctx::scan_by_key`] and the others), the searches ([`Ctx::lower_bound`],
/// [`Ctx::upper_bound`]), the merges ([`Ctx::merge`], [`Ctx::merge_into`],
/// [`Ctx::merge_by_key`]), [`Ctx::top_k`], [`Ctx::smallest_k`] and the segmented sorts
/// ([`Ctx::segmented_sort`], [`Ctx::segmented_sort_by_key`], [`Ctx::segmented_argsort`])
/// accept: every
/// [`SortKey`] (`u32`, `i32`, `f32`), the 8-byte keys `u64`, `i64`, `[u32; 2]` and
/// `f64` (where the adapter has `SHADER_F64`, which a `GpuVec<f64>` needs), and
/// [`half::f16`] (where it has `SHADER_F16`) in the order `f32` keys take (that of
/// `total_cmp`), with [`Sort::bits`] up to 16 (two digit passes).
///
/// 8-byte keys are two 32-bit words to the kernels, so they need no 64-bit shader
/// feature. Their order: `u64` and `i64` as integers, `f64` in [`f64::total_cmp`] order,
/// `[u32; 2]` lexicographically, element 0 first (as Rust compares arrays: a `(tile,
/// depth)` pair with the tile in element 0 sorts by tile, then depth). [`Sort::bits`]
/// counts their bits from the least significant word: `32..64` is the high word alone
/// (element 0 of a `[u32; 2]`), and a range within one word sorts in half the passes.
///
/// An 8-byte key sort is two stable 32-bit sorts, by the low word, then by the high word
/// (so ties keep the first sort's order). Keys alone: each sort carries the other word,
/// as [`Ctx::sort_by_key`] carries 4-byte values. With values, and for argsort: the
/// sorts carry the keys' order, and the low words and the values are gathered once in
/// it. It needs its keys (and values) in one storage binding each
/// ([`Info::max_binding_bytes`](crate::Info::max_binding_bytes)).
///
/// ```
/// use gpuprim::Sort;
/// let ctx = gpuprim::Ctx::new()?;
/// // Splats by tile, then by depth: one 64-bit key each, the tile in the high word.
/// let mut keys = ctx.upload(&[2u64 << 32 | 7, 1 << 32 | 9, 2 << 32 | 3, 1 << 32 | 9])?;
/// let mut splat = ctx.upload(&[0u32, 1, 2, 3])?;
/// ctx.sort_by_key(&mut keys, &mut splat)?;
/// assert_eq!(splat.to_vec()?, vec![1, 3, 2, 0]); // 1 before 3: stable
/// // By the tile alone (the high word): one 32-bit sort.
/// let mut keys = ctx.upload(&[[2u32, 7], [1, 9], [2, 3], [1, 8]])?;
/// ctx.sort_with(&mut keys, &Sort::descending().bits(32..64))?;
/// assert_eq!(keys.to_vec()?, vec![[2, 7], [2, 3], [1, 9], [1, 8]]);
/// let order = ctx.argsort(&ctx.upload(&[5i64, -1 << 40, 0, i64::MIN])?)?;
/// assert_eq!(order.to_vec()?, vec![3, 1, 2, 0]);
/// # Ok::<(), gpuprim::Error>(())
/// ```
///
/// The trait is sealed; other element types (the records of [`Element`]) are rejected at
/// compile time:
///
/// ```compile_fail
/// let ctx = gpuprim::Ctx::new()?;
/// let mut keys = ctx.upload(&[[1.0f32, 2.0, 3.0, 4.0]])?;
/// ctx.sort(&mut keys)?; // [f32; 4] is not a RadixKey
/// # Ok::<(), gpuprim::Error>(())
/// ```
pub trait RadixKey: Element + sealed::Sealed {
    /// How the kernels see the key.
    #[doc(hidden)]
    const FORM: KeyForm;
}

/// A one-word key type: `u32`, `i32` and `f32`, which every sort-family call takes
/// (sorts, [`Ctx::top_k`], searches, scans by key, segmented and per-row sorts, merges;
/// all but the per-row calls, [`Ctx::sort_rows`], [`Ctx::top_k_rows`] and the others on a
/// [`Grid2D`](crate::Grid2D), take every [`RadixKey`]).
///
/// Each is sorted as a `u32` word whose unsigned order is the key's order: `u32` as it
/// is, `i32` with its sign bit flipped, `f32` in the order of [`f32::total_cmp`]
/// (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN). The trait is sealed; the
/// 8-byte and `f16` keys are [`RadixKey`]s, not `SortKey`s:
///
/// ```compile_fail
/// let ctx = gpuprim::Ctx::new()?;
/// let mut m = ctx.upload(&[2.0f64, 1.0])?;
/// ctx.sort_rows(&mut gpuprim::Grid2DMut::new(&mut m, 2, 1)?)?; // f64 is a RadixKey, not a SortKey
/// # Ok::<(), gpuprim::Error>(())
/// ```
pub trait SortKey: RadixKey + GpuElement {
    /// XORed into every key's bits (the sign bit for signed and float keys).
    #[doc(hidden)]
    const KEY_XOR: u32;
    /// XORed into the bits of keys with the sign bit set (the rest of a negative float).
    #[doc(hidden)]
    const NEG_MASK: u32;
    /// The sortable `u32` word of a key (what the kernels sort by, before `descending`).
    fn ordered_bits(self) -> u32;
}

macro_rules! word_key {
    ($t:ty, $xor:expr, $neg:expr) => {
        impl RadixKey for $t {
            const FORM: KeyForm = KeyForm::Word {
                key_xor: $xor,
                neg_mask: $neg,
            };
        }
        impl SortKey for $t {
            const KEY_XOR: u32 = $xor;
            const NEG_MASK: u32 = $neg;
            fn ordered_bits(self) -> u32 {
                let x = bytemuck::cast::<$t, u32>(self);
                x ^ Self::KEY_XOR ^ (((x as i32) >> 31) as u32 & Self::NEG_MASK)
            }
        }
    };
}
word_key!(u32, 0, 0);
word_key!(i32, 0x8000_0000, 0);
word_key!(f32, 0x8000_0000, 0x7fff_ffff);

macro_rules! pair_key {
    ($t:ty, $high:expr, $xor:expr, $neg:expr, $low_neg:expr) => {
        impl RadixKey for $t {
            const FORM: KeyForm = KeyForm::Pair {
                high: $high,
                key_xor: $xor,
                neg_mask: $neg,
                low_neg_mask: $low_neg,
            };
        }
    };
}
// Little-endian: a u64's word 1 is its high word; a [u32; 2]'s element 0 is.
pair_key!(u64, 1, 0, 0, 0);
pair_key!(i64, 1, 0x8000_0000, 0, 0);
pair_key!(f64, 1, 0x8000_0000, 0x7fff_ffff, 0xffff_ffff);
pair_key!([u32; 2], 0, 0, 0, 0);

impl RadixKey for half::f16 {
    const FORM: KeyForm = KeyForm::Half;
}

/// A value type [`Ctx::sort_by_key`] carries along: any element of 4, 8 or 16 bytes
/// (`u32`, `i32`, `f32`; `u64`, `i64`, `f64`, `[u32; 2]`, `[f32; 2]`, `[i32; 2]`;
/// `[u32; 4]`, `[f32; 4]`, `[i32; 4]`). Values are moved as bits, never computed with,
/// so floats come back exact. A struct of your own of those sizes travels as its
/// `bytemuck` cast to `[u32; 2]` or `[u32; 4]`.
///
/// 4-byte values move with the keys in every pass. Wider ones are gathered once, in the
/// final order, after the keys are sorted with their indices: one read and one write of
/// the values in all, where moving them in every pass would cost one per pass. They
/// must fit one storage binding.
///
/// ```
/// let ctx = gpuprim::Ctx::new()?;
/// let mut depth = ctx.upload(&[0.7f32, 0.2, 0.9])?;
/// let mut color = ctx.upload(&[[1.0f32, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.5]])?;
/// ctx.sort_by_key(&mut depth, &mut color)?;
/// assert_eq!(color.to_vec()?[0], [0.0, 1.0, 0.0, 1.0]);
/// assert_eq!(color.to_vec()?[2], [0.0, 0.0, 1.0, 0.5]);
/// # Ok::<(), gpuprim::Error>(())
/// ```
///
/// Sealed; 2-byte types are rejected at compile time:
///
/// ```compile_fail
/// let ctx = gpuprim::Ctx::new()?;
/// let mut keys = ctx.upload(&[2u32, 1])?;
/// let mut values = ctx.upload(&[half::f16::ONE, half::f16::ZERO])?;
/// ctx.sort_by_key(&mut keys, &mut values)?; // f16 is not a SortPayload
/// # Ok::<(), gpuprim::Error>(())
/// ```
pub trait SortPayload: Element + sealed::Sealed {}

impl SortPayload for u32 {}
impl SortPayload for i32 {}
impl SortPayload for f32 {}
impl SortPayload for u64 {}
impl SortPayload for i64 {}
impl SortPayload for f64 {}
impl SortPayload for [u32; 2] {}
impl SortPayload for [f32; 2] {}
impl SortPayload for [i32; 2] {}
impl SortPayload for [u32; 4] {}
impl SortPayload for [f32; 4] {}
impl SortPayload for [i32; 4] {}

/// A 4-byte value type the segmented and per-row sorts, [`Ctx::reduce_by_key`] and
/// the others that take one 32-bit word per value carry: `u32`, `i32`, `f32`. Values
/// are moved as bits, never computed with (except by `reduce_by_key`), so floats come
/// back exact. Sealed; 2- and 8-byte types are rejected at compile time:
///
/// ```compile_fail
/// let ctx = gpuprim::Ctx::new()?;
/// let mut keys = ctx.upload(&[2u32, 1])?;
/// let mut values = ctx.upload(&[0.5f64, 1.5])?;
/// let offsets = ctx.upload(&[0u32, 2])?;
/// ctx.segmented_sort_by_key(&mut keys, &mut values, &offsets)?; // f64 is not a SortValue
/// # Ok::<(), gpuprim::Error>(())
/// ```
pub trait SortValue: SortPayload + RunValue + GpuElement {}

impl SortValue for u32 {}
impl SortValue for i32 {}
impl SortValue for f32 {}

/// How the sorts find each key's place. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SortAlgorithm {
    /// OneSweep where the adapter has subgroups and the length fits its 30-bit counts
    /// (fewer than 2^30 keys), reduce-then-scan elsewhere.
    #[default]
    Auto,
    /// One histogram pass, then one pass per digit with a decoupled look-back. Needs
    /// `Features::SUBGROUP` and fewer than 2^30 keys.
    OneSweep,
    /// Per digit: count, scan, scatter. Any adapter, any length.
    ReduceThenScan,
}

/// Options of a sort: direction, the key bits to sort by, the algorithm. For
/// [`Ctx::sort_with`], [`Ctx::sort_by_key_with`] and [`Ctx::argsort_with`].
///
/// Every sort is stable, descending ones too: keys that compare equal keep their input
/// order.
///
/// ```
/// use gpuprim::Sort;
/// let ctx = gpuprim::Ctx::new()?;
/// let mut keys = ctx.upload(&[0x0103u32, 0x0201, 0x0302, 0x0401])?;
/// ctx.sort_with(&mut keys, &Sort::ascending().bits(0..8))?; // by the low byte only
/// assert_eq!(keys.to_vec()?, vec![0x0201, 0x0401, 0x0302, 0x0103]);
/// ctx.sort_with(&mut keys, &Sort::descending())?;
/// assert_eq!(keys.to_vec()?, vec![0x0401, 0x0302, 0x0201, 0x0103]);
/// # Ok::<(), gpuprim::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Sort {
    descending: bool,
    /// `None`: every bit of the key.
    bits: Option<Range<u32>>,
    algorithm: SortAlgorithm,
    spin: Option<u32>,
    peers: engine::Peers,
    tile: Option<(u32, u32)>,
    segment_tile: Option<u32>,
    rows_by_tiles: bool,
    /// Rows of one tile: `Some(true)` by the radix sort, `Some(false)` by the bitonic
    /// network, `None` by the tuning's row length.
    rows_radix: Option<bool>,
}

impl Default for Sort {
    fn default() -> Self {
        Sort::ascending()
    }
}

impl Sort {
    /// Smallest key first (the default).
    pub fn ascending() -> Sort {
        Sort {
            descending: false,
            bits: None,
            algorithm: SortAlgorithm::Auto,
            spin: None,
            peers: engine::Peers::Auto,
            tile: None,
            segment_tile: None,
            rows_by_tiles: false,
            rows_radix: None,
        }
    }

    /// Largest key first. Equal keys still keep their input order.
    pub fn descending() -> Sort {
        Sort {
            descending: true,
            ..Sort::ascending()
        }
    }

    /// Sorts by bits `range` of the key's sortable word only (see [`SortKey`]: the key
    /// itself for `u32`), in passes of 8 bits: `0..16` takes two passes where the full
    /// key takes four. Keys whose words differ only outside the range compare equal
    /// and keep their order. `start <= end <= 32` (`<= 64` for the 8-byte keys of
    /// [`RadixKey`], bit 0 the least significant of the low word); an empty range
    /// leaves the order as it is. Without it a sort takes every bit of its key.
    pub fn bits(mut self, range: Range<u32>) -> Sort {
        self.bits = Some(range);
        self
    }

    /// Forces an algorithm (the default is [`SortAlgorithm::Auto`]).
    pub fn algorithm(mut self, algorithm: SortAlgorithm) -> Sort {
        self.algorithm = algorithm;
        self
    }

    /// Whether the largest key comes first.
    pub fn is_descending(&self) -> bool {
        self.descending
    }

    /// The key bits a sort of 32-bit keys sorts by (`0..32` unless [`Sort::bits`] said
    /// otherwise; an 8-byte key's default is `0..64`).
    pub fn key_bits(&self) -> Range<u32> {
        self.bits_of(32)
    }

    /// The key bits sorted by, for keys of `key_bits` bits.
    pub(crate) fn bits_of(&self, key_bits: u32) -> Range<u32> {
        self.bits.clone().unwrap_or(0..key_bits)
    }

    /// Probes of a predecessor's status before OneSweep's look-back counts that tile
    /// itself (0: never wait, always count). For tests of the fallback.
    #[cfg(feature = "internals")]
    pub fn look_back_spins(mut self, spins: u32) -> Sort {
        self.spin = Some(spins);
        self
    }

    /// OneSweep ranks with four-word ballot masks, as on adapters whose subgroups have
    /// more than 32 lanes, even where one word would do. For tests of that form.
    #[cfg(feature = "internals")]
    pub fn four_word_ballots(mut self) -> Sort {
        self.peers = engine::Peers::FourWordBallots;
        self
    }

    /// OneSweep finds each row's peers with eight ballots, as on adapters where its peer
    /// tables are not used, even where they would be. For tests of that form.
    #[cfg(feature = "internals")]
    pub fn ballot_peers(mut self) -> Sort {
        self.peers = engine::Peers::Ballots;
        self
    }

    /// The segmented sorts' workgroup tile ([`Ctx::segmented_sort`]): `slots` keys (a
    /// power of two that fits the adapter's workgroup memory at 8 bytes a key) instead of
    /// the adapter's default, so tests reach the merges with short segments.
    #[cfg(feature = "internals")]
    pub fn segment_tile(mut self, slots: u32) -> Sort {
        self.segment_tile = Some(slots);
        self
    }

    /// [`Ctx::sort_rows`] and the other row sorts take the tiles and merges of
    /// [`Ctx::segmented_sort`] even where rows fit one workgroup. For tests of that path.
    #[cfg(feature = "internals")]
    pub fn rows_by_tiles(mut self) -> Sort {
        self.rows_by_tiles = true;
        self
    }

    /// Rows that fit one workgroup tile are sorted by its radix sort, whatever their
    /// length (rows of at least 16 keys; shorter ones keep the bitonic network). For
    /// tests and timings of that way.
    #[cfg(feature = "internals")]
    pub fn rows_by_radix(mut self) -> Sort {
        self.rows_radix = Some(true);
        self
    }

    /// Rows that fit one workgroup tile are sorted by its bitonic network, whatever
    /// their length. For tests and timings of that way.
    #[cfg(feature = "internals")]
    pub fn rows_by_network(mut self) -> Sort {
        self.rows_radix = Some(false);
        self
    }

    pub(crate) fn rows_radix_forced(&self) -> Option<bool> {
        self.rows_radix
    }

    pub(crate) fn segment_tile_forced(&self) -> Option<u32> {
        self.segment_tile
    }

    pub(crate) fn rows_by_tiles_forced(&self) -> bool {
        self.rows_by_tiles
    }

    /// The digit passes' tiles: `workgroup` invocations (a power of two) with
    /// `keys_per_invocation` keys each (1 to 64; OneSweep: fewer than 65536 in all),
    /// instead of the adapter's default. For tuning (the bandwidth harness's `sort_tiles`
    /// section, `lab/src/bin/sort_lab.rs` with `GP_SORT_TILE`); a shape the adapter
    /// cannot run is an `InvalidArgument` naming it.
    #[cfg(feature = "internals")]
    pub fn tile(mut self, workgroup: u32, keys_per_invocation: u32) -> Sort {
        self.tile = Some((workgroup, keys_per_invocation));
        self
    }
}

impl Ctx {
    /// Sorts `keys` in place on the device, ascending and stable, without waiting.
    ///
    /// `f32` keys sort in [`f32::total_cmp`] order: -NaN < -inf < ... < -0.0 < +0.0 <
    /// ... < +inf < +NaN, what `sort_by(f32::total_cmp)` gives on the CPU.
    ///
    /// Keys may be larger than one storage binding: each pass then reads and writes
    /// them binding window by binding window.
    ///
    /// # Errors
    /// [`Error::TooLarge`] only where the sort's own counts do not fit one storage
    /// binding ([`Info::max_binding_bytes`](crate::Info::max_binding_bytes)): OneSweep
    /// keeps 1 KiB per tile (3840 keys on a GPU), reduce-then-scan 1 KiB per workgroup
    /// (up to 2048 per binding window), far past any length a GPU's memory holds;
    /// [`Error::InvalidArgument`] for a prefix view ([`GpuVec::prefix`]).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut keys = ctx.upload(&[3.5f32, -0.0, f32::NAN, -2.0, 0.0, f32::NEG_INFINITY])?;
    /// ctx.sort(&mut keys)?;
    /// let sorted = keys.to_vec()?;
    /// assert_eq!(&sorted[..5], &[f32::NEG_INFINITY, -2.0, -0.0, 0.0, 3.5]);
    /// assert!(sorted[5].is_nan());
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn sort<K: RadixKey>(&self, keys: &mut GpuVec<K>) -> Result<()> {
        self.sort_with(keys, &Sort::ascending())
    }

    /// [`Ctx::sort`] with options (see [`Sort`]): descending, a key-bit range, the
    /// algorithm.
    ///
    /// # Errors
    /// As [`Ctx::sort`]; [`Error::InvalidArgument`] for a bit range past 32 or
    /// reversed; [`Error::Unsupported`] for [`SortAlgorithm::OneSweep`] without
    /// subgroups; [`Error::TooLarge`] for OneSweep past 2^30 - 1 keys.
    ///
    /// ```
    /// use gpuprim::Sort;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut keys = ctx.upload(&[-5i32, 7, 0, -1, 7])?;
    /// ctx.sort_with(&mut keys, &Sort::descending())?;
    /// assert_eq!(keys.to_vec()?, vec![7, 7, 0, -1, -5]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn sort_with<K: RadixKey>(&self, keys: &mut GpuVec<K>, sort: &Sort) -> Result<()> {
        let op = "sort";
        self.check_owned(op, &[&keys.ctx])?;
        keys.require_host_len(op)?;
        let KeyForm::Word { key_xor, neg_mask } = K::FORM else {
            return wide::sort_wide(self, op, K::FORM, View::of(keys), sort, wide::Out::Keys);
        };
        let plan = engine::Plan::new(self, op, keys.len(), (key_xor, neg_mask), sort, false)?;
        plan.run(
            self,
            engine::Buffers {
                keys: View::of(keys),
                keys_writable: true,
                values: engine::Values::None,
            },
        )
    }

    /// Sorts `keys` in place and moves `values` with them: stable, so values of equal
    /// keys keep their order. Without waiting.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `keys` and `values` have the same length;
    /// [`Error::InvalidArgument`] if they are views of one buffer whose bytes overlap, or
    /// prefix views ([`GpuVec::prefix`]); as [`Ctx::sort`] otherwise.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut depth = ctx.upload(&[0.7f32, 0.2, 0.9, 0.2])?;
    /// let mut id = ctx.upload(&[10u32, 11, 12, 13])?;
    /// ctx.sort_by_key(&mut depth, &mut id)?;
    /// assert_eq!(depth.to_vec()?, vec![0.2, 0.2, 0.7, 0.9]);
    /// assert_eq!(id.to_vec()?, vec![11, 13, 10, 12]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn sort_by_key<K: RadixKey, V: SortPayload>(
        &self,
        keys: &mut GpuVec<K>,
        values: &mut GpuVec<V>,
    ) -> Result<()> {
        self.sort_by_key_with(keys, values, &Sort::ascending())
    }

    /// [`Ctx::sort_by_key`] with options (see [`Sort`]).
    ///
    /// ```
    /// use gpuprim::Sort;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut score = ctx.upload(&[3i32, 9, 3, -4])?;
    /// let mut name = ctx.upload(&[0u32, 1, 2, 3])?;
    /// ctx.sort_by_key_with(&mut score, &mut name, &Sort::descending())?;
    /// assert_eq!(score.to_vec()?, vec![9, 3, 3, -4]);
    /// assert_eq!(name.to_vec()?, vec![1, 0, 2, 3]); // 0 before 2: stable
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn sort_by_key_with<K: RadixKey, V: SortPayload>(
        &self,
        keys: &mut GpuVec<K>,
        values: &mut GpuVec<V>,
        sort: &Sort,
    ) -> Result<()> {
        let op = "sort_by_key";
        self.check_owned(op, &[&keys.ctx, &values.ctx])?;
        keys.require_host_len(op)?;
        values.require_host_len(op)?;
        check_len(op, ("keys", keys.len()), ("values", values.len()))?;
        let (keys, values) = (View::of(keys), View::of(values));
        check_apart(op, &[("keys", keys), ("values", values)])?;
        let KeyForm::Word { key_xor, neg_mask } = K::FORM else {
            let out = wide::Out::KeysValues(values);
            return wide::sort_wide(self, op, K::FORM, keys, sort, out);
        };
        let key = (key_xor, neg_mask);
        if size_of::<V>() != 4 {
            return wide::sort_wide_values(self, op, key, keys, values, sort);
        }
        let plan = engine::Plan::new(self, op, keys.len, key, sort, true)?;
        plan.run(
            self,
            engine::Buffers {
                keys,
                keys_writable: true,
                values: engine::Values::InPlace(values),
            },
        )
    }

    /// The permutation that sorts `keys`: element `i` is the index of the `i`-th
    /// smallest key, equal keys in index order. `keys` is left as it is.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[30u32, 10, 20, 10])?;
    /// assert_eq!(ctx.argsort(&keys)?.to_vec()?, vec![1, 3, 2, 0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn argsort<K: RadixKey>(&self, keys: &GpuVec<K>) -> Result<GpuVec<u32>> {
        self.argsort_with(keys, &Sort::ascending())
    }

    /// [`Ctx::argsort`] with options (see [`Sort`]).
    ///
    /// ```
    /// use gpuprim::Sort;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[0.5f32, -1.0, 2.0])?;
    /// let order = ctx.argsort_with(&keys, &Sort::descending())?;
    /// assert_eq!(order.to_vec()?, vec![2, 0, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn argsort_with<K: RadixKey>(&self, keys: &GpuVec<K>, sort: &Sort) -> Result<GpuVec<u32>> {
        let mut out = self.zeros::<u32>(keys.len())?;
        self.argsort_into(keys, sort, &mut out)?;
        Ok(out)
    }

    /// [`Ctx::argsort_with`] into `out` (same length), without waiting.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `out` has the keys' length;
    /// [`Error::InvalidArgument`] if `keys` and `out` are views of one buffer, or prefix
    /// views; as [`Ctx::sort_with`] otherwise.
    ///
    /// ```
    /// use gpuprim::Sort;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[5i32, -3, 5, 0])?;
    /// let mut order = ctx.zeros::<u32>(4)?;
    /// ctx.argsort_into(&keys, &Sort::ascending(), &mut order)?;
    /// assert_eq!(order.to_vec()?, vec![1, 3, 0, 2]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn argsort_into<K: RadixKey>(
        &self,
        keys: &GpuVec<K>,
        sort: &Sort,
        out: &mut GpuVec<u32>,
    ) -> Result<()> {
        let op = "argsort";
        self.check_owned(op, &[&keys.ctx, &out.ctx])?;
        keys.require_host_len(op)?;
        out.require_host_len(op)?;
        check_len(op, ("out", out.len()), ("keys", keys.len()))?;
        if keys.buffer == out.buffer {
            return Err(Error::InvalidArgument {
                op,
                message: "`keys` and `out` are views of one buffer: argsort reads the keys \
                          while it writes the order (wgpu cannot bind one buffer read-only and \
                          writable in one dispatch); give `out` a buffer of its own"
                    .into(),
            });
        }
        let KeyForm::Word { key_xor, neg_mask } = K::FORM else {
            let out = wide::Out::Order(View::of(out));
            return wide::sort_wide(self, op, K::FORM, View::of(keys), sort, out);
        };
        let plan = engine::Plan::new(self, op, keys.len(), (key_xor, neg_mask), sort, true)?;
        plan.run(
            self,
            engine::Buffers {
                keys: View::of(keys),
                keys_writable: false,
                values: engine::Values::Indices(View::of(out)),
            },
        )
    }
}

/// The checks every sort makes of its options, before any work.
pub(crate) fn check_bits(op: &'static str, bits: &Range<u32>) -> Result<()> {
    check_key_bits(op, bits, 32)
}

/// [`check_bits`] for keys of `width` bits.
pub(crate) fn check_key_bits(op: &'static str, bits: &Range<u32>, width: u32) -> Result<()> {
    if bits.start > bits.end || bits.end > width {
        return Err(Error::InvalidArgument {
            op,
            message: format!(
                "key bits {}..{}: a range start..end with start <= end <= {width} (keys are \
                 {width}-bit)",
                bits.start, bits.end
            ),
        });
    }
    Ok(())
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`): what the policies choose on each adapter of [`catalog_adapters`]
/// (OneSweep's histogram and digit pass with every peer form, reduce-then-scan, the runs
/// with every output and operator), and the parameter layouts.
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    for (info, native) in catalog_adapters() {
        onesweep::catalog(c, &info, native);
        rts::catalog(c, &info, native);
        runs::catalog(c, &info, native);
    }
    onesweep::catalog_layouts(c);
    rts::catalog_layouts(c);
    runs::catalog_layouts(c);
}

/// The adapters the catalog renders for, each with whether it is past WebGPU's default
/// limits or features (its kernels `add_native`): lavapipe (subgroups of 4, 8 and 16, as
/// `LP_NATIVE_VECTOR_WIDTH` sets them) and llvmpipe's GL, GPUs of each vendor's subgroup
/// sizes and workgroup memory, and both under WebGPU's default limits (with and without
/// subgroups; also the 8 KiB of `tests/sort.rs`).
#[cfg(test)]
fn catalog_adapters() -> Vec<(crate::runtime::context::Info, bool)> {
    use wgpu::{Backend, DeviceType, Features};
    let webgpu = wgpu::Limits::default();
    let native = |workgroup_bytes| wgpu::Limits {
        max_compute_workgroup_storage_size: workgroup_bytes,
        max_compute_invocations_per_workgroup: 1024,
        max_compute_workgroup_size_x: 1024,
        ..wgpu::Limits::default()
    };
    let adapter = |device_type, backend, vendor, (sg_min, sg_max), limits, features| {
        crate::runtime::context::Info {
            name: String::new(),
            backend,
            device_type,
            vendor,
            driver: String::new(),
            subgroup_min_size: sg_min,
            subgroup_max_size: sg_max,
            limits,
            features,
            max_binding_bytes: 1 << 27,
            max_workgroups_per_dimension: 65535,
        }
    };
    let sg = Features::SUBGROUP;
    let sg_barrier = Features::SUBGROUP | Features::SUBGROUP_BARRIER;
    let none = Features::empty();
    let (cpu, gpu, igpu) = (
        DeviceType::Cpu,
        DeviceType::DiscreteGpu,
        DeviceType::IntegratedGpu,
    );
    let (vk, gl) = (Backend::Vulkan, Backend::Gl);
    let mut adapters = Vec::new();
    // WebGPU's default limits first: a kernel that other adapters choose too is then
    // checked as one that must fit them.
    for size in [4, 8, 16] {
        adapters.push((
            adapter(cpu, vk, 0x10005, (size, size), webgpu.clone(), sg),
            false,
        ));
        let small = wgpu::Limits {
            max_compute_workgroup_storage_size: 8192,
            ..webgpu.clone()
        };
        adapters.push((adapter(cpu, vk, 0x10005, (size, size), small, sg), false));
    }
    adapters.push((
        adapter(cpu, vk, 0x10005, (0, 0), webgpu.clone(), none),
        false,
    ));
    adapters.push((adapter(cpu, gl, 0, (0, 0), webgpu.clone(), none), false));
    for sizes in [(32, 32), (64, 64), (32, 64), (8, 32), (16, 16), (4, 128)] {
        adapters.push((adapter(gpu, vk, 0, sizes, webgpu.clone(), sg), false));
    }
    adapters.push((adapter(gpu, vk, 0, (0, 0), webgpu.clone(), none), false));
    for size in [4, 8, 16] {
        adapters.push((
            adapter(cpu, vk, 0x10005, (size, size), native(32768), sg_barrier),
            true,
        ));
    }
    adapters.push((adapter(cpu, vk, 0x10005, (0, 0), native(32768), none), true));
    adapters.push((adapter(cpu, gl, 0, (0, 0), native(32768), none), true));
    // NVIDIA, AMD (wave32 and wave64), Intel, Apple; and a GPU without subgroups.
    adapters.push((
        adapter(gpu, vk, 0x10de, (32, 32), native(49152), sg_barrier),
        true,
    ));
    adapters.push((
        adapter(gpu, vk, 0x1002, (32, 64), native(65536), sg_barrier),
        true,
    ));
    adapters.push((
        adapter(gpu, vk, 0x1002, (64, 64), native(65536), sg_barrier),
        true,
    ));
    adapters.push((
        adapter(igpu, vk, 0x8086, (8, 32), native(65536), sg_barrier),
        true,
    ));
    let metal = adapter(
        igpu,
        Backend::Metal,
        0x106b,
        (32, 32),
        native(32768),
        sg_barrier,
    );
    adapters.push((metal, true));
    adapters.push((
        adapter(gpu, Backend::Dx12, 0, (0, 0), native(32768), none),
        true,
    ));
    adapters
}
