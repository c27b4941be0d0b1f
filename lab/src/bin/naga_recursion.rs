//! The smallest program that shows naga 30 overflowing the stack on a long flat chain of
//! binary operators (`x + x + ... + x`), which its WGSL parser accepts without recursing
//! and its lowerer and GLSL writer then walk by recursion, one call level per operator.
//! Only naga runs (docs/naga-recursion.md is the report built on it).
//!
//! The shader is one compute entry point whose one long expression is the chain:
//!
//! ```wgsl
//! @group(0) @binding(0) var<storage, read_write> buf: array<f32>;
//! @compute @workgroup_size(64)
//! fn main(@builtin(global_invocation_id) id: vec3<u32>) {
//!     let x = buf[id.x];
//!     buf[id.x] = x + x + ... + x;   // N terms
//! }
//! ```
//!
//! A stack overflow aborts the process, so each measurement is a process of its own:
//! - `naga_recursion STAGE N STACK_KIB [chain|parens]`: builds the shader with N terms
//!   (`parens`: `((...(x)...))` nested N deep instead), prepares what STAGE needs on a
//!   thread with a stack far larger than it needs, then runs STAGE alone on a thread of
//!   STACK_KIB KiB. STAGE is `parse` (`front::wgsl::parse_str`, which parses and lowers),
//!   `validate` (`valid::Validator::validate`), `spv` (`back::spv::write_vec`) or `glsl`
//!   (`back::glsl::Writer`, GLSL ES 3.10). Exit 0 if naga returned `Ok`, 3 if it returned
//!   an error (printed), and SIGABRT (Rust's "has overflowed its stack") if it overflowed.
//! - `naga_recursion bisect STAGE STACK_KIB [MAX_N]`: runs the above as children and
//!   prints the largest N (at most MAX_N, default 100000) that exits 0.
//! - `naga_recursion table [MAX_N]`: bisects every stage on stacks of 2 MiB (Rust's
//!   default for spawned threads) and 8 MiB (Linux's usual main thread) and prints a
//!   Markdown table with the stack each term costs ((8 MiB - 2 MiB) / (N8 - N2)).
//! - `naga_recursion nesting [STACK_KIB]`: parses parentheses nested N deep and flat
//!   chains of N terms for a few N on one stack (default 2048 KiB): the parser refuses the
//!   parentheses at its recursion limit of 200 with an error; the chains it accepts, until
//!   the lowerer overflows.

use std::process::{Command, ExitCode, ExitStatus};

const STAGES: [&str; 4] = ["parse", "validate", "spv", "glsl"];

/// The compute shader whose stored value is `body`.
fn shader(body: &str) -> String {
    format!(
        "@group(0) @binding(0) var<storage, read_write> buf: array<f32>;\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(global_invocation_id) id: vec3<u32>) {{\n    \
         let x = buf[id.x];\n    \
         buf[id.x] = {body};\n\
         }}\n"
    )
}

/// `x + x + ... + x`, `terms` terms (terms - 1 operators).
fn chain(terms: usize) -> String {
    let mut s = String::with_capacity(4 * terms);
    s.push('x');
    for _ in 1..terms {
        s.push_str(" + x");
    }
    s
}

/// `((...(x)...))`, nested `depth` deep.
fn parens(depth: usize) -> String {
    format!("{}x{}", "(".repeat(depth), ")".repeat(depth))
}

fn validate(module: &naga::Module) -> Result<naga::valid::ModuleInfo, String> {
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(module)
    .map_err(|e| format!("validation: {e:?}"))
}

fn spv(module: &naga::Module, info: &naga::valid::ModuleInfo) -> Result<String, String> {
    let pipeline = naga::back::spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: "main".into(),
    };
    let options = naga::back::spv::Options::default();
    let words = naga::back::spv::write_vec(module, info, &options, Some(&pipeline))
        .map_err(|e| format!("spv: {e}"))?;
    Ok(format!("{} SPIR-V words", words.len()))
}

fn glsl(module: &naga::Module, info: &naga::valid::ModuleInfo) -> Result<String, String> {
    let options = naga::back::glsl::Options::default(); // GLSL ES 3.10
    let pipeline = naga::back::glsl::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: "main".into(),
        multiview: None,
    };
    let mut out = String::new();
    let mut writer = naga::back::glsl::Writer::new(
        &mut out,
        module,
        info,
        &options,
        &pipeline,
        naga::proc::BoundsCheckPolicies::default(),
    )
    .map_err(|e| format!("glsl: {e}"))?;
    writer.write().map_err(|e| format!("glsl: {e}"))?;
    drop(writer);
    Ok(format!("{} bytes of GLSL", out.len()))
}

