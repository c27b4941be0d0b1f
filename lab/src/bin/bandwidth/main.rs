//! Bandwidth table: each primitive's GPU time and effective bandwidth at one size, next
//! to a copy kernel, plus the host round trip of a blocking `reduce`.
//!
//! `cargo run --release -p gpuprim-lab --bin bandwidth -- [log2 n] [section ...]
//! [--csv PATH] [--json PATH]` (default 28 on a GPU, 22 on the software adapter;
//! sections: reduce, arg_reduce, kernel, scan, scan_by_key, segmented, sort, search,
//! gather, scatter_add, records, wide_sort, atomic, random, grid2d, auto (`Swizzle::Auto` against linear order), top_k, segmented_sort,
//! no_subgroups (scan, compaction and sorts with and without subgroups), latency, all by
//! default; sort_tiles (OneSweep's tile shapes), search_order (bucketed searches or
//! not) and segmented_paths (both kernels of segmented reductions) only when named; the
//! element-wise
//! rows always run). Bytes count each input read once and each output written once.
//! Times are medians over rounds of back-to-back calls ended by one wait. `BATCH_LIMIT=1`
//! in the environment times every call in a submission of its own
//! (`CtxBuilder::batch_limit`; the default lets calls made while the GPU is busy share
//! one).
//!
//! `--profile` builds the context with `CtxBuilder::profiling` and prints the GPU time
//! of every call per primitive at the end.
//!
//! `--csv PATH` and `--json PATH` also write every row, latency rows included, to those
//! files (per row: adapter, section, primitive, n, bytes, ms, GB/s, ratio to the copy
//! kernel); `perf_chart` draws the CSV next to the PyTorch, CUB and lampshade
//! figures (docs/PERFORMANCE.md).

mod arg_reduce;
mod atomic;
mod gather;
mod grid2d;
mod kernel;
mod no_subgroups;
mod random;
mod records;
mod reduce;
mod scan;
mod scan_by_key;
mod search;
mod segmented;
mod segmented_sort;
mod sort;
mod top_k;
mod wide_sort;

use std::path::PathBuf;

use gpuprim::{Ctx, Result};
use gpuprim_lab::timing::{self, Bench};

/// A section's rows: timed, printed and recorded through the [`Bench`].
type Rows = fn(&mut Bench) -> Result<()>;

/// The sections a run can ask for, in the order they run. A new section is a line here.
const SECTIONS: [(&str, Rows); 23] = [
    ("reduce", reduce::rows),
    ("arg_reduce", arg_reduce::rows),
    ("kernel", kernel::rows),
    ("scan", scan::rows),
    ("scan_by_key", scan_by_key::rows),
    ("segmented", segmented::rows),
    ("segmented_paths", segmented::path_rows),
    ("sort", sort::rows),
    ("sort_tiles", sort::tile_rows),
    ("search", search::rows),
    ("search_order", search::order_rows),
    ("gather", gather::rows),
    ("scatter_add", gather::scatter_rows),
    ("records", records::rows),
    ("wide_sort", wide_sort::rows),
    ("atomic", atomic::rows),
    ("random", random::rows),
    ("grid2d", grid2d::rows),
    ("auto", grid2d::auto_rows),
    ("top_k", top_k::rows),
    ("segmented_sort", segmented_sort::rows),
    ("no_subgroups", no_subgroups::rows),
    ("latency", reduce::latency),
];

const USAGE: &str = "usage: bandwidth [log2 n] [section ...] [--csv PATH] [--json PATH]
  log2 n     elements per vector: 2^log2 (default 28 on a GPU, 22 on a CPU adapter)
  section    reduce, arg_reduce, kernel, scan, scan_by_key, segmented, sort, search,
             gather, scatter_add, records, atomic, random, grid2d, auto, top_k, segmented_sort, no_subgroups, latency (default:
             all), sort_tiles, search_order and segmented_paths
             (only when named); the element-wise rows (the copy kernel
             first) always run
  --csv PATH, --json PATH
             also write every row (latency rows too) to PATH as CSV or JSON
  --profile  profile every call (CtxBuilder::profiling) and print the GPU time per
             primitive at the end (the timestamps cost the rows a little)";

