//! User WGSL expressions (`map`'s `"x * 2.0"`, custom operators, predicates, `map2d`
//! bodies) are checked to be exactly one expression before they are spliced into a
//! template.
//!
//! A template puts the user's text inside parentheses, `return (EXPR);`. Text such as
//! `x); } fn g() -> f32 { return (1.0` would close them and add code of its own (which
//! may loop, unbounded: see `pipeline::loops_are_ours`). Two steps keep that out:
//!
//! 1. A character scan: no `;`, `{` or `}`, no comments (`//`, `/*`: naga's lexer would
//!    skip what they hide), and parentheses that never close more than they opened and
//!    end balanced. WGSL has no string literals, so every such character is a token:
//!    the text cannot reach past the template's parentheses.
//! 2. naga's WGSL front end parses the text on its own, as `_ = (EXPR);` in a function
//!    followed by a deliberate syntax error. Parsing stops at the first error, so names
//!    are never resolved: the text is one expression exactly when that first error is
//!    the deliberate one. Type errors and unknown names are left to the kernel's compile
//!    (`Error::Compile`, with the whole kernel around the expression).
//!
//! Before either step, the text's size is bounded ([`check_size`]): naga's WGSL front end
//! (and its GLSL writer) recurse once per operator of a chain such as `x + x + ... + x`,
//! with no limit of their own, so a long enough chain overflows the stack of the thread
//! that compiles it and aborts the process (docs/naga-recursion.md). gpuprim refuses
//! user code with more than [`MAX_TERMS`] operators and brackets in one statement, and
//! parses and compiles on a thread whose stack is sized for the code it is given
//! ([`compile_stack`]), so the caller's stack (2 MiB on a spawned thread) never matters.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use crate::error::{Error, Result};

/// The module the text is parsed in, at `{{EXPRESSION}}`. `enable f16;` because naga's
/// parser refuses `h` literals without it (the kernels enable it for f16 elements; the
/// compile refuses them elsewhere).
const WRAPPER_WGSL: &str = include_str!("../wgsl/expr.wgsl");
/// The deliberate syntax error after the function: a `)` where a declaration must start.
const SENTINEL: &str = ")";

/// Expressions that passed, so a repeated call does not parse again. The check depends
/// on the text alone, so one set serves every context; it starts over when full.
fn passed() -> &'static Mutex<HashSet<String>> {
    static PASSED: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    PASSED.get_or_init(Mutex::default)
}
const PASSED_KEPT: usize = 4096;

/// The most operators and brackets one statement of user WGSL may hold (see
/// [`term_count`]). naga recurses once per operator of a chain: with naga built at
/// opt-level 0 (a debug build of your program), its front end used about 7 KiB of stack
/// per operator and its GLSL writer about 25 KiB (x86-64, naga 30; release builds about
/// 0.6 KiB; its GLSL writer at opt-level 2 46 KiB, docs/naga-recursion.md); gpuprim's
/// compile thread is sized for this many at 64 KiB each.
pub(crate) const MAX_TERMS: usize = 4096;

/// Stack of a compile thread for code of no terms: naga's parser recurses up to 200
/// levels for nesting (parentheses, blocks) on its own, and a template kernel is compiled
/// on this much too.
const COMPILE_STACK_BASE: usize = 16 << 20;
/// Stack per term of user code on the compile thread (the most naga used, with room).
const COMPILE_STACK_PER_TERM: usize = 64 << 10;

/// An upper bound on how deep naga recurses for `text`: the most operator characters and
/// opening brackets (`(`, `[`, `.`, `<`, and every character of an operator) in one
/// statement (text between `;`, `{` and `}`). Each level of an expression's syntax tree
/// holds at least one of them, so no expression of the text is deeper.
pub(crate) fn term_count(text: &str) -> usize {
    text.split([';', '{', '}'])
        .map(|statement| {
            statement
                .chars()
                .filter(|c| "+-*/%&|^!~<>=([.".contains(*c))
                .count()
        })
        .max()
        .unwrap_or(0)
}

/// `Ok(terms)` (see [`term_count`]) if `text` is small enough to compile, else
/// `InvalidArgument` for `op` naming `what`, the count and the limit.
pub(crate) fn check_size(op: &'static str, what: &str, text: &str) -> Result<usize> {
    let terms = term_count(text);
    if terms > MAX_TERMS {
        return Err(Error::InvalidArgument {
            op,
            message: format!(
                "the {what} has {terms} operators and brackets in one statement ({} bytes); \
                 gpuprim compiles at most {MAX_TERMS}: naga, wgpu's shader compiler, recurses \
                 once per operator and would overflow its stack. Split the work: compute \
                 parts in separate calls, or write a kernel body whose `let` statements each \
                 hold a part",
                text.len()
            ),
        });
    }
    Ok(terms)
}

/// The stack of the thread that parses and compiles code of `terms` terms (see
/// [`crate::runtime::native::on_stack`]).
pub(crate) fn compile_stack(terms: usize) -> usize {
    COMPILE_STACK_BASE + terms.min(MAX_TERMS) * COMPILE_STACK_PER_TERM
}

