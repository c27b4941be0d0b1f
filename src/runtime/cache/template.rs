//! The template engine: the one renderer of every WGSL template, and the two dialects
//! of its output.
//!
//! A template is WGSL with four kinds of markup, each strict in every build:
//! - `{{NAME}}` is replaced by the value of `NAME`. A value is inserted as it is, never
//!   scanned again (user code may hold `{{`): a part with placeholders of its own is
//!   rendered first, and its text passed.
//! - `//#if NAME`, `//#else`, `//#endif` (each alone on its line) keep the lines of one
//!   branch; `NAME`'s value must be `true` or `false`.
//! - `//#for k < COUNT unroll FLAG` ... `//#endfor` is a loop over `k` in `0..COUNT`:
//!   written as a WGSL `for` loop when `FLAG` is `false`, and written out as `COUNT`
//!   blocks, each with `const k = <i>u;`, when it is `true` (per-key arrays indexed by
//!   constants stay in registers whatever the driver unrolls). `COUNT` is a name whose
//!   value is a number.
//! - `//#section NAME` splits a file into named parts ([`section`]); a part is a
//!   template of its own, and the markers never reach a rendered kernel.
//!
//! A `{{NAME}}` or directive whose name has no value, a value whose name the template
//! never mentions, an `//#if` without its `//#endif` and the like are
//! [`Error::Internal`]: a template and its Rust caller that drift apart fail at once,
//! with the line, instead of rendering a kernel that silently lost a part.
//!
//! The dialects: the WGSL gpuprim renders is the spec's, what a browser's compiler is
//! given and what `GPUPRIM_DUMP_WGSL` writes, with `enable subgroups;` in every module
//! that uses subgroups ([`spec_dialect`]). naga 30 refuses that line
//! (gfx-rs/wgpu#5555), so the compiler is given [`naga_dialect`]: the same text without
//! it. Both are here and nowhere else.

use std::borrow::Cow;

use crate::error::{Error, Result};

/// The op name [`Error::Internal`] carries for template errors.
const OP: &str = "template";

fn fail(message: String) -> Error {
    Error::Internal { op: OP, message }
}

/// Renders `template` with `vars` (name, value): see the module docs for the markup.
pub(crate) fn render<S: AsRef<str>>(template: &str, vars: &[(&str, S)]) -> Result<String> {
    for (i, (name, _)) in vars.iter().enumerate() {
        if vars[..i].iter().any(|(n, _)| n == name) {
            return Err(fail(format!("the value of {name} is given twice")));
        }
        if !mentions(template, name) {
            return Err(fail(format!(
                "{name} is given a value, but the template never uses it (template {:?})",
                excerpt(template)
            )));
        }
    }
    let renderer = Renderer { vars, template };
    let lines: Vec<&str> = template.lines().collect();
    let mut out = String::with_capacity(template.len() * 2);
    let mut at = 0;
    if renderer.block(&lines, &mut at, &mut out, true)? != BlockEnd::Eof {
        return Err(fail(format!(
            "line {at}: an //#else, //#endif or //#endfor without its //#if or //#for \
             (template {:?})",
            excerpt(template)
        )));
    }
    // A part inserted with its placeholders unfilled (user code never holds `{{NAME}}`
    // with a name in capitals: that is no WGSL).
    if let Some(name) = unfilled(&out) {
        return Err(fail(format!(
            "the rendered text holds {{{{{name}}}}}: a value was a part with placeholders \
             of its own, not rendered first (template {:?})",
            excerpt(template)
        )));
    }
    // A template without a last line break (a part placed inside a line) keeps none.
    if !template.ends_with('\n') {
        out.pop();
    }
    Ok(out)
}

