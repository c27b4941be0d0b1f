//! Hostile user WGSL for every call that takes it: random token soups, mutations of valid
//! expressions, bodies, predicates, custom operators and kernel argument names, and the
//! long and deep texts (flat chains `x + x + ... + x` of 5 000 and 20 000 terms and of
//! 1 MiB, 300 nested parentheses, 300 unary minuses, 300 nested `select`s, 5 000 `let`
//! lines, a 64 KiB literal and identifier). Every case must give `Ok` or `Err`, never a
//! panic or the end of the process, and leave its context working. `Error::Internal`
//! (by its own words a gpuprim bug) counts as a failure.
//!
//! This binary has no test harness (`harness = false`): run as the test, it starts itself
//! again as child processes that run the cases, so a crash (a stack overflow, an abort, a
//! segmentation fault) ends a child, not the runner. A child runs each case on a thread
//! of its own made by `std::thread::spawn`, with Rust's default 2 MiB stack (the child's
//! environment has no `RUST_MIN_STACK`): the stack of every spawned thread and every
//! libtest test. It prints each case's call and index before running it (flushed), so when
//! a child dies the parent names the case that killed it, prints it, and starts a new
//! child at the next case. In the child, a panic is caught (`catch_unwind`) and reported
//! with its case; after every case the context must still work: a `synchronize` that
//! reports no error the call did not return, then a `reduce` of a random vector against
//! the CPU. A case that breaks the context ends its child (a new one, with a new context,
//! goes on).
//!
//! The cases are generated from a seed (a xorshift stream), the same in parent and
//! child: the parent prints any case from its index. Statement bodies are never given a
//! loop (their soups and mutations leave out `loop`, `for` and `while`): an endless loop
//! is the user's to write, and it would only hang the GPU.
//!
//! Environment:
//! - `GPUPRIM_HOSTILE_CASES` (64): generated cases per call, one in six a mutation of a
//!   valid text and the others token soups; the long and deep cases are added to every
//!   call whatever the number;
//! - `GPUPRIM_HOSTILE_SEED` (48): the generator's seed;
//! - `GPUPRIM_HOSTILE_SKIP_LONG` (unset): `1` leaves the long and deep cases out (to
//!   develop the rest only: by default they are in);
//! - `GPUPRIM_HOSTILE_CALLS` (unset): only the calls whose name contains this text;
//! - `GPUPRIM_HOSTILE_JOBS` (2): children running at a time, each taking every JOBS-th
//!   call, all in one process unless a case ends it;
//! - `GPUPRIM_HOSTILE_DEADLINE` (300 s a child): a child still running then is killed
//!   and its current case reported as a hang;
//! - `GPUPRIM_HOSTILE_VERBOSE` (unset): every case with its verdict, time and error.
//!
//! `GPUPRIM_DUMP_WGSL` is not passed on to the children: their kernels hold random
//! user code, not gpuprim's own.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::panic::AssertUnwindSafe;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::setting;

use gpuprim::{
    Ctx, Error, GpuVec, Grid2D, Grid2DMut, Reduce, Scan, ScanAlgorithm, ScanOp, Swizzle,
};

/// Set in a child's environment to the name of the call it runs.
const CHILD: &str = "GPUPRIM_HOSTILE_CHILD";
/// Set in a child's environment to the first case it runs.
const FROM: &str = "GPUPRIM_HOSTILE_FROM";

/// A child's exit status when a case left its context broken: the parent starts a new
/// child (with a new context) at the next case.
const BROKEN_CONTEXT: i32 = 3;

fn main() {
    match std::env::var(CHILD) {
        Ok(call) => child(&call),
        Err(_) => parent(),
    }
}

// ---------------------------------------------------------------------------------------
// The generator.

/// xorshift64: the cases' random stream.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        // splitmix64 of the seed, so nearby seeds give unrelated streams.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng((z ^ (z >> 31)) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The element type a call's user code works in.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    F32,
    U32,
    I32,
}

impl Ty {
    fn lit(self, v: i32) -> String {
        match self {
            Ty::F32 => format!("{v}.0"),
            Ty::U32 => format!("{}u", v.unsigned_abs()),
            Ty::I32 => format!("{v}"),
        }
    }
}

/// What a call's user text is, and so what the generator makes for it.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// An expression in `x` of the first type, of the second type (map, map_to).
    Expr(Ty, Ty),
    /// An expression in `a` and `b` of the first type, of the second (zip; custom
    /// operators, where both are the element type).
    Pair(Ty, Ty),
    /// A `bool` expression in `x` (compact).
    Predicate(Ty),
    /// Statements over `x`, `y`, `z`, `u` (raw), `alpha`, `d` (a device scalar), `i`, `n`
    /// (elementwise).
    Body,
    /// A map2d body: an f32 expression in `x`, `y` (i32) and `load(x, y)`.
    Grid,
    /// transform_reduce: an f32 expression in `x`, `y`, `w`, `u` (raw), `d` (a device
    /// scalar), `i`, `n`.
    Transform,
    /// A kernel argument's name.
    Name,
}

