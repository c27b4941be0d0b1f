//! gpuprim inside an application's wgpu program: vectors over the application's own
//! buffers (ragged lengths, offsets, guard words around them that must stay bit-identical,
//! results read through the application's own staging buffer), every error of
//! `GpuVec::from_buffer`, recording into the application's encoder between its own
//! passes, and counts on the device driving later calls.
//!
//! The tests take turns (`one_at_a_time`): several make devices (and wgpu instances) of
//! their own, as an application does, which must not be made or dropped while another
//! test's device works on NVIDIA's driver (docs/multidevice-hang.md).

mod common;

use common::*;
use gpuprim::wgpu;
use gpuprim::{AtomicStrategy, Ctx, Error, GpuVec, Reduce, Rng, Scan, ScanOp};

/// Lengths that are not a multiple of 4 (and some that are), with a window or more on
/// the split context.
const LENGTHS: &[usize] = &[1, 2, 3, 5, 6, 7, 8, 255, 1021, 1024, 1025, 2999];

/// A buffer of the application's: `words` u32 of random guard values, made and read
/// with plain wgpu (its own staging buffer, its own poll).
struct AppBuffer {
    buffer: wgpu::Buffer,
    guard: Vec<u32>,
}

impl AppBuffer {
    fn new(ctx: &Ctx, words: usize, seed: u64) -> AppBuffer {
        let guard = random_vec::<u32>(words, seed);
        let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("application buffer"),
            size: 4 * words as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        ctx.queue()
            .write_buffer(&buffer, 0, bytemuck::cast_slice(&guard));
        AppBuffer { buffer, guard }
    }

    /// Every word of the buffer, copied into a staging buffer of the application's.
    fn read(&self, ctx: &Ctx) -> Vec<u32> {
        read_words_as_application(ctx, &self.buffer)
    }

    /// A vector of `len` elements at word `at` (a byte offset the device accepts).
    fn vec<T: gpuprim::GpuElement>(&self, ctx: &Ctx, at: usize, len: usize) -> GpuVec<T> {
        GpuVec::from_buffer_at(ctx, self.buffer.clone(), 4 * at as u64, len).unwrap()
    }

    /// Asserts that every word of the buffer still holds its guard value.
    fn check_untouched(&self, ctx: &Ctx, what: &str) {
        assert_all_eq(&self.read(ctx), &self.guard, what);
    }

    /// Asserts that every word outside `at..at + len` still holds its guard value and
    /// returns the words inside.
    fn check_guards(&self, ctx: &Ctx, at: usize, len: usize, what: &str) -> Vec<u32> {
        let words = self.read(ctx);
        for (i, (&w, &g)) in words.iter().zip(&self.guard).enumerate() {
            if !(at..at + len).contains(&i) {
                assert_eq!(
                    w,
                    g,
                    "{what}: guard word {i} (vector at {at}..{}) changed",
                    at + len
                );
            }
        }
        words[at..at + len].to_vec()
    }
}

/// Words per storage offset alignment (256 bytes on most devices).
fn align_words(ctx: &Ctx) -> usize {
    ctx.info().limits.min_storage_buffer_offset_alignment as usize / 4
}

