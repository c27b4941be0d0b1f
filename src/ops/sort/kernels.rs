//! The sort engine's kernel configurations and how each renders its WGSL: the digit
//! histograms and the OneSweep digit pass (`onesweep.rs` records them), and the
//! reduce-then-scan passes (`rts.rs`). The parts spliced into a template for one form or
//! another are WGSL files of their own (`wgsl/sort_onesweep_*.wgsl` and the like).

use super::engine::RADIX;
use super::onesweep::{OneSweepShape, PEER_TABLE_WORDS};
use crate::error::Result;
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::view::units_wgsl;

/// The sort keys' words in key order (`ordered`).
const KEYS_WGSL: &str = include_str!("../../../wgsl/sort_keys.wgsl");
const SUBGROUP_WGSL: &str = include_str!("../../../wgsl/sort_subgroup.wgsl");
const HISTOGRAM_WGSL: &str = include_str!("../../../wgsl/sort_histogram.wgsl");
const ONESWEEP_WGSL: &str = include_str!("../../../wgsl/sort_onesweep.wgsl");
const RTS_WGSL: &str = include_str!("../../../wgsl/sort_rts.wgsl");

/// `{{MASK}}` in `wgsl/sort_onesweep.wgsl` where subgroups have at most 32 lanes: the
/// ranking's ballots in one word (a quarter of the four-word form's work; ranking is
/// most of a digit pass).
const MASK_ONE_WORD: &str = include_str!("../../../wgsl/sort_onesweep_mask1.wgsl");
/// `{{MASK}}` for subgroups of up to 128 lanes: four words, those past the adapter's
/// largest subgroup masked off (`{{WORDS}}`).
const MASK_FOUR_WORDS: &str = include_str!("../../../wgsl/sort_onesweep_mask4.wgsl");
/// `{{STAGE}}` where the staged tile has an array of its own.
const STAGE_APART: &str = include_str!("../../../wgsl/sort_onesweep_stage_apart.wgsl");
/// `{{STAGE}}` where the staged tile overlaps the counters (atomic loads and stores).
const STAGE_SHARED: &str = include_str!("../../../wgsl/sort_onesweep_stage_shared.wgsl");
/// `{{PEERS}}` in `wgsl/sort_onesweep.wgsl`: every row's peers by eight ballots (and
/// one of the valid lanes).
const PEER_BALLOTS: &str = include_str!("../../../wgsl/sort_onesweep_peer_ballots.wgsl");
/// `{{PEERS}}` where `peer_tables` allows (one-word masks): the lanes with the digit's top
/// bit by a ballot, every row first; then those with its low seven bits from the
/// subgroup's table of 128 words in `counts` (after the counters, cleared at the start):
/// each valid lane sets its bit in the word of its digit's low bits, after a subgroup
/// barrier the word holds the row's lanes with those bits, and after a second each lane
/// takes its bit out again. One ballot and three atomics a row instead of nine ballots
/// (nine ballots, or smaller tables with more ballots or barriers, made the sort slower;
/// see lab/perf-journal.md). The 16-bit counters leave room for the larger tables.
///
/// Lanes with one digit set bits in one word, and when a row's digits take only a few
/// values (the top byte of f32 keys in [0, 1)) those atomics queue: a subgroup whose
/// first row has a quarter of its lanes on the first lane's digit takes the ballots for
/// all its rows (tables throughout slowed such keys much more than the check costs
/// uniform keys; see lab/perf-journal.md).
const PEER_TABLES: &str = include_str!("../../../wgsl/sort_onesweep_peer_tables.wgsl");
/// `{{VALUE_BINDINGS}}` of the digit passes (both algorithms) when values move too.
const VALUE_BINDINGS: &str = include_str!("../../../wgsl/sort_value_bindings.wgsl");
/// `{{VALUES}}` of the OneSweep digit pass when values move too.
const ONESWEEP_VALUES: &str = include_str!("../../../wgsl/sort_onesweep_values.wgsl");