impl Kind {
    fn names(self) -> &'static [&'static str] {
        match self {
            Kind::Expr(..) | Kind::Predicate(_) => &["x"],
            Kind::Pair(..) => &["a", "b"],
            Kind::Body => &["x", "y", "z", "u", "alpha", "d", "i", "n"],
            Kind::Grid => &["x", "y", "load"],
            Kind::Transform => &["x", "y", "w", "u", "d", "i", "n"],
            Kind::Name => &["x", "alpha", "i", "n", "gp_out"],
        }
    }

    /// Valid texts, the mutations' starting points.
    fn seeds(self) -> Vec<String> {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        match self {
            Kind::Expr(Ty::F32, Ty::F32) => owned(&[
                "x * 2.0 + 1.0",
                "max(abs(x), 0.5)",
                "select(x, -x, x < 0.0)",
                "sqrt(abs(x)) * sign(x)",
                "bitcast<f32>(bitcast<u32>(x) ^ 0x80000000u)",
                "clamp(x, -1.0, 1.0)",
                "fma(x, x, 1.0)",
                "vec2<f32>(x, 1.0).y * x",
                "f32(i32(x) % 7)",
                "x / (1.0 + x * x)",
                "array<f32, 2>(x, 1.0)[1]",
                "exp2(-abs(x) * 0x1p-3)",
            ]),
            Kind::Expr(Ty::F32, _) => owned(&[
                "u32(abs(x))",
                "select(0u, 1u, x > 0.5)",
                "u32(x * 10.0 + 1000.0) % 7u",
                "bitcast<u32>(x)",
                "countOneBits(bitcast<u32>(x))",
            ]),
            Kind::Expr(t, _) => {
                let l = |v| t.lit(v);
                vec![
                    "x * x".into(),
                    format!("x ^ {}", l(0xdead)),
                    format!("(x >> {}) & {}", Ty::U32.lit(3), l(7)),
                    "countOneBits(x)".into(),
                    format!("select({}, x, x > {})", l(0), l(5)),
                    format!("reverseBits(x) + {}", l(1)),
                    format!("max(x, {}) / {}", l(3), l(2)),
                ]
            }
            Kind::Pair(Ty::F32, Ty::F32) => owned(&[
                "a + b",
                "max(a, b)",
                "max(abs(a), abs(b))",
                "select(b, a, abs(a) > abs(b))",
                "a * b",
                "min(a, b) + 0.0",
                "fma(a, 1.0, b)",
                "(a + b) * 1.0",
                "a - b * 0.5",
            ]),
            Kind::Pair(Ty::I32, Ty::U32) => owned(&[
                "u32(a + b)",
                "select(0u, 1u, a > b)",
                "bitcast<u32>(a ^ b)",
                "u32(abs(a)) % (u32(abs(b)) + 1u)",
            ]),
            Kind::Pair(t, _) => {
                let l = |v| t.lit(v);
                vec![
                    "a ^ b".into(),
                    "a | b".into(),
                    "max(a, b)".into(),
                    "a + b".into(),
                    "a * b".into(),
                    "select(a, b, a < b)".into(),
                    format!("(a & {}) + (b & {})", l(0xffff), l(0xffff)),
                    format!("min(a, b) + {}", l(0)),
                ]
            }
            Kind::Predicate(Ty::F32) => owned(&[
                "x > 0.5",
                "abs(x) < 100.0 && x != 0.0",
                "!(x > 0.0)",
                "x * x > 250000.0 || x < -900.0",
                "select(false, true, x > 1.0)",
                "all(vec2<bool>(x > 0.0, x < 500.0))",
            ]),
            Kind::Predicate(t) => {
                let l = |v| t.lit(v);
                vec![
                    format!("x > {}", l(3)),
                    format!("(x & {}) == {}", l(1), l(0)),
                    "countOneBits(x) > 16u".into(),
                    format!("x % {} != {}", l(3), l(1)),
                    format!("!(x < {}) || x == {}", l(7), l(2)),
                ]
            }
            Kind::Body => owned(&[
                "z = x * 2.0 + alpha;",
                "y = y + x; z = y * 0.5;",
                "let l = u[max(i, 1u) - 1u]; let r = u[min(i + 1u, n - 1u)]; z = r - l;",
                "if (x > 0.0) { z = x; } else { z = -x; }",
                "var t = x; t *= alpha; y = t; z = f32(i) / f32(n);",
                "z = select(x, y, x < y); y = max(x, y);",
                "switch (i % 3u) { case 0u: { z = x; } default: { z = y; } }",
                "z = dot(vec2<f32>(x, y), vec2<f32>(alpha, 1.0));",
                "let p = &y; *p = x; z = *p + 1.0;",
                "z = d * x + u[(i + 7u) % n];",
            ]),
            Kind::Grid => owned(&[
                "load(x, y) * 0.5 + load(x, y - 1) * 0.25 + load(x, y + 1) * 0.25",
                "load(x + 1, y) - load(x - 1, y)",
                "f32(x * y)",
                "select(0.0, load(y, x), x < y)",
                "load(x / 2, y / 2) * 2.0",
            ]),
            Kind::Transform => owned(&[
                "w * x * y",
                "x * x",
                "select(0.0, 1.0, x > y)",
                "f32(i) / f32(n) * x",
                "abs(x - y) * w",
                "max(x, y) - min(x, y)",
                "u[n - 1u - i] * d",
            ]),
            Kind::Name => owned(&["x", "alpha", "weight_2", "_t", "value", "xy"]),
        }
    }

    /// One term of the long chains.
    fn terms(self) -> [&'static str; 2] {
        match self {
            Kind::Pair(..) => ["a", "b"],
            // Not `load`: a chain of 5 000 loads that compiles takes lavapipe's LLVM most
            // of a minute (the nested selects have loads).
            Kind::Grid => ["f32(x)", "f32(y)"],
            Kind::Transform => ["x", "y"],
            _ => ["x", "x"],
        }
    }

    /// A `bool` for the nested `select`s.
    fn condition(self) -> String {
        match self {
            Kind::Pair(..) => "a < b".into(),
            Kind::Transform => "x < y".into(),
            Kind::Grid => "x < y".into(),
            Kind::Expr(t, _) | Kind::Predicate(t) => format!("x < {}", t.lit(1)),
            Kind::Body | Kind::Name => "x < 1.0".into(),
        }
    }

    /// The whole text for an expression `e` of the kind's value type.
    fn wrap(self, e: &str) -> String {
        match self {
            Kind::Predicate(t) => format!("({e}) > {}", t.lit(0)),
            Kind::Body => format!("z = {e};"),
            _ => e.to_string(),
        }
    }

    fn no_loops(self) -> bool {
        matches!(self, Kind::Body)
    }
}

