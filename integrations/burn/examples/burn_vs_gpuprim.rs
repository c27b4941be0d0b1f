//! Sorts, argsorts, top-ks, argmaxes and cumsums one tensor through Burn alone and
//! through gpuprim-burn, prints both times and checks that the results agree.
//!
//! ```sh
//! cargo run --release --example burn_vs_gpuprim -- [LOG2_N]
//! cargo run --release --no-default-features --example burn_vs_gpuprim -- [LOG2_N]  # fusion off
//! ```
//!
//! LOG2_N defaults to 24 on a GPU and 14 on a CPU adapter (Burn's cumsum is quadratic and
//! its sort runs on the host). Times are host clock, each call ended by waiting until
//! the device is idle; gpuprim's are the median of five after a first run and 500 ms of
//! warm-up runs,
//! Burn's the same for its GPU kernels and one run after a warm-up for its sorts on the
//! host (for the cumsum of one row, a warm-up on a short row: Burn's kernel is
//! quadratic in the row's length).

use std::time::{Duration, Instant};

use burn::tensor::{Int, Tensor, TensorData};
use gpuprim_burn::BurnGpu;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = BurnGpu::new()?;
    let info = gpu.ctx().info();
    let cpu_adapter = info.device_type == gpuprim::wgpu::DeviceType::Cpu;
    let log2: u32 = match std::env::args().nth(1) {
        Some(a) => a.parse()?,
        None if cpu_adapter => 14,
        None => 24,
    };
    let n = 1usize << log2;
    println!(
        "adapter: {} ({:?}), n = 2^{log2}, Burn's fusion {} (gpuprim-burn's `fusion` feature)",
        info.name,
        info.backend,
        if cfg!(feature = "fusion") {
            "on"
        } else {
            "off"
        }
    );

    let mut state = 0x2545_f491_4f6c_dd1du64;
    let values: Vec<f32> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect();
    let t = Tensor::<1>::from_data(TensorData::new(values.clone(), [n]), gpu.device());
    let side = 1usize << (log2 / 2);
    let m = t.clone().reshape([n / side, side]);

    // sort, 1 row
    let (burn_time, burn) = once(&gpu, || t.clone().sort(0));
    let (ours_time, ours) = median(&gpu, || gpu.sort(t.clone(), 0, false).unwrap());
    report("sort f32, 1 row", burn_time, ours_time);
    check_floats(burn, ours, "sort");

    // argsort, rows of `side`
    let (burn_time, burn) = once(&gpu, || m.clone().argsort(1));
    let (ours_time, ours) = median(&gpu, || gpu.argsort(m.clone(), 1, false).unwrap());
    report(
        &format!("argsort f32, {} rows of {side}", n / side),
        burn_time,
        ours_time,
    );
    // Burn's sort is unstable: compare the values the two orders pick.
    let picked = |order: Tensor<2, Int>| m.clone().gather(1, order);
    check_floats(picked(burn), picked(ours), "argsort");

    // topk, k = 100 (or the row) per row of 16384 (or the whole tensor)
    let wide = n.min(1 << 14);
    let w = t.clone().reshape([n / wide, wide]);
    let k = wide.min(100);
    let (burn_time, burn) = once(&gpu, || w.clone().topk(k, 1));
    let (ours_time, ours) = median(&gpu, || gpu.topk(w.clone(), k, 1).unwrap());
    report(
        &format!("topk k={k}, {} rows of {wide}", n / wide),
        burn_time,
        ours_time,
    );
    // Against the CPU's answer (each row's k largest, largest first): gpuprim-burn's
    // must equal it; Burn's is reported, since on some adapters it differs (seen on
    // lavapipe for rows of 8192 and more, and for 4 rows of 1024, with k = 100).
    let cpu: Vec<f32> = values
        .chunks(wide)
        .flat_map(|row| {
            let mut row = row.to_vec();
            row.sort_by(|a, b| b.total_cmp(a));
            row.truncate(k);
            row
        })
        .collect();
    let cpu = Tensor::<1>::from_data(TensorData::new(cpu, [n / wide * k]), gpu.device())
        .reshape([n / wide, k]);
    check_floats(cpu.clone(), ours, "topk, gpuprim-burn against the CPU");
    let burn = burn.into_data().try_to_vec::<f32>().expect("f32");
    let cpu = cpu.into_data().try_to_vec::<f32>().expect("f32");
    match burn
        .iter()
        .zip(&cpu)
        .position(|(x, y)| x.to_bits() != y.to_bits())
    {
        None => println!("  topk, Burn against the CPU: equal"),
        Some(i) => println!(
            "  topk, Burn against the CPU: DIFFERENT first at element {i} of {}: Burn {}, CPU {}",
            cpu.len(),
            burn[i],
            cpu[i]
        ),
    }

    // argmax, 1 row
    let (burn_time, burn) = once(&gpu, || t.clone().argmax(0));
    let (ours_time, ours) = median(&gpu, || gpu.argmax(t.clone(), 0).unwrap());
    report("argmax f32, 1 row", burn_time, ours_time);
    let (a, b) = (
        burn.into_data().try_to_vec::<i32>()?,
        ours.into_data().try_to_vec::<i32>()?,
    );
    assert_eq!(a, b, "argmax: the indices differ");
    println!("  argmax: equal, index {}", b[0]);

    // argmax along dim 1, rows of `side`
    let (burn_time, burn) = once(&gpu, || m.clone().argmax(1));
    let (ours_time, ours) = median(&gpu, || gpu.argmax(m.clone(), 1).unwrap());
    report(
        &format!("argmax f32, {} rows of {side}", n / side),
        burn_time,
        ours_time,
    );
    let (a, b) = (
        burn.into_data().try_to_vec::<i32>()?,
        ours.into_data().try_to_vec::<i32>()?,
    );
    assert_eq!(a, b, "argmax of rows: the indices differ");
    println!("  argmax of rows: equal, all {} indices", b.len());

    old_and_new(&gpu, &values, side, wide, k)?;

    // cumsum, 1 row and rows of `side`
    // Burn's kernel is quadratic in the row: its warm-up (which compiles it) runs on a
    // short row.
    let _ = t.clone().slice(0..n.min(1024)).cumsum(0);
    settle(&gpu);
    let (burn_time, burn) = timed(&gpu, || t.clone().cumsum(0));
    let (ours_time, ours) = median(&gpu, || gpu.cumsum(t.clone(), 0).unwrap());
    report("cumsum f32, 1 row", burn_time, ours_time);
    check_sums(burn, ours, n, "cumsum, 1 row");
    let (burn_time, burn) = once(&gpu, || m.clone().cumsum(1));
    let (ours_time, ours) = median(&gpu, || gpu.cumsum(m.clone(), 1).unwrap());
    report(
        &format!("cumsum f32, {} rows of {side}", n / side),
        burn_time,
        ours_time,
    );
    check_sums(burn, ours, side, "cumsum, rows");
    Ok(())
}

