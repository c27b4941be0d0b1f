//! The single pass's recording: a chained scan with decoupled look-back
//! (`wgsl/scan_chained.wgsl`), one dispatch per binding window over a shared buffer of
//! tile statuses.

use super::program::Kernels;
use super::record::{Io, ScanParams, window_elems};
use crate::error::Result;
use crate::runtime::context::Ctx;
use crate::runtime::dispatch::{Chunk, workgroup_grid};
use crate::runtime::record::{Res, Work};

impl Ctx {
    /// Adds the single pass over every window of `io` to `work`; the last tile writes
    /// the combination of all elements to `total`.
    pub(super) fn record_single_pass(
        &self,
        work: &mut Work,
        kernels: &Kernels,
        io: &Io<'_>,
        total: &wgpu::Buffer,
    ) -> Result<()> {
        let windows = io.windows;
        let last = windows.len() - 1;
        let counters = status_counters(windows.len());
        let (_, status_bytes) = status_size(windows, kernels.tile_units);
        let status = work.keep(self.scratch(
            "scan tile status",
            status_bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        )?);
        work.clear(&status, 0, Some(status_bytes));
        let chained = kernels.chained.as_ref().expect("single pass compiled");
        let mut first_tile = 0u64;
        for (i, w) in windows.iter().enumerate() {
            let tiles = w.units.div_ceil(u64::from(kernels.tile_units));
            let grid = workgroup_grid(tiles, self.info().max_workgroups_per_dimension)?;
            let (first, count) = window_elems(w, io.n);
            let block = work.params(&ScanParams {
                n: count as u32,
                units: w.units as u32,
                tiles: tiles as u32,
                base: first_tile as u32,
                window: i as u32,
                counters: counters as u32,
                first_elem: first as u32,
                out_base: io.outs[i].as_ref().map_or(0, |r| r.out_base),
                last: u32::from(i == last),
                ..ScanParams::default()
            });
            first_tile += tiles;
            let Some(range) = &io.outs[i] else {
                continue;
            };
            work.dispatch(chained, grid)
                .bind(0, block)
                .bind(1, io.input.window(w))
                .bind(2, range.res.clone())
                .bind(4, Res::whole(total))
                .bind(5, Res::range(&status, 0, status_bytes));
        }
        Ok(())
    }
}

/// Counter words before the tile statuses: one per window, rounded to 4.
fn status_counters(windows: usize) -> u64 {
    (windows as u64).next_multiple_of(4)
}

/// Tiles of the single pass over `windows`, and the bytes of its status buffer (the
/// counters, then an aggregate and an inclusive pair per tile).
pub(super) fn status_size(windows: &[Chunk], tile_units: u32) -> (u64, u64) {
    let tiles: u64 = windows
        .iter()
        .map(|w| w.units.div_ceil(u64::from(tile_units)))
        .sum();
    (tiles, 4 * (status_counters(windows.len()) + 4 * tiles))
}