/// The tokens of the soups (and of token insertions).
const TOKENS: &[&str] = &[
    // literals
    "1.0",
    "2u",
    "0x1p3",
    "1e-40",
    "1.0h",
    "1lf",
    "0",
    "-1",
    "3i",
    "0.5f",
    "0xffffffffu",
    "4294967296u",
    "1e39",
    "1e-7",
    "0x",
    "1..",
    "0.0",
    "7",
    "2147483648i",
    "true",
    "false",
    // operators
    "+",
    "-",
    "*",
    "/",
    "%",
    "&",
    "|",
    "^",
    "!",
    "~",
    "<<",
    ">>",
    "<",
    ">",
    "<=",
    ">=",
    "==",
    "!=",
    "&&",
    "||",
    "=",
    "+=",
    "++",
    "--",
    "->",
    "@",
    ".",
    "?",
    "$",
    "#",
    "\\",
    // punctuation
    "(",
    ")",
    "(",
    ")",
    "[",
    "]",
    ",",
    ";",
    "{",
    "}",
    ":",
    "'",
    "\"",
    // comments
    "//",
    "/*",
    "*/",
    "/* c */",
    "// c\n",
    // keywords and types
    "let",
    "var",
    "fn",
    "return",
    "if",
    "else",
    "true",
    "struct",
    "array",
    "vec4<f32>",
    "vec2<u32>",
    "mat2x2<f32>",
    "ptr<function, f32>",
    "bitcast<u32>",
    "bitcast<f32>",
    "f32",
    "u32",
    "i32",
    "f16",
    "f64",
    "bool",
    "atomic<u32>",
    "discard",
    "const",
    "override",
    "enable",
    "alias",
    "switch",
    "case",
    "default",
    "break",
    "continue",
    "loop",
    "for",
    "while",
    "continuing",
    "private",
    "workgroup",
    "storage",
    "uniform",
    "read_write",
    "_",
    // built-ins and names of the templates
    "abs",
    "max",
    "min",
    "select",
    "sqrt",
    "sin",
    "exp",
    "log",
    "pow",
    "clamp",
    "dot",
    "length",
    "arrayLength",
    "workgroupBarrier",
    "storageBarrier",
    "atomicAdd",
    "textureLoad",
    "fma",
    "countOneBits",
    "reverseBits",
    "firstLeadingBit",
    "pack4x8snorm",
    "dpdx",
    "subgroupAdd",
    "load",
    "wang_hash",
    "rng_pcg32",
    "gp_out",
    "gp_params",
    "gp_in",
    "main",
    "i",
    "n",
    "x",
    "a",
    "b",
    "y",
    "z",
];

/// Characters of the character insertions: WGSL's punctuation, letters and digits, and a
/// few that are not WGSL at all.
const CHARS: &[char] = &[
    '(', ')', '[', ']', '{', '}', ',', ';', '.', ':', '+', '-', '*', '/', '%', '&', '|', '^', '!',
    '~', '<', '>', '=', '_', ' ', 'x', 'a', 'b', '0', '1', '9', 'e', 'f', 'h', 'u', 'i', 'p', '@',
    '\'', '"', '\\', '\0', '\t', '\n', '\r', '\u{7f}', 'é', 'λ', '\u{200b}', '\u{feff}', '𝑥', '∞',
];

fn loop_free(token: &str) -> bool {
    !matches!(token, "loop" | "for" | "while" | "continuing")
}

/// A soup of 1 to 40 tokens.
fn soup(kind: Kind, rng: &mut Rng) -> String {
    let n = 1 + rng.below(40);
    let mut out = String::new();
    for _ in 0..n {
        let token = if rng.below(3) == 0 {
            *rng.pick(kind.names())
        } else {
            *rng.pick(TOKENS)
        };
        if kind.no_loops() && !loop_free(token) {
            continue;
        }
        out.push_str(token);
        if rng.below(3) != 0 {
            out.push(' ');
        }
    }
    out
}

/// `text` split into runs: word characters, operator characters, white space, and single
/// other characters (brackets and the rest). Joined, they give `text` back.
fn runs(text: &str) -> Vec<String> {
    fn class(c: char) -> u8 {
        if c.is_alphanumeric() || c == '_' || c == '.' {
            0
        } else if "+-*/%&|^!~<>=".contains(c) {
            1
        } else if c.is_whitespace() {
            2
        } else {
            3
        }
    }
    let mut out: Vec<String> = Vec::new();
    let mut last = None;
    for c in text.chars() {
        let k = class(c);
        match out.last_mut() {
            Some(run) if last == Some(k) && k != 3 => run.push(c),
            _ => out.push(c.to_string()),
        }
        last = Some(k);
    }
    out
}

/// A valid text with 1 to 3 edits: a character or a token deleted, inserted, swapped with
/// its neighbour or duplicated.
fn mutant(kind: Kind, rng: &mut Rng) -> (String, String) {
    let seeds = kind.seeds();
    let seed = rng.below(seeds.len());
    let mut text = seeds[seed].clone();
    let mut edits = Vec::new();
    for _ in 0..1 + rng.below(3) {
        let edit = rng.below(8);
        if edit < 4 {
            let mut chars: Vec<char> = text.chars().collect();
            if chars.is_empty() {
                chars.push('x');
            }
            let at = rng.below(chars.len());
            match edit {
                0 => {
                    chars.remove(at);
                }
                1 => chars.insert(at, *rng.pick(CHARS)),
                2 => {
                    let j = (at + 1).min(chars.len() - 1);
                    chars.swap(at, j);
                }
                _ => chars.insert(at, chars[at]),
            }
            edits.push(["delete char", "insert char", "swap chars", "duplicate char"][edit]);
            text = chars.into_iter().collect();
        } else {
            let mut tokens = runs(&text);
            if tokens.is_empty() {
                tokens.push("x".into());
            }
            let at = rng.below(tokens.len());
            match edit {
                4 => {
                    tokens.remove(at);
                }
                5 => {
                    let mut t = *rng.pick(TOKENS);
                    if kind.no_loops() && !loop_free(t) {
                        t = "x";
                    }
                    tokens.insert(at, format!(" {t} "));
                }
                6 => {
                    let j = rng.below(tokens.len());
                    tokens.swap(at, j);
                }
                _ => {
                    let t = tokens[at].clone();
                    tokens.insert(at, t);
                }
            }
            edits.push(
                [
                    "delete token",
                    "insert token",
                    "swap tokens",
                    "duplicate token",
                ][edit - 4],
            );
            text = tokens.concat();
        }
    }
    (
        format!("mutant of seed {seed} ({})", edits.join(", ")),
        text,
    )
}

/// A flat chain: `n` terms joined by `+`.
fn chain(kind: Kind, n: usize) -> String {
    let terms = kind.terms();
    let mut out = String::with_capacity(n * (terms[0].len() + 3));
    for k in 0..n {
        if k > 0 {
            out.push_str(" + ");
        }
        out.push_str(terms[k % 2]);
    }
    out
}

const MIB: usize = 1 << 20;

