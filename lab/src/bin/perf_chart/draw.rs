//! The bar chart: per primitive, gpuprim's bar next to each peer's, as a fraction of
//! gpuprim's copy kernel's bandwidth (1.0), drawn with plotters into an RGB buffer and
//! written as PNG.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};

use crate::report::{PEER_NAMES, Report};

/// Where fonts usually are: Debian and Ubuntu (`fonts-dejavu-core`, `fonts-liberation`),
/// Fedora, Arch, macOS, Windows.
const FONT_CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Registers the TrueType font at `path`, or the first of [`FONT_CANDIDATES`] that
/// exists, as plotters' "sans-serif". Text is drawn by ab_glyph (pure Rust): the font
/// file is the only thing the chart needs from the system, and only at run time.
pub fn load_font(path: Option<&Path>) -> Result<PathBuf, String> {
    let path = match path {
        Some(p) => p.to_path_buf(),
        None => FONT_CANDIDATES
            .iter()
            .map(PathBuf::from)
            .find(|p| p.exists())
            .ok_or(format!(
                "no font found (looked for {FONT_CANDIDATES:?}): install one (Debian/Ubuntu: \
                 apt-get install fonts-dejavu-core) or pass --font PATH to a .ttf file"
            ))?,
    };
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    // plotters keeps fonts for the life of the program.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    register_font("sans-serif", FontStyle::Normal, bytes)
        .map_err(|_| format!("{}: not a TrueType/OpenType font", path.display()))?;
    Ok(path)
}

const WIDTH: u32 = 1200;
const HEAD: u32 = 136;
const LABELS: u32 = 300;
const BAR_PX: f64 = 17.0;
/// Space between two primitives' bar groups, in bars.
const GAP: f64 = 0.9;

/// gpuprim's colour, then the peers' in [`PEER_NAMES`] order.
const COLORS: [RGBColor; 4] = [
    RGBColor(31, 119, 180),
    RGBColor(238, 76, 44),
    RGBColor(118, 185, 0),
    RGBColor(148, 103, 189),
];

/// One bar: colour index (gpuprim 0, then the peers), fraction of the copy kernel, and
/// a note after the value (the peer's size where it differs).
type Bar = (usize, f64, String);

/// Draws the chart of `report` to `path` (PNG); `label` says which run it shows.
pub fn draw(report: &Report, label: &str, path: &Path) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("drawing the chart: {e}");
    let groups: Vec<(&str, Vec<Bar>)> = report
        .lines
        .iter()
        .map(|line| {
            let mut bars = Vec::new();
            if let Some(g) = &line.gpuprim {
                bars.push((0, g.fraction, String::new()));
            }
            for (i, p) in line.peers.iter().enumerate() {
                if let Some(p) = p {
                    let size = if p.n == report.n {
                        String::new()
                    } else {
                        format!(" (n = {})", Report::size(p.n))
                    };
                    bars.push((i + 1, p.fraction, size));
                }
            }
            (line.entry.label, bars)
        })
        .filter(|(_, bars)| !bars.is_empty())
        .collect();
    let units: f64 = groups
        .iter()
        .map(|(_, b)| b.len() as f64 + GAP)
        .sum::<f64>()
        + GAP;
    let height = HEAD + 60 + (units * BAR_PX).ceil() as u32;
    let max = groups
        .iter()
        .flat_map(|(_, b)| b.iter().map(|&(_, f, _)| f))
        .fold(1.0f64, f64::max);
    let x_max = (max * 1.12 * 10.0).ceil() / 10.0;
    let present: Vec<usize> = (0..4)
        .filter(|&c| {
            groups
                .iter()
                .any(|(_, b)| b.iter().any(|&(i, _, _)| i == c))
        })
        .collect();

    let mut buffer = vec![255u8; (WIDTH * height * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buffer, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let font = |size: f64| ("sans-serif", size).into_font();
        let title = format!(
            "gpuprim on {}: bandwidth as a fraction of gpuprim's copy kernel",
            report.device
        );
        let explain = format!(
            "n = {} elements of 4 bytes unless marked. Every bar counts the same bytes per \
             element; 1.0 = gpuprim's copy kernel ({:.0} GB/s). Longer is faster.",
            Report::size(report.n),
            report.copy_gb_per_s
        );
        let grey = RGBColor(80, 80, 80);
        root.draw(&Text::new(title, (20, 14), font(24.0)))
            .map_err(|e| err(&e))?;
        let line2 = format!("Figures: {label}");
        root.draw(&Text::new(line2, (20, 48), font(15.0).color(&grey)))
            .map_err(|e| err(&e))?;
        root.draw(&Text::new(explain, (20, 70), font(15.0).color(&grey)))
            .map_err(|e| err(&e))?;
        let mut x = 20;
        for &c in &present {
            let name = if c == 0 { "gpuprim" } else { PEER_NAMES[c - 1] };
            root.draw(&Rectangle::new(
                [(x, 104), (x + 16, 120)],
                COLORS[c].filled(),
            ))
            .map_err(|e| err(&e))?;
            root.draw(&Text::new(name, (x + 22, 105), font(16.0)))
                .map_err(|e| err(&e))?;
            x += 40 + 10 * name.len() as i32;
        }

        let (_, body) = root.split_vertically(HEAD);
        let mut chart = ChartBuilder::on(&body)
            .margin_right(30)
            .x_label_area_size(50)
            .y_label_area_size(LABELS)
            .build_cartesian_2d(0f64..x_max, 0f64..units)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_max_light_lines(1)
            .y_labels(0)
            .y_label_formatter(&|_| String::new())
            .x_labels((x_max * 10.0) as usize + 1)
            .x_label_formatter(&|v| format!("{v:.1}"))
            .x_desc("bandwidth / gpuprim's copy kernel")
            .label_style(font(14.0))
            .axis_desc_style(font(15.0))
            .draw()
            .map_err(|e| err(&e))?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(1.0, 0.0), (1.0, units)],
                grey.stroke_width(2),
            )))
            .map_err(|e| err(&e))?;

        let value_style = font(12.0)
            .into_text_style(&body)
            .pos(Pos::new(HPos::Left, VPos::Center));
        let label_style = font(15.0)
            .into_text_style(&root)
            .pos(Pos::new(HPos::Right, VPos::Center));
        let mut top = units - GAP;
        for (label, bars) in &groups {
            let mid = top - bars.len() as f64 / 2.0;
            let (px, py) = chart.backend_coord(&(0.0, mid));
            root.draw(&Text::new(
                label.to_string(),
                (px - 10, py),
                label_style.clone(),
            ))
            .map_err(|e| err(&e))?;
            for (c, fraction, note) in bars {
                let (lo, hi) = (top - 0.92, top);
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(0.0, lo), (*fraction, hi)],
                        COLORS[*c].filled(),
                    )))
                    .map_err(|e| err(&e))?;
                chart
                    .draw_series(std::iter::once(Text::new(
                        format!("{fraction:.2}{note}"),
                        (fraction + x_max * 0.006, (lo + hi) / 2.0),
                        value_style.clone(),
                    )))
                    .map_err(|e| err(&e))?;
                top -= 1.0;
            }
            top -= GAP;
        }
        root.present().map_err(|e| err(&e))?;
    }

    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), WIDTH, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder
        .write_header()
        .and_then(|mut w| w.write_image_data(&buffer))
        .map_err(|e| format!("{}: {e}", path.display()))
}