/// Every primitive that writes, into a borrowed vector at a non-zero offset with guard
/// words around it, against the CPU.
fn writes_stay_inside(ctx: &Ctx, len: usize) {
    let at = align_words(ctx);
    let words = at + len + 2 * at + 3;
    let hx = random_vec::<f32>(len, len as u64);
    let hy = random_vec::<f32>(len, len as u64 + 1);
    let x = ctx.upload(&hx).unwrap();
    let y = ctx.upload(&hy).unwrap();
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();

    let app = AppBuffer::new(ctx, words, 1);
    let mut v = app.vec::<f32>(ctx, at, len);
    ctx.map_into(&x, "x * 2.0 + 1.0", &mut v).unwrap();
    let want: Vec<f32> = hx.iter().map(|x| x * 2.0 + 1.0).collect();
    assert_eq!(app.check_guards(ctx, at, len, "map_into"), bits(&want));

    ctx.zip_into(&x, &y, "a - b", &mut v).unwrap();
    let want: Vec<f32> = hx.iter().zip(&hy).map(|(a, b)| a - b).collect();
    assert_eq!(app.check_guards(ctx, at, len, "zip_into"), bits(&want));

    ctx.elementwise("v = v * 0.5 + f32(i);")
        .read_write("v", &mut v)
        .run()
        .unwrap();
    let want: Vec<f32> = want
        .iter()
        .enumerate()
        .map(|(i, w)| w * 0.5 + i as f32)
        .collect();
    let got: Vec<f32> = app
        .check_guards(ctx, at, len, "elementwise")
        .iter()
        .map(|&b| f32::from_bits(b))
        .collect();
    let scale: Vec<f32> = want.iter().map(|w| w.abs() + len as f32).collect();
    assert_all_close_f32(&got, &want, &scale, 2.0, "elementwise on a borrowed vector");

    let hu = random_vec::<u32>(len, len as u64 + 2);
    let u = ctx.upload(&hu).unwrap();
    let app = AppBuffer::new(ctx, words, 2);
    let mut w = app.vec::<u32>(ctx, at, len);
    ctx.scan_into(&u, &mut w).unwrap();
    let want: Vec<u32> = hu
        .iter()
        .scan(0u32, |s, &x| {
            *s = s.wrapping_add(x);
            Some(*s)
        })
        .collect();
    assert_eq!(app.check_guards(ctx, at, len, "scan_into"), want);
    // The borrowed vector as the input of a scan, exclusive, any algorithm.
    let out = ctx
        .scan_with(&w, &Scan::exclusive(ScanOp::Max))
        .unwrap()
        .to_vec()
        .unwrap();
    let want_max: Vec<u32> = std::iter::once(0)
        .chain(want.iter().scan(0u32, |m, &x| {
            *m = (*m).max(x);
            Some(*m)
        }))
        .take(len)
        .collect();
    assert_all_eq(&out, &want_max, "scan of a borrowed vector");

    let mut count = ctx.zeros::<u32>(1).unwrap();
    let compacted = ctx.compact_into(&u, "x % 3u == 0u", &mut w, &mut count);
    if (4 * len) as u64 > ctx.info().max_binding_bytes {
        // compact_into writes one binding of output: a clear error past it.
        assert!(
            matches!(compacted, Err(Error::InvalidArgument { .. })),
            "{compacted:?}"
        );
        w.copy_from(&ctx.upload(&want).unwrap()).unwrap();
    } else {
        compacted.unwrap();
        let kept: Vec<u32> = hu.iter().copied().filter(|x| x % 3 == 0).collect();
        let inside = app.check_guards(ctx, at, len, "compact_into");
        assert_eq!(count.to_vec().unwrap(), vec![kept.len() as u32]);
        assert_eq!(
            &inside[..kept.len()],
            &kept[..],
            "compact_into kept elements"
        );
        assert_eq!(
            &inside[kept.len()..],
            &want[kept.len()..],
            "compact_into leaves the rest"
        );
    }

    ctx.fill_random(&mut w, Rng::WangHash { seed: 9 }).unwrap();
    let want: Vec<u32> = (0..len as u32)
        .map(|i| Rng::WangHash { seed: 9 }.value_at(i))
        .collect();
    assert_eq!(app.check_guards(ctx, at, len, "fill_random"), want);

    let keys: Vec<u32> = hu.iter().map(|k| k % 5).collect();
    let kv = ctx.upload(&keys).unwrap();
    let app = AppBuffer::new(ctx, at + 5 + at, 3);
    let mut counts = app.vec::<u32>(ctx, at, 5);
    ctx.histogram_into(&kv, 5, &mut counts).unwrap();
    // histogram_into adds into the counts: here the guard words that were there.
    let mut want: Vec<u32> = app.guard[at..at + 5].to_vec();
    for &k in &keys {
        want[k as usize] = want[k as usize].wrapping_add(1);
    }
    assert_eq!(app.check_guards(ctx, at, 5, "histogram_into"), want);

    let app = AppBuffer::new(ctx, at + 1 + at, 4);
    let mut one = app.vec::<u32>(ctx, at, 1);
    ctx.reduce_into(&u, &mut one).unwrap();
    let sum = hu.iter().fold(0u32, |s, &x| s.wrapping_add(x));
    assert_eq!(app.check_guards(ctx, at, 1, "reduce_into"), vec![sum]);
    ctx.atomic_sum_into(&u, AtomicStrategy::Hybrid, &mut one)
        .unwrap();
    assert_eq!(
        app.check_guards(ctx, at, 1, "atomic_sum_into"),
        vec![sum.wrapping_add(sum)]
    );

    let app = AppBuffer::new(ctx, words, 5);
    let mut c = app.vec::<u32>(ctx, at, len);
    c.copy_from(&u).unwrap();
    assert_eq!(app.check_guards(ctx, at, len, "copy_from"), hu);
}