/// The long and deep cases: each in every call.
fn long_cases(kind: Kind) -> Vec<(String, String)> {
    let [t0, t1] = kind.terms();
    let nest = |depth: usize, open: &str, close: &str| {
        format!("{}{t0}{}", open.repeat(depth), close.repeat(depth))
    };
    let mut select = t0.to_string();
    let condition = kind.condition();
    for k in 0..300 {
        let other = match kind {
            Kind::Grid => "load(x, y)",
            _ if k % 2 == 0 => t1,
            _ => t0,
        };
        select = format!("select({other}, {select}, {condition})");
    }
    let mut lets = String::with_capacity(5000 * 24);
    lets.push_str(&format!("let t0 = {t0};\n"));
    for k in 1..5000 {
        lets.push_str(&format!("let t{k} = t{} + {t1};\n", k - 1));
    }
    if matches!(kind, Kind::Body) {
        lets.push_str("z = t4999;");
    }
    let one = match kind {
        Kind::Expr(t, _) | Kind::Pair(t, _) | Kind::Predicate(t) => t.lit(1),
        _ => "1.0".into(),
    };
    let terms_per_mib = MIB / (t0.len() + 3) + 1;
    vec![
        (
            "flat chain of 5000 terms".into(),
            kind.wrap(&chain(kind, 5000)),
        ),
        (
            "flat chain of 20000 terms".into(),
            kind.wrap(&chain(kind, 20_000)),
        ),
        (
            "flat chain of 1 MiB".into(),
            kind.wrap(&chain(kind, terms_per_mib)),
        ),
        (
            "300 nested parentheses".into(),
            kind.wrap(&nest(300, "(", ")")),
        ),
        ("300 unary minuses".into(), kind.wrap(&nest(300, "- ", ""))),
        ("300 nested selects".into(), kind.wrap(&select)),
        ("5000 let lines".into(), lets),
        // 64 KiB, not 1 MiB: each costs lavapipe most of a second at 1 MiB (the compile's
        // message quotes the text), and the chain above is the 1 MiB expression.
        (
            "a 64 KiB literal".into(),
            kind.wrap(&format!("{t0} + {one}{}", "0".repeat(64 << 10))),
        ),
        (
            "a 64 KiB identifier".into(),
            kind.wrap(&format!("{t0} + q{}", "_".repeat(64 << 10))),
        ),
    ]
}

