//! Sorts, argsorts, top-ks, argmaxes and cumsums one tensor through Burn alone and
//! through gpuprim-burn, prints both times and checks that the results agree.
//!
//! ```sh
//! cargo run --release --example burn_vs_gpuprim -- [LOG2_N]
//! ```
//!
//! LOG2_N defaults to 24 on a GPU and 14 on a CPU adapter (Burn's cumsum is quadratic and
//! its sort runs on the host). Times are host clock, each call ended by reading one
//! element back; gpuprim's are the median of five after a warm-up, Burn's one run after
//! a warm-up.

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
    println!("adapter: {} ({:?}), n = 2^{log2}", info.name, info.backend);

    let mut state = 0x2545_f491_4f6c_dd1du64;
    let values: Vec<f32> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect();
    let t = Tensor::<1>::from_data(TensorData::new(values, [n]), gpu.device());
    let side = 1usize << (log2 / 2);
    let m = t.clone().reshape([n / side, side]);

    // sort, 1 row
    let (burn_time, burn) = once(|| t.clone().sort(0));
    let (ours_time, ours) = median(|| gpu.sort(t.clone(), false).unwrap());
    report("sort f32, 1 row", burn_time, ours_time);
    check_floats(burn, ours, "sort");

    // argsort, rows of `side`
    let (burn_time, burn) = once(|| m.clone().argsort(1));
    let (ours_time, ours) = median(|| gpu.argsort(m.clone(), false).unwrap());
    report(
        &format!("argsort f32, {} rows of {side}", n / side),
        burn_time,
        ours_time,
    );
    // Burn's sort is unstable: compare the values the two orders pick.
    let picked = |order: Tensor<2, Int>| m.clone().gather(1, order);
    check_floats(picked(burn), picked(ours), "argsort");

    // topk, k = 100 (or the row) per row of `side`
    let k = side.min(100);
    let (burn_time, burn) = once(|| m.clone().topk(k, 1));
    let (ours_time, ours) = median(|| gpu.topk(m.clone(), k).unwrap());
    report(
        &format!("topk k={k}, {} rows of {side}", n / side),
        burn_time,
        ours_time,
    );
    check_floats(burn, ours, "topk");

    // argmax, 1 row
    let (burn_time, burn) = once(|| t.clone().argmax(0));
    let (ours_time, ours) = median(|| gpu.argmax(t.clone()).unwrap());
    report("argmax f32, 1 row", burn_time, ours_time);
    let (a, b) = (
        burn.into_data().try_to_vec::<i32>()?,
        ours.into_data().try_to_vec::<i32>()?,
    );
    assert_eq!(a, b, "argmax: the indices differ");
    println!("  argmax: equal, index {}", b[0]);

    // cumsum, 1 row and rows of `side`
    let (burn_time, burn) = once(|| t.clone().cumsum(0));
    let (ours_time, ours) = median(|| gpu.cumsum(t.clone()).unwrap());
    report("cumsum f32, 1 row", burn_time, ours_time);
    check_sums(burn, ours, n, "cumsum, 1 row");
    let (burn_time, burn) = once(|| m.clone().cumsum(1));
    let (ours_time, ours) = median(|| gpu.cumsum(m.clone()).unwrap());
    report(
        &format!("cumsum f32, {} rows of {side}", n / side),
        burn_time,
        ours_time,
    );
    check_sums(burn, ours, side, "cumsum, rows");
    Ok(())
}

/// A result whose call ends by reading one element back, so the time covers the work.
trait Settle {
    fn settle(&self);
}

impl<const D: usize> Settle for Tensor<D> {
    fn settle(&self) {
        let _ = self.clone().flatten::<1>(0, D - 1).slice(0..1).into_data();
    }
}

impl<const D: usize> Settle for Tensor<D, Int> {
    fn settle(&self) {
        let _ = self.clone().flatten::<1>(0, D - 1).slice(0..1).into_data();
    }
}

/// One timed run after a warm-up.
fn once<T: Settle>(f: impl Fn() -> T) -> (Duration, T) {
    f().settle();
    let start = Instant::now();
    let out = f();
    out.settle();
    (start.elapsed(), out)
}

/// The median of five timed runs after a warm-up.
fn median<T: Settle>(f: impl Fn() -> T) -> (Duration, T) {
    f().settle();
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..5 {
        let start = Instant::now();
        let out = f();
        out.settle();
        times.push(start.elapsed());
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

fn check_floats<const D: usize>(burn: Tensor<D>, ours: Tensor<D>, what: &str) {
    let a = burn.into_data().try_to_vec::<f32>().expect("f32");
    let b = ours.into_data().try_to_vec::<f32>().expect("f32");
    assert!(
        a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
        "{what}: the results differ"
    );
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
