//! The soak: threads sharing one `Ctx` make mixed primitive calls for a while, and every
//! result is checked against the CPU. Used by `tests/faults.rs` (a short run) and by
//! `examples/soak.rs` (the long run on a GPU), which includes this file.
#![allow(dead_code)]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gpuprim::{Ctx, Grid2D, Grid2DMut, Reduce, Rng, Swizzle};

/// What a soak run did.
#[derive(Debug, Default)]
pub struct Report {
    /// Calls made (each checked), over all threads.
    pub calls: u64,
    /// Calls whose result differed from the CPU's or that returned an error.
    pub failures: u64,
    /// The first few failures, described.
    pub first_failures: Vec<String>,
    /// Calls per operation, in `OPS` order.
    pub per_op: Vec<(&'static str, u64)>,
    /// Wall time of the run.
    pub elapsed: Duration,
}

/// The operations a soak thread mixes.
pub const OPS: [&str; 13] = [
    "map",
    "zip",
    "reduce",
    "dot",
    "scan",
    "compact",
    "histogram",
    "atomic_sum",
    "fill_random",
    "transpose",
    "sort",
    "elementwise",
    "record",
];

/// Runs `threads` threads on clones of `ctx` for `duration`, each call on a vector of
/// 1 to `max_len` elements; each thread makes every op at least once, however slow the
/// adapter (a cold shader cache can take seconds per first call). Every call's result is compared with the CPU's, element by
/// element (floats: the dot product within a bound that follows from its summation).
pub fn run(ctx: &Ctx, threads: usize, duration: Duration, max_len: usize) -> Report {
    let calls = Arc::new(AtomicU64::new(0));
    let per_op: Arc<Vec<AtomicU64>> = Arc::new(OPS.iter().map(|_| AtomicU64::new(0)).collect());
    let failures = Arc::new(Mutex::new((0u64, Vec::new())));
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (ctx, calls, per_op, failures, stop) = (
                ctx.clone(),
                Arc::clone(&calls),
                Arc::clone(&per_op),
                Arc::clone(&failures),
                Arc::clone(&stop),
            );
            std::thread::spawn(move || {
                let mut rng = Xorshift(0x9e37_79b9 ^ ((t as u64 + 1) * 0x1234_5678_9abc));
                // Round robin from a different op per thread: every op runs early, and
                // threads make different calls at the same time.
                let mut op = t % OPS.len();
                let mut made = 0;
                while (made < OPS.len() || start.elapsed() < duration)
                    && !stop.load(Ordering::Relaxed)
                {
                    made += 1;
                    op = (op + 1) % OPS.len();
                    let len = 1 + rng.below(max_len as u64) as usize;
                    let seed = rng.next();
                    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        one_call(&ctx, op, len, seed)
                    }))
                    .unwrap_or_else(|_| Err("panicked".to_string()));
                    calls.fetch_add(1, Ordering::Relaxed);
                    per_op[op].fetch_add(1, Ordering::Relaxed);
                    if let Err(why) = outcome {
                        let mut f = failures.lock().unwrap_or_else(|p| p.into_inner());
                        f.0 += 1;
                        if f.1.len() < 10 {
                            f.1.push(format!(
                                "thread {t}: {} of {len} (seed {seed:#x}): {why}",
                                OPS[op]
                            ));
                        }
                    }
                }
            })
        })
        .collect();
    for h in handles {
        if h.join().is_err() {
            stop.store(true, Ordering::Relaxed);
        }
    }
    let (failed, first) = std::mem::take(&mut *failures.lock().unwrap_or_else(|p| p.into_inner()));
    Report {
        calls: calls.load(Ordering::Relaxed),
        failures: failed,
        first_failures: first,
        per_op: OPS
            .iter()
            .zip(per_op.iter())
            .map(|(&n, c)| (n, c.load(Ordering::Relaxed)))
            .collect(),
        elapsed: start.elapsed(),
    }
}

/// A small seeded generator for the inputs (the CPU side needs no GPU to agree with).
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn vec_u32(&mut self, len: usize) -> Vec<u32> {
        (0..len).map(|_| (self.next() >> 32) as u32).collect()
    }
}