/// Section `name` of a file of parts: the lines after its `//#section name` line up to
/// the next `//#section` line or the end. An unknown name is an [`Error::Internal`].
pub(crate) fn section<'a>(file: &'a str, name: &str) -> Result<&'a str> {
    let mut start = None;
    let mut offset = 0;
    for line in file.split_inclusive('\n') {
        let here = offset;
        offset += line.len();
        let Some(rest) = line.trim().strip_prefix("//#section") else {
            continue;
        };
        if let Some(s) = start {
            return Ok(&file[s..here]);
        }
        if rest.trim() == name {
            start = Some(offset);
        }
    }
    match start {
        Some(s) => Ok(&file[s..]),
        None => Err(fail(format!(
            "no section {name:?} in the file that starts {:?}",
            excerpt(file)
        ))),
    }
}

/// The first `{{NAME}}` in `text` whose name is capitals, digits and `_`.
fn unfilled(text: &str) -> Option<&str> {
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let after = &rest[open + 2..];
        if let Some(close) = after.find("}}") {
            let name = &after[..close];
            if !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            {
                return Some(name);
            }
        }
        rest = after;
    }
    None
}

/// Whether `template` mentions `name` in a placeholder or a directive.
fn mentions(template: &str, name: &str) -> bool {
    if template.contains(&format!("{{{{{name}}}}}")) {
        return true;
    }
    template.lines().any(|l| {
        let t = l.trim();
        (t.starts_with("//#if ") || t.starts_with("//#for "))
            && t.split_whitespace().any(|w| w == name)
    })
}

/// The first line of a template, for messages.
fn excerpt(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    line.chars().take(80).collect()
}

struct Renderer<'v, S> {
    vars: &'v [(&'v str, S)],
    template: &'v str,
}

/// How a block of lines ended.
#[derive(PartialEq)]
enum BlockEnd {
    Else,
    EndIf,
    EndFor,
    Eof,
}

impl<S: AsRef<str>> Renderer<'_, S> {
    fn value(&self, name: &str, line: usize) -> Result<&str> {
        self.vars
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_ref())
            .ok_or_else(|| {
                fail(format!(
                    "line {}: {name} has no value (template {:?})",
                    line + 1,
                    excerpt(self.template)
                ))
            })
    }

    fn flag(&self, name: &str, line: usize) -> Result<bool> {
        match self.value(name, line)? {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(fail(format!(
                "line {}: {name} is {other:?}, not true or false",
                line + 1
            ))),
        }
    }

    /// Renders lines from `*at` into `out` (or skips them unless `emit`) up to the
    /// directive that ends the block, which it returns, with `*at` past it.
    fn block(
        &self,
        lines: &[&str],
        at: &mut usize,
        out: &mut String,
        emit: bool,
    ) -> Result<BlockEnd> {
        while *at < lines.len() {
            let n = *at;
            let line = lines[n];
            *at += 1;
            let t = line.trim();
            if let Some(rest) = t.strip_prefix("//#") {
                let words: Vec<&str> = rest.split_whitespace().collect();
                match words.as_slice() {
                    ["else"] => return Ok(BlockEnd::Else),
                    ["endif"] => return Ok(BlockEnd::EndIf),
                    ["endfor"] => return Ok(BlockEnd::EndFor),
                    ["if", name] => {
                        let keep = if emit { self.flag(name, n)? } else { false };
                        let first = self.block(lines, at, out, emit && keep)?;
                        let last = if first == BlockEnd::Else {
                            self.block(lines, at, out, emit && !keep)?
                        } else {
                            first
                        };
                        if last != BlockEnd::EndIf {
                            return Err(fail(format!(
                                "line {}: //#if {name} has no //#endif",
                                n + 1
                            )));
                        }
                    }
                    ["for", var, "<", count, "unroll", flag] => {
                        let mut body = String::new();
                        let end = self.block(lines, at, &mut body, emit)?;
                        if end != BlockEnd::EndFor {
                            return Err(fail(format!("line {}: //#for has no //#endfor", n + 1)));
                        }
                        if emit {
                            self.for_loop(line, n, var, count, flag, &body, out)?;
                        }
                    }
                    ["section", ..] => {
                        return Err(fail(format!(
                            "line {}: a //#section marker in a template being rendered: \
                             render its sections (template::section)",
                            n + 1
                        )));
                    }
                    _ => {
                        return Err(fail(format!("line {}: unknown directive {t:?}", n + 1)));
                    }
                }
                continue;
            }
            if emit {
                self.substitute(line, n, out)?;
                out.push('\n');
            }
        }
        Ok(BlockEnd::Eof)
    }

    #[allow(clippy::too_many_arguments)]
    fn for_loop(
        &self,
        line: &str,
        n: usize,
        var: &str,
        count: &str,
        flag: &str,
        body: &str,
        out: &mut String,
    ) -> Result<()> {
        let indent = &line[..line.len() - line.trim_start().len()];
        let count_text = self.value(count, n)?;
        let times: u32 = count_text.parse().map_err(|_| {
            fail(format!(
                "line {}: the loop count {count} is {count_text:?}, not a number",
                n + 1
            ))
        })?;
        if self.flag(flag, n)? {
            for i in 0..times {
                out.push_str(&format!("{indent}{{\n{indent}    const {var} = {i}u;\n"));
                out.push_str(body);
                out.push_str(&format!("{indent}}}\n"));
            }
        } else {
            out.push_str(&format!(
                "{indent}for (var {var} = 0u; {var} < {times}u; {var}++) {{\n"
            ));
            out.push_str(body);
            out.push_str(&format!("{indent}}}\n"));
        }
        Ok(())
    }

    fn substitute(&self, line: &str, n: usize, out: &mut String) -> Result<()> {
        let mut rest = line;
        while let Some(open) = rest.find("{{") {
            out.push_str(&rest[..open]);
            let after = &rest[open + 2..];
            let close = after
                .find("}}")
                .ok_or_else(|| fail(format!("line {}: an unclosed {{{{ in {line:?}", n + 1)))?;
            let name = &after[..close];
            out.push_str(self.value(name, n)?);
            rest = &after[close + 2..];
        }
        out.push_str(rest);
        Ok(())
    }
}