/// A call's cases: `(label, text)`, the same in every process for one seed.
fn cases(call: &Call, index: usize) -> Vec<(String, String)> {
    let count = setting("GPUPRIM_HOSTILE_CASES", 64) as usize;
    let seed = setting("GPUPRIM_HOSTILE_SEED", 48);
    let mut rng = Rng::new(seed ^ (index as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
    let mut out = Vec::new();
    // One in six a mutant: mutants reach the compiler far more often than soups, and a
    // kernel that compiles costs lavapipe a few hundred ms (soups cost almost nothing).
    for k in 0..count {
        if k % 6 == 5 {
            out.push(mutant(call.kind, &mut rng));
        } else {
            out.push(("token soup".to_string(), soup(call.kind, &mut rng)));
        }
    }
    if std::env::var_os("GPUPRIM_HOSTILE_SKIP_LONG").is_none_or(|v| v != "1") {
        out.extend(long_cases(call.kind));
    }
    out
}

/// A case's text for a report: whole if short, else its start, end and length.
fn shown(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= 160 {
        return format!("{text:?}");
    }
    let head: String = chars[..80].iter().collect();
    let tail: String = chars[chars.len() - 40..].iter().collect();
    format!("{head:?} ... {tail:?} ({} bytes)", text.len())
}

/// A line of a report, its middle left out if long.
fn clipped(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= 600 {
        return line.to_string();
    }
    let head: String = chars[..400].iter().collect();
    let tail: String = chars[chars.len() - 150..].iter().collect();
    format!("{head} [...] {tail} ({} bytes)", line.len())
}

// ---------------------------------------------------------------------------------------
// The calls.

/// The vectors every call reads, made once per child.
struct Fixture {
    ctx: Ctx,
    f: GpuVec<f32>,
    f2: GpuVec<f32>,
    u: GpuVec<u32>,
    u2: GpuVec<u32>,
    i: GpuVec<i32>,
    i2: GpuVec<i32>,
    /// Sorted keys with runs of several lengths.
    keys: GpuVec<u32>,
    /// Segments of `f`, `u`, `i`: empty, short and long.
    offsets: GpuVec<u32>,
    /// 7 x 5 grids.
    grid_f: GpuVec<f32>,
    grid_u: GpuVec<u32>,
    grid_i: GpuVec<i32>,
}

/// The length of the fixture's vectors: more than one vec4 and not a multiple of one.
const N: usize = 61;
const W: u32 = 7;
const H: u32 = 5;

impl Fixture {
    fn new(ctx: Ctx) -> Fixture {
        use common::random_vec;
        fn up<T>(r: gpuprim::Result<T>) -> T {
            r.expect("fixture upload")
        }
        let mut keys: Vec<u32> = random_vec::<u32>(N, 5).iter().map(|k| k % 9).collect();
        keys.sort_unstable();
        Fixture {
            f: up(ctx.upload(&random_vec::<f32>(N, 1))),
            f2: up(ctx.upload(&random_vec::<f32>(N, 2))),
            u: up(ctx.upload(&random_vec::<u32>(N, 3))),
            u2: up(ctx.upload(&random_vec::<u32>(N, 4))),
            i: up(ctx.upload(&random_vec::<i32>(N, 6))),
            i2: up(ctx.upload(&random_vec::<i32>(N, 7))),
            keys: up(ctx.upload(&keys)),
            offsets: up(ctx.upload(&[0u32, 3, 3, 17, 40, N as u32])),
            grid_f: up(ctx.upload(&random_vec::<f32>((W * H) as usize, 8))),
            grid_u: up(ctx.upload(&random_vec::<u32>((W * H) as usize, 9))),
            grid_i: up(ctx.upload(&random_vec::<i32>((W * H) as usize, 10))),
            ctx,
        }
    }
}

type Run = fn(&Fixture, &str) -> gpuprim::Result<()>;

/// A call that takes user WGSL, how it is called and what its text is.
struct Call {
    name: &'static str,
    kind: Kind,
    run: Run,
}

fn calls() -> Vec<Call> {
    use Kind::*;
    use Ty::*;
    let call = |name, kind, run: Run| Call { name, kind, run };
    vec![
        call("map", Expr(F32, F32), |fx, t| {
            fx.ctx.map(&fx.f, t).map(drop)
        }),
        call("map_to", Expr(F32, U32), |fx, t| {
            fx.ctx.map_to::<f32, u32>(&fx.f, t).map(drop)
        }),
        call("map_into", Expr(U32, U32), |fx, t| {
            let mut out = fx.ctx.zeros::<u32>(N)?;
            fx.ctx.map_into(&fx.u, t, &mut out)
        }),
        call("zip", Pair(F32, F32), |fx, t| {
            fx.ctx.zip(&fx.f, &fx.f2, t).map(drop)
        }),
        call("zip_to", Pair(I32, U32), |fx, t| {
            fx.ctx.zip_to::<i32, u32>(&fx.i, &fx.i2, t).map(drop)
        }),
        call("zip_into", Pair(U32, U32), |fx, t| {
            let mut out = fx.ctx.zeros::<u32>(N)?;
            fx.ctx.zip_into(&fx.u, &fx.u2, t, &mut out)
        }),
        call("elementwise", Body, |fx, t| {
            let mut y = fx.ctx.upload(&vec![0.5f32; N])?;
            let mut z = fx.ctx.zeros::<f32>(N)?;
            fx.ctx
                .elementwise(t)
                .read("x", &fx.f)
                .read_write("y", &mut y)
                .write("z", &mut z)
                .raw("u", &fx.f2)
                .scalar("alpha", 1.5f32)
                .device_scalar("d", &fx.f, 3)
                .run()
        }),
        call("elementwise (argument names)", Name, |fx, t| {
            let mut z = fx.ctx.zeros::<f32>(N)?;
            fx.ctx
                .elementwise("z = 1.0;")
                .read(t, &fx.f)
                .write("z", &mut z)
                .scalar(&format!("{t}_s"), 2u32)
                .run()
        }),
        call("transform_reduce", Transform, |fx, t| {
            fx.ctx
                .transform_reduce::<f32>(t, Reduce::Sum)
                .read("x", &fx.f)
                .read("y", &fx.f2)
                .scalar("w", 2.0f32)
                .raw("u", &fx.f)
                .device_scalar("d", &fx.f2, 5)
                .run()
                .map(drop)
        }),
        call("transform_reduce_into", Transform, |fx, t| {
            let mut out = fx.ctx.zeros::<f32>(1)?;
            fx.ctx
                .transform_reduce::<f32>(t, Reduce::Max)
                .read("x", &fx.f)
                .read("y", &fx.f2)
                .scalar("w", 2.0f32)
                .raw("u", &fx.f)
                .device_scalar("d", &fx.f2, 5)
                .run_into(&mut out)
        }),
        call(
            "transform_reduce (Reduce::custom)",
            Pair(F32, F32),
            |fx, t| {
                fx.ctx
                    .transform_reduce::<f32>("x * 0.5", Reduce::custom(t, 0.0))
                    .read("x", &fx.f)
                    .run()
                    .map(drop)
            },
        ),
        call(
            "reduce_with (Reduce::custom, f32)",
            Pair(F32, F32),
            |fx, t| fx.ctx.reduce_with(&fx.f, Reduce::custom(t, 0.0)).map(drop),
        ),
        call(
            "reduce_with (Reduce::custom, u32)",
            Pair(U32, U32),
            |fx, t| fx.ctx.reduce_with(&fx.u, Reduce::custom(t, 0u32)).map(drop),
        ),
        call(
            "reduce_with_into (Reduce::custom, i32)",
            Pair(I32, I32),
            |fx, t| {
                let mut out = fx.ctx.zeros::<i32>(1)?;
                fx.ctx
                    .reduce_with_into(&fx.i, Reduce::custom(t, 0), &mut out)
            },
        ),
        call(
            "scan_with (inclusive ScanOp::custom, f32, reduce-then-scan)",
            Pair(F32, F32),
            |fx, t| {
                let scan = Scan::inclusive(ScanOp::custom(t, 0.0f32))
                    .algorithm(ScanAlgorithm::ReduceThenScan);
                fx.ctx.scan_with(&fx.f, &scan).map(drop)
            },
        ),
        call(
            "scan_with (exclusive ScanOp::custom, u32, single pass)",
            Pair(U32, U32),
            |fx, t| {
                let scan =
                    Scan::exclusive(ScanOp::custom(t, 0u32)).algorithm(ScanAlgorithm::SinglePass);
                fx.ctx.scan_with(&fx.u, &scan).map(drop)
            },
        ),
        call(
            "scan_with_into (inclusive ScanOp::custom, i32)",
            Pair(I32, I32),
            |fx, t| {
                let mut out = fx.ctx.zeros::<i32>(N)?;
                fx.ctx
                    .scan_with_into(&fx.i, &Scan::inclusive(ScanOp::custom(t, 0)), &mut out)
            },
        ),
        call(
            "scan_by_key_with (inclusive ScanOp::custom, f32)",
            Pair(F32, F32),
            |fx, t| {
                let scan = Scan::inclusive(ScanOp::custom(t, 0.0));
                fx.ctx.scan_by_key_with(&fx.keys, &fx.f, &scan).map(drop)
            },
        ),
        call(
            "scan_by_key_with (exclusive ScanOp::custom, i32)",
            Pair(I32, I32),
            |fx, t| {
                let scan = Scan::exclusive(ScanOp::custom(t, 0));
                fx.ctx.scan_by_key_with(&fx.keys, &fx.i, &scan).map(drop)
            },
        ),
        call(
            "scan_by_key_with_into (inclusive ScanOp::custom, u32)",
            Pair(U32, U32),
            |fx, t| {
                let mut out = fx.ctx.zeros::<u32>(N)?;
                let scan = Scan::inclusive(ScanOp::custom(t, 0));
                fx.ctx
                    .scan_by_key_with_into(&fx.keys, &fx.u, &scan, &mut out)
            },
        ),
        call(
            "scan_by_key_with_into (exclusive ScanOp::custom, f32)",
            Pair(F32, F32),
            |fx, t| {
                let mut out = fx.ctx.zeros::<f32>(N)?;
                let scan = Scan::exclusive(ScanOp::custom(t, 0.0));
                fx.ctx
                    .scan_by_key_with_into(&fx.keys, &fx.f, &scan, &mut out)
            },
        ),
        call(
            "reduce_by_key (Reduce::custom, f32)",
            Pair(F32, F32),
            |fx, t| {
                fx.ctx
                    .reduce_by_key(&fx.keys, &fx.f, Reduce::custom(t, 0.0))
                    .map(drop)
            },
        ),
        call(
            "reduce_by_key_into (Reduce::custom, i32)",
            Pair(I32, I32),
            |fx, t| {
                let mut keys = fx.ctx.zeros::<u32>(N)?;
                let mut values = fx.ctx.zeros::<i32>(N)?;
                let mut count = fx.ctx.zeros::<u32>(1)?;
                fx.ctx.reduce_by_key_into(
                    &fx.keys,
                    &fx.i,
                    Reduce::custom(t, 0),
                    &mut keys,
                    &mut values,
                    &mut count,
                )
            },
        ),
        call(
            "segmented_reduce (Reduce::custom, f32)",
            Pair(F32, F32),
            |fx, t| {
                fx.ctx
                    .segmented_reduce(&fx.f, &fx.offsets, Reduce::custom(t, 0.0))
                    .map(drop)
            },
        ),
        call(
            "segmented_reduce_into (Reduce::custom, u32)",
            Pair(U32, U32),
            |fx, t| {
                let mut out = fx.ctx.zeros::<u32>(5)?;
                fx.ctx
                    .segmented_reduce_into(&fx.u, &fx.offsets, Reduce::custom(t, 0), &mut out)
            },
        ),
        call(
            "segmented_path_into (Reduce::custom, i32, short)",
            Pair(I32, I32),
            |fx, t| {
                let mut out = fx.ctx.zeros::<i32>(5)?;
                fx.ctx
                    .segmented_path_into(&fx.i, &fx.offsets, Reduce::custom(t, 0), true, &mut out)
            },
        ),
        call(
            "segmented_path_into (Reduce::custom, i32, tiles)",
            Pair(I32, I32),
            |fx, t| {
                let mut out = fx.ctx.zeros::<i32>(5)?;
                fx.ctx.segmented_path_into(
                    &fx.i,
                    &fx.offsets,
                    Reduce::custom(t, 0),
                    false,
                    &mut out,
                )
            },
        ),
        call(
            "reduce_rows (Reduce::custom, f32)",
            Pair(F32, F32),
            |fx, t| {
                let grid = Grid2D::new(&fx.grid_f, W, H)?;
                fx.ctx.reduce_rows(&grid, Reduce::custom(t, 0.0)).map(drop)
            },
        ),
        call(
            "reduce_rows_into (Reduce::custom, u32)",
            Pair(U32, U32),
            |fx, t| {
                let grid = Grid2D::new(&fx.grid_u, W, H)?;
                let mut out = fx.ctx.zeros::<u32>(H as usize)?;
                fx.ctx
                    .reduce_rows_into(&grid, Reduce::custom(t, 0), &mut out)
            },
        ),
        call(
            "reduce_columns (Reduce::custom, i32)",
            Pair(I32, I32),
            |fx, t| {
                let grid = Grid2D::new(&fx.grid_i, W, H)?;
                fx.ctx.reduce_columns(&grid, Reduce::custom(t, 0)).map(drop)
            },
        ),
        call(
            "reduce_columns_into (Reduce::custom, f32)",
            Pair(F32, F32),
            |fx, t| {
                let grid = Grid2D::new(&fx.grid_f, W, H)?;
                let mut out = fx.ctx.zeros::<f32>(W as usize)?;
                fx.ctx
                    .reduce_columns_into(&grid, Reduce::custom(t, 0.0), &mut out)
            },
        ),
        call("compact (predicate, f32)", Predicate(F32), |fx, t| {
            fx.ctx.compact(&fx.f, t).map(drop)
        }),
        call(
            "compact_indices (predicate, i32)",
            Predicate(I32),
            |fx, t| fx.ctx.compact_indices(&fx.i, t).map(drop),
        ),
        call("compact_into (predicate, u32)", Predicate(U32), |fx, t| {
            let mut out = fx.ctx.zeros::<u32>(N)?;
            let mut count = fx.ctx.zeros::<u32>(1)?;
            fx.ctx.compact_into(&fx.u, t, &mut out, &mut count)
        }),
        call(
            "compact_indices_into (predicate, f32)",
            Predicate(F32),
            |fx, t| {
                let mut out = fx.ctx.zeros::<u32>(N)?;
                let mut count = fx.ctx.zeros::<u32>(1)?;
                fx.ctx.compact_indices_into(&fx.f, t, &mut out, &mut count)
            },
        ),
        call("map2d (body)", Grid, |fx, t| {
            let mut out = fx.ctx.zeros::<f32>((W * H) as usize)?;
            fx.ctx.map2d(
                &Grid2D::new(&fx.grid_f, W, H)?,
                &mut Grid2DMut::new(&mut out, W, H)?,
                t,
                Swizzle::Off,
            )
        }),
    ]
}

// ---------------------------------------------------------------------------------------
// The child.

/// Runs the calls `calls` (indices into [`calls`], comma-separated), the first from case
/// `FROM`, the others whole; returns only by exiting the process.
fn child(calls_env: &str) {
    let all = calls();
    let mine: Vec<usize> = calls_env
        .split(',')
        .map(|c| {
            c.parse()
                .unwrap_or_else(|_| panic!("{CHILD}={calls_env:?}"))
        })
        .collect();
    let from = setting(FROM, 0) as usize;
    let ctx = Ctx::new().unwrap_or_else(|e| panic!("no GPU context: {e}"));
    let fixture = Arc::new(Fixture::new(ctx));
    let mut out = std::io::stdout().lock();
    let info = fixture.ctx.info();
    writeln!(out, "adapter {} ({:?})", info.name, info.backend).unwrap();
    let mut failed = false;
    let verbose = std::env::var_os("GPUPRIM_HOSTILE_VERBOSE").is_some();
    for (at, &c) in mine.iter().enumerate() {
        let call = &all[c];
        let run = call.run;
        let skip = if at == 0 { from } else { 0 };
        for (k, (_, text)) in cases(call, c).iter().enumerate().skip(skip) {
            writeln!(out, "start {c} {k}").unwrap();
            out.flush().unwrap();
            let began = Instant::now();
            let fx = Arc::clone(&fixture);
            let case = text.clone();
            // A thread of its own, with the default stack, as every spawned thread has.
            let outcome = std::thread::spawn(move || {
                std::panic::catch_unwind(AssertUnwindSafe(|| run(&fx, &case)))
            })
            .join();
            let verdict = match outcome {
                Ok(Ok(Ok(()))) => "Ok".to_string(),
                Ok(Ok(Err(e))) => {
                    let message = without_case(&e.to_string(), text).replace('\n', " | ");
                    if let Error::Internal { .. } = e {
                        // By its own words a gpuprim bug, whatever the input.
                        failed = true;
                        writeln!(out, "fail {c} {k} returned Error::Internal: {message}").unwrap();
                    } else if verbose {
                        writeln!(out, "note {c} {k} {message}").unwrap();
                    }
                    variant(&e)
                }
                Ok(Err(payload)) | Err(payload) => {
                    failed = true;
                    let why = panic_text(&payload).replace('\n', " | ");
                    writeln!(out, "fail {c} {k} panicked: {why}").unwrap();
                    "panic".to_string()
                }
            };
            // A call that returned Ok must not leave an error for the next wait to find.
            if let Err(e) = fixture.ctx.synchronize() {
                failed = true;
                let e = e.to_string().replace('\n', " | ");
                writeln!(
                    out,
                    "fail {c} {k} after {verdict}, synchronize returned: {e}"
                )
                .unwrap();
            }
            let works = still_works(&fixture.ctx, k);
            if let Err(why) = &works {
                writeln!(out, "fail {c} {k} the context no longer works: {why}").unwrap();
            }
            writeln!(out, "end {c} {k} {verdict} {}", began.elapsed().as_millis()).unwrap();
            if works.is_err() {
                out.flush().unwrap();
                std::process::exit(BROKEN_CONTEXT);
            }
        }
    }
    writeln!(out, "done").unwrap();
    out.flush().unwrap();
    std::process::exit(i32::from(failed));
}

/// `message` with the case's text, where it quotes it, left out (it may be 1 MiB).
fn without_case(message: &str, text: &str) -> String {
    if text.len() < 40 {
        return message.to_string();
    }
    message
        .replace(&format!("{text:?}"), "<the case>")
        .replace(text, "<the case>")
}

/// The error's variant name, e.g. `InvalidArgument`.
fn variant(e: &Error) -> String {
    let debug = format!("{e:?}");
    debug
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("Err")
        .to_string()
}

fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(a panic without a message)".into())
}

/// A reduce of a random vector, against the CPU.
fn still_works(ctx: &Ctx, k: usize) -> Result<(), String> {
    let data = common::random_vec::<u32>(100 + k % 57, k as u64 + 11);
    let expected = data.iter().fold(0u32, |s, &v| s.wrapping_add(v));
    let v = ctx.upload(&data).map_err(|e| format!("upload: {e}"))?;
    match ctx.reduce(&v) {
        Ok(sum) if sum == expected => Ok(()),
        Ok(sum) => Err(format!("reduce gave {sum}, the CPU {expected}")),
        Err(e) => Err(format!("reduce: {e}")),
    }
}

// ---------------------------------------------------------------------------------------
// The parent.

/// A case of a call: (call index, case index).
type At = (usize, usize);

/// What one child said and how it ended.
struct Report {
    /// The cases it finished, with their verdicts and times (ms).
    ended: Vec<(At, String, u64)>,
    /// The last case it started.
    started: Option<At>,
    failures: Vec<(At, String)>,
    /// The errors of the cases, with `GPUPRIM_HOSTILE_VERBOSE`.
    notes: Vec<(At, String)>,
    done: bool,
    /// The adapter the child's context runs on.
    adapter: Option<String>,
    ending: Ending,
    stderr: String,
}

enum Ending {
    Exited(ExitStatus),
    Hung,
}

fn spawn_child(me: &std::path::Path, mine: &[usize], from: usize, deadline: Duration) -> Report {
    let list = mine
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let mut child = Command::new(me)
        .env(CHILD, list)
        .env(FROM, from.to_string())
        // Spawned threads keep Rust's default 2 MiB stack.
        .env_remove("RUST_MIN_STACK")
        // The dumps are of gpuprim's kernels (for Dawn in `.ci/run`); these hold
        // random user code.
        .env_remove("GPUPRIM_DUMP_WGSL")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting the child");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let lines = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
    });
    let errors = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let until = Instant::now() + deadline;
    let ending = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ending::Exited(status),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break Ending::Hung;
            }
        }
    };
    let lines = lines.join().unwrap_or_default();
    let stderr = errors.join().unwrap_or_default();
    let mut report = Report {
        ended: Vec::new(),
        started: None,
        failures: Vec::new(),
        notes: Vec::new(),
        done: false,
        adapter: None,
        ending,
        stderr,
    };
    for line in lines {
        if line == "done" {
            report.done = true;
            continue;
        }
        if let Some(adapter) = line.strip_prefix("adapter ") {
            report.adapter = Some(adapter.to_string());
            continue;
        }
        let mut words = line.splitn(4, ' ');
        let what = words.next().unwrap_or("");
        let c = words.next().and_then(|w| w.parse::<usize>().ok());
        let k = words.next().and_then(|w| w.parse::<usize>().ok());
        let rest = words.next().unwrap_or("").to_string();
        let (Some(c), Some(k)) = (c, k) else { continue };
        match what {
            "start" => report.started = Some((c, k)),
            "end" => {
                let (verdict, ms) = rest.split_once(' ').unwrap_or(("?", "0"));
                report
                    .ended
                    .push(((c, k), verdict.to_string(), ms.parse().unwrap_or(0)));
            }
            "fail" => report.failures.push(((c, k), rest)),
            "note" => report.notes.push(((c, k), rest)),
            _ => {}
        }
    }
    report
}