type Outcome = Result<(), String>;

fn err(e: gpuprim::Error) -> String {
    format!("error: {e}")
}

fn same<T: PartialEq + std::fmt::Debug>(gpu: &[T], cpu: &[T]) -> Outcome {
    if gpu.len() != cpu.len() {
        return Err(format!("{} elements, CPU {}", gpu.len(), cpu.len()));
    }
    match (0..gpu.len()).find(|&i| gpu[i] != cpu[i]) {
        Some(i) => Err(format!("element {i}: GPU {:?}, CPU {:?}", gpu[i], cpu[i])),
        None => Ok(()),
    }
}

/// One call of `OPS[op]` on fresh random data, checked.
fn one_call(ctx: &Ctx, op: usize, len: usize, seed: u64) -> Outcome {
    let mut rng = Xorshift(seed | 1);
    let host = rng.vec_u32(len);
    let v = ctx.upload(&host).map_err(err)?;
    match OPS[op] {
        "map" => {
            // A few expressions, so the run is not all compiling.
            let k = (seed >> 40) as u32 % 4;
            let got = ctx.map(&v, &format!("x * 3u + {k}u")).map_err(err)?;
            let want: Vec<u32> = host
                .iter()
                .map(|x| x.wrapping_mul(3).wrapping_add(k))
                .collect();
            same(&got.to_vec().map_err(err)?, &want)
        }
        "zip" => {
            let other = rng.vec_u32(len);
            let w = ctx.upload(&other).map_err(err)?;
            let got = ctx.zip(&v, &w, "(a ^ b) + (a >> 3u)").map_err(err)?;
            let want: Vec<u32> = host
                .iter()
                .zip(&other)
                .map(|(&a, &b)| (a ^ b).wrapping_add(a >> 3))
                .collect();
            same(&got.to_vec().map_err(err)?, &want)
        }
        "reduce" => {
            let sum = ctx.reduce(&v).map_err(err)?;
            let max = ctx.reduce_with(&v, Reduce::Max).map_err(err)?;
            let want = host.iter().fold(0u32, |s, &x| s.wrapping_add(x));
            same(
                &[sum, max],
                &[want, host.iter().copied().max().unwrap_or(0)],
            )
        }
        "dot" => {
            // Small integers in f32: every partial sum is exact (below 2^24).
            let a: Vec<f32> = host.iter().map(|&x| (x % 16) as f32).collect();
            let b: Vec<f32> = host.iter().map(|&x| ((x >> 8) % 16) as f32).collect();
            let (ga, gb) = (ctx.upload(&a).map_err(err)?, ctx.upload(&b).map_err(err)?);
            let got = ctx.dot(&ga, &gb).map_err(err)?;
            let want: f64 = a.iter().zip(&b).map(|(&x, &y)| f64::from(x * y)).sum();
            if len <= (1 << 24) / 225 {
                same(&[got], &[want as f32])
            } else if (f64::from(got) - want).abs() <= want * 1e-5 {
                Ok(())
            } else {
                Err(format!("dot: GPU {got}, CPU {want}"))
            }
        }
        "scan" => {
            let got = ctx.scan(&v).map_err(err)?;
            let want: Vec<u32> = host
                .iter()
                .scan(0u32, |s, &x| {
                    *s = s.wrapping_add(x);
                    Some(*s)
                })
                .collect();
            same(&got.to_vec().map_err(err)?, &want)
        }
        "compact" => {
            let got = ctx.compact(&v, "x % 3u == 0u").map_err(err)?;
            let want: Vec<u32> = host.iter().copied().filter(|x| x % 3 == 0).collect();
            same(&got.to_vec().map_err(err)?, &want)
        }
        "histogram" => {
            let bins = 1 + (seed >> 50) as u32 % 300;
            let keys: Vec<u32> = host.iter().map(|x| x % (bins + 7)).collect();
            let k = ctx.upload(&keys).map_err(err)?;
            let got = ctx.histogram(&k, bins).map_err(err)?;
            let mut want = vec![0u32; bins as usize];
            for &key in &keys {
                if key < bins {
                    want[key as usize] += 1;
                }
            }
            same(&got, &want)
        }
        "atomic_sum" => {
            let got = ctx.atomic_sum(&v).map_err(err)?;
            same(&[got], &[host.iter().fold(0u32, |s, &x| s.wrapping_add(x))])
        }
        "fill_random" => {
            let mut out = ctx.zeros::<u32>(len).map_err(err)?;
            let rng = Rng::Pcg32 { seed: seed as u32 };
            ctx.fill_random(&mut out, rng).map_err(err)?;
            let want: Vec<u32> = (0..len as u32).map(|i| rng.value_at::<u32>(i)).collect();
            same(&out.to_vec().map_err(err)?, &want)
        }
        "transpose" => {
            // 2D kernels do not fold their dispatch: each side fits the device's
            // workgroups per dimension (32 rows of a transpose's tile each).
            let side_max = ctx.info().max_workgroups_per_dimension.saturating_mul(32);
            let width = (len as u32).div_ceil(side_max).max(1) + (seed >> 48) as u32 % 97;
            let height = (len as u32 / width).clamp(1, side_max);
            let n = (width * height) as usize;
            let data = &host[..n.min(host.len())];
            if data.len() < n {
                return Ok(()); // len < width: nothing to transpose
            }
            let src = ctx.upload(data).map_err(err)?;
            let mut dst = ctx.zeros::<u32>(n).map_err(err)?;
            ctx.transpose(
                &Grid2D::new(&src, width, height).map_err(err)?,
                &mut Grid2DMut::new(&mut dst, height, width).map_err(err)?,
                Swizzle::Off,
            )
            .map_err(err)?;
            let mut want = vec![0u32; n];
            for y in 0..height as usize {
                for x in 0..width as usize {
                    want[x * height as usize + y] = data[y * width as usize + x];
                }
            }
            same(&dst.to_vec().map_err(err)?, &want)
        }
        "sort" => {
            let mut keys = ctx.upload(&host).map_err(err)?;
            ctx.sort(&mut keys).map_err(err)?;
            let mut want = host.clone();
            want.sort_unstable();
            same(&keys.to_vec().map_err(err)?, &want)
        }
        "elementwise" => {
            // A user kernel with a scalar given per call (one pipeline for every value).
            let k = (seed >> 20) as u32;
            let mut y = ctx.upload(&rng.vec_u32(len)).map_err(err)?;
            let before = y.to_vec().map_err(err)?;
            ctx.elementwise("y = y ^ (x * k);")
                .read("x", &v)
                .read_write("y", &mut y)
                .scalar("k", k)
                .run()
                .map_err(err)?;
            let want: Vec<u32> = before
                .iter()
                .zip(&host)
                .map(|(&y, &x)| y ^ x.wrapping_mul(k))
                .collect();
            same(&y.to_vec().map_err(err)?, &want)
        }
        "record" => {
            // Calls recorded into an encoder of the caller's, which it submits itself.
            let mut out = ctx.zeros::<u32>(len).map_err(err)?;
            let mut sum = ctx.zeros::<u32>(1).map_err(err)?;
            let mut encoder = ctx
                .device()
                .create_command_encoder(&gpuprim::wgpu::CommandEncoderDescriptor::default());
            ctx.record(&mut encoder, |rec| {
                rec.map_into(&v, "x + 7u", &mut out)?;
                rec.reduce_with_into(&out, Reduce::Sum, &mut sum)
            })
            .map_err(err)?;
            ctx.queue().submit([encoder.finish()]);
            let mapped: Vec<u32> = host.iter().map(|x| x.wrapping_add(7)).collect();
            let total = mapped.iter().fold(0u32, |s, &x| s.wrapping_add(x));
            same(&out.to_vec().map_err(err)?, &mapped)?;
            same(&sum.to_vec().map_err(err)?, &[total])
        }
        other => Err(format!("unknown op {other}")),
    }
}
