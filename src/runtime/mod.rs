//! The runtime: everything between a primitive's recorded work and the GPU.
//!
//! It holds the context and its builder ([`context`]), the choice of adapter and the
//! devices contexts share ([`device`]), the kernel cache ([`cache`]), the one recording
//! path ([`record`]), binding windows, workgroup grids and the submission of held work
//! ([`dispatch`]), vectors with their buffer pool, read-backs, allocation and error
//! capture ([`mod@vec`], [`view`]), every wait for the GPU ([`wait`]), profiling
//! ([`profile`]) and the door every call into the driver goes through ([`driver`]: the
//! process's exit, GL's context lock). What only a native build may do (block, sleep, start a thread, run at
//! exit) is in [`native`], the one module a browser build changes.
//!
//! It knows no primitive: nothing here imports from `ops/`, which is the one layer above
//! it. A kernel reaches the runtime as a configuration it can hash, compare and render
//! (`cache::KernelSource`) and as a [`record::Work`] of dispatches, clears and copies;
//! what an op learns at run time (a measured choice, an algorithm) it keeps in a typed
//! slot of the context (`Ctx::op_state`, `CtxBuilder::option`) that the runtime stores
//! and never reads. Below both layers sits the shared vocabulary: element types
//! (`element.rs`), errors (`error.rs`) and the check of user expressions (`expr.rs`).

pub(crate) mod cache;
pub(crate) mod context;
pub(crate) mod device;
pub(crate) mod dispatch;
pub(crate) mod driver;
pub(crate) mod native;
pub(crate) mod profile;
pub(crate) mod record;
pub(crate) mod submit;
pub(crate) mod vec;
pub(crate) mod view;
pub(crate) mod wait;
