//! What gpuprim's experiment harnesses (the binaries in `lab/src/bin/`) share. Not published.
//!
//! - [`timing`]: the bandwidth table's rows (time, GB/s, ratio to a copy kernel), their CSV
//!   and JSON files, and [`timing::GpuTimer`], GPU timestamps around a round of work.
//! - [`harness`]: flags, checks that fail the run at the end, wgpu error scopes, and
//!   compute kernels of the harness's own WGSL with their GPU time, for the harnesses that
//!   run kernels of their own beside the library's (`grid_lab`, `reduce_lab`,
//!   `matmul_lab`).

pub mod harness;
pub mod timing;
