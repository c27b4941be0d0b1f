//! Shared by the benchmarks.

use gpuprim::Ctx;

/// Sizes to sweep: the software adapter moves a few GB/s, so it stops at 2^20.
#[allow(dead_code)]
pub fn sizes(ctx: &Ctx) -> Vec<usize> {
    if ctx.info().device_type == gpuprim::wgpu::DeviceType::Cpu {
        vec![1 << 12, 1 << 16, 1 << 20]
    } else {
        vec![1 << 12, 1 << 16, 1 << 20, 1 << 24, 1 << 26]
    }
}

/// Square image sides for the 2D kernels: up to 1024 on the software adapter, 8192 on a GPU.
#[allow(dead_code)]
pub fn sides2d(ctx: &Ctx) -> Vec<u32> {
    if ctx.info().device_type == gpuprim::wgpu::DeviceType::Cpu {
        vec![256, 1024]
    } else {
        vec![256, 1024, 4096, 8192]
    }
}
