//! Shared test helpers: contexts, random data, CPU comparisons.
#![allow(dead_code)]

use std::sync::OnceLock;

pub mod wide;

use gpuprim::{Ctx, GpuElement, GpuVec};
use proptest::prelude::*;

/// The test context: the machine's best adapter. A missing adapter fails the test
/// with the library's message (how to install the software driver), never skips.
pub fn ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| Ctx::new().unwrap_or_else(|e| panic!("no GPU context for the tests: {e}")))
}

/// Held by each test of a binary whose tests take turns: on NVIDIA's Vulkan driver a
/// device made, destroyed or dropped while another device of the process works can hang
/// the process (docs/multidevice-hang.md), so binaries whose tests make devices of their
/// own (or need the shared device to themselves) run one test at a time.
pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|p| p.into_inner())
}

/// A context with a 4 KiB binding limit and at most 3 workgroups per dimension, so
/// small vectors take the split-binding path and dispatches fold into 2D and 3D.
pub fn split_ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| {
        Ctx::builder()
            .max_binding_bytes(4096)
            .max_workgroups_per_dimension(3)
            .build()
            .unwrap_or_else(|e| panic!("no GPU context for the tests: {e}"))
    })
}

/// Whether `ctx` can use element type `T`. Where it cannot (Mesa's GL adapter has no
/// f16 or f64), this checks the error it must give instead, so a test that stops here
/// on such an adapter still tests something and never passes silently.
pub fn supports<T: TestElement>(ctx: &Ctx) -> bool {
    if ctx.has_features(T::FEATURES) {
        return true;
    }
    match ctx.upload(&[T::POISON]) {
        Err(gpuprim::Error::Unsupported { what, .. }) => {
            assert!(what.contains(T::WGSL), "{what}");
            false
        }
        other => panic!(
            "{} without its feature: expected Unsupported, got {other:?}",
            T::WGSL
        ),
    }
}

/// Lengths at the edges of vec4 lanes, workgroups (256 threads x 4) and their squares.
pub const EDGE_LENGTHS: &[usize] = &[
    0, 1, 2, 3, 4, 5, 7, 8, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097, 65535, 65536, 65537,
    262143, 262144, 262145,
];

/// Random lengths: edges, small, and a few large.
pub fn lengths() -> impl Strategy<Value = usize> {
    prop_oneof![
        3 => proptest::sample::select(EDGE_LENGTHS),
        3 => 0usize..5000,
        1 => 5000usize..300_000,
    ]
}

/// A vector of `len` elements from a seeded xorshift stream (fast for large lengths).
pub fn random_vec<T: TestElement>(len: usize, seed: u64) -> Vec<T> {
    let mut s = seed | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            T::from_bits64(s)
        })
        .collect()
}

/// A GPU vector of `len` copies of a value no kernel under test should produce, so an
/// element a kernel forgets to write fails the comparison.
pub fn poisoned<T: TestElement>(ctx: &Ctx, len: usize) -> GpuVec<T> {
    ctx.upload(&vec![T::POISON; len]).expect("upload poison")
}

/// Element types under test and how to make and compare them.
pub trait TestElement: GpuElement + Copy {
    const POISON: Self;
    /// A value from 64 random bits: floats in [-1000, 1000), integers over their range.
    fn from_bits64(bits: u64) -> Self;
}

impl TestElement for f32 {
    const POISON: Self = f32::NAN;
    fn from_bits64(bits: u64) -> Self {
        ((bits >> 40) as f32 / (1u64 << 24) as f32) * 2000.0 - 1000.0
    }
}
impl TestElement for f64 {
    const POISON: Self = f64::NAN;
    fn from_bits64(bits: u64) -> Self {
        ((bits >> 11) as f64 / (1u64 << 53) as f64) * 2000.0 - 1000.0
    }
}
impl TestElement for gpuprim::half::f16 {
    const POISON: Self = gpuprim::half::f16::NAN;
    fn from_bits64(bits: u64) -> Self {
        // Multiples of 1/8 in [-64, 64): exact in f16 with room for x * 2 + 1.
        gpuprim::half::f16::from_f32(((bits >> 54) as f32) / 8.0 - 64.0)
    }
}
impl TestElement for i32 {
    const POISON: Self = 0x5eed_dead;
    fn from_bits64(bits: u64) -> Self {
        (bits >> 32) as i32
    }
}
impl TestElement for u32 {
    const POISON: Self = 0xdead_beef;
    fn from_bits64(bits: u64) -> Self {
        (bits >> 32) as u32
    }
}

/// Asserts `gpu[i] == cpu[i]` for every i, naming the first index that differs.
pub fn assert_all_eq<T: GpuElement>(gpu: &[T], cpu: &[T], what: &str) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: lengths");
    if let Some(i) = (0..gpu.len()).find(|&i| gpu[i] != cpu[i]) {
        panic!(
            "{what}: element {i} of {}: GPU {:?}, CPU {:?}",
            gpu.len(),
            gpu[i],
            cpu[i]
        );
    }
}

/// Asserts |gpu[i] - cpu[i]| <= ulps * eps * max(|cpu[i]|, scale[i]) for every i.
/// `scale` is the size of the largest term that went into the element, which bounds the
/// rounding of each operation (a fused multiply-add on the GPU skips one rounding).
pub fn assert_all_close_f32(gpu: &[f32], cpu: &[f32], scale: &[f32], ulps: f32, what: &str) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: lengths");
    for i in 0..gpu.len() {
        let tol = ulps * f32::EPSILON * cpu[i].abs().max(scale[i]).max(f32::MIN_POSITIVE);
        let err = (gpu[i] - cpu[i]).abs();
        assert!(
            err <= tol,
            "{what}: element {i} of {}: GPU {}, CPU {}, |diff| {err:e} > tolerance {tol:e}",
            gpu.len(),
            gpu[i],
            cpu[i]
        );
    }
}

/// Every word of `buffer`, copied into a staging buffer the test makes itself, as an
/// application would (never through gpuprim's read-back).
pub fn read_words_as_application(ctx: &Ctx, buffer: &wgpu::Buffer) -> Vec<u32> {
    let device = ctx.device();
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("application staging"),
        size: buffer.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
    ctx.queue().submit([enc.finish()]);
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    bytemuck::cast_slice::<u8, u32>(&staging.slice(..).get_mapped_range().unwrap()).to_vec()
}

/// The whole number in the environment variable `name`, or `default` where it is unset;
/// a value that is not a whole number fails the test, naming it.
pub fn setting(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a whole number")),
        Err(_) => default,
    }
}

/// Random indices into `len` elements, about one in nine past the end.
pub fn random_indices(n: usize, len: usize, seed: u64) -> Vec<u32> {
    let r: Vec<u32> = random_vec(n, seed);
    r.iter()
        .enumerate()
        .map(|(i, &x)| match x % 9 {
            0 if i % 2 == 0 => u32::MAX,
            0 => len as u32 + x % 7,
            _ => x % (len.max(1) as u32),
        })
        .collect()
}