/// A spliced part's text: its file less the final newline (the template's line has one).
fn part(file: &'static str) -> &'static str {
    file.strip_suffix('\n').unwrap_or(file)
}

/// A workgroup's subgroups where the adapter has one subgroup size, else 0
/// (`subgroup_count` in wgsl/sort_subgroup.wgsl).
fn one_size_subgroups(wg: u32, sg_min: u32, sg_max: u32) -> u32 {
    if sg_min == sg_max { wg / sg_min } else { 0 }
}

/// `wgsl/sort_histogram.wgsl`: every pass's digit histogram (`histogram`) and their
/// exclusive scans (`scan_histogram`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct SortHistogramKernel {
    pub(super) workgroup_size: u32,
    /// The adapter's smallest and largest subgroup sizes.
    pub(super) sg_min: u32,
    pub(super) sg_max: u32,
    /// Whether the caller's keys are read as vec4 units: scalar loads where they are a
    /// borrowed vector of a length that is not a multiple of 4.
    pub(super) keys_vec4: bool,
}

impl KernelSource for SortHistogramKernel {
    fn name(&self) -> &'static str {
        "sort_histogram"
    }

    fn element(&self) -> &'static str {
        "u32"
    }

    fn wgsl(&self) -> Result<String> {
        let wg = self.workgroup_size;
        render(
            HISTOGRAM_WGSL,
            &[
                (
                    "KEYS_DECL",
                    units_wgsl("keys", 1, "u32", false, self.keys_vec4)?,
                ),
                ("WG", wg.to_string()),
                ("DPT", RADIX.div_ceil(wg).to_string()),
                ("MAX_SUBGROUPS", (wg / self.sg_min).to_string()),
                (
                    "SUBGROUPS",
                    one_size_subgroups(wg, self.sg_min, self.sg_max).to_string(),
                ),
                ("KEYS", KEYS_WGSL.to_string()),
                ("IDS", SUBGROUP_WGSL.to_string()),
            ],
        )
    }
}

/// `wgsl/sort_onesweep.wgsl`: OneSweep's digit pass (`onesweep`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct SortOneSweepKernel {
    pub(super) shape: OneSweepShape,
    /// Probes of a predecessor's status before the look-back counts that tile itself.
    pub(super) spin: u32,
    /// Whether values move with the keys.
    pub(super) pairs: bool,
    /// Ballot masks in one word (subgroups of at most 32 lanes), else in four.
    pub(super) one_word_masks: bool,
    /// Whether peers are found through the workgroup-memory tables (`PEER_TABLES`).
    pub(super) peer_tables: bool,
}

impl KernelSource for SortOneSweepKernel {
    fn name(&self) -> &'static str {
        "sort_onesweep"
    }

    fn element(&self) -> &'static str {
        "u32"
    }

    fn wgsl(&self) -> Result<String> {
        let shape = &self.shape;
        let (value_bindings, values) = if self.pairs {
            (part(VALUE_BINDINGS), part(ONESWEEP_VALUES))
        } else {
            ("", "")
        };
        let mask = if self.one_word_masks {
            part(MASK_ONE_WORD).to_string()
        } else {
            mask_four_words(shape.sg_max)?
        };
        let table_words = if self.peer_tables {
            shape.max_subgroups() * PEER_TABLE_WORDS
        } else {
            0
        };
        let peers = if self.peer_tables {
            PEER_TABLES
        } else {
            PEER_BALLOTS
        };
        render(
            ONESWEEP_WGSL,
            &[
                ("WG", shape.wg.to_string()),
                ("KPT", shape.kpt.to_string()),
                ("DPT", shape.dpt().to_string()),
                ("MAX_SUBGROUPS", shape.max_subgroups().to_string()),
                (
                    "SUBGROUPS",
                    one_size_subgroups(shape.wg, shape.sg_min, shape.sg_max).to_string(),
                ),
                ("STAGE", stage_wgsl(shape)?),
                ("SPIN", self.spin.to_string()),
                ("LOADS_FIRST", (!self.pairs).to_string()),
                ("MASK", mask),
                ("TABLE_WORDS", table_words.to_string()),
                ("PEERS", part(peers).to_string()),
                ("PEER_TABLES", self.peer_tables.to_string()),
                ("VALUE_BINDINGS", value_bindings.to_string()),
                ("VALUES", values.to_string()),
                ("KEYS", KEYS_WGSL.to_string()),
                ("IDS", SUBGROUP_WGSL.to_string()),
            ],
        )
    }

    /// The digit pass writes every word of workgroup memory it reads first (counters and
    /// `fallback` cleared, `digit_base` and the stage written before a barrier).
    fn initializes_workgroup_memory(&self) -> bool {
        true
    }
}

