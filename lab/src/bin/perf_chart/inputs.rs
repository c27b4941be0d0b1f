//! The three inputs: the `bandwidth` table's CSV, `peers.py`'s printout (PyTorch and
//! CuPy), and lampshade's `profile_primitives` printout. The printouts may hold anything
//! else as well (a whole device run's stdout): lines that are not rows are skipped.

/// One timed row of any source.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub name: String,
    /// The `bandwidth` table's section (`reduce`, `latency`, ...); empty for peers.
    pub section: String,
    /// Elements per call, where the source says.
    pub n: Option<u64>,
    /// Bytes per call as the source counts them, where it says.
    pub bytes: Option<u64>,
    /// Milliseconds per call.
    pub ms: f64,
}

/// A source's rows and the device it ran on. A row repeated (same name and size) is
/// noted in `duplicates` and dropped: the first one counts.
#[derive(Debug, Default)]
pub struct Source {
    pub device: Option<String>,
    pub rows: Vec<Row>,
    pub duplicates: Vec<String>,
}

impl Source {
    fn add(&mut self, row: Row) {
        if self.rows.iter().any(|r| r.name == row.name && r.n == row.n) {
            self.duplicates.push(row.name);
        } else {
            self.rows.push(row);
        }
    }

    /// The row whose name matches `pattern` (`*` stands for any text). Where several
    /// do (one primitive at several sizes), the one whose size is nearest `near`; two
    /// rows of different names at that size are an error that names them.
    pub fn find(&self, pattern: &str, near: Option<u64>) -> Result<Option<&Row>, String> {
        let distance = |r: &Row| match (r.n, near) {
            (Some(a), Some(b)) => (a as f64 / b as f64).ln().abs(),
            _ => 0.0,
        };
        let mut hits: Vec<&Row> = self
            .rows
            .iter()
            .filter(|r| glob(pattern, &r.name))
            .collect();
        hits.sort_by(|a, b| distance(a).total_cmp(&distance(b)));
        match hits.as_slice() {
            [a, b, ..] if distance(a) == distance(b) && a.name != b.name => Err(format!(
                "{pattern:?} matches several rows of one size: {:?}, {:?}",
                a.name, b.name
            )),
            _ => Ok(hits.first().copied()),
        }
    }
}

/// `text` matches `pattern`, in which each `*` stands for any run of characters.
pub fn glob(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Splits one CSV line into fields (RFC 4180 quoting: `"a, b"`, `""` for a quote).
pub fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let field = fields.last_mut().expect("never empty");
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            (c, _) => field.push(c),
        }
    }
    fields
}

/// The `bandwidth` table's `--csv` file. Columns are found by their header names, so
/// columns added later do no harm; lines starting with `#` are comments.
pub fn parse_bandwidth_csv(text: &str) -> Result<Source, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let (_, header) = lines.next().ok_or("the bandwidth CSV is empty")?;
    let header = csv_fields(header);
    let column = |name: &str| {
        header.iter().position(|h| h.trim() == name).ok_or(format!(
            "the bandwidth CSV has no {name:?} column (header: {header:?})"
        ))
    };
    let (adapter, section, primitive) =
        (column("adapter")?, column("section")?, column("primitive")?);
    let (n, bytes, ms) = (column("n")?, column("bytes")?, column("ms")?);
    let mut source = Source::default();
    for (i, line) in lines {
        let f = csv_fields(line);
        let get = |c: usize| f.get(c).map(|s| s.trim()).unwrap_or("");
        let number = |c: usize| -> Result<Option<f64>, String> {
            match get(c) {
                "" => Ok(None),
                s => s
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("bandwidth CSV line {}: {s:?} is not a number", i + 1)),
            }
        };
        if source.device.is_none() && !get(adapter).is_empty() {
            source.device = Some(get(adapter).to_string());
        }
        source.add(Row {
            name: get(primitive).to_string(),
            section: get(section).to_string(),
            n: number(n)?.map(|v| v as u64),
            bytes: number(bytes)?.map(|v| v as u64),
            ms: number(ms)?.ok_or(format!("bandwidth CSV line {}: no ms", i + 1))?,
        });
    }
    Ok(source)
}