/// Borrowed vectors as inputs: reduce, dot, transform_reduce, histogram, compaction,
/// read back with to_vec.
fn reads_stay_inside(ctx: &Ctx, len: usize) {
    let at = align_words(ctx);
    let app = AppBuffer::new(ctx, at + len + at, 6);
    let v = app.vec::<u32>(ctx, at, len);
    let host = app.guard[at..at + len].to_vec();
    assert_eq!(v.to_vec().unwrap(), host, "to_vec of a borrowed vector");
    let sum = host.iter().fold(0u32, |s, &x| s.wrapping_add(x));
    assert_eq!(ctx.reduce(&v).unwrap(), sum, "reduce of {len}");
    let max = host.iter().copied().max().unwrap();
    assert_eq!(ctx.reduce_with(&v, Reduce::Max).unwrap(), max);
    let dot = host
        .iter()
        .fold(0u32, |s, &x| s.wrapping_add(x.wrapping_mul(x)));
    assert_eq!(ctx.dot(&v, &v).unwrap(), dot, "dot of {len}");
    let odd: u32 = ctx
        .transform_reduce("x & 1u", Reduce::Sum)
        .read("x", &v)
        .run()
        .unwrap();
    assert_eq!(odd, host.iter().map(|x| x & 1).sum::<u32>());
    let kept = ctx
        .compact(&v, "x < 0x40000000u")
        .unwrap()
        .to_vec()
        .unwrap();
    let want: Vec<u32> = host.iter().copied().filter(|&x| x < 0x4000_0000).collect();
    assert_all_eq(&kept, &want, "compact of a borrowed vector");
    let bins = ctx.map(&v, "x >> 29u").unwrap();
    let h = ctx.histogram(&bins, 8).unwrap();
    let mut want = [0u32; 8];
    for &x in &host {
        want[(x >> 29) as usize] += 1;
    }
    assert_eq!(h, want);
    // Nothing above wrote to the buffer.
    app.check_untouched(ctx, "reads only");
}

#[test]
fn borrowed_vectors_on_the_default_context() {
    let _turn = one_at_a_time();
    for &len in LENGTHS {
        writes_stay_inside(ctx(), len);
        reads_stay_inside(ctx(), len);
    }
}

#[test]
fn borrowed_vectors_across_binding_windows() {
    let _turn = one_at_a_time();
    // 4 KiB bindings: the longer vectors take several windows, each cut at the vector's
    // end.
    for &len in &[1025, 2999, 4096 + 3] {
        writes_stay_inside(split_ctx(), len);
        reads_stay_inside(split_ctx(), len);
    }
}

