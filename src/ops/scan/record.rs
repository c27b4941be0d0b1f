//! One scan's recording: the binding windows, the choice of algorithm, and what both
//! algorithms share (the parameter block, each window's output range).

use super::ScanAlgorithm;
use super::program::{Kernels, Program};
use super::single_pass::status_size;
use crate::element::GpuElement;
use crate::error::{Error, Limit, Result};
use crate::runtime::context::Ctx;
use crate::runtime::dispatch::{Chunk, chunks, units_per_window};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::{GpuVec, LANES};
use crate::runtime::view::View;

impl Ctx {
    /// Cuts `v` into binding windows, picks the algorithm for scanned type `A` and adds
    /// the scan of every window to `work`; `out_range` says which part of `out` a
    /// window's output binding covers. Returns the buffer holding the scan's total.
    pub(super) fn record_windows<T: GpuElement, A: GpuElement>(
        &self,
        work: &mut Work,
        program: &Program,
        requested: ScanAlgorithm,
        v: &GpuVec<T>,
        out: View<'_>,
        out_range: impl Fn(&Chunk) -> OutRange,
    ) -> Result<wgpu::Buffer> {
        let windows: Vec<Chunk> =
            chunks(v.lanes4(), units_per_window(self, &[unit_bytes::<T>()])).collect();
        let algorithm = self.choose_scan::<A>(work.op(), requested, program, &windows)?;
        let input = View::of(v);
        let kernels =
            program.kernels(self, algorithm, &program.layouts(Some(&input), Some(&out)))?;
        let outs: Vec<_> = windows.iter().map(|w| Some(out_range(w))).collect();
        let io = Io {
            input,
            n: v.len() as u64,
            windows: &windows,
            outs: &outs,
        };
        self.record_scan(work, &kernels, algorithm, &io)
    }

    /// The algorithm for a scan of `T` over `windows`.
    pub(super) fn choose_scan<T: GpuElement>(
        &self,
        op: &'static str,
        requested: ScanAlgorithm,
        program: &Program,
        windows: &[Chunk],
    ) -> Result<ScanAlgorithm> {
        let wide = size_of::<T>() != 4;
        let (tiles, status_bytes) = status_size(windows, program.chained_tile_units);
        let fits = status_bytes <= self.info().max_binding_bytes;
        match requested {
            ScanAlgorithm::Auto => Ok(
                if wide || !fits || self.scan_algorithm() != ScanAlgorithm::SinglePass {
                    ScanAlgorithm::ReduceThenScan
                } else {
                    ScanAlgorithm::SinglePass
                },
            ),
            ScanAlgorithm::SinglePass if wide => Err(Error::InvalidArgument {
                op,
                message: format!(
                    "ScanAlgorithm::SinglePass works on 32-bit elements (its look-back publishes \
                     32-bit words), not {}; use ScanAlgorithm::Auto or ReduceThenScan",
                    T::WGSL
                ),
            }),
            ScanAlgorithm::SinglePass if !fits => Err(Error::TooLarge {
                what: format!("the single-pass scan's tile status for {tiles} tiles"),
                kind: Limit::BindingBytes,
                requested: status_bytes,
                limit: self.info().max_binding_bytes,
            }),
            other => Ok(other),
        }
    }

    /// Adds a whole scan to `work`; returns the buffer that holds the combination of all
    /// elements afterwards.
    fn record_scan(
        &self,
        work: &mut Work,
        kernels: &Kernels,
        algorithm: ScanAlgorithm,
        io: &Io<'_>,
    ) -> Result<wgpu::Buffer> {
        let total = work.keep(self.scratch(
            "scan total",
            kernels.a_bytes,
            wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        )?);
        if algorithm == ScanAlgorithm::SinglePass {
            self.record_single_pass(work, kernels, io, &total)?;
        } else {
            self.record_reduce_then_scan(work, kernels, io, &total)?;
        }
        Ok(total)
    }
}

/// The parameter block of `wgsl/scan.wgsl` (`struct Params` there, which says what each
/// field means to each entry point).
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(super) struct ScanParams {
    pub(super) n: u32,
    pub(super) units: u32,
    pub(super) tiles: u32,
    pub(super) tiles_per_group: u32,
    pub(super) groups: u32,
    pub(super) base: u32,
    pub(super) window: u32,
    pub(super) counters: u32,
    pub(super) first_elem: u32,
    pub(super) out_base: u32,
    pub(super) last: u32,
    pub(super) total_at: u32,
}

/// Where a window's results go: a range of the output vector, starting at element
/// `out_base` (compaction writes kept element `p` to `out[p - out_base]`).
pub(super) struct OutRange {
    pub(super) res: Res,
    pub(super) out_base: u32,
}

/// The vectors of one scan.
pub(super) struct Io<'a> {
    pub(super) input: View<'a>,
    /// Elements in the input.
    pub(super) n: u64,
    pub(super) windows: &'a [Chunk],
    /// The output binding of each window; `None` skips the window's output pass.
    pub(super) outs: &'a [Option<OutRange>],
}

/// The index of window `w`'s first element and its element count, of `n` in all.
pub(super) fn window_elems(w: &Chunk, n: u64) -> (u64, u64) {
    let first = w.offset_units * LANES as u64;
    (first, (n - first).min(w.units * LANES as u64))
}

pub(super) fn unit_bytes<T: GpuElement>() -> u64 {
    (LANES * size_of::<T>()) as u64
}