/// gpuprim-burn's row calls before and after gpuprim's row kernels, on the same keys as
/// gpuprim vectors: rows emulated by two stable sorts of the whole tensor (the keys, then
/// the rows), against `argsort_rows`, `top_k_rows` and `argmax_rows`. Each timed once
/// after a warm-up, ended by a device sync.
fn old_and_new(
    gpu: &BurnGpu,
    values: &[f32],
    side: usize,
    wide: usize,
    k: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    use gpuprim::{Grid2D, Sort};
    let ctx = gpu.ctx();
    let n = values.len();
    let keys = ctx.upload(values)?;
    // The old path: each row's order from one stable sort of all keys and one stable sort
    // of their rows.
    let two_sorts = |cols: usize, sort: &Sort| -> gpuprim::Result<gpuprim::GpuVec<u32>> {
        let mut p = ctx.argsort_with(&keys, sort)?;
        let mut row: gpuprim::GpuVec<u32> = ctx.map(&p, &format!("x / {cols}u"))?;
        ctx.sort_by_key(&mut row, &mut p)?;
        Ok(p)
    };
    let (old, _) = once(gpu, || two_sorts(side, &Sort::ascending()).unwrap());
    let (new, _) = once(gpu, || {
        ctx.argsort_rows(&Grid2D::new(&keys, side as u32, (n / side) as u32).unwrap())
            .unwrap()
    });
    report_paths(&format!("argsort, {} rows of {side}", n / side), old, new);
    let (old, _) = once(gpu, || two_sorts(wide, &Sort::descending()).unwrap());
    let (new, _) = once(gpu, || {
        ctx.top_k_rows(
            &Grid2D::new(&keys, wide as u32, (n / wide) as u32).unwrap(),
            k,
        )
        .unwrap()
    });
    report_paths(
        &format!("topk k={k}, {} rows of {wide}", n / wide),
        old,
        new,
    );
    let (old, _) = once(gpu, || two_sorts(side, &Sort::descending()).unwrap());
    let (new, _) = once(gpu, || {
        ctx.argmax_rows(&Grid2D::new(&keys, side as u32, (n / side) as u32).unwrap())
            .unwrap()
    });
    report_paths(&format!("argmax, {} rows of {side}", n / side), old, new);
    Ok(())
}