fn describe(status: &ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                6 => " (SIGABRT: an abort, as after a stack overflow)",
                11 => " (SIGSEGV)",
                9 => " (SIGKILL)",
                _ => "",
            };
            return format!("killed by signal {signal}{name}");
        }
    }
    format!("exit status {status}")
}

/// The last lines of a child's standard error.
fn tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(6)..]
        .iter()
        .map(|l| format!("      | {l}\n"))
        .collect()
}

/// What the children said of one call.
#[derive(Clone, Default)]
struct Seen {
    verdicts: Vec<Option<String>>,
    times: Vec<u64>,
    notes: Vec<String>,
    bad: Vec<(usize, String)>,
}

/// Runs the calls `mine` in as few children as it takes: a child that dies, hangs or
/// breaks its context is followed by one that starts at the next case.
fn run_calls(
    me: &std::path::Path,
    mine: &[usize],
    lens: &[usize],
    seen: &std::sync::Mutex<Vec<Seen>>,
    adapter: &std::sync::Mutex<Option<String>>,
    deadline: Duration,
) -> usize {
    let (mut at, mut from) = (0, 0);
    let mut children = 0;
    while at < mine.len() {
        children += 1;
        let report = spawn_child(me, &mine[at..], from, deadline);
        if let Some(name) = &report.adapter {
            *adapter.lock().unwrap() = Some(name.clone());
        }
        let mut seen = seen.lock().unwrap();
        for ((c, k), v, ms) in report.ended {
            seen[c].verdicts[k] = Some(v);
            seen[c].times[k] = ms;
        }
        for ((c, k), note) in report.notes {
            seen[c].notes[k] = note;
        }
        for ((c, k), why) in report.failures {
            seen[c].bad.push((k, why));
        }
        let finished = report.done
            && matches!(&report.ending, Ending::Exited(s) if s.code().is_some_and(|c| c <= 1));
        if finished {
            break;
        }
        // Died, hung or broke its context: the case it was in, then on to the next.
        let how = match &report.ending {
            Ending::Exited(s) => describe(s),
            Ending::Hung => format!("still running after {} s, killed", deadline.as_secs()),
        };
        let Some((c, k)) = report.started else {
            seen[mine[at]].bad.push((
                from,
                format!(
                    "the child ended before its first case ({how}); its standard error \
                     ends:\n{}",
                    tail(&report.stderr)
                ),
            ));
            break;
        };
        let context_broken =
            matches!(&report.ending, Ending::Exited(s) if s.code() == Some(BROKEN_CONTEXT));
        if !context_broken {
            seen[c].bad.push((
                k,
                format!(
                    "CRASH: {how}; its standard error ends:\n{}",
                    tail(&report.stderr)
                ),
            ));
            seen[c].verdicts[k] = Some("crash".into());
        }
        at = mine
            .iter()
            .position(|&m| m == c)
            .expect("a call of this child");
        from = k + 1;
        if from == lens[c] {
            (at, from) = (at + 1, 0);
        }
    }
    children
}