#[test]
fn f16_and_f64_borrowed_where_supported() {
    let _turn = one_at_a_time();
    let ctx = ctx();
    let at = align_words(ctx);
    if ctx.has_features(wgpu::Features::SHADER_F16) {
        use gpuprim::half::f16;
        let app = AppBuffer::new(ctx, at + 4 + at, 7);
        // 6 halves: 3 words, a ragged vec4 layout.
        let mut v = app.vec::<f16>(ctx, at, 6);
        let src = ctx.upload(&[1.5f32, -2.0, 3.25, 4.0, 0.5, -0.25]).unwrap();
        ctx.elementwise("h = f16(s);")
            .read("s", &src)
            .write("h", &mut v)
            .run()
            .unwrap();
        let inside = app.check_guards(ctx, at, 3, "f16 elementwise");
        let halves: Vec<f16> = bytemuck::cast_slice(&inside).to_vec();
        assert_eq!(
            halves,
            [1.5, -2.0, 3.25, 4.0, 0.5, -0.25]
                .map(f16::from_f32)
                .to_vec()
        );
        let err =
            GpuVec::<f16>::from_buffer_at(ctx, app.buffer.clone(), 4 * at as u64, 5).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument { message, .. } if message.contains("4-byte words")),
            "{err:?}"
        );
    }
    if ctx.has_features(wgpu::Features::SHADER_F64) {
        let app = AppBuffer::new(ctx, at + 6 + at, 8);
        let mut v = app.vec::<f64>(ctx, at, 3);
        ctx.fill_random(&mut ctx.zeros::<u32>(1).unwrap(), Rng::WangHash { seed: 1 })
            .unwrap();
        ctx.elementwise("d = f64(i) * 0.5lf;")
            .write("d", &mut v)
            .run()
            .unwrap();
        let inside = app.check_guards(ctx, at, 6, "f64 elementwise");
        assert_eq!(bytemuck::cast_slice::<u32, f64>(&inside), &[0.0, 0.5, 1.0]);
    }
}

#[test]
fn two_views_of_one_buffer() {
    let _turn = one_at_a_time();
    // Particles in one buffer: positions at 0, velocities at the next aligned offset.
    let ctx = ctx();
    let n: usize = 1001;
    let at = n.next_multiple_of(align_words(ctx));
    let app = AppBuffer::new(ctx, 2 * at, 9);
    let mut pos = app.vec::<f32>(ctx, 0, n);
    let vel = app.vec::<f32>(ctx, at, n);
    let hp: Vec<f32> = random_vec::<f32>(n, 10);
    let hv: Vec<f32> = random_vec::<f32>(n, 11);
    ctx.queue()
        .write_buffer(&app.buffer, 0, bytemuck::cast_slice(&hp));
    ctx.queue()
        .write_buffer(&app.buffer, 4 * at as u64, bytemuck::cast_slice(&hv));
    // An element-wise kernel may read one view and write the other.
    ctx.elementwise("p = p + dt * v;")
        .read_write("p", &mut pos)
        .read("v", &vel)
        .scalar("dt", 0.25f32)
        .run()
        .unwrap();
    let want: Vec<f32> = hp.iter().zip(&hv).map(|(p, v)| p + 0.25 * v).collect();
    let scale: Vec<f32> = hp.iter().zip(&hv).map(|(p, v)| p.abs() + v.abs()).collect();
    assert_all_close_f32(&pos.to_vec().unwrap(), &want, &scale, 2.0, "p += dt v");
    assert_all_eq(&vel.to_vec().unwrap(), &hv, "velocities unchanged");
    // map is an element-wise kernel too.
    ctx.map_into(&vel, "x * 3.0", &mut pos).unwrap();
    let want: Vec<f32> = hv.iter().map(|v| v * 3.0).collect();
    assert_all_eq(&pos.to_vec().unwrap(), &want, "map between views");
    // A scan cannot bind one buffer read-only and writable: a clear error.
    let err = ctx.scan_into(&vel, &mut pos).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { op: "scan", message } if message.contains("views of one buffer")),
        "{err:?}"
    );
    assert_all_eq(
        &vel.to_vec().unwrap(),
        &hv,
        "velocities after the refused scan",
    );
}