/// Sections that run only when named (long tuning sweeps).
const NAMED_ONLY: [&str; 3] = ["sort_tiles", "search_order", "segmented_paths"];

/// The command line: `[log2 n] [section ...]`, with `--csv PATH` and `--json PATH`
/// (or `--csv=PATH`) anywhere.
struct Args {
    log2: Option<u32>,
    sections: Vec<String>,
    csv: Option<PathBuf>,
    json: Option<PathBuf>,
    profile: bool,
}

fn parse_args() -> std::result::Result<Args, String> {
    let mut args = Args {
        log2: None,
        sections: Vec::new(),
        csv: None,
        json: None,
        profile: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        match flag.as_str() {
            "--csv" | "--json" => {
                let path = inline
                    .or_else(|| it.next())
                    .ok_or(format!("{flag} needs a path"))?;
                let slot = if flag == "--csv" {
                    &mut args.csv
                } else {
                    &mut args.json
                };
                *slot = Some(PathBuf::from(path));
            }
            "--profile" => args.profile = true,
            "-h" | "--help" => return Err(String::new()),
            f if f.starts_with('-') => return Err(format!("unknown flag {f}")),
            _ => match a.parse::<u32>() {
                Ok(log2) if args.log2.is_none() && args.sections.is_empty() => {
                    args.log2 = Some(log2)
                }
                _ if SECTIONS.iter().any(|(s, _)| *s == a) => args.sections.push(a),
                _ => return Err(format!("unknown section {a:?}")),
            },
        }
    }
    Ok(args)
}

fn main() -> Result<()> {
    let args = parse_args().unwrap_or_else(|e| {
        if !e.is_empty() {
            eprintln!("bandwidth: {e}");
        }
        eprintln!("{USAGE}");
        std::process::exit(if e.is_empty() { 0 } else { 2 })
    });
    let ctx = timing::tuning(Ctx::builder())
        .batch_limit(timing::batch_limit())
        .profiling(args.profile)
        .build()?;
    let software = ctx.info().device_type == gpuprim::wgpu::DeviceType::Cpu;
    let log2 = args.log2.unwrap_or(if software { 22 } else { 28 });
    let n = 1usize << log2;
    println!("adapter: {}", ctx.info());
    println!("n = 2^{log2} = {n}, batch limit {}", timing::batch_limit());
    let mut b = Bench::new(&ctx, n, software);
    if let Err(e) = b.write_to(args.csv, args.json) {
        eprintln!("bandwidth: cannot write the --csv / --json file: {e}");
        std::process::exit(2);
    }
    b.header();

    // Element-wise kernels; the copy kernel (map "x") is the reference every ratio uses.
    let a = b.random_f32(1)?;
    let c = b.random_f32(2)?;
    let mut out = ctx.zeros::<f32>(n)?;
    b.reference("copy kernel f32 (map x)", 8 * n, || {
        ctx.map_into(&a, "x", &mut out)
    })?;
    b.row("map x*2+1 f32", 8 * n, || {
        ctx.map_into(&a, "x * 2.0 + 1.0", &mut out)
    })?;
    b.row("zip a+b f32", 12 * n, || {
        ctx.zip_into(&a, &c, "a + b", &mut out)
    })?;
    b.row("GpuVec::copy_from f32 (buffer copy)", 8 * n, || {
        out.copy_from(&a)
    })?;
    drop((a, c, out));

    for (name, rows) in SECTIONS {
        let named = args.sections.iter().any(|s| s == name);
        if named || (args.sections.is_empty() && !NAMED_ONLY.contains(&name)) {
            b.section(name);
            rows(&mut b)?;
        }
    }
    if args.profile {
        // Every call of the run (warm-ups, the row's rounds and helper calls such as
        // uploads' maps), per primitive.
        println!("-- profile: GPU time per primitive over the whole run");
        print!("{}", ctx.profile()?);
    }
    Ok(())
}
