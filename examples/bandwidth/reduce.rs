//! Rows for reductions and dot, and the host round trip of a blocking reduce.

use gpuprim::Result;

use crate::timing::Bench;

pub fn rows(_b: &mut Bench) -> Result<()> {
    Ok(())
}

pub fn latency(_b: &mut Bench) -> Result<()> {
    Ok(())
}