/// Runs `f` on a thread with a stack of `bytes`.
fn on_stack<R: Send + 'static>(bytes: usize, f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .name(format!("stack-{}KiB", bytes / 1024))
        .stack_size(bytes)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("join")
}

/// Parses (and, for the back ends, validates) on a stack large enough for any N this
/// program is asked for, so that only the measured stage runs on the small one.
fn prepare(
    source: String,
    terms: usize,
    with_info: bool,
) -> (naga::Module, Option<naga::valid::ModuleInfo>) {
    let big = (256usize << 20)
        .max(terms.saturating_mul(64 << 10))
        .min(16 << 30);
    on_stack(big, move || {
        let module = naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|e| panic!("preparing: {}", e.emit_to_string(&source)));
        let info = with_info.then(|| validate(&module).expect("preparing"));
        (module, info)
    })
}

/// One measurement (a child): exit 0 on Ok, 3 on naga's error.
fn child(stage: &str, n: usize, stack_kib: usize, shape: &str) -> ExitCode {
    let body = match shape {
        "chain" => chain(n),
        "parens" => parens(n),
        other => return usage(&format!("unknown shape {other}")),
    };
    let source = shader(&body);
    let stack = stack_kib << 10;
    let result: Result<String, String> = match stage {
        "parse" => on_stack(stack, move || {
            naga::front::wgsl::parse_str(&source)
                .map(|m| {
                    format!(
                        "{} IR expressions",
                        m.entry_points[0].function.expressions.len()
                    )
                })
                .map_err(|e| {
                    // The message and its notes, without the (long) source line.
                    let text = e.emit_to_string(&source);
                    let kept: Vec<&str> = text
                        .lines()
                        .map(str::trim)
                        .filter(|l| l.starts_with("error") || l.starts_with("= note"))
                        .collect();
                    kept.join("; ")
                })
        }),
        "validate" => {
            let (module, _) = prepare(source, n, false);
            on_stack(stack, move || {
                validate(&module).map(|_| "valid".to_string())
            })
        }
        "spv" | "glsl" => {
            let (module, info) = prepare(source, n, true);
            let glsl_stage = stage == "glsl";
            on_stack(stack, move || {
                let info = info.unwrap();
                if glsl_stage {
                    glsl(&module, &info)
                } else {
                    spv(&module, &info)
                }
            })
        }
        other => return usage(&format!("unknown stage {other}")),
    };
    match result {
        Ok(what) => {
            println!("{stage} {shape} {n} on {stack_kib} KiB: ok ({what})");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!(
                "{stage} {shape} {n} on {stack_kib} KiB: error: {}",
                e.trim()
            );
            ExitCode::from(3)
        }
    }
}

fn run_child(stage: &str, n: usize, stack_kib: usize, shape: &str) -> (ExitStatus, String) {
    let out = Command::new(std::env::current_exe().expect("current_exe"))
        .args([stage, &n.to_string(), &stack_kib.to_string(), shape])
        .output()
        .expect("run child");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status, text)
}

fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(6)) => "SIGABRT".into(),
        (None, Some(s)) => format!("signal {s}"),
        _ => "?".into(),
    }
}

/// The largest N in 1..=max that survives (exits 0), assuming survival is monotonic;
/// with the status and last line of the first N that did not (None if max survived).
fn bisect(stage: &str, stack_kib: usize, max: usize) -> (usize, Option<(usize, String)>) {
    let survives = |n: usize| -> Result<(), String> {
        let (status, text) = run_child(stage, n, stack_kib, "chain");
        if status.success() {
            Ok(())
        } else {
            let last = text
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            Err(format!("{}: {}", describe(status), last.trim()))
        }
    };
    if let Err(e) = survives(1) {
        return (0, Some((1, e)));
    }
    let mut good = 1usize;
    let mut n = 16usize;
    let (mut hi, mut why) = loop {
        let n_try = n.min(max);
        match survives(n_try) {
            Ok(()) => good = n_try,
            Err(e) => break (n_try, e),
        }
        if n_try == max {
            return (good, None);
        }
        n *= 2;
    };
    while hi - good > 1 {
        let mid = good + (hi - good) / 2;
        match survives(mid) {
            Ok(()) => good = mid,
            Err(e) => {
                hi = mid;
                why = e;
            }
        }
    }
    (good, Some((hi, why)))
}