fn report_paths(what: &str, old: Duration, new: Duration) {
    println!(
        "{what:<32} two full sorts {:>8.3} ms   row kernel {:>8.3} ms   {:>6.1}x",
        old.as_secs_f64() * 1e3,
        new.as_secs_f64() * 1e3,
        old.as_secs_f64() / new.as_secs_f64()
    );
}

/// Waits until the device has done all the work handed to it: Burn's (`Device::sync`
/// hands its queued work to the GPU and waits for it) and gpuprim's
/// (`Ctx::synchronize`). Reading one element of a result back is not enough: such a
/// read of a Burn result has come back long before the kernel that writes the result
/// had finished (a cumsum, on lavapipe and on an H100).
fn settle(gpu: &BurnGpu) {
    gpu.device().sync().expect("Burn's device sync");
    gpu.ctx().synchronize().expect("gpuprim's synchronize");
}

/// Burn's time: one timed run after a warm-up, or [`median`]'s where that run took
/// under 100 ms (Burn's GPU kernels, as opposed to its sorts on the host).
fn once<T>(gpu: &BurnGpu, f: impl Fn() -> T) -> (Duration, T) {
    f();
    settle(gpu);
    let (time, out) = timed(gpu, &f);
    if time < Duration::from_millis(100) {
        drop(out);
        return median(gpu, f);
    }
    (time, out)
}

/// One timed run.
fn timed<T>(gpu: &BurnGpu, f: impl Fn() -> T) -> (Duration, T) {
    let start = Instant::now();
    let out = f();
    settle(gpu);
    (start.elapsed(), out)
}

/// The median of five timed runs after a warm-up of at least 500 ms and 20 such runs,
/// counted from the end of a first run (which compiles the kernels). The GPU's clocks,
/// lowered while it idled through Burn's sorts on the host, come up only under some
/// hundreds of ms of load: with the warm-up counted from the first run, which took all
/// of 200 ms in some runs, gpuprim-burn's argsort of 4096 rows took 8.0 ms a call on an
/// H200, 3.7 ms after 40 warm-up runs, 1.7 ms after 100 (runs 63-64, `lab/runs/probe47.rs`;
/// the kernel itself 1.35 ms by its timestamps, run 61). A CPU adapter has no clocks to
/// bring up: two warm-up runs there (CI runs this example on lavapipe and llvmpipe).
fn median<T>(gpu: &BurnGpu, f: impl Fn() -> T) -> (Duration, T) {
    let cpu = gpu.ctx().info().device_type == gpuprim::wgpu::DeviceType::Cpu;
    let (least_runs, least_time) = if cpu {
        (2, Duration::ZERO)
    } else {
        (20, Duration::from_millis(500))
    };
    f();
    settle(gpu);
    let start = Instant::now();
    let mut runs = 0;
    while runs < least_runs || start.elapsed() < least_time {
        f();
        settle(gpu);
        runs += 1;
    }
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..5 {
        let (time, out) = timed(gpu, &f);
        times.push(time);
        last = Some(out);
    }
    times.sort();
    (times[2], last.expect("five runs"))
}

fn report(what: &str, burn: Duration, ours: Duration) {
    println!(
        "{what:<32} Burn {:>10.3} ms   gpuprim-burn {:>8.3} ms   {:>8.1}x",
        burn.as_secs_f64() * 1e3,
        ours.as_secs_f64() * 1e3,
        burn.as_secs_f64() / ours.as_secs_f64()
    );
}

fn check_floats<const D: usize>(want: Tensor<D>, ours: Tensor<D>, what: &str) {
    let a = want.into_data().try_to_vec::<f32>().expect("f32");
    let b = ours.into_data().try_to_vec::<f32>().expect("f32");
    if let Some(i) = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x.to_bits() != y.to_bits())
    {
        panic!(
            "{what}: the results differ first at element {i} of {}: {}, gpuprim-burn {}",
            a.len(),
            a[i],
            b[i]
        );
    }
    println!("  {what}: equal, all {} elements", a.len());
}

/// Sums of `row` values of at most 0.5 each, in different orders: within row * 2^-24 * row.
fn check_sums<const D: usize>(burn: Tensor<D>, ours: Tensor<D>, row: usize, what: &str) {
    let a = burn.into_data().try_to_vec::<f32>().expect("f32");
    let b = ours.into_data().try_to_vec::<f32>().expect("f32");
    let tol = row as f32 * f32::EPSILON * 0.5 * row as f32;
    let worst = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, f32::max);
    assert!(worst <= tol, "{what}: differ by {worst}, more than {tol}");
    println!("  {what}: within {worst:e} (bound {tol:e})");
}