/// One call's lines of the report, and its number of failed cases.
fn report_call(index: usize, call: &Call, seen: &mut Seen) -> (String, usize) {
    use std::fmt::Write as _;
    let cases = cases(call, index);
    let mut counts: Vec<(String, usize)> = Vec::new();
    for v in seen
        .verdicts
        .iter()
        .map(|v| v.as_deref().unwrap_or("not run"))
    {
        match counts.iter_mut().find(|(name, _)| name == v) {
            Some((_, n)) => *n += 1,
            None => counts.push((v.to_string(), 1)),
        }
    }
    counts.sort();
    seen.bad.sort_by_key(|(k, _)| *k);
    let mut failed: Vec<usize> = seen.bad.iter().map(|(k, _)| *k).collect();
    failed.dedup();
    let times = &seen.times;
    let slowest = (0..cases.len())
        .max_by_key(|&k| times[k])
        .map(|k| format!("; slowest case {k} ({}), {} ms", cases[k].0, times[k]))
        .unwrap_or_default();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{}: {} cases, {}; {} failed ({:.1} s{slowest})",
        call.name,
        cases.len(),
        counts
            .iter()
            .map(|(v, n)| format!("{n} {v}"))
            .collect::<Vec<_>>()
            .join(", "),
        failed.len(),
        times.iter().sum::<u64>() as f64 / 1000.0,
    );
    if std::env::var_os("GPUPRIM_HOSTILE_VERBOSE").is_some() {
        for (k, (label, case)) in cases.iter().enumerate() {
            let v = seen.verdicts[k].as_deref().unwrap_or("not run");
            let _ = writeln!(
                text,
                "  case {k} ({label}): {v}, {} ms: {}",
                times[k],
                shown(case)
            );
            if !seen.notes[k].is_empty() {
                let _ = writeln!(text, "    error: {}", clipped(&seen.notes[k]));
            }
        }
    }
    for (k, why) in &seen.bad {
        let (label, case) = &cases[*k];
        let _ = writeln!(
            text,
            "  FAILED {} case {k} ({label}): {}\n    text: {}",
            call.name,
            clipped(why),
            shown(case)
        );
    }
    (text, failed.len())
}

