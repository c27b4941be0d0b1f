//! Rows for the random primitives (filled in with them).

use gpuprim::Result;

use crate::timing::Bench;

pub fn rows(_b: &mut Bench) -> Result<()> {
    Ok(())
}
