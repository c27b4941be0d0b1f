//! The search family's kernels: their configurations (`SearchKernel`, `BucketKernel`)
//! and parameter blocks, and the constants of their shapes.

use super::*;

pub(super) const SEARCH_WGSL: &str = include_str!("../../../wgsl/search.wgsl");
pub(super) const SEARCH_IO_DIRECT_WGSL: &str = include_str!("../../../wgsl/search_io_direct.wgsl");
pub(super) const SEARCH_IO_BUCKETED_WGSL: &str =
    include_str!("../../../wgsl/search_io_bucketed.wgsl");
pub(super) const SEARCH_BUCKETS_WGSL: &str = include_str!("../../../wgsl/search_buckets.wgsl");

/// Most pivots a workgroup keeps in workgroup memory (16 KiB of `u32`, the least every
/// WebGPU device offers): 12 of the 24 levels of a search in 2^24 elements. Fewer where
/// the device offers less workgroup memory, and never more than the table has room for.
pub(super) const MAX_PIVOTS: u32 = 4096;

/// Most bucket pivots of a bucketed search: 257 table ranges of 1/256 of the table
/// each. The queries searched at one time then fall in a few of them, which stay in the
/// cache, and a tile of bucketing meets few enough buckets to reserve each one's slots
/// with one atomic add.
pub(super) const MAX_BUCKETS: u32 = 256;

/// Query units (of four) per invocation in a tile of `scatter_main`.
pub(super) const SCATTER_UNITS: u32 = 2;

/// Which bound a call finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Side {
    /// The first element >= q.
    Lower,
    /// The first element > q.
    Upper,
}

impl Side {
    pub(super) fn name(self) -> &'static str {
        match self {
            Side::Lower => "lower_bound",
            Side::Upper => "upper_bound",
        }
    }
}

/// How the search pass reads queries and writes answers (the `{{IO}}` of
/// `wgsl/search.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Io {
    /// The queries and the answers unit by unit (`wgsl/search_io_direct.wgsl`), each as
    /// `vec4` units or in the scalar layout.
    Direct { queries_vec4: bool, out_vec4: bool },
    /// (query, index) pairs grouped by table range, each answer written at its index,
    /// or the queries (`vec4` units or the scalar layout) where they were in order
    /// already (`wgsl/search_io_bucketed.wgsl`).
    Bucketed { queries_vec4: bool },
}

/// A one-word key's masks: other keys are searched by `wide.rs` and never reach these
/// kernels.
fn word_order<K: RadixKey>() -> (u32, u32) {
    crate::ops::sort::word_masks::<K>().expect("keys of other forms are searched by search/wide.rs")
}

/// `wgsl/search.wgsl`: its pivots and search passes for one side, key type and layout.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct SearchKernel {
    pub(super) side: Side,
    /// The key's WGSL type and how its bits map to an unsigned order ([`SortKey`]).
    pub(super) key: &'static str,
    pub(super) key_xor: u32,
    pub(super) neg_mask: u32,
    pub(super) io: Io,
    /// Pivots a workgroup keeps in workgroup memory.
    pub(super) pivots: u32,
    pub(super) workgroup_size: u32,
}

impl SearchKernel {
    /// The kernel for `K` keys meeting their queries by `io`, at the workgroup size and
    /// pivot count of the device `info` describes.
    pub(super) fn new<K: RadixKey>(info: &Info, side: Side, io: Io) -> SearchKernel {
        let (key_xor, neg_mask) = word_order::<K>();
        SearchKernel {
            side,
            key: K::WGSL,
            key_xor,
            neg_mask,
            io,
            pivots: max_pivots(&info.limits),
            workgroup_size: pow2_workgroup_size_within(&info.limits, 256),
        }
    }
}

