//! GPU compute primitives on [wgpu]: what CUB and CuPy are for CUDA, for every adapter
//! wgpu runs on.
//!
//! # How to use
//!
//! Make one [`Ctx`], upload data into typed [`GpuVec`]s, call primitives, read back.
//! Each call generates the WGSL it needs from a template, compiles it once, caches the
//! pipeline and dispatches it.
//!
//! ```
//! use gpuprim::Ctx;
//!
//! let ctx = Ctx::new()?;                            // best adapter, its full limits
//! let a = ctx.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
//! let b = ctx.upload(&[0.5f32, 0.5, 0.5, 0.5])?;
//! let c = ctx.map(&a, "x * 2.0 + 1.0")?;            // WGSL expression in x
//! let d = ctx.zip(&c, &b, "a * b")?;                // WGSL expression in a, b
//! assert_eq!(d.to_vec()?, vec![1.5, 2.5, 3.5, 4.5]);
//! # Ok::<(), gpuprim::Error>(())
//! ```
//!
//! Calls that return a [`GpuVec`] or end in `_into` record GPU work and return without
//! waiting for it; calls that return host values ([`GpuVec::to_vec`], [`Ctx::reduce`])
//! wait for it and read back only what they return. Work is ordered: a read-back sees
//! every call made before it. Work recorded while the GPU is busy is gathered into one
//! submission (each submission costs the GPU idle time); [`CtxBuilder::batch_limit`]
//! says when it goes, and [`Ctx::flush`] sends it at once.
//!
//! The primitive families, each in its module under [`ops`]:
//!
//! | family | calls |
//! | --- | --- |
//! | [`ops::map`] | [`Ctx::map`], [`Ctx::zip`] (WGSL expressions), `_into` forms |
//! | [`ops::reduce`] | [`Ctx::reduce`], [`Ctx::reduce_with`] ([`Reduce`]), [`Ctx::dot`]: deterministic, async twins, `_into` forms |
//! | [`ops::scan`] | [`Ctx::scan`], [`Ctx::scan_exclusive`], [`Ctx::scan_with`] ([`Scan`], [`ScanOp`], [`ScanAlgorithm`]), [`Ctx::compact`], [`Ctx::compact_indices`], `_into` forms |
//! | [`ops::arg_reduce`] | [`Ctx::argmax`], [`Ctx::argmin`]: value and first index, NaN first as in NumPy, async twins, `_into` forms; per row and per segment, [`Ctx::argmax_rows`], [`Ctx::argmin_rows`], [`Ctx::segmented_argmax`], [`Ctx::segmented_argmin`] |
//! | [`ops::scan_by_key`] | [`Ctx::scan_by_key`], [`Ctx::scan_by_key_exclusive`], [`Ctx::scan_by_key_with`] ([`Scan`]) and `_into` forms: scans that restart where the key changes |
//! | [`ops::search`] | [`Ctx::lower_bound`], [`Ctx::upper_bound`]: positions of queries in a sorted table, `_into` forms |
//! | [`ops::top_k`] | [`Ctx::top_k`], [`Ctx::smallest_k`]: the k largest or smallest values with their indices, `_into` forms |
//! | [`ops::segmented`] | [`Ctx::segmented_reduce`] (offsets), [`Ctx::reduce_rows`], [`Ctx::reduce_columns`] over [`Grid2D`] views: every [`Reduce`] operator, deterministic, `_into` forms |
//! | [`ops::sort`] | [`Ctx::sort`], [`Ctx::sort_by_key`], [`Ctx::argsort`] ([`Sort`], [`SortAlgorithm`], [`RadixKey`] with 8-byte keys, [`SortKey`], [`SortPayload`] with 8- and 16-byte values, [`SortValue`]): stable radix sorts; [`Ctx::unique`], [`Ctx::run_length_encode`], [`Ctx::reduce_by_key`]; `_with` / `_into` forms |
//! | [`ops::segmented_sort`] | [`Ctx::segmented_sort`], [`Ctx::segmented_sort_by_key`], [`Ctx::segmented_argsort`] (offsets), [`Ctx::sort_rows`], [`Ctx::sort_rows_by_key`], [`Ctx::argsort_rows`] ([`Grid2D`] rows): stable sorts of every segment or row, `_with` / `_into` forms |
//! | [`ops::atomic`] | [`Ctx::atomic_sum`] ([`AtomicStrategy`]), [`Ctx::histogram`], [`Ctx::histogram_range`] |
//! | [`ops::random`] | [`Ctx::fill_random`], [`Ctx::fill_uniform`], [`Ctx::fill_normal`] ([`Rng`]), per-element [`Xorshift128State`], CPU twins |
//! | [`ops::grid2d`] | [`Ctx::map2d`] over [`Grid2D`] views with [`Swizzle`], [`Ctx::transpose`], [`Ctx::color_filter`], [`Ctx::blur_vertical`], [`swizzle`], [`swizzle_bands`] |
//!
//! # Crate layout
//!
//! Two layers over a shared vocabulary:
//!
//! - [`ops`]: one module per primitive family, each with its `Ctx` methods (2D kernels
//!   with thread-group ID swizzling in [`ops::grid2d`]); the WGSL templates are in
//!   `wgsl/` under the same names. A family describes each kernel by a typed
//!   configuration and keeps what it learns at run time in the context's typed slots.
//! - `runtime/`: what every primitive shares and none is named in (nothing there imports
//!   from `ops`): [`Ctx`] and [`CtxBuilder`] with adapter choice (`runtime/context/`,
//!   `runtime/device.rs`), [`GpuVec`] with the buffer pool, read-backs, allocation and
//!   error capture (`runtime/vec/`), the kernel cache keyed by a kernel's configuration
//!   (`runtime/cache/`), the one recording path (`runtime/record.rs`), binding windows
//!   and workgroup grids (`runtime/dispatch.rs`), submission (`runtime/submit.rs`), waits
//!   (`runtime/wait.rs`) and profiling ([`Profile`], `runtime/profile.rs`).
//! - The shared vocabulary: [`Element`] and [`GpuElement`] (`element.rs`: the element
//!   types, what kernels compute with, and their WGSL twins), [`Error`] (`error.rs`) and the check that user WGSL is one expression
//!   (`expr.rs`).
//!
//! With `GPUPRIM_DUMP_WGSL=DIR` in the environment, the WGSL of every kernel is written
//! to `DIR` as it is compiled (`{op}-{element}-{entry}-{n}.wgsl`, `{op}-{entry}-{n}.wgsl`
//! for kernels without an element type).
//!
//! # Failures
//!
//! Every fallible call returns [`Result`] with the one [`Error`] enum. No argument a
//! caller can pass panics: mismatched lengths, WGSL that does not compile, element types
//! the adapter lacks, sizes past the device's limits are all errors whose message
//! names the numbers. wgpu errors are caught in error scopes and returned.
//!
//! # Waiting for the GPU
//!
//! A call that waits for the GPU (a read-back, [`Ctx::synchronize`]) first polls without
//! blocking for at most 500 us on a GPU (short work lands within tens of microseconds,
//! and a sleeping wait adds the driver's wake-up time to the round trip), then sleeps in
//! the driver's fence wait in slices of 50 ms, checking between them that the device is
//! alive. Past the context's limit ([`CtxBuilder::wait_timeout`], default
//! [`DEFAULT_WAIT_TIMEOUT`]) it returns [`Error::Timeout`] instead of blocking on. The
//! work it waited for goes on: the context stays usable, and a later wait sees the work
//! finish (a GPU that is really hung makes later waits time out too). Async waits
//! ([`GpuVec::to_vec_async`], the `_async` calls) share one waiter thread per context,
//! which sleeps the same way and parks while nothing waits.
//!
//! Several contexts in one process are safe, from any threads: contexts made by
//! [`Ctx::new`] and [`CtxBuilder::build`] on one adapter with the same device features
//! and limits share one wgpu device (see [`Ctx::new`]).
//!
//! # Element types and features
//!
//! `f32`, `i32` and `u32` work everywhere. `f64` needs the adapter feature
//! `SHADER_F64`, [`half::f16`] needs `SHADER_F16`; [`Ctx::new`] enables every optional
//! feature the adapter has ([`Info::features`]) and calls that need a missing one
//! return [`Error::Unsupported`].
//!
//! Vectors may be larger than the device's largest storage binding
//! ([`Info::max_binding_bytes`]): the library processes them in several bindings.
//!
//! The cargo feature `internals` (off by default) adds tuning and test hooks: tile
//! shapes and ranking forms of the sort, batching knobs, submission counts, and the
//! kernel-key audit (module `internals`). They are not part of the stable API and not
//! covered by semver; gpuprim's own tests and its `lab/` turn the feature on.
//!
//! # Machines without a GPU
//!
//! Everything runs on Mesa's software Vulkan driver (lavapipe; Debian package
//! `mesa-vulkan-drivers`), slowly, and on Mesa's GL driver (llvmpipe) where no Vulkan
//! driver is installed. Where both exist [`Ctx::new`] picks lavapipe (it has subgroups,
//! `f16` and `f64`); `WGPU_BACKEND=gl` picks GL. A GPU that only GL drives is still
//! preferred to lavapipe. [`Ctx::new`] returns [`Error::NoAdapter`] if no adapter is
//! found.

