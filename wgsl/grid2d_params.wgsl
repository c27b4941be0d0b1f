// The bindings and parameters of map2d, transpose and blur_vertical (filled in from
// `run2d` in src/ops/grid2d/mod.rs): src and dst as arrays of T, and the uniform.

// gpuprim::SWIZZLE_WGSL
{{SWIZZLE}}

// remap(group, groups) -> the workgroup position to process: the identity, or
// swizzle_tiles with this dispatch's grid and SwizzleParams as constants (a pipeline per
// grid size and tile width, so the compiler folds the arithmetic away).
{{REMAP}}

struct Params {
    src_w: u32,
    src_h: u32,
    src_pitch: u32,
    dst_w: u32,
    dst_h: u32,
    dst_pitch: u32,
    extra: u32,           // the kernel's own word: blur_vertical's radius, else 0
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> src: array<T>;
@group(0) @binding(1) var<storage, read_write> dst: array<T>;
@group(0) @binding(2) var<uniform> p: Params;
