//! The primitives, one module per family. Each module holds the public [`Ctx`] methods
//! of its family (with their docs) and the code that checks arguments, fetches the
//! kernel from the cache and records the dispatch.
//!
//! [`Ctx`]: crate::Ctx

pub mod arg_reduce;
pub mod atomic;
pub(crate) mod copy;
pub mod count;
pub mod grid2d;
pub mod kernel;
pub mod map;
pub mod random;
pub mod reduce;
pub mod scan;
pub mod scan_by_key;
pub mod search;
pub mod segmented;
pub mod sort;
pub mod top_k;
