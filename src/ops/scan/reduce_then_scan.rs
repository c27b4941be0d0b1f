//! Reduce-then-scan's recording: per window an upsweep (one partial per workgroup over
//! a contiguous range of tiles), one spine (scans the partials) and per window a
//! downsweep (scans each range from its offset).

use super::program::Kernels;
use super::record::{Io, ScanParams, window_elems};
use super::tuning::ScanTuning;
use crate::error::Result;
use crate::runtime::context::Ctx;
use crate::runtime::dispatch::{Chunk, workgroup_grid};
use crate::runtime::record::{Res, Work};

impl Ctx {
    /// Adds the three passes over every window of `io` to `work`; with `kernels.counts`,
    /// the combination of all elements is copied to `total` afterwards.
    pub(super) fn record_reduce_then_scan(
        &self,
        work: &mut Work,
        kernels: &Kernels,
        io: &Io<'_>,
        total: &wgpu::Buffer,
    ) -> Result<()> {
        let a_bytes = kernels.a_bytes;
        let windows = io.windows;
        let (layout, params) = self.rts_layout(kernels, io.n, windows, Some(io))?;
        let partials = work.keep(self.scratch(
            "scan partials",
            a_bytes * u64::from(layout.total_groups),
            wgpu::BufferUsages::STORAGE,
        )?);
        let offsets_bytes = a_bytes * (u64::from(layout.total_groups) + 1);
        let offsets = work.keep(self.scratch(
            "scan offsets",
            offsets_bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        )?);
        for (i, w) in windows.iter().enumerate() {
            let block = work.params(&params[i]);
            work.dispatch(&kernels.upsweep, layout.grids[i])
                .bind(0, block)
                .bind(1, io.input.window(w))
                .bind(3, Res::whole(&partials));
        }
        let block = work.params(&params[windows.len()]);
        work.dispatch(&kernels.spine, [1, 1, 1])
            .bind(0, block)
            .bind(3, Res::whole(&partials))
            .bind(4, Res::whole(&offsets));
        for (i, w) in windows.iter().enumerate() {
            let Some(range) = &io.outs[i] else {
                continue;
            };
            let block = work.params(&params[windows.len() + 1 + i]);
            work.dispatch(&kernels.downsweep, layout.grids[i])
                .bind(0, block)
                .bind(1, io.input.window(w))
                .bind(2, range.res.clone())
                .bind(4, Res::whole(&offsets));
        }
        // Compaction's count (a plain scan has no use for the total, and the copy costs
        // a round of the GPU).
        if kernels.counts {
            let at = a_bytes * u64::from(layout.total_groups);
            work.copy((&offsets, at), (total, 0), a_bytes);
        }
        Ok(())
    }

    /// Workgroups and parameters of reduce-then-scan: one parameter block per window for
    /// the upsweep, one for the spine, one per window for the downsweep.
    pub(super) fn rts_layout(
        &self,
        kernels: &Kernels,
        n: u64,
        windows: &[Chunk],
        io: Option<&Io<'_>>,
    ) -> Result<(RtsLayout, Vec<ScanParams>)> {
        let max_dim = u64::from(self.info().max_workgroups_per_dimension);
        let cap = u64::from(groups_cap(self)).min(max_dim.saturating_pow(3));
        let mut layout = RtsLayout {
            grids: Vec::new(),
            bases: Vec::new(),
            groups: Vec::new(),
            total_groups: 0,
        };
        let mut up = Vec::new();
        for w in windows {
            let tiles = w.units.div_ceil(u64::from(kernels.tile_units));
            let per_group = tiles.div_ceil(cap);
            let groups = tiles.div_ceil(per_group);
            let (first, count) = window_elems(w, n);
            up.push(ScanParams {
                n: count as u32,
                units: w.units as u32,
                tiles: tiles as u32,
                tiles_per_group: per_group as u32,
                groups: groups as u32,
                base: layout.total_groups,
                first_elem: first as u32,
                ..ScanParams::default()
            });
            layout.grids.push(workgroup_grid(
                groups,
                self.info().max_workgroups_per_dimension,
            )?);
            layout.bases.push(layout.total_groups);
            layout.groups.push(groups as u32);
            layout.total_groups += groups as u32;
        }
        let mut params = up.clone();
        params.push(ScanParams {
            groups: layout.total_groups,
            ..ScanParams::default()
        });
        for (i, mut p) in up.into_iter().enumerate() {
            if let Some(range) = io.and_then(|io| io.outs[i].as_ref()) {
                p.out_base = range.out_base;
            }
            // The spine writes the total after the partials' offsets.
            p.total_at = layout.total_groups;
            params.push(p);
        }
        Ok((layout, params))
    }
}

/// Workgroups of the reduce-then-scan passes per window.
pub(super) struct RtsLayout {
    pub(super) grids: Vec<[u32; 3]>,
    /// Each window's first partial.
    pub(super) bases: Vec<u32>,
    pub(super) groups: Vec<u32>,
    pub(super) total_groups: u32,
}

/// [`ScanTuning::pass_groups`] on `ctx`'s adapter.
fn groups_cap(ctx: &Ctx) -> u32 {
    ScanTuning::of(ctx.info()).pass_groups
}
