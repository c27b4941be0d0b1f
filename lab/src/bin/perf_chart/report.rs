//! The figures per entry (times, fractions of the copy kernel's bandwidth, ratios) and
//! the markdown tables made from them.

use std::fmt::Write as _;

use crate::entries::{ENTRIES, Entry, LATENCY, LatencyEntry};
use crate::inputs::{Row, Source};

/// The parsed inputs; peers and lampshade are optional.
pub struct Inputs {
    pub gpuprim: Source,
    pub peers: Option<Source>,
    pub lampshade: Option<Source>,
}

/// One implementation's figure for one entry.
#[derive(Clone, Debug)]
pub struct Figure {
    pub ms: f64,
    /// Elements per call.
    pub n: u64,
    /// Bandwidth as a fraction of gpuprim's copy kernel (the chart's bar).
    pub fraction: f64,
    /// gpuprim's speed over this one's, per element: this one's time per element over
    /// gpuprim's (above 1: gpuprim is faster). `None` for gpuprim itself.
    pub ratio: Option<f64>,
}

/// One entry's figures: gpuprim, then the peers in the chart's order.
pub struct Line {
    pub entry: &'static Entry,
    pub section: String,
    pub gpuprim: Option<Figure>,
    pub peers: [Option<Figure>; 3],
}

/// The peers, in the order of [`Line::peers`], as the chart and table name them.
pub const PEER_NAMES: [&str; 3] = ["PyTorch", "CUB (CuPy)", "lampshade"];

/// Everything the chart and the table show.
pub struct Report {
    pub device: String,
    /// gpuprim's copy kernel, GB/s: 1.0 in the chart.
    pub copy_gb_per_s: f64,
    /// The table's `n` (the copy kernel's).
    pub n: u64,
    pub lines: Vec<Line>,
    pub latency: Vec<(&'static LatencyEntry, Option<f64>, Option<f64>)>,
    /// Rows not found, names matching ambiguously, repeated rows: printed, not fatal.
    pub warnings: Vec<String>,
}

impl Report {
    pub fn new(inputs: &Inputs) -> Result<Report, String> {
        let mut warnings = Vec::new();
        let copy_name = ENTRIES[0].gpuprim;
        let copy = inputs.gpuprim.find(copy_name, None)?.ok_or(format!(
            "the bandwidth CSV has no {copy_name:?} row, the reference"
        ))?;
        let n = copy.n.ok_or("the copy kernel's row has no n")?;
        let copy_gb_per_s =
            copy.bytes.ok_or("the copy kernel's row has no bytes")? as f64 / copy.ms / 1e6;
        let mut find = |source: Option<&Source>, what: &str, pattern: Option<&str>, near: u64| {
            let (source, pattern) = (source?, pattern?);
            match source.find(pattern, Some(near)) {
                Ok(Some(row)) => Some(row.clone()),
                Ok(None) => {
                    warnings.push(format!("{what}: no row {pattern:?}"));
                    None
                }
                Err(e) => {
                    warnings.push(format!("{what}: {e}"));
                    None
                }
            }
        };
        let mut lines = Vec::new();
        for entry in ENTRIES {
            let g = find(Some(&inputs.gpuprim), "gpuprim", Some(entry.gpuprim), n);
            let g_n = g.as_ref().and_then(|r| r.n).unwrap_or(n);
            let peer = |row: Option<Row>| {
                let row = row?;
                let pn = row.n.unwrap_or(g_n);
                Some(Figure {
                    ms: row.ms,
                    n: pn,
                    fraction: entry.bytes_per_element * pn as f64 / row.ms / 1e6 / copy_gb_per_s,
                    ratio: g
                        .as_ref()
                        .map(|g| (row.ms / pn as f64) / (g.ms / g_n as f64)),
                })
            };
            let peers = [
                peer(find(inputs.peers.as_ref(), "peers", entry.torch, g_n)),
                peer(find(inputs.peers.as_ref(), "peers", entry.cub, g_n)),
                peer(find(
                    inputs.lampshade.as_ref(),
                    "lampshade",
                    entry.lampshade,
                    g_n,
                )),
            ];
            let gpuprim = g.as_ref().map(|r| {
                let bytes = r
                    .bytes
                    .map_or(entry.bytes_per_element * g_n as f64, |b| b as f64);
                Figure {
                    ms: r.ms,
                    n: g_n,
                    fraction: bytes / r.ms / 1e6 / copy_gb_per_s,
                    ratio: None,
                }
            });
            lines.push(Line {
                entry,
                section: g.map(|r| r.section).unwrap_or_default(),
                gpuprim,
                peers,
            });
        }
        let latency = LATENCY
            .iter()
            .map(|e| {
                let g = find(Some(&inputs.gpuprim), "gpuprim", Some(e.gpuprim), n);
                let t = find(inputs.peers.as_ref(), "peers", e.torch, n);
                (e, g.map(|r| r.ms * 1e3), t.map(|r| r.ms * 1e3))
            })
            .collect();
        for (what, source) in [
            ("gpuprim", Some(&inputs.gpuprim)),
            ("peers", inputs.peers.as_ref()),
            ("lampshade", inputs.lampshade.as_ref()),
        ] {
            for d in source.map(|s| s.duplicates.as_slice()).unwrap_or_default() {
                warnings.push(format!(
                    "{what}: {d:?} appears more than once; the first counts"
                ));
            }
        }
        Ok(Report {
            device: inputs
                .gpuprim
                .device
                .clone()
                .unwrap_or_else(|| "unknown adapter".into()),
            copy_gb_per_s,
            n,
            lines,
            latency,
            warnings,
        })
    }