#![deny(missing_docs)]
#![deny(missing_debug_implementations)]

mod element;
mod error;
mod expr;
pub mod ops;
mod runtime;

pub use element::{Element, GpuElement, ScalarKind};
pub use error::{Error, Limit, Result};
pub use ops::atomic::{AtomicElement, AtomicStrategy, MAX_BINS};
pub use ops::grid2d::{
    AUTO_CANDIDATES, AUTO_MARGIN, AUTO_MIN_WORKGROUPS, Grid2D, Grid2DMut, MAX_BLUR_RADIUS,
    SWIZZLE_WGSL, Swizzle, SwizzleChoice, SwizzleShape, swizzle, swizzle_bands,
};
pub use ops::kernel::{Elementwise, KernelScalar};
pub use ops::random::{RANDOM_WGSL, RandomElement, Rng, Xorshift128State};
pub use ops::reduce::{Reduce, TransformReduce};
pub use ops::scan::{Scan, ScanAlgorithm, ScanOp};
pub use ops::scatter_reduce::{ScatterOp, ScatterReduce};
pub use ops::sort::{RadixKey, RunValue, Sort, SortAlgorithm, SortKey, SortPayload, SortValue};
pub use runtime::context::{
    Ctx, CtxBuilder, DEFAULT_BATCH_LIMIT, Info, Interop, WANTED_FEATURES, WEBGPU_FEATURES,
};
pub use runtime::device::new_instance;
pub use runtime::profile::{Profile, ProfileRow, ProfiledCall};
pub use runtime::vec::GpuVec;
pub use runtime::wait::DEFAULT_WAIT_TIMEOUT;