/// The spec's WGSL for `wgsl`: `enable subgroups;` first where the module uses
/// subgroups (a subgroup built-in value or function outside comments) and does not say
/// so already. What browsers' compilers require and what dumps show.
pub(crate) fn spec_dialect(wgsl: String) -> String {
    if uses_subgroups(&wgsl) && !has_subgroups_enable(&wgsl) {
        format!("enable subgroups;\n{wgsl}")
    } else {
        wgsl
    }
}

/// The WGSL naga 30 is given: the spec's with `enable subgroups;` made a comment (naga
/// refuses the line, gfx-rs/wgpu#5555, though it compiles subgroup operations without
/// it), so the line numbers of naga's messages are the dump's.
pub(crate) fn naga_dialect(wgsl: &str) -> Cow<'_, str> {
    if !has_subgroups_enable(wgsl) {
        return Cow::Borrowed(wgsl);
    }
    Cow::Owned(
        wgsl.lines()
            .map(|l| {
                if l.trim() == "enable subgroups;" {
                    NAGA_SUBGROUPS_LINE
                } else {
                    l
                }
            })
            .flat_map(|l| [l, "\n"])
            .collect(),
    )
}

/// What `enable subgroups;` is in naga's dialect.
const NAGA_SUBGROUPS_LINE: &str = "// enable subgroups; (left out for naga 30)";

fn has_subgroups_enable(wgsl: &str) -> bool {
    wgsl.lines().any(|l| l.trim() == "enable subgroups;")
}