    /// `2^28`, `10^8` or the number itself.
    pub fn size(n: u64) -> String {
        if n.is_power_of_two() {
            format!("2^{}", n.ilog2())
        } else if n >= 10 && 10u64.pow(n.ilog10()) == n {
            format!("10^{}", n.ilog10())
        } else {
            n.to_string()
        }
    }

    /// The command that makes a gpuprim row.
    fn command(&self, section: &str) -> String {
        let log2 = if self.n.is_power_of_two() {
            self.n.ilog2().to_string()
        } else {
            "LOG2".into()
        };
        match section {
            "" => String::new(),
            "elementwise" => format!("`bandwidth {log2}`"),
            s => format!("`bandwidth {log2} {s}`"),
        }
    }

    /// The two markdown tables (bandwidth rows, then round trips) with their notes.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let has = |i: usize| self.lines.iter().any(|l| l.peers[i].is_some());
        let peers: Vec<usize> = (0..3).filter(|&i| has(i)).collect();
        let mut header = "| primitive | gpuprim | vs copy kernel |".to_string();
        let mut rule = "| --- | ---: | ---: |".to_string();
        for &i in &peers {
            let _ = write!(header, " {} |", PEER_NAMES[i]);
            rule.push_str(" ---: |");
        }
        let _ = writeln!(out, "{header} gpuprim command |\n{rule} --- |");
        let mut notes = Vec::new();
        for line in &self.lines {
            if line.gpuprim.is_none() && line.peers.iter().all(Option::is_none) {
                continue;
            }
            let mut label = line.entry.label.to_string();
            if let Some((peer, note)) = line.entry.note
                && line.peers[peer].is_some()
            {
                notes.push(note);
                let _ = write!(label, " [{}]", notes.len());
            }
            let (g, vs) = match &line.gpuprim {
                Some(f) => (
                    format!(
                        "{} ms, {:.0} GB/s{}",
                        ms(f.ms),
                        f.fraction * self.copy_gb_per_s,
                        self.other_size(f.n)
                    ),
                    format!("{:.2}", f.fraction),
                ),
                None => ("not in this run".into(), "-".into()),
            };
            let _ = write!(out, "| {label} | {g} | {vs} |");
            for &i in &peers {
                let cell = match &line.peers[i] {
                    Some(f) => {
                        let ratio = f
                            .ratio
                            .map(|r| format!(", **{r:.2}x**"))
                            .unwrap_or_default();
                        format!("{} ms{}{ratio}", ms(f.ms), self.other_size(f.n))
                    }
                    None => "-".into(),
                };
                let _ = write!(out, " {cell} |");
            }
            let _ = writeln!(out, " {} |", self.command(&line.section));
        }
        let _ = writeln!(
            out,
            "\nn = {} elements (4 bytes each) unless a cell says otherwise. \"vs copy kernel\": \
             bandwidth over gpuprim's copy kernel's ({:.0} GB/s), counting each input read \
             once and each output written once. Peers: time per call, then **gpuprim's speed \
             over the peer's** (the peer's time per element over gpuprim's; above 1.00x \
             gpuprim is faster).",
            Self::size(self.n),
            self.copy_gb_per_s
        );
        if !notes.is_empty() {
            out.push('\n');
        }
        for (i, note) in notes.iter().enumerate() {
            let _ = writeln!(out, "- [{}] {note}.", i + 1);
        }
        let rows: Vec<_> = self
            .latency
            .iter()
            .filter(|(_, g, t)| g.is_some() || t.is_some())
            .collect();
        if !rows.is_empty() {
            let _ = writeln!(
                out,
                "\n| host round trip | gpuprim | PyTorch | gpuprim time / PyTorch time | gpuprim command |\n\
                 | --- | ---: | ---: | ---: | --- |"
            );
            for (e, g, t) in rows {
                let us = |v: &Option<f64>| v.map_or("-".into(), |v| format!("{v:.1} us"));
                let ratio = match (g, t) {
                    (Some(g), Some(t)) => format!("{:.2}x", g / t),
                    _ => "-".into(),
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {ratio} | {} |",
                    e.label,
                    us(g),
                    us(t),
                    if g.is_some() {
                        self.command("latency")
                    } else {
                        String::new()
                    }
                );
            }
            let _ = writeln!(
                out,
                "\nHost clock, median over 300 calls in one process on a GPU (the `bandwidth` \
                 table's `latency` section); PyTorch: `x.sum().item()`, median over 200 \
                 (peers.py)."
            );
        }
        out
    }