/// `peers.py`'s printout: `device: NAME  n = 2^28 = 268435456`, rows
/// `NAME  0.3520 ms  3050.2 GB/s` and `latency NAME  22.4 us`. A row's `n` is the
/// `n=2^K` in its name (the sorts, the latency rows), else the device line's.
pub fn parse_peers(text: &str) -> Source {
    let mut source = Source::default();
    let mut n = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("device:") {
            let (device, size) = rest.split_once("n = 2^").unwrap_or((rest, ""));
            source.device.get_or_insert(device.trim().to_string());
            n = size
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|k| k.parse::<u32>().ok())
                .map(|k| 1u64 << k);
            continue;
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let row = match tokens.as_slice() {
            [name @ .., ms, "ms", gbs, "GB/s"] if !name.is_empty() => ms
                .parse::<f64>()
                .ok()
                .filter(|_| gbs.parse::<f64>().is_ok())
                .map(|ms| (name, ms)),
            ["latency", name @ .., us, "us"] if !name.is_empty() => {
                us.parse::<f64>().ok().map(|us| (name, us / 1e3))
            }
            _ => None,
        };
        if let Some((name, ms)) = row {
            let latency = tokens[0] == "latency" && tokens.last() == Some(&"us");
            let name = if latency {
                format!("latency {}", name.join(" "))
            } else {
                name.join(" ")
            };
            let own_n = size_in_name(&name);
            source.add(Row {
                section: if latency {
                    "latency".into()
                } else {
                    String::new()
                },
                n: own_n.or(n),
                bytes: None,
                ms,
                name,
            });
        }
    }
    source
}

/// The `K` of an `n=2^K` in a row's name, as 2^K.
fn size_in_name(name: &str) -> Option<u64> {
    let (_, after) = name.split_once("n=2^")?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse::<u32>().ok().map(|k| 1u64 << k)
}

/// How to read lampshade's printout: the column holding the time to compare.
pub struct LampshadeFormat<'a> {
    /// The column with the GPU time per call in ms (lampshade 0.13:
    /// `gpu_elapsed_median_ms`; `resident_wall_median_ms` adds the host's wait).
    pub time_column: &'a str,
}

