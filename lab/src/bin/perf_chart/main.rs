//! perf_chart: the bandwidth table next to PyTorch, CUB and lampshade, as a bar chart
//! (PNG) and as markdown tables, from the files a GPU run leaves:
//!
//! - `--bandwidth PATH`: `bandwidth --csv PATH`'s file (required; its copy kernel row is
//!   the 1.0 every bar is measured against);
//! - `--peers PATH`: `peers.py`'s printout (`../shared/device/peers.py`; other lines in
//!   the file are skipped, so a whole run's stdout will do);
//! - `--lampshade PATH`: lampshade's `profile_primitives` printout.
//!
//! Which row of each source is compared with which is the table in `entries.rs`.
//!
//! ```sh
//! cargo run --release -p gpuprim-lab --bin perf_chart -- --bandwidth bw.csv \
//!     --peers peers.txt --lampshade lampshade.txt --label "run AV, 1a2b3c4" \
//!     --png docs/perf-chart.png --markdown -
//! ```

mod draw;
mod entries;
mod inputs;
mod report;

use std::path::PathBuf;

use inputs::LampshadeFormat;
use report::{Inputs, Report};

const USAGE: &str = "usage: perf_chart --bandwidth CSV [--peers FILE] [--lampshade FILE]
                  [--label TEXT] [--png PATH] [--markdown PATH|-]
                  [--markdown-into FILE] [--font TTF]
                  [--lampshade-column NAME]
  --bandwidth CSV    the file `bandwidth --csv CSV` wrote (required)
  --peers FILE       peers.py's output (PyTorch, CuPy/CUB); other lines are skipped
  --lampshade FILE   lampshade's `profile_primitives` output
  --label TEXT       which run the figures come from, printed on the chart
  --png PATH         draw the bar chart there
  --markdown PATH    write the markdown tables there (`-`: standard output; the default
                     when neither --png nor --markdown-into is given)
  --markdown-into FILE
                     put the tables into FILE between the lines `<!-- perf_chart: begin -->`
                     and `<!-- perf_chart: end -->` (docs/PERFORMANCE.md has them)
  --font TTF         the chart's font (default: the first of the usual DejaVu, Liberation
                     or Arial paths that exists)
  --lampshade-column NAME
                     lampshade's column with the time to compare
                     (default gpu_elapsed_median_ms)";

#[derive(Default)]
struct Args {
    bandwidth: Option<PathBuf>,
    peers: Option<PathBuf>,
    lampshade: Option<PathBuf>,
    label: Option<String>,
    png: Option<PathBuf>,
    markdown: Option<String>,
    markdown_into: Option<PathBuf>,
    font: Option<PathBuf>,
    lampshade_column: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args::default();
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (a.clone(), None),
        };
        if flag == "-h" || flag == "--help" {
            return Err(String::new());
        }
        let value = inline
            .or_else(|| it.next())
            .ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--bandwidth" => args.bandwidth = Some(value.into()),
            "--peers" => args.peers = Some(value.into()),
            "--lampshade" => args.lampshade = Some(value.into()),
            "--label" => args.label = Some(value),
            "--png" => args.png = Some(value.into()),
            "--markdown" => args.markdown = Some(value),
            "--markdown-into" => args.markdown_into = Some(value.into()),
            "--font" => args.font = Some(value.into()),
            "--lampshade-column" => args.lampshade_column = Some(value),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(args)
}

fn read(path: &PathBuf) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn run(args: Args) -> Result<(), String> {
    let bandwidth = args
        .bandwidth
        .as_ref()
        .ok_or("--bandwidth CSV is required")?;
    let column = args
        .lampshade_column
        .as_deref()
        .unwrap_or("gpu_elapsed_median_ms");
    let inputs = Inputs {
        gpuprim: inputs::parse_bandwidth_csv(&read(bandwidth)?)?,
        peers: args
            .peers
            .as_ref()
            .map(read)
            .transpose()?
            .map(|t| inputs::parse_peers(&t)),
        lampshade: match &args.lampshade {
            Some(p) => Some(inputs::parse_lampshade(
                &read(p)?,
                &LampshadeFormat {
                    time_column: column,
                },
            )?),
            None => None,
        },
    };
    for (what, source) in [("peers", &inputs.peers), ("lampshade", &inputs.lampshade)] {
        if let Some(s) = source
            && s.rows.is_empty()
        {
            eprintln!("perf_chart: warning: no {what} rows found in the file");
        }
    }
    let report = Report::new(&inputs)?;
    for w in &report.warnings {
        eprintln!("perf_chart: {w}");
    }
    if let Some(png) = &args.png {
        let font = draw::load_font(args.font.as_deref())?;
        let label = args
            .label
            .as_deref()
            .unwrap_or("run not labelled (--label)");
        draw::draw(&report, label, png)?;
        eprintln!(
            "perf_chart: wrote {} (font {})",
            png.display(),
            font.display()
        );
    }
    let mut text = report.markdown();
    if let Some(label) = &args.label {
        text = format!("Figures: {label}; {}.\n\n{text}", report.device);
    }
    if let Some(path) = &args.markdown_into {
        let old = read(path)?;
        let new = splice(&old, &text).map_err(|e| format!("{}: {e}", path.display()))?;
        std::fs::write(path, new).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("perf_chart: wrote the tables into {}", path.display());
    }
    let markdown = match (
        &args.markdown,
        args.png.is_some() || args.markdown_into.is_some(),
    ) {
        (Some(m), _) => Some(m.as_str()),
        (None, false) => Some("-"),
        (None, true) => None,
    };
    if let Some(target) = markdown {
        if target == "-" {
            print!("{text}");
        } else {
            std::fs::write(target, text).map_err(|e| format!("{target}: {e}"))?;
        }
    }
    Ok(())
}

const BEGIN: &str = "<!-- perf_chart: begin -->";
const END: &str = "<!-- perf_chart: end -->";

/// `document` with the lines between [`BEGIN`] and [`END`] replaced by `tables`.
fn splice(document: &str, tables: &str) -> Result<String, String> {
    let missing =
        || format!("no lines {BEGIN:?} and {END:?} (in that order) to put the tables between");
    let begin = document.find(BEGIN).ok_or_else(missing)? + BEGIN.len();
    let end = begin + document[begin..].find(END).ok_or_else(missing)?;
    Ok(format!(
        "{}\n{tables}{}",
        &document[..begin],
        &document[end..]
    ))
}

fn main() {
    let result = parse_args().and_then(|args| run(args).map_err(|e| format!("perf_chart: {e}")));
    if let Err(e) = result {
        if e.is_empty() {
            println!("{USAGE}");
            return;
        }
        eprintln!("{e}\n\n{USAGE}");
        std::process::exit(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_replaces_between_the_markers_only() {
        let doc = format!("# P\n\n{BEGIN}\nold\ntable\n{END}\n\nrest\n");
        let new = splice(&doc, "| new |\n").unwrap();
        assert_eq!(new, format!("# P\n\n{BEGIN}\n| new |\n{END}\n\nrest\n"));
        assert_eq!(
            splice(&new, "| new |\n").unwrap(),
            new,
            "splicing twice changes nothing"
        );
        assert!(splice("no markers", "x").is_err());
        assert!(splice(&format!("{END}\n{BEGIN}\n"), "x").is_err());
    }
}