#[test]
fn from_buffer_errors() {
    let _turn = one_at_a_time();
    let ctx = ctx();
    let align = ctx.info().limits.min_storage_buffer_offset_alignment as u64;
    let make = |size: u64, usage: wgpu::BufferUsages| {
        ctx.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("test"),
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let all =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let invalid = |r: gpuprim::Result<GpuVec<f32>>, needle: &str| match r {
        Err(Error::InvalidArgument { op, message }) => {
            assert_eq!(op, "GpuVec::from_buffer");
            assert!(message.contains(needle), "{needle:?} not in {message:?}");
        }
        other => panic!("expected InvalidArgument with {needle:?}, got {other:?}"),
    };
    // Too small: 10 floats need 40 bytes.
    invalid(
        GpuVec::from_buffer(ctx, make(36, all), 10),
        "need 40 bytes, but the buffer has 36",
    );
    invalid(
        GpuVec::from_buffer_at(ctx, make(2 * align, all), align, (align / 4 + 1) as usize),
        "the buffer has",
    );
    // No STORAGE usage.
    invalid(
        GpuVec::from_buffer(ctx, make(64, wgpu::BufferUsages::COPY_SRC), 4),
        "lacks STORAGE",
    );
    // An offset the device does not allow for storage bindings.
    invalid(
        GpuVec::from_buffer_at(ctx, make(4 * align, all), 4, 8),
        &format!("min_storage_buffer_offset_alignment ({align} bytes)"),
    );
    // Usage a call needs, named by the call.
    let v = GpuVec::<f32>::from_buffer(ctx, make(64, wgpu::BufferUsages::STORAGE), 16).unwrap();
    let err = v.to_vec().unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { op: "GpuVec::to_vec", message } if message.contains("COPY_SRC")),
        "{err:?}"
    );
    let mut dst =
        GpuVec::<f32>::from_buffer(ctx, make(64, wgpu::BufferUsages::STORAGE), 16).unwrap();
    let src = ctx.zeros::<f32>(16).unwrap();
    let err = dst.copy_from(&src).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { op: "GpuVec::copy_from", message } if message.contains("COPY_DST")),
        "{err:?}"
    );
    let mut count =
        GpuVec::<u32>::from_buffer(ctx, make(64, wgpu::BufferUsages::STORAGE), 1).unwrap();
    let mut out = ctx.zeros::<f32>(16).unwrap();
    let err = ctx
        .compact_into(&src, "x > 0.0", &mut out, &mut count)
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { op: "compact_into", message } if message.contains("COPY_DST")),
        "{err:?}"
    );
    // A STORAGE-only vector still works with every kernel.
    ctx.map_into(&src, "x + 1.0", &mut dst).unwrap();
    assert_eq!(ctx.reduce(&dst).unwrap(), 16.0);
    // into_buffer hands gpuprim's buffer over.
    let mine = ctx.upload(&[7u32, 8, 9]).unwrap();
    let buffer = mine.into_buffer();
    let back = GpuVec::<u32>::from_buffer(ctx, buffer, 3).unwrap();
    assert_eq!(back.to_vec().unwrap(), vec![7, 8, 9]);
}