impl KernelSource for SearchKernel {
    fn name(&self) -> &'static str {
        self.side.name()
    }

    fn element(&self) -> &'static str {
        self.key
    }

    fn wgsl(&self) -> Result<String> {
        let before = match self.side {
            Side::Lower => "<",
            Side::Upper => "<=",
        };
        let io = match self.io {
            Io::Direct {
                queries_vec4,
                out_vec4,
            } => render(
                SEARCH_IO_DIRECT_WGSL,
                &[
                    (
                        "QUERIES",
                        units_wgsl("gp_queries", 3, "u32", false, queries_vec4)?,
                    ),
                    ("OUT", units_wgsl("gp_out", 4, "u32", true, out_vec4)?),
                ],
            ),
            Io::Bucketed { queries_vec4 } => render(
                SEARCH_IO_BUCKETED_WGSL,
                &[(
                    "QUERIES",
                    units_wgsl("gp_queries", 5, "u32", false, queries_vec4)?,
                )],
            ),
        }?;
        render(
            SEARCH_WGSL,
            &[
                ("IO", io),
                ("KEY_XOR", self.key_xor.to_string()),
                ("NEG_MASK", self.neg_mask.to_string()),
                ("BEFORE", before.into()),
                ("PIVOTS", self.pivots.to_string()),
                ("WG", self.workgroup_size.to_string()),
            ],
        )
    }
}

/// `wgsl/search_buckets.wgsl`: the passes that group queries by table range.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct BucketKernel {
    pub(super) key: &'static str,
    pub(super) key_xor: u32,
    pub(super) neg_mask: u32,
    pub(super) queries_vec4: bool,
    pub(super) workgroup_size: u32,
}

impl BucketKernel {
    /// The bucketing passes of the search `search` (for `K` keys), whose queries are
    /// read as vec4 units or not.
    pub(super) fn new<K: RadixKey>(search: &SearchKernel, queries_vec4: bool) -> BucketKernel {
        BucketKernel {
            key: K::WGSL,
            key_xor: search.key_xor,
            neg_mask: search.neg_mask,
            queries_vec4,
            workgroup_size: search.workgroup_size,
        }
    }
}

impl KernelSource for BucketKernel {
    fn name(&self) -> &'static str {
        "lower_bound/upper_bound buckets"
    }

    fn element(&self) -> &'static str {
        self.key
    }

    fn wgsl(&self) -> Result<String> {
        render(
            SEARCH_BUCKETS_WGSL,
            &[
                (
                    "QUERIES",
                    units_wgsl("gp_queries", 3, "u32", false, self.queries_vec4)?,
                ),
                ("KEY_XOR", self.key_xor.to_string()),
                ("NEG_MASK", self.neg_mask.to_string()),
                ("BUCKETS", MAX_BUCKETS.to_string()),
                ("UNITS", SCATTER_UNITS.to_string()),
                ("WG", self.workgroup_size.to_string()),
            ],
        )
    }
}

/// The parameter block of `wgsl/search.wgsl` (`struct GpSearchParams` there).
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(super) struct SearchParams {
    /// Table elements in this window.
    pub(super) n: u32,
    /// Pivots of this window: 0 or a power of two.
    pub(super) pivots: u32,
    /// Pivots are `gap` apart, plus 1 for each of the first `extra` gaps.
    pub(super) gap: u32,
    /// Ranges one longer than the others (the first ones).
    pub(super) extra: u32,
    /// Binary-search steps after the pivots.
    pub(super) steps: u32,
    /// Where this window's pivots start in the pivot buffer.
    pub(super) pivot_base: u32,
    /// 1: add to the answers of the earlier table windows.
    pub(super) accumulate: u32,
    /// Query units in this query window.
    pub(super) units: u32,
    /// Workgroups that take part; the surplus ones of a folded grid return.
    pub(super) groups: u32,
    /// Bucketed: the word of the bucket counts that is not 0 when the queries were not
    /// in order.
    pub(super) unsorted_at: u32,
    pub(super) _pad1: u32,
    pub(super) _pad2: u32,
}

/// The parameter block of `wgsl/search_buckets.wgsl` (`struct GpBucketParams` there).
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(super) struct BucketParams {
    /// Queries.
    pub(super) count: u32,
    /// Bucket pivots: 0 or a power of two, at most `MAX_BUCKETS`.
    pub(super) buckets: u32,
    /// Bucket pivot `j` is pivot `(j + 1) * stride - 1`.
    pub(super) stride: u32,
    /// Where the table's pivots start in the pivot buffer.
    pub(super) pivot_base: u32,
    /// Workgroups that take part; the surplus ones of a folded grid return.
    pub(super) groups: u32,
    pub(super) _pad0: u32,
    pub(super) _pad1: u32,
    pub(super) _pad2: u32,
}