fn build() -> &'static str {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
}

fn table(max: usize) {
    let stacks = [2048usize, 8192];
    println!(
        "naga 30.0.1, {} build of this program; largest N terms of `x + ... + x` that survive",
        build()
    );
    println!();
    println!(
        "| stage | N on 2 MiB | N on 8 MiB | bytes of stack per term | first failure on 2 MiB |"
    );
    println!("| --- | ---: | ---: | ---: | --- |");
    for stage in STAGES {
        let results: Vec<_> = stacks.iter().map(|&s| bisect(stage, s, max)).collect();
        let cell = |r: &(usize, Option<(usize, String)>)| match r.1 {
            None => format!("> {}", r.0),
            Some(_) => r.0.to_string(),
        };
        let per_term = match (&results[0], &results[1]) {
            ((n2, Some(_)), (n8, Some(_))) if n8 > n2 => {
                format!(
                    "{:.0}",
                    ((stacks[1] - stacks[0]) << 10) as f64 / (n8 - n2) as f64
                )
            }
            _ => "-".into(),
        };
        let why = match &results[0].1 {
            Some((n, e)) => format!("N = {n}: {e}"),
            None => "none".into(),
        };
        println!(
            "| {stage} | {} | {} | {per_term} | {} |",
            cell(&results[0]),
            cell(&results[1]),
            why.replace('|', "\\|")
        );
    }
}

fn nesting(stack_kib: usize) {
    println!(
        "naga 30.0.1, {} build; parse_str on {stack_kib} KiB",
        build()
    );
    println!();
    println!("| N | parentheses nested N deep | flat chain of N terms |");
    println!("| ---: | --- | --- |");
    for n in [100usize, 197, 198, 1000, 10_000, 100_000] {
        let cell = |shape: &str| {
            let (status, text) = run_child("parse", n, stack_kib, shape);
            if status.success() {
                "ok".to_string()
            } else if status.code() == Some(3) {
                let msg = text
                    .lines()
                    .find_map(|l| l.split_once("error: ").map(|(_, m)| m.to_string()))
                    .unwrap_or_default();
                format!("error: {}", msg.trim())
            } else {
                format!("{} (stack overflow)", describe(status))
            }
        };
        println!("| {n} | {} | {} |", cell("parens"), cell("chain"));
    }
}

fn usage(why: &str) -> ExitCode {
    eprintln!("{why}");
    eprintln!(
        "usage: naga_recursion STAGE N STACK_KIB [chain|parens]   (STAGE: parse validate spv glsl)\n\
         \x20      naga_recursion bisect STAGE STACK_KIB [MAX_N]\n\
         \x20      naga_recursion table [MAX_N]\n\
         \x20      naga_recursion nesting [STACK_KIB]"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, default: usize| -> Option<usize> {
        match args.get(i) {
            None => Some(default),
            Some(s) => s.replace('_', "").parse().ok(),
        }
    };
    match args.first().map(String::as_str) {
        Some("table") => {
            let Some(max) = num(1, 100_000) else {
                return usage("MAX_N");
            };
            table(max);
            ExitCode::SUCCESS
        }
        Some("bisect") => {
            let (Some(stage), Some(stack), Some(max)) =
                (args.get(1), num(2, 2048), num(3, 100_000))
            else {
                return usage("bisect STAGE STACK_KIB [MAX_N]");
            };
            let (n, fail) = bisect(stage, stack, max);
            match fail {
                Some((bad, why)) => println!(
                    "{stage} on {stack} KiB ({}): largest N {n}; N = {bad}: {why}",
                    build()
                ),
                None => println!(
                    "{stage} on {stack} KiB ({}): N = {n} (MAX_N) survives",
                    build()
                ),
            }
            ExitCode::SUCCESS
        }
        Some("nesting") => {
            let Some(stack) = num(1, 2048) else {
                return usage("STACK_KIB");
            };
            nesting(stack);
            ExitCode::SUCCESS
        }
        Some(stage) if STAGES.contains(&stage) => {
            let (Some(n), Some(stack)) = (num(1, 0), num(2, 2048)) else {
                return usage("N and STACK_KIB are numbers");
            };
            if n == 0 {
                return usage("N must be at least 1");
            }
            let shape = args.get(3).map(String::as_str).unwrap_or("chain");
            child(stage, n, stack, shape)
        }
        _ => usage("no mode given"),
    }
}
