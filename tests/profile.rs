//! Profiling (`CtxBuilder::profiling`, `Ctx::profile`): off by default; when on, every
//! call made is reported, by name and in order, with a GPU time, and the Chrome trace is
//! written.

mod common;

use common::*;
use gpuprim::{Ctx, Error, Reduce, Rng, wgpu};

#[test]
fn off_by_default() {
    let err = ctx().profile().unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { op: "Ctx::profile", message } if message.contains("profiling(true)")),
        "{err:?}"
    );
}

#[test]
fn every_call_is_reported() {
    let built = Ctx::builder().profiling(true).build();
    let probe = Ctx::new().unwrap();
    if !probe.has_features(wgpu::Features::TIMESTAMP_QUERY) {
        // Where the adapter has no timestamp queries, asking for profiling is an error
        // that names the feature.
        let err = built.unwrap_err();
        assert!(
            matches!(&err, Error::Unsupported { feature, .. } if feature.contains("TIMESTAMP_QUERY")),
            "{err:?}"
        );
        return;
    }
    let ctx = built.unwrap();
    let n = 100_000;
    let x = ctx.upload(&random_vec::<f32>(n, 1)).unwrap();
    let keys = ctx.upload(&random_vec::<u32>(n, 2)).unwrap();
    let mut y = ctx.zeros::<f32>(n).unwrap();
    let mut out = ctx.zeros::<f32>(1).unwrap();
    let mut count = ctx.zeros::<u32>(1).unwrap();
    let mut kept = ctx.zeros::<f32>(n).unwrap();
    let mut hist = ctx.zeros::<u32>(16).unwrap();
    ctx.map_into(&x, "x * 2.0", &mut y).unwrap();
    ctx.zip_into(&x, &y, "a + b", &mut y.try_clone().unwrap())
        .unwrap();
    ctx.reduce_into(&y, &mut out).unwrap();
    ctx.dot_into(&x, &y, &mut out).unwrap();
    ctx.scan_into(&x, &mut y).unwrap();
    ctx.compact_into(&x, "x > 0.0", &mut kept, &mut count)
        .unwrap();
    let bins = ctx.map(&keys, "x & 15u").unwrap();
    ctx.histogram_into(&bins, 16, &mut hist).unwrap();
    ctx.fill_random(&mut y, Rng::WangHash { seed: 3 }).unwrap();
    ctx.elementwise("y = y * s;")
        .read_write("y", &mut y)
        .scalar("s", 0.5f32)
        .run()
        .unwrap();
    let s: f32 = ctx
        .transform_reduce("x * x", Reduce::Sum)
        .read("x", &x)
        .run()
        .unwrap();
    assert!(s > 0.0);
    let profile = ctx.profile().unwrap();
    let names: Vec<&str> = profile.calls.iter().map(|c| c.name).collect();
    assert_eq!(
        names,
        [
            "map",
            "GpuVec::copy_from",
            "zip",
            "reduce_with_into",
            "dot_into",
            "scan",
            "compact_into",
            "map",
            "histogram_into",
            "fill_random",
            "elementwise",
            "transform_reduce",
        ]
    );
    for c in &profile.calls {
        if c.name != "GpuVec::copy_from" {
            let ms = c
                .gpu_ms
                .unwrap_or_else(|| panic!("{} has no GPU time", c.name));
            assert!(ms > 0.0 && ms < 10_000.0, "{}: {ms} ms", c.name);
        }
    }
    let summary = profile.summary();
    assert_eq!(summary.iter().map(|r| r.calls).sum::<usize>(), 12);
    assert_eq!(
        summary.iter().find(|r| r.name == "map").map(|r| r.calls),
        Some(2)
    );
    let table = profile.to_string();
    assert!(
        table.contains("transform_reduce") && table.contains("calls"),
        "{table}"
    );
    let path = std::env::temp_dir().join(format!("gpuprim-profile-{}.json", std::process::id()));
    profile.write_chrome_trace(&path).unwrap();
    let trace = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    assert!(
        trace.contains("\"map #0\"") && trace.contains("transform_reduce #"),
        "{trace}"
    );
    // The next report has the calls made after this one only.
    ctx.map_into(&x, "x + 1.0", &mut y).unwrap();
    let names: Vec<_> = ctx
        .profile()
        .unwrap()
        .calls
        .iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, ["map"]);
    // Work recorded into one's own encoder is not timed (and does not disturb the report).
    let mut enc = ctx.device().create_command_encoder(&Default::default());
    ctx.record(&mut enc, |c| c.map_into(&x, "x", &mut y))
        .unwrap();
    ctx.queue().submit([enc.finish()]);
    assert!(ctx.profile().unwrap().calls.is_empty());
}