pub use half;
pub use wgpu;

/// Tuning and test hooks, with the `internals` feature: not part of the stable API and
/// not covered by semver. The other hooks are methods under the same feature:
/// `Sort::tile`, `Sort::ballot_peers`, `Sort::four_word_ballots`,
/// `Sort::look_back_spins`, `CtxBuilder::assume_gpu_busy`, `CtxBuilder::hold_max`,
/// `CtxBuilder::sort_rts_knockout`, `CtxBuilder::reduce_columns_shape`,
/// `Ctx::submissions`, `Ctx::scan_by_key_tile_into`.
#[cfg(feature = "internals")]
pub mod internals {
    /// The kernel-key audit of this process: how many distinct (configuration, entry
    /// point) pairs were compiled, and how many compiles met a configuration equal to
    /// one compiled before (on any context) and found the same WGSL. A configuration
    /// that rendered different WGSL from an equal one fails its call with
    /// [`Error::Internal`](crate::Error::Internal).
    pub fn kernel_audit() -> (usize, usize) {
        crate::runtime::cache::audit::counts()
    }

    /// The most operators and brackets one statement of user code may hold (more is an
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument): naga recurses once per
    /// operator).
    pub const MAX_USER_TERMS: usize = crate::expr::MAX_TERMS;

    /// `top_k`'s radix select on `ctx`'s adapter: the largest k it selects (above it, a
    /// full sort of pairs) and its candidate slots past k.
    pub fn top_k_select_limits(ctx: &crate::Ctx) -> (usize, usize) {
        crate::ops::top_k::select_limits(ctx.info())
    }

    /// Each family's tuning: every number the family picks by adapter, chosen from its
    /// [`Info`](crate::Info) in one function (`of`). Tests read them instead of copying
    /// the numbers.
    pub use crate::ops::arg_reduce::tuning::ArgReduceTuning;
    pub use crate::ops::atomic::tuning::AtomicTuning;
    pub use crate::ops::kernel::tuning::ElementwiseTuning;
    pub use crate::ops::reduce::tuning::ReduceTuning;
    pub use crate::ops::scan::tuning::ScanTuning;
    pub use crate::ops::scan_by_key::tuning::ScanByKeyTuning;
    pub use crate::ops::search::tuning::SearchTuning;
    pub use crate::ops::segmented::tuning::SegmentedTuning;
    pub use crate::ops::segmented_sort::tuning::SegmentedSortTuning;
    pub use crate::ops::sort::tuning::SortTuning;
    pub use crate::ops::top_k::tuning::TopKTuning;

    /// Elements per tile of `scan_by_key` on `ctx`'s adapter.
    pub fn scan_by_key_tile(ctx: &crate::Ctx) -> usize {
        crate::ops::scan_by_key::default_tile(ctx)
    }
}

/// The README's example, compiled and run as a doc test.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctest;
