//! Every repository path that the docs, comments and templates name exists.
//!
//! A path is a word that starts at one of the repository's top-level folders (`src/`,
//! `wgsl/`, `tests/`, `benches/`, `examples/`, `docs/`, `lab/`, `integrations/`, `.ci/`)
//! and is not itself inside a longer path (`burn-core-0.22.1/tests/x.rs` and
//! `front/wgsl/lower/mod.rs` name other projects' files). It counts as existing if the
//! file or folder does, or a target of that name does (`tests/contexts` for
//! `tests/contexts.rs`, `examples/quickstart`), or, followed by `*`, some path starts
//! with it (`wgsl/sort_onesweep_*.wgsl`); paths through a `target` folder are build
//! output. Logs of the past are left out: CHANGELOG.md, lab/perf-journal.md and
//! lab/runs/ record what paths were then.

use std::path::{Path, PathBuf};

const ROOTS: [&str; 9] = [
    "src/",
    "wgsl/",
    "tests/",
    "benches/",
    "examples/",
    "docs/",
    "lab/",
    "integrations/",
    ".ci/",
];

/// Files read: text the project writes, by extension (and `.ci/run`).
fn is_text(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    matches!(
        ext,
        "rs" | "md" | "wgsl" | "sh" | "toml" | "py" | "mjs" | "c"
    ) || path.ends_with(".ci/run")
}

/// Folders and files not read: build output, dependencies, the past's logs.
fn skipped(relative: &str) -> bool {
    [
        "target",
        ".git",
        ".device",
        ".ci/node_modules",
        "integrations/burn/target",
        "lab/runs",
        "CHANGELOG.md",
        "lab/perf-journal.md",
        // This file's own examples of what is and is not a path.
        "tests/doc_paths.rs",
    ]
    .contains(&relative)
}

fn walk(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let relative = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if skipped(&relative) {
            continue;
        }
        if path.is_dir() {
            walk(root, &path, files);
        } else if is_text(&path) {
            files.push(path);
        }
    }
}

/// The paths `text` names, each with whether a `*` follows it.
fn paths_in(text: &str) -> Vec<(String, bool)> {
    let bytes = text.as_bytes();
    let path_char = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/');
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = ROOTS.iter().any(|r| bytes[i..].starts_with(r.as_bytes()));
        let alone = i == 0 || !path_char(bytes[i - 1]);
        if !(starts && alone) {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < bytes.len() && path_char(bytes[end]) {
            end += 1;
        }
        // A sentence's full stop or a path's trailing slash is not part of it.
        let path = text[i..end].trim_end_matches(['.', '/']);
        let root_only = ROOTS.iter().any(|r| r.trim_end_matches('/') == path);
        if !root_only {
            found.push((path.to_string(), bytes.get(end) == Some(&b'*')));
        }
        i = end.max(i + 1);
    }
    found
}

fn exists(root: &Path, path: &str, glob: bool) -> bool {
    // Build output (`integrations/burn/target/debug/examples/...`) is made by the run.
    if path.split('/').any(|part| part == "target") {
        return true;
    }
    let full = root.join(path);
    if glob {
        // Some entry of the folder starts with the name's prefix.
        let (dir, prefix) = path.rsplit_once('/').unwrap_or((".", path));
        return std::fs::read_dir(root.join(dir)).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with(prefix))
        });
    }
    full.exists()
        || ["rs", "wgsl", "sh"]
            .iter()
            .any(|ext| full.with_extension(ext).exists() && full.extension().is_none())
        // A folder of its own for a target: `tests/soak` for `tests/soak/main.rs`.
        || full.join("main.rs").exists()
}

#[test]
fn every_path_named_in_the_repository_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(root, root, &mut files);
    let mut named = 0;
    let mut missing = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for (line_no, line) in text.lines().enumerate() {
            for (path, glob) in paths_in(line) {
                named += 1;
                if !exists(root, &path, glob) {
                    let at = file.strip_prefix(root).unwrap().display();
                    missing.push(format!("{at}:{}: {path}", line_no + 1));
                }
            }
        }
    }
    // The scan itself works: the repository names its paths hundreds of times.
    assert!(named > 200, "only {named} paths found: the scan is broken");
    assert!(
        missing.is_empty(),
        "{} of {named} named paths do not exist:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn paths_are_found_as_the_docs_write_them() {
    assert_eq!(
        paths_in("see `src/ops/sort/kernels.rs`, and docs/PERFORMANCE.md."),
        [
            ("src/ops/sort/kernels.rs".to_string(), false),
            ("docs/PERFORMANCE.md".to_string(), false)
        ]
    );
    assert_eq!(
        paths_in("(`wgsl/sort_onesweep_*.wgsl`)"),
        [("wgsl/sort_onesweep_".to_string(), true)]
    );
    // Other projects' files, and folders named alone, are not the repository's paths.
    assert!(paths_in("burn-core-0.22.1/tests/backend.rs front/wgsl/lower/mod.rs").is_empty());
    assert!(paths_in("under src/ and wgsl/").is_empty());
}