#[test]
fn recording_into_the_applications_encoder() {
    let _turn = one_at_a_time();
    let ctx = ctx();
    let n = 2000;
    let hx = random_vec::<u32>(n, 21);
    let x = ctx.upload(&hx).unwrap();
    let mut doubled = poisoned::<u32>(ctx, n);
    let mut total = poisoned::<u32>(ctx, 1);
    let before = poisoned::<u32>(ctx, n);
    let after = poisoned::<u32>(ctx, n);
    let total_copy = poisoned::<u32>(ctx, 1);
    let mut scanned = poisoned::<u32>(ctx, n);
    let device = ctx.device();
    let mut enc = device.create_command_encoder(&Default::default());
    // The application's pass before: a copy of `doubled` while it still holds poison.
    enc.copy_buffer_to_buffer(doubled.buffer(), 0, before.buffer(), 0, 4 * n as u64);
    ctx.record(&mut enc, |ctx| {
        ctx.map_into(&x, "x * 2u", &mut doubled)?;
        ctx.reduce_into(&doubled, &mut total)?;
        ctx.scan_into(&doubled, &mut scanned)?;
        // Waiting calls are refused inside a recording.
        let err = ctx.reduce(&doubled).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
        assert!(matches!(
            ctx.synchronize(),
            Err(Error::InvalidArgument { .. })
        ));
        Ok(())
    })
    .unwrap();
    // The application's passes after: they see gpuprim's results.
    enc.copy_buffer_to_buffer(doubled.buffer(), 0, after.buffer(), 0, 4 * n as u64);
    enc.copy_buffer_to_buffer(total.buffer(), 0, total_copy.buffer(), 0, 4);
    // Nothing has run yet: the encoder is not submitted.
    assert_all_eq(
        &doubled.to_vec().unwrap(),
        &vec![u32::POISON; n],
        "before submit",
    );
    ctx.queue().submit([enc.finish()]);
    let want: Vec<u32> = hx.iter().map(|x| x.wrapping_mul(2)).collect();
    assert_all_eq(
        &before.to_vec().unwrap(),
        &vec![u32::POISON; n],
        "copy before",
    );
    assert_all_eq(&after.to_vec().unwrap(), &want, "copy after");
    let sum = want.iter().fold(0u32, |s, &x| s.wrapping_add(x));
    assert_eq!(total_copy.to_vec().unwrap(), vec![sum]);
    let want_scan: Vec<u32> = want
        .iter()
        .scan(0u32, |s, &x| {
            *s = s.wrapping_add(x);
            Some(*s)
        })
        .collect();
    assert_all_eq(&scanned.to_vec().unwrap(), &want_scan, "recorded scan");
    // An error inside the closure records nothing.
    let mut enc = device.create_command_encoder(&Default::default());
    let err = ctx
        .record(&mut enc, |ctx| {
            ctx.map_into(&x, "x + 1u", &mut doubled)?;
            ctx.map_into(&x, "x + 1.5", &mut doubled) // u32 + f32: does not compile
        })
        .unwrap_err();
    assert!(matches!(err, Error::Compile { .. }), "{err:?}");
    ctx.queue().submit([enc.finish()]);
    assert_all_eq(
        &doubled.to_vec().unwrap(),
        &want,
        "nothing recorded after an error",
    );
}

#[test]
fn counts_on_the_device_drive_the_next_calls() {
    let _turn = one_at_a_time();
    // compact_into writes one binding of output: up to 1024 f32 on the split context.
    for (ctx, lengths) in [
        (ctx(), &[0usize, 1, 7, 1000, 3001][..]),
        (split_ctx(), &[0, 1, 7, 1000]),
    ] {
        for &len in lengths {
            let hx = random_vec::<f32>(len, len as u64 + 30);
            let x = ctx.upload(&hx).unwrap();
            let mut kept = poisoned::<f32>(ctx, len.max(1));
            let mut count = ctx.zeros::<u32>(1).unwrap();
            let mut stats = poisoned::<f32>(ctx, 1);
            // No host read between the compaction and the calls over its result.
            ctx.compact_into(&x, "x > 100.0", &mut kept, &mut count)
                .unwrap();
            let view = kept.prefix(&count).unwrap();
            ctx.reduce_into(&view, &mut stats).unwrap();
            let scaled = ctx.map(&view, "x * 0.5").unwrap();
            let mut hist = ctx.zeros::<u32>(4).unwrap();
            let bins = ctx.map_to::<f32, u32>(&view, "u32(x / 250.0)").unwrap();
            ctx.histogram_into(&bins, 4, &mut hist).unwrap();
            let big: u32 = ctx
                .transform_reduce("select(0u, 1u, x > 500.0)", Reduce::Sum)
                .read("x", &view)
                .run()
                .unwrap();
            let want: Vec<f32> = hx.iter().copied().filter(|&v| v > 100.0).collect();
            assert_eq!(count.to_vec().unwrap(), vec![want.len() as u32]);
            let exact: f64 = want.iter().map(|&v| v as f64).sum();
            let abs: f64 = want.iter().map(|&v| (v as f64).abs()).sum();
            let got = stats.to_vec().unwrap()[0] as f64;
            assert!(
                (got - exact).abs() <= 20.0 * f32::EPSILON as f64 * abs + 1e-6,
                "sum over the kept {} of {len}: {got} vs {exact}",
                want.len()
            );
            assert_all_eq(&view.to_vec().unwrap(), &want, "prefix to_vec");
            let half: Vec<f32> = want.iter().map(|v| v * 0.5).collect();
            assert!(scaled.has_device_len());
            assert_all_eq(&scaled.to_vec().unwrap(), &half, "map over a prefix");
            let mut want_hist = [0u32; 4];
            for &v in &want {
                let b = (v / 250.0) as usize;
                if b < 4 {
                    want_hist[b] += 1;
                }
            }
            assert_eq!(hist.to_vec().unwrap(), want_hist, "histogram over a prefix");
            assert_eq!(big, want.iter().filter(|&&v| v > 500.0).count() as u32);
            // The rest of `kept` past the count is untouched by the map over the view.
            let full = kept.to_vec().unwrap();
            assert!(
                full[want.len()..].iter().all(|v| v.is_nan()),
                "poison past the count"
            );
            // Indirect arguments for a kernel of one's own.
            let args = ctx.indirect_args(&count, 64).unwrap().to_vec().unwrap();
            let groups = want.len().div_ceil(64) as u32;
            let m = ctx.info().max_workgroups_per_dimension;
            let x = groups.min(m);
            let (y, z) = if groups == 0 {
                (1, 1)
            } else {
                let rest = groups.div_ceil(x);
                (rest.min(m), rest.div_ceil(rest.min(m)))
            };
            assert_eq!(
                args,
                vec![x, y, z],
                "indirect args for {} items",
                want.len()
            );
        }
    }
    // Calls that need the length on the host refuse a prefix view, naming themselves.
    let ctx = ctx();
    let v = ctx.upload(&[1u32, 2, 3]).unwrap();
    let count = ctx.upload(&[2u32]).unwrap();
    let view = v.prefix(&count).unwrap();
    let err = ctx.compact(&view, "x > 1u").unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { op: "compact", message } if message.contains("prefix view")),
        "{err:?}"
    );
    assert!(matches!(
        ctx.scan(&view),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        ctx.atomic_sum(&view),
        Err(Error::InvalidArgument { .. })
    ));
}

