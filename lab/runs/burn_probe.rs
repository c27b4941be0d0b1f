//! Run 29's probe of gpuprim-burn's sort time: each call between two device syncs (Burn's
//! `Device::sync` and gpuprim's `synchronize`), six calls a step, printed in ms; a sort
//! through Burn itself in the middle. Build: copy into `integrations/burn/examples/`,
//! `cargo build --release --example burn_probe` there.
use burn::tensor::{Tensor, TensorData};
use gpuprim_burn::BurnGpu;
use std::time::Instant;
fn main() {
    let gpu = BurnGpu::new().unwrap();
    let n = 1usize << 24;
    let values: Vec<f32> = (0..n).map(|i| ((i as u64 * 2654435761) % 1000003) as f32).collect();
    let t = Tensor::<1>::from_data(TensorData::new(values.clone(), [n]), gpu.device());
    let m = t.clone().reshape([4096, 4096]);
    let keys = gpu.ctx().upload(&values).unwrap();
    let sync = || { gpu.device().sync().unwrap(); gpu.ctx().synchronize().unwrap(); };
    let steps = ["sync", "raw argsort", "burn sort 1 row", "burn argsort rows", "BURN HOST SORT", "burn sort 1 row", "burn argsort rows", "raw argsort", "burn cumsum 1 row", "burn sort 1 row"];
    for what in steps {
        let mut times = vec![];
        let reps = if what == "BURN HOST SORT" { 1 } else { 6 };
        for _ in 0..reps {
            sync();
            let s = Instant::now();
            match what {
                "sync" => {}
                "raw argsort" => { let _ = gpu.ctx().argsort(&keys).unwrap(); }
                "burn sort 1 row" => { let _ = gpu.sort(t.clone(), false).unwrap(); }
                "burn argsort rows" => { let _ = gpu.argsort(m.clone(), false).unwrap(); }
                "BURN HOST SORT" => { let _ = t.clone().sort(0); }
                _ => { let _ = gpu.cumsum(t.clone()).unwrap(); }
            }
            sync();
            times.push(s.elapsed());
        }
        let all: Vec<String> = times.iter().map(|d| format!("{:.2}", d.as_secs_f64() * 1e3)).collect();
        println!("{what:<20} ms: {}", all.join(" "));
    }
}