    fn other_size(&self, n: u64) -> String {
        if n == self.n {
            String::new()
        } else {
            format!(" (n = {})", Self::size(n))
        }
    }
}

/// Milliseconds with four significant decimals where the figure is small.
fn ms(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.4}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::{LampshadeFormat, parse_bandwidth_csv, parse_lampshade, parse_peers};

    fn inputs() -> Inputs {
        let csv = "adapter,section,primitive,n,bytes,ms,gb_per_s,vs_copy\n\
            GPU,elementwise,copy kernel f32 (map x),1024,8192,0.004,,\n\
            GPU,reduce,sum f32 (reduce_into),1024,4096,0.001,,\n\
            GPU,latency,reduce n=2^10,1024,,0.03,,\n";
        let peers = "device: GPU  n = 2^10 = 1024\n\
            copy f32 (torch)   0.0040 ms  2048.0 GB/s\n\
            sum f32 (torch)    0.0020 ms  2048.0 GB/s\n\
            sum f32 (cupy, CUB)  0.0005 ms  8192.0 GB/s\n\
            latency sum n=2^10 (torch .item())   20.0 us\n";
        let lampshade = "primitive,items,gpu_elapsed_median_ms\nreduction_sum,2048,0.004\n";
        let format = LampshadeFormat {
            time_column: "gpu_elapsed_median_ms",
        };
        Inputs {
            gpuprim: parse_bandwidth_csv(csv).unwrap(),
            peers: Some(parse_peers(peers)),
            lampshade: Some(parse_lampshade(lampshade, &format).unwrap()),
        }
    }

    #[test]
    fn fractions_and_ratios_per_element() {
        let r = Report::new(&inputs()).unwrap();
        assert!((r.copy_gb_per_s - 2.048).abs() < 1e-9);
        let sum = r
            .lines
            .iter()
            .find(|l| l.entry.gpuprim == "sum f32 (reduce_into)")
            .unwrap();
        let g = sum.gpuprim.as_ref().unwrap();
        assert!(
            (g.fraction - 2.0).abs() < 1e-9,
            "4096 B in 1 us against 8192 B in 4 us"
        );
        let torch = sum.peers[0].as_ref().unwrap();
        assert!((torch.fraction - 1.0).abs() < 1e-9);
        assert!(
            (torch.ratio.unwrap() - 2.0).abs() < 1e-9,
            "torch takes twice as long"
        );
        assert!((sum.peers[1].as_ref().unwrap().ratio.unwrap() - 0.5).abs() < 1e-9);
        // lampshade's u32 sum of 2048 items in 4 us, with no gpuprim row to compare.
        let u32_sum = r
            .lines
            .iter()
            .find(|l| l.entry.gpuprim == "sum u32")
            .unwrap();
        let l = u32_sum.peers[2].as_ref().unwrap();
        assert_eq!((l.n, l.ratio), (2048, None));
        assert!((l.fraction - 1.0).abs() < 1e-9);
        assert!(r.warnings.iter().any(|w| w.contains("max f32")));
    }

    #[test]
    fn markdown_names_sizes_ratios_and_commands() {
        let md = Report::new(&inputs()).unwrap().markdown();
        assert!(md.contains("| sum f32 | 0.0010 ms, 4 GB/s | 2.00 | 0.0020 ms, **2.00x** | 0.0005 ms, **0.50x** | - | `bandwidth 10 reduce` |"), "{md}");
        assert!(
            md.contains("| sum u32 | not in this run | - | - | - | 0.0040 ms (n = 2^11) |"),
            "{md}"
        );
        assert!(md.contains("| blocking `reduce`, n = 2^10 | 30.0 us | 20.0 us | 1.50x | `bandwidth 10 latency` |"), "{md}");
        assert!(
            !md.contains("inclusive scan"),
            "rows with no figure are left out"
        );
    }

    #[test]
    fn sizes_print_as_powers() {
        assert_eq!(Report::size(1 << 28), "2^28");
        assert_eq!(Report::size(100_000_000), "10^8");
        assert_eq!(Report::size(3000), "3000");
    }
}