/// `{{MASK}}` in four words, those at and past `sg_max` lanes masked off.
fn mask_four_words(sg_max: u32) -> Result<String> {
    let words = (0..4)
        .map(|w| if w * 32 < sg_max { "0xffffffffu" } else { "0u" })
        .collect::<Vec<_>>()
        .join(", ");
    render(part(MASK_FOUR_WORDS), &[("WORDS", words)])
}

/// The workgroup arrays of the digit counters and the staged tile (`{{STAGE}}`).
fn stage_wgsl(shape: &OneSweepShape) -> Result<String> {
    if shape.apart {
        render(
            part(STAGE_APART),
            &[("COUNTER_WORDS", shape.counter_words().to_string())],
        )
    } else {
        render(
            part(STAGE_SHARED),
            &[("STAGING_WORDS", shape.staging_words(false).to_string())],
        )
    }
}

/// Words of `tile_origin` in `wgsl/sort_rts.wgsl`: a padded tile's with values, one (an
/// array cannot be empty) without.
pub(super) fn rts_origin_words(wg: u32, kpt: u32, pairs: bool) -> u32 {
    let tile = wg * kpt;
    if pairs { tile + tile / 32 } else { 1 }
}

/// `wgsl/sort_rts.wgsl`: reduce-then-scan's digit counts per workgroup (`upsweep`) and
/// its scatter (`downsweep`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct SortRtsKernel {
    pub(super) workgroup_size: u32,
    /// Keys per invocation.
    pub(super) kpt: u32,
    /// Whether values move with the keys.
    pub(super) pairs: bool,
    /// Whether its per-key loops are written out (the template's `//#for ... unroll`) and values staged
    /// through workgroup memory; else loops, and values gathered key by key.
    pub(super) unrolled: bool,
    /// Phases left out for timing (`wgsl/sort_rts.wgsl`'s KNOCKOUT): 0 but in tuning
    /// builds ([`rts_knockout`]).
    pub(super) knockout: u32,
}

/// Phases of the reduce-then-scan sort left out, for timing them apart
/// ([`CtxBuilder::sort_rts_knockout`](crate::CtxBuilder::sort_rts_knockout); `bandwidth`'s
/// `no_subgroups` rows): `wgsl/sort_rts.wgsl`'s KNOCKOUT. 0 (none) unless a builder set it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RtsKnockout(pub(crate) u32);

#[cfg(feature = "internals")]
impl crate::CtxBuilder {
    /// Leave phases of the reduce-then-scan sort out (the bits of `wgsl/sort_rts.wgsl`'s
    /// KNOCKOUT), to time the others: the sorts' results are then wrong. For tuning only
    /// (feature `internals`).
    pub fn sort_rts_knockout(self, phases: u32) -> Self {
        self.option(RtsKnockout(phases))
    }
}

impl KernelSource for SortRtsKernel {
    fn name(&self) -> &'static str {
        "sort_rts"
    }

    fn element(&self) -> &'static str {
        "u32"
    }

    fn wgsl(&self) -> Result<String> {
        // With values: staged through workgroup memory where the loops are written out,
        // else gathered from the input key by key.
        let staged = self.pairs && self.unrolled;
        let gathered = self.pairs && !self.unrolled;
        let value_bindings = if self.pairs { part(VALUE_BINDINGS) } else { "" };
        render(
            RTS_WGSL,
            &[
                ("STAGED", staged.to_string()),
                ("GATHERED", gathered.to_string()),
                ("WG", self.workgroup_size.to_string()),
                ("KPT", self.kpt.to_string()),
                ("UNROLLED", self.unrolled.to_string()),
                ("VALUE_BINDINGS", value_bindings.to_string()),
                ("KEYS", KEYS_WGSL.to_string()),
                ("PAIRS", self.pairs.to_string()),
                ("KNOCKOUT", self.knockout.to_string()),
                (
                    "ORIGIN_WORDS",
                    rts_origin_words(self.workgroup_size, self.kpt, self.pairs).to_string(),
                ),
            ],
        )
    }
}
