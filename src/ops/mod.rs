//! The primitives, one module per family. Each module holds the public [`Ctx`] methods
//! of its family (with their docs) and the code that checks arguments, fetches the
//! kernel from the cache and records the dispatch.
//!
//! [`Ctx`]: crate::Ctx

pub mod arg_reduce;
pub mod atomic;
#[cfg(test)]
pub(crate) mod catalog;
pub(crate) mod copy;
pub mod gather;
pub mod grid2d;
pub mod indirect;
pub mod kernel;
pub mod map;
pub mod random;
pub mod reduce;
pub mod scan;
pub mod scan_by_key;
pub mod scatter_reduce;
pub mod search;
pub mod segmented;
pub mod segmented_sort;
pub mod sort;
pub mod top_k;

/// Every family's configurations, for the catalog test (`catalog.rs`).
#[cfg(test)]
const CATALOGS: &[fn(&mut catalog::Catalog)] = &[
    arg_reduce::catalog,
    atomic::catalog,
    grid2d::catalog,
    indirect::catalog,
    kernel::catalog,
    random::catalog,
    reduce::catalog,
    scan::catalog,
    scan_by_key::catalog,
    search::catalog,
    segmented::catalog,
    segmented_sort::catalog,
    sort::catalog,
    top_k::catalog,
];