/// Whether code outside `//` comments names a subgroup built-in (`subgroup_size`,
/// `subgroup_invocation_id`) or function (`subgroupAdd`, `subgroupBallot`, ...).
fn uses_subgroups(wgsl: &str) -> bool {
    wgsl.lines().any(|line| {
        let code = line.split("//").next().unwrap_or("");
        code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|word| word.starts_with("subgroup"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_once() {
        let out = render("a {{T}} b {{WG}} {{T}}", &[("T", "f32"), ("WG", "256")]).unwrap();
        assert_eq!(out, "a f32 b 256 f32");
    }

    #[test]
    fn unknown_and_unused_names_fail() {
        let e = render("a {{T}}", &[("U", "u32")]).unwrap_err().to_string();
        assert!(e.contains("U is given a value"), "{e}");
        let e = render("a {{T}} {{V}}", &[("T", "u32")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("V has no value"), "{e}");
        // Values are not scanned again; user code may hold braces, but a part with a
        // placeholder left in it is a bug.
        assert_eq!(
            render("a {{T}}", &[("T", "{ {x = 1;} }")]).unwrap(),
            "a { {x = 1;} }"
        );
        assert_eq!(
            render("a {{T}}", &[("T", "{{x = 1;}}")]).unwrap(),
            "a {{x = 1;}}"
        );
        let e = render("a {{T}}", &[("T", "{{V}}")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("not rendered first"), "{e}");
        let e = render("a {{T", &[] as &[(&str, &str)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("unclosed"), "{e}");
    }

    #[test]
    fn conditionals_keep_one_branch() {
        let t = "x\n//#if A\ny\n//#else\nz\n//#endif\nw";
        assert_eq!(render(t, &[("A", "true")]).unwrap(), "x\ny\nw");
        assert_eq!(render(t, &[("A", "false")]).unwrap(), "x\nz\nw");
        let e = render(t, &[("A", "1")]).unwrap_err().to_string();
        assert!(e.contains("not true or false"), "{e}");
        let e = render("//#if A\ny", &[("A", "true")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("no //#endif"), "{e}");
        // A name used only in a branch not taken still counts as used, and is not
        // looked up there.
        let t = "//#if A\n{{B}}\n//#endif";
        assert_eq!(render(t, &[("A", "false"), ("B", "1")]).unwrap(), "");
        assert_eq!(render(t, &[("A", "false")]).unwrap(), "");
    }

    #[test]
    fn loops_are_written_out_or_kept() {
        let t = "  //#for k < N unroll U\n    a[k] = {{X}};\n  //#endfor\n";
        assert_eq!(
            render(t, &[("N", "2"), ("U", "true"), ("X", "1")]).unwrap(),
            "  {\n      const k = 0u;\n    a[k] = 1;\n  }\n  {\n      const k = 1u;\n    a[k] = 1;\n  }\n"
        );
        assert_eq!(
            render(t, &[("N", "2"), ("U", "false"), ("X", "1")]).unwrap(),
            "  for (var k = 0u; k < 2u; k++) {\n    a[k] = 1;\n  }\n"
        );
        let e = render(t, &[("N", "two"), ("U", "false"), ("X", "1")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a number"), "{e}");
    }

    #[test]
    fn sections_are_found_by_name() {
        let file = "head\n//#section a\nA\n//#section b\nB1\nB2\n";
        assert_eq!(section(file, "a").unwrap(), "A\n");
        assert_eq!(section(file, "b").unwrap(), "B1\nB2\n");
        assert!(section(file, "c").is_err());
        let e = render(file, &[] as &[(&str, &str)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("//#section"), "{e}");
    }

    #[test]
    fn the_dialects_differ_in_the_subgroups_line_alone() {
        let k = "// subgroupAdd in a comment\nfn f() -> u32 { return subgroupAdd(1u); }\n";
        let spec = spec_dialect(k.to_string());
        assert!(spec.starts_with("enable subgroups;\n"));
        assert_eq!(naga_dialect(&spec), format!("{NAGA_SUBGROUPS_LINE}\n{k}"));
        assert_eq!(spec.lines().count(), naga_dialect(&spec).lines().count());
        let plain = "// subgroupAdd in a comment only\nfn f() {}\n";
        assert_eq!(spec_dialect(plain.to_string()), plain);
    }
}
