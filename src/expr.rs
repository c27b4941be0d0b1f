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
    let reject = |why: String| Error::InvalidArgument {
        op,
        message: format!(
            "the {what} {text:?} is not one WGSL expression: {why}; pass a single expression \
             such as \"x * 2.0 + 1.0\" (no `;`, braces or comments)"
        ),
    };
    scan(text).map_err(reject)?;
    parse(text).map_err(reject)?;
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
    Err(format!("{} (at byte {within})", err.message()))
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
