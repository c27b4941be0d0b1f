//! What gpuprim's experiment harnesses (the binaries in `src/bin/`) share. Not published.
//!
//! - [`timing`]: the bandwidth table's rows (time, GB/s, ratio to a copy kernel), their CSV
//!   and JSON files, and [`timing::GpuTimer`], GPU timestamps around a round of work.

pub mod timing;