fn parent() {
    let deadline = Duration::from_secs(setting("GPUPRIM_HOSTILE_DEADLINE", 300));
    let jobs = setting("GPUPRIM_HOSTILE_JOBS", 2).max(1) as usize;
    let only = std::env::var("GPUPRIM_HOSTILE_CALLS").ok();
    let me = std::env::current_exe().expect("the test binary's path");
    let start = Instant::now();
    println!(
        "hostile: seed {}, {} generated cases a call{}, {jobs} children at a time",
        setting("GPUPRIM_HOSTILE_SEED", 48),
        setting("GPUPRIM_HOSTILE_CASES", 64),
        if std::env::var_os("GPUPRIM_HOSTILE_SKIP_LONG").is_some_and(|v| v == "1") {
            ", long cases SKIPPED (GPUPRIM_HOSTILE_SKIP_LONG=1)"
        } else {
            " and the long ones"
        }
    );
    let calls = calls();
    let lens: Vec<usize> = calls
        .iter()
        .enumerate()
        .map(|(i, c)| cases(c, i).len())
        .collect();
    let chosen: Vec<usize> = (0..calls.len())
        .filter(|&i| {
            only.as_ref()
                .is_none_or(|o| calls[i].name.contains(o.as_str()))
        })
        .collect();
    let seen = std::sync::Mutex::new(
        lens.iter()
            .map(|&n| Seen {
                verdicts: vec![None; n],
                times: vec![0; n],
                notes: vec![String::new(); n],
                bad: Vec::new(),
            })
            .collect::<Vec<_>>(),
    );
    let adapter = std::sync::Mutex::new(None);
    // Each of `jobs` children at a time takes every `jobs`-th call.
    let children: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|j| {
                let mine: Vec<usize> = chosen.iter().copied().skip(j).step_by(jobs).collect();
                let (me, lens, seen, adapter) = (&me, &lens, &seen, &adapter);
                scope.spawn(move || {
                    if mine.is_empty() {
                        0
                    } else {
                        run_calls(me, &mine, lens, seen, adapter, deadline)
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    });
    let mut seen = seen.into_inner().unwrap();
    let (mut total, mut failed) = (0, 0);
    for &i in &chosen {
        let (text, bad) = report_call(i, &calls[i], &mut seen[i]);
        print!("{text}");
        total += lens[i];
        failed += bad;
    }
    println!(
        "hostile: {} of {total} cases of {} calls passed, in {children} child processes on \
         {} ({:.1} s)",
        total - failed,
        chosen.len(),
        adapter
            .into_inner()
            .unwrap()
            .unwrap_or_else(|| "no adapter".into()),
        start.elapsed().as_secs_f64()
    );
    // The plain closing line a test runner's summary reads.
    println!("{} passed, {} failed", total - failed, failed);
    if failed > 0 {
        std::process::exit(1);
    }
}
