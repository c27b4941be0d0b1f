//! Shared by the benchmarks.

use gpuprim::Ctx;

/// Sizes to sweep: the software adapter moves a few GB/s, so it stops at 2^20.
pub fn sizes(ctx: &Ctx) -> Vec<usize> {
    if ctx.info().device_type == gpuprim::wgpu::DeviceType::Cpu {
        vec![1 << 12, 1 << 16, 1 << 20]
    } else {
        vec![1 << 12, 1 << 16, 1 << 20, 1 << 24, 1 << 26]
    }
}
