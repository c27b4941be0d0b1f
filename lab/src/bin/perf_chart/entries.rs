//! What is compared with what: each chart bar group and table row names the bandwidth
//! example's row and the peers' rows for the same work. Adjust names here when a source
//! renames a row; `*` in a name stands for any text, and where a name matches rows of
//! several sizes the size nearest gpuprim's is taken.

/// One primitive: gpuprim's row and its peers'.
pub struct Entry {
    /// The label in the chart and the table.
    pub label: &'static str,
    /// Bytes per element as the `bandwidth` table counts them for this row (each input
    /// read once, each output written once): a peer's time becomes a bandwidth through
    /// it, so every bar is the same work per element, whatever the peer's own count.
    pub bytes_per_element: f64,
    /// The `bandwidth` table's row (`bandwidth --csv`, column `primitive`).
    pub gpuprim: &'static str,
    /// `peers.py`'s PyTorch row.
    pub torch: Option<&'static str>,
    /// `peers.py`'s CuPy (CUB) row.
    pub cub: Option<&'static str>,
    /// lampshade's `profile_primitives` row (column `primitive`).
    pub lampshade: Option<&'static str>,
    /// What differs between gpuprim's work and one peer's (0 PyTorch, 1 CUB, 2
    /// lampshade), for the table's notes where that peer has a figure.
    pub note: Option<(usize, &'static str)>,
}

const fn entry(label: &'static str, bytes_per_element: f64, gpuprim: &'static str) -> Entry {
    Entry {
        label,
        bytes_per_element,
        gpuprim,
        torch: None,
        cub: None,
        lampshade: None,
        note: None,
    }
}

impl Entry {
    const fn torch(mut self, name: &'static str) -> Entry {
        self.torch = Some(name);
        self
    }
    const fn cub(mut self, name: &'static str) -> Entry {
        self.cub = Some(name);
        self
    }
    const fn lampshade(mut self, name: &'static str) -> Entry {
        self.lampshade = Some(name);
        self
    }
    const fn note(mut self, peer: usize, note: &'static str) -> Entry {
        self.note = Some((peer, note));
        self
    }
}

/// The bandwidth rows, in chart order.
pub const ENTRIES: &[Entry] = &[
    entry("copy kernel (map \"x\")", 8.0, "copy kernel f32 (map x)").torch("copy f32 (torch)"),
    entry(
        "GpuVec::copy_from",
        8.0,
        "GpuVec::copy_from f32 (buffer copy)",
    )
    .torch("copy f32 (torch)"),
    entry("map x * 2 + 1", 8.0, "map x*2+1 f32")
        .torch("map x*2+1 f32 (torch)")
        .note(0, "PyTorch runs two kernels (add, then mul_)"),
    entry("zip a + b", 12.0, "zip a+b f32").torch("zip a+b f32 (torch)"),
    entry("sum f32", 4.0, "sum f32 (reduce_into)")
        .torch("sum f32 (torch)")
        .cub("sum f32 (cupy, CUB)"),
    entry("max f32", 4.0, "max f32").torch("max f32 (torch)"),
    entry("dot f32", 8.0, "dot f32").torch("dot f32 (torch)"),
    entry("sum u32", 4.0, "sum u32")
        .torch("sum i32 (torch)")
        .lampshade("reduction_sum")
        .note(0, "peers.py sums i32 values in PyTorch"),
    entry("inclusive scan f32", 8.0, "scan f32 inclusive, single pass")
        .torch("inclusive scan f32 (torch.cumsum)")
        .cub("inclusive scan f32 (cupy.cumsum)"),
    entry("scan u32", 8.0, "scan u32 inclusive, single pass").lampshade("scan"),
    entry("compact, 50% kept", 6.0, "compact f32 (x < 0.5), 50% kept")
        .lampshade("compact_50")
        .note(
            2,
            "lampshade compacts u32 by a mask it reads; gpuprim evaluates `x < 0.5` on f32",
        ),
    entry("histogram u32, 256 bins", 4.0, "histogram u32, 256 bins").lampshade("histogram_256"),
    entry(
        "histogram f32 range, 256 bins",
        4.0,
        "histogram_range f32 [0,1], 256 bins",
    )
    .torch("histogram 256 bins (torch.histc)"),
    entry("uniform fill f32", 4.0, "fill_random pcg32 f32").torch("fill uniform f32 (torch.rand_)"),
    entry("sort u32 keys", 8.0, "sort u32 keys n=2^28")
        .torch("sort u32 keys n=2^* (torch.sort)")
        .cub("sort u32 keys n=2^28 (cupy, CUB)")
        .lampshade("key_sort")
        .note(
            0,
            "torch.sort (also writing int64 indices) at n = 2^26, lampshade at 2^26 (it refuses \
             more than 117 M keys): compared per element",
        ),
];

/// A host round trip: gpuprim's latency row and torch's.
pub struct LatencyEntry {
    pub label: &'static str,
    pub gpuprim: &'static str,
    pub torch: Option<&'static str>,
}

const fn latency(
    label: &'static str,
    gpuprim: &'static str,
    torch: Option<&'static str>,
) -> LatencyEntry {
    LatencyEntry {
        label,
        gpuprim,
        torch,
    }
}

/// The latency rows, in table order.
pub const LATENCY: &[LatencyEntry] = &[
    latency(
        "blocking `reduce`, n = 2^10",
        "reduce n=2^10",
        Some("latency sum n=2^10 (torch .item())"),
    ),
    latency(
        "blocking `reduce`, n = 2^16",
        "reduce n=2^16",
        Some("latency sum n=2^16 (torch .item())"),
    ),
    latency(
        "blocking `reduce`, n = 2^20",
        "reduce n=2^20",
        Some("latency sum n=2^20 (torch .item())"),
    ),
    latency(
        "blocking `reduce`, n = 2^24",
        "reduce n=2^24",
        Some("latency sum n=2^24 (torch .item())"),
    ),
    latency("`to_vec` of one f32", "to_vec of 1 f32", None),
    latency(
        "`map_into` n = 2^10 + `synchronize`",
        "map_into n=2^10 + synchronize",
        None,
    ),
];