/// A device of the application's own: WebGPU's default limits (128 MiB bindings, 8
/// storage buffers per stage, 256 invocations per workgroup, 16 KiB of workgroup
/// memory) and no optional features (no subgroups, f16, f64 or timestamps).
fn app_device() -> (wgpu::Device, wgpu::Queue) {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .expect("an adapter for the application's device");
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))
        .expect("a device with default limits")
}

fn default_ctx() -> &'static Ctx {
    static CTX: std::sync::OnceLock<Ctx> = std::sync::OnceLock::new();
    CTX.get_or_init(|| {
        let (device, queue) = app_device();
        Ctx::from_wgpu(device, queue).expect("a context on the application's device")
    })
}

#[test]
fn a_context_on_a_default_limits_device() {
    let _turn = one_at_a_time();
    let ctx = default_ctx();
    let l = &ctx.info().limits;
    assert_eq!(l.max_storage_buffers_per_shader_stage, 8);
    assert_eq!(l.max_compute_invocations_per_workgroup, 256);
    assert!(!ctx.has_features(wgpu::Features::SUBGROUP));
    assert!(!ctx.info().name.is_empty(), "info() names the adapter");
    for &len in &[0usize, 1, 7, 1023, 1024, 1025, 70_001] {
        let seed = len as u64 + 40;
        // map, zip and a kernel of one's own
        let hx = random_vec::<f32>(len, seed);
        let hu = random_vec::<u32>(len, seed + 1);
        let x = ctx.upload(&hx).unwrap();
        let u = ctx.upload(&hu).unwrap();
        let got = ctx.map(&u, "x * 3u + 1u").unwrap().to_vec().unwrap();
        let want: Vec<u32> = hu
            .iter()
            .map(|v| v.wrapping_mul(3).wrapping_add(1))
            .collect();
        assert_all_eq(&got, &want, "map on a default device");
        // reductions (the shared-memory tree: no subgroups)
        let sum = hu.iter().fold(0u32, |s, &v| s.wrapping_add(v));
        assert_eq!(ctx.reduce(&u).unwrap(), sum);
        if len > 0 {
            assert_eq!(
                ctx.reduce_with(&u, Reduce::Max).unwrap(),
                *hu.iter().max().unwrap()
            );
        }
        let exact: f64 = hx.iter().map(|&v| v as f64 * v as f64).sum();
        let ss: f32 = ctx
            .transform_reduce("x * x", Reduce::Sum)
            .read("x", &x)
            .run()
            .unwrap();
        assert!(
            (ss as f64 - exact).abs() <= 1e-4 * exact.max(1.0),
            "sum of squares of {len}: {ss} vs {exact}"
        );
        // scans and compaction
        let scanned = ctx.scan(&u).unwrap().to_vec().unwrap();
        let want: Vec<u32> = hu
            .iter()
            .scan(0u32, |s, &v| {
                *s = s.wrapping_add(v);
                Some(*s)
            })
            .collect();
        assert_all_eq(&scanned, &want, "scan on a default device");
        let kept = ctx.compact(&u, "(x & 1u) == 0u").unwrap().to_vec().unwrap();
        let want: Vec<u32> = hu.iter().copied().filter(|v| v & 1 == 0).collect();
        assert_all_eq(&kept, &want, "compact on a default device");
        // histogram and random fills
        let bins = ctx.map(&u, "x % 300u").unwrap();
        let h = ctx.histogram(&bins, 300).unwrap();
        let mut want = vec![0u32; 300];
        for &v in &hu {
            want[(v % 300) as usize] += 1;
        }
        assert_eq!(h, want);
        let mut r = ctx.zeros::<u32>(len).unwrap();
        ctx.fill_random(&mut r, Rng::WangHash { seed: 5 }).unwrap();
        let want: Vec<u32> = (0..len as u32)
            .map(|i| Rng::WangHash { seed: 5 }.value_at(i))
            .collect();
        assert_all_eq(
            &r.to_vec().unwrap(),
            &want,
            "fill_random on a default device",
        );
    }
    // What the device lacks is named.
    let err = ctx.zeros::<f64>(4).map(drop).unwrap_err();
    assert!(
        matches!(&err, Error::Unsupported { feature, .. } if feature.contains("SHADER_F64")),
        "{err:?}"
    );
    // More storage vectors than the device binds per kernel (8).
    let vs: Vec<_> = (0..9).map(|_| ctx.zeros::<f32>(4).unwrap()).collect();
    let mut k = ctx.elementwise("o = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;");
    for (i, v) in vs[..8].iter().enumerate() {
        k = k.read(&format!("a{i}"), v);
    }
    let mut o = ctx.zeros::<f32>(4).unwrap();
    let err = k.write("o", &mut o).run().unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { message, .. } if message.contains("9 storage vectors") && message.contains("8 per kernel")),
        "{err:?}"
    );
    assert_eq!(
        ctx.map(&vs[0], "x + 1.0").unwrap().to_vec().unwrap(),
        vec![1.0; 4]
    );
}

#[test]
fn borrowed_vectors_on_the_applications_device() {
    let _turn = one_at_a_time();
    let ctx = default_ctx();
    for &len in &[3usize, 5, 1025] {
        writes_stay_inside(ctx, len);
        reads_stay_inside(ctx, len);
    }
}

#[test]
fn a_buffer_of_another_device() {
    let _turn = one_at_a_time();
    // Two devices of one adapter: the context is on the first, the buffer on the second.
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    let (d1, q1) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    let (d2, _q2) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    let ctx = Ctx::from_wgpu(d1, q1).unwrap();
    let foreign = d2.create_buffer(&wgpu::BufferDescriptor {
        label: Some("another device's"),
        size: 64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    match GpuVec::<f32>::from_buffer(&ctx, foreign, 4) {
        Err(Error::InvalidArgument { op, message }) => {
            assert_eq!(op, "GpuVec::from_buffer");
            assert!(
                message.contains("cannot be used on this Ctx's device"),
                "{message}"
            );
        }
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    // The context keeps working.
    let v = ctx.upload(&[1.0f32, 2.0]).unwrap();
    assert_eq!(ctx.reduce(&v).unwrap(), 3.0);
}