/// `Ok` if `text` is exactly one WGSL expression, else `InvalidArgument` for `op` naming
/// `what` (e.g. "expression", "predicate") and quoting the text.
pub(crate) fn check_expression(op: &'static str, what: &str, text: &str) -> Result<()> {
    if passed()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .contains(text)
    {
        return Ok(());
    }
    let reject = |why: String| {
        // naga's message may quote a long token of the text.
        let why = crate::error::cut_long_lines(&why);
        Error::InvalidArgument {
            op,
            message: format!(
                "the {what} {} is not one WGSL expression: {why}; pass a single expression \
                 such as \"x * 2.0 + 1.0\" (no `;`, braces or comments)",
                crate::error::quote(text),
            ),
        }
    };
    let terms = check_size(op, what, text)?;
    scan(text).map_err(reject)?;
    crate::runtime::native::on_stack(compile_stack(terms), || parse(text))
        .map_err(|e| Error::Internal {
            op,
            message: format!("could not start the thread that parses user WGSL: {e}"),
        })?
        .map_err(reject)?;
    let mut set = passed().lock().unwrap_or_else(|p| p.into_inner());
    if set.len() >= PASSED_KEPT {
        set.clear();
    }
    set.insert(text.to_string());
    Ok(())
}

/// Step 1: the characters that could reach past the template's parentheses.
fn scan(text: &str) -> std::result::Result<(), String> {
    if text.trim().is_empty() {
        return Err("it is empty".into());
    }
    if let Some(at) = text.find("//").or_else(|| text.find("/*")) {
        return Err(format!("it has a comment (at byte {at})"));
    }
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        match c {
            ';' | '{' | '}' => return Err(format!("it has `{c}` (at byte {at})")),
            '(' => depth += 1,
            ')' if depth == 0 => {
                return Err(format!(
                    "its `)` at byte {at} closes a parenthesis it did not open"
                ));
            }
            ')' => depth -= 1,
            _ => {}
        }
    }
    if depth > 0 {
        return Err(format!("{depth} of its parentheses are not closed"));
    }
    Ok(())
}

/// Step 2: naga parses the text on its own; see the module docs.
fn parse(text: &str) -> std::result::Result<(), String> {
    let (before, after) = WRAPPER_WGSL
        .split_once("{{EXPRESSION}}")
        .expect("wgsl/expr.wgsl has {{EXPRESSION}}");
    let source = format!("{before}{text}{after}{SENTINEL}");
    let sentinel_at = source.len() - SENTINEL.len();
    let err = match naga::front::wgsl::parse_str(&source) {
        // The sentinel always fails the parse; reaching Ok would mean it did not.
        Ok(_) => return Err("naga accepted a module it should not have (a gpuprim bug)".into()),
        Err(e) => e,
    };
    let at = err
        .labels()
        .next()
        .and_then(|(span, _)| span.to_range())
        .map(|r| r.start);
    if at == Some(sentinel_at) {
        return Ok(());
    }
    // Say what naga said, with the position inside the user's text.
    let within = at
        .map(|a| a.saturating_sub(before.len()).min(text.len()))
        .unwrap_or(text.len());
    // naga names some failures only in a note ("internal WGSL front end error" with
    // "Parser recursion limit exceeded" for deep nesting).
    let notes: Vec<&str> = err.notes().collect();
    let message = if notes.iter().any(|n| n.contains("recursion limit")) {
        "it nests deeper than naga's parser allows (naga: \"Parser recursion limit \
         exceeded\"); split it into several calls or `let` statements"
            .to_string()
    } else if notes.is_empty() {
        err.message().to_string()
    } else {
        format!("{} ({})", err.message(), notes.join("; "))
    };
    Err(format!("{message} (at byte {within})"))
}

#[cfg(test)]
mod tests {
    use super::check_expression;

    fn ok(text: &str) {
        if let Err(e) = check_expression("test", "expression", text) {
            panic!("{text:?} was refused: {e}");
        }
    }

    fn refused(text: &str) -> String {
        match check_expression("test", "expression", text) {
            Err(crate::Error::InvalidArgument { message, .. }) => {
                assert!(message.contains(&format!("{text:?}")), "{message}");
                message
            }
            other => panic!("{text:?} was not refused: {other:?}"),
        }
    }

    #[test]
    fn expressions_pass() {
        for text in [
            "x",
            "x * 2.0 + 1.0",
            "a + b",
            "max(abs(a), abs(b))",
            "select(0.0, 1.0, x > 0.5)",
            "bitcast<f32>(bitcast<u32>(x) ^ 0x80000000u)",
            "vec4<f32>(x).x",
            "array<f32, 2>(x, 1.0)[1]",
            "load(x, y - 1) * 0.25 + load(x, y + 1) * 0.25",
            "(((x)))",
            "-x",
            "!(x > 0.5) && x < 2.0",
            "a / *p",
            "wang_hash(bitcast<u32>(x))",
            "x + (0.099975586h)",
            "x * 2.5lf",
            // Not WGSL that compiles, but one expression: the compile says why.
            "x +* 2.0",
            "a + c",
            "x * 2.5",
            "undefined_function(x)",
        ] {
            ok(text);
        }
    }

    #[test]
    fn more_than_an_expression_is_refused() {
        let m = refused("x); } fn g() -> f32 { return (1.0");
        assert!(m.contains("closes a parenthesis"), "{m}");
        for text in [
            "x; return 1.0",
            "x) + (x",
            "(x",
            "x /* ) */",
            "x // )",
            "",
            "   ",
            "{ x }",
            "x, 1.0",
            "let y = x",
            "x y",
            "x +",
            "1.0 @",
            "x = 1.0",
            "x++",
        ] {
            refused(text);
        }
        // naga's words, with the place in the user's text.
        let m = refused("x y");
        assert!(m.contains("at byte 2"), "{m}");
    }
}