/// lampshade's `profile_primitives` printout. lampshade 0.13 (the format read from its
/// source, `lampshade-0.13.0/examples/profile_primitives.rs`) prints an `adapter=...` line, a CSV header
/// `primitive,items,resident_wall_median_ms,gpu_elapsed_median_ms,...`, one line per
/// primitive and size, and `stage,` / `span,` / `validation,` detail lines, skipped
/// here. A primitive at several sizes gives several rows ([`Source::find`] picks the
/// nearest size). If no header is found, any line `NAME ... X ms` is taken as a row
/// instead, so another version's format still yields something to map.
pub fn parse_lampshade(text: &str, format: &LampshadeFormat) -> Result<Source, String> {
    let mut source = Source::default();
    let mut columns: Option<(usize, usize, usize, usize)> = None; // name, items, time, width
    let mut rows = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("adapter=") {
            let name = rest.split(" vendor=").next().unwrap_or(rest);
            source.device = Some(name.trim_matches('"').to_string());
            continue;
        }
        let f: Vec<String> = csv_fields(line)
            .into_iter()
            .map(|s| s.trim().to_string())
            .collect();
        if f.first().map(String::as_str) == Some("primitive") {
            let at = |name: &str| f.iter().position(|h| h == name);
            let (name, items) = (0, at("items").ok_or("lampshade header without items")?);
            let time = at(format.time_column).ok_or(format!(
                "lampshade's header has no column {:?}: {f:?} (choose one with --lampshade-column)",
                format.time_column
            ))?;
            columns = Some((name, items, time, f.len()));
            continue;
        }
        if let Some((name, items, time, width)) = columns
            && f.len() == width
            && !["stage", "span", "validation"].contains(&f[name].as_str())
            && let (Ok(items), Ok(ms)) = (f[items].parse::<u64>(), f[time].parse::<f64>())
        {
            rows.push((f[name].clone(), Some(items), ms));
        }
    }
    if columns.is_none() {
        for line in text.lines() {
            let tokens: Vec<&str> = line.split_whitespace().collect();
            if let Some(i) = tokens.iter().position(|t| *t == "ms")
                && let (Some(name), Some(ms)) = (tokens.first(), i.checked_sub(1))
                && let Ok(ms) = tokens[ms].parse::<f64>()
            {
                rows.push((name.trim_end_matches([':', ',']).to_string(), None, ms));
            }
        }
    }
    for (name, n, ms) in rows {
        source.add(Row {
            name,
            section: String::new(),
            n,
            bytes: None,
            ms,
        });
    }
    Ok(source)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(s: &'a Source, name: &str) -> &'a Row {
        s.find(name, None)
            .unwrap()
            .unwrap_or_else(|| panic!("no row {name:?}"))
    }

    #[test]
    fn glob_matches_stars_and_nothing_else() {
        assert!(glob("sum f32 (torch)", "sum f32 (torch)"));
        assert!(!glob("sum f32 (torch)", "sum f32 (torch) "));
        assert!(glob(
            "sort u32 keys n=2^* (torch.sort)",
            "sort u32 keys n=2^26 (torch.sort)"
        ));
        assert!(!glob(
            "sort u32 keys n=2^* (torch.sort)",
            "sort u32 keys n=2^26 (cupy, CUB)"
        ));
        assert!(glob("sort*", "sort u32"));
        assert!(glob("*x*", "axb"));
        assert!(!glob("a*a", "a"));
    }

    #[test]
    fn csv_fields_unquote() {
        assert_eq!(
            csv_fields(r#"a,"b, c","d ""e""",,f"#),
            ["a", "b, c", r#"d "e""#, "", "f"]
        );
    }

    #[test]
    fn bandwidth_csv_by_header_names() {
        let text = "# transcribed\n\
            adapter,section,primitive,n,bytes,ms,gb_per_s,vs_copy,extra\n\
            \"NVIDIA H100\",elementwise,copy kernel f32 (map x),268435456,2147483648,0.74,2902,1,x\n\
            \"NVIDIA H100\",scan,\"scan f32 inclusive, single pass\",268435456,2147483648,0.9535,,,\n\
            \"NVIDIA H100\",latency,\"synchronize, idle device\",,,0.0004,,,\n";
        let s = parse_bandwidth_csv(text).unwrap();
        assert_eq!(s.device.as_deref(), Some("NVIDIA H100"));
        let scan = get(&s, "scan f32 inclusive, single pass");
        assert_eq!(
            (scan.section.as_str(), scan.ms, scan.bytes),
            ("scan", 0.9535, Some(1 << 31))
        );
        assert_eq!(get(&s, "synchronize, idle device").n, None);
        assert!(parse_bandwidth_csv("adapter,primitive\n").is_err());
    }

    #[test]
    fn peers_rows_sizes_and_latency() {
        let text = "NVIDIA H100 80GB HBM3, 580.00, 1980 MHz, 2619 MHz\n\
            device: NVIDIA H100 80GB HBM3  n = 2^28 = 268435456\n\
            copy f32 (torch)                       0.7166 ms    2996.1 GB/s\n\
            sum f32 (cupy, CUB)                    0.3492 ms    3074.9 GB/s\n\
            sort u32 keys n=2^26 (cupy, CUB)       1.4450 ms     371.5 GB/s\n\
            sort u32 keys n=2^28 (cupy, CUB)       5.5400 ms     387.6 GB/s\n\
            cupy: No module named 'cupy'\n\
            copy kernel f32 (map x)                   0.7400 ms     2902.0     1.00x\n\
            -- host round trip: sum of n f32 already on the GPU, result on the host\n\
            latency sum n=2^10 (torch .item())       22.8 us\n\
            latency reduce n=2^10                    33.1 us\n\
            copy f32 (torch)                       0.7200 ms    2980.0 GB/s\n";
        let s = parse_peers(text);
        assert_eq!(s.device.as_deref(), Some("NVIDIA H100 80GB HBM3"));
        assert_eq!(get(&s, "copy f32 (torch)").ms, 0.7166);
        assert_eq!(get(&s, "copy f32 (torch)").n, Some(1 << 28));
        assert_eq!(s.duplicates, ["copy f32 (torch)"]);
        assert_eq!(get(&s, "sum f32 (cupy, CUB)").ms, 0.3492);
        let sort = |near| {
            s.find("sort u32 keys n=2^* (cupy, CUB)", Some(near))
                .unwrap()
                .unwrap()
        };
        assert_eq!(sort(1 << 26).ms, 1.445);
        assert_eq!(sort(1 << 29).ms, 5.54);
        let lat = get(&s, "latency sum n=2^10 (torch .item())");
        assert_eq!((lat.n, lat.section.as_str()), (Some(1024), "latency"));
        assert!((lat.ms - 0.0228).abs() < 1e-12);
        assert!(s.find("copy kernel f32 (map x)", None).unwrap().is_none());
        assert!(
            s.find("*(cupy, CUB)", None).is_err(),
            "two names at one size"
        );
    }

    /// The format of `lampshade-0.13.0/examples/profile_primitives.rs`.
    const LAMPSHADE: &str = r#"adapter="NVIDIA H100 80GB HBM3" vendor=4318 device=8994 device_type=DiscreteGpu backend=Vulkan driver="NVIDIA" driver_info="580" subgroup_min=32 subgroup_max=32 samples=5 warmup_ms=1000
primitive,items,resident_wall_median_ms,gpu_elapsed_median_ms,dispatch_median_ms,inter_pass_gap_ms,wall_minus_gpu_ms
reduction_sum,1000000,0.100,0.020,0.015,0.005,0.080
stage,reduction_sum,1000000,reduce,0.015,100.0%
span,reduction_sum,1000000,reduction.level.0,0.010
validation,reduction_sum,1000000,passed,1
reduction_sum,100000000,0.500,0.140,0.130,0.010,0.360
key_sort,100000000,9.000,8.500,8.000,0.500,0.500
"#;

    #[test]
    fn lampshade_csv_rows_by_name_and_nearest_size() {
        let format = LampshadeFormat {
            time_column: "gpu_elapsed_median_ms",
        };
        let s = parse_lampshade(LAMPSHADE, &format).unwrap();
        assert_eq!(s.device.as_deref(), Some("NVIDIA H100 80GB HBM3"));
        assert_eq!(s.rows.len(), 3, "{:?}", s.rows);
        let sum = |near| s.find("reduction_sum", Some(near)).unwrap().unwrap();
        assert_eq!(sum(1 << 28).ms, 0.140);
        assert_eq!(sum(1 << 20).ms, 0.020);
        assert_eq!(get(&s, "key_sort").n, Some(100_000_000));
        let wall = LampshadeFormat {
            time_column: "resident_wall_median_ms",
        };
        assert_eq!(
            get(&parse_lampshade(LAMPSHADE, &wall).unwrap(), "key_sort").ms,
            9.0
        );
        let bad = LampshadeFormat {
            time_column: "nope",
        };
        assert!(parse_lampshade(LAMPSHADE, &bad).is_err());
    }

    #[test]
    fn lampshade_other_formats_fall_back_to_ms_lines() {
        let format = LampshadeFormat {
            time_column: "gpu_elapsed_median_ms",
        };
        let s = parse_lampshade("scan: 1.25 ms (gpu)\nhello\nkey_sort 6.19 ms\n", &format).unwrap();
        assert_eq!(get(&s, "scan").ms, 1.25);
        assert_eq!(get(&s, "key_sort").ms, 6.19);
    }
}
