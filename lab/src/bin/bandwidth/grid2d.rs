//! Rows for the 2D kernels in four workgroup orders (linear, NVIDIA's tiles 16 groups
//! wide, bands of 1024 workgroups, and `Swizzle::Auto`, which measures those three on its
//! first call, during the row's warm-up, and keeps one), then linear order again as a
//! control (the first row's pipeline: how far two rows of one kernel differ). Square f32
//! images, 4096 x 4096 and 8192 x 8192 on a GPU, 1024 x 1024 on the software adapter
//! (independent of `n`). Bytes count the image read once and written once.

use gpuprim::{Grid2D, Grid2DMut, Result, Swizzle};

use gpuprim_lab::timing::Bench;

/// A vertical 5-tap box blur as a `map2d` body.
const BLUR5: &str =
    "(load(x, y - 2) + load(x, y - 1) + load(x, y) + load(x, y + 1) + load(x, y + 2)) * 0.2";

pub fn rows(b: &mut Bench) -> Result<()> {
    let sides: &[u32] = if b.software { &[1024] } else { &[4096, 8192] };
    for &side in sides {
        rows_at(b, side)?;
    }
    Ok(())
}

fn rows_at(b: &mut Bench, side: u32) -> Result<()> {
    let ctx = b.ctx;
    let px = (side * side) as usize;
    println!("-- 2D kernels, {side} x {side} (bytes: read + write once)");
    let host: Vec<f32> = (0..px).map(|i| (i % 1021) as f32 / 1021.0).collect();
    let a = ctx.upload(&host)?;
    let mut out = ctx.zeros::<f32>(px)?;
    let swizzles = [
        ("off", Swizzle::Off),
        ("on n=16", Swizzle::Tiles { n: 16 }),
        ("bands 1024", Swizzle::Bands { workgroups: 1024 }),
        ("auto", Swizzle::Auto),
        // The first row's kernel again: how far two rows of one pipeline differ.
        ("off again", Swizzle::Off),
    ];
    for (name, sw) in swizzles {
        b.row(
            &format!("transpose f32 {side}x{side} swizzle {name}"),
            8 * px,
            || {
                ctx.transpose(
                    &Grid2D::new(&a, side, side)?,
                    &mut Grid2DMut::new(&mut out, side, side)?,
                    sw,
                )
            },
        )?;
    }
    // A vertical 5-tap box blur: each thread reads a column neighbourhood, the access
    // pattern swizzling is for. And a gather along columns, map2d's naive transpose:
    // neighbouring invocations read elements a row apart, so how much of each fetched
    // line gets used depends on which workgroups run together.
    let bodies = [
        ("map2d vertical blur r=2", BLUR5),
        ("map2d column gather load(y, x)", "load(y, x)"),
    ];
    for (label, body) in bodies {
        for (name, sw) in swizzles {
            b.row(&format!("{label} f32 swizzle {name}"), 8 * px, || {
                ctx.map2d(
                    &Grid2D::new(&a, side, side)?,
                    &mut Grid2DMut::new(&mut out, side, side)?,
                    body,
                    sw,
                )
            })?;
        }
    }
    for radius in [8, 32] {
        for (name, sw) in swizzles {
            b.row(
                &format!("blur_vertical r={radius} f32 swizzle {name}"),
                8 * px,
                || {
                    ctx.blur_vertical(
                        &Grid2D::new(&a, side, side)?,
                        &mut Grid2DMut::new(&mut out, side, side)?,
                        radius,
                        sw,
                    )
                },
            )?;
        }
    }
    drop((a, out));
    let rgba = ctx.upload(&vec![0.5f32; 4 * px])?;
    let mut rgba_out = ctx.zeros::<f32>(4 * px)?;
    let sepia = [
        [0.393, 0.769, 0.189, 0.0],
        [0.349, 0.686, 0.168, 0.0],
        [0.272, 0.534, 0.131, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    for (name, sw) in swizzles {
        b.row(
            &format!("color_filter rgba f32 swizzle {name}"),
            32 * px,
            || ctx.color_filter(&rgba, side, side, sepia, &mut rgba_out, sw),
        )?;
    }
    println!(
        "  Swizzle::Auto's choices so far (ms per call measured: off / tiles 16 / bands 1024):"
    );
    for c in ctx.swizzle_choices() {
        let ms: Vec<String> = c.ms.iter().map(|(_, ms)| format!("{ms:.4}")).collect();
        let what = match c.op {
            "blur_vertical" => format!(" r={}", c.shape.radius),
            "map2d" => format!(" {:.24}", c.code),
            _ => String::new(),
        };
        println!(
            "    {}{what} {}x{} groups: {:?} ({})",
            c.op,
            c.groups.0,
            c.groups.1,
            c.chosen,
            ms.join(" / ")
        );
    }
    Ok(())
}

/// `Swizzle::Auto` against linear order, timed alternately (off, auto, off, auto, ...:
/// three rows each, so drift over time falls on both), per kernel and size, with the
/// order Auto chose. The 2D rows above time each order once, one after another, and
/// their "off again" row shows how far that alone moves a short kernel.
pub fn auto_rows(b: &mut Bench) -> Result<()> {
    let sides: &[u32] = if b.software { &[1024] } else { &[4096, 8192] };
    let ctx = b.ctx;
    println!("-- Swizzle::Auto against linear order, alternating rows (median of three each)");
    for &side in sides {
        let px = (side * side) as usize;
        let host: Vec<f32> = (0..px).map(|i| (i % 1021) as f32 / 1021.0).collect();
        let a = ctx.upload(&host)?;
        let mut out = ctx.zeros::<f32>(px)?;
        for kernel in [
            "transpose",
            "map2d 5-tap",
            "blur_vertical r=8",
            "blur_vertical r=32",
        ] {
            let mut call = |sw: Swizzle| -> Result<()> {
                let src = Grid2D::new(&a, side, side)?;
                let mut dst = Grid2DMut::new(&mut out, side, side)?;
                match kernel {
                    "transpose" => ctx.transpose(&src, &mut dst, sw),
                    "map2d 5-tap" => ctx.map2d(&src, &mut dst, BLUR5, sw),
                    "blur_vertical r=8" => ctx.blur_vertical(&src, &mut dst, 8, sw),
                    _ => ctx.blur_vertical(&src, &mut dst, 32, sw),
                }
            };
            call(Swizzle::Auto)?; // measures and chooses, outside the timings
            let (mut off, mut auto) = (Vec::new(), Vec::new());
            for _ in 0..3 {
                off.push(b.time_on(ctx, || call(Swizzle::Off))?);
                auto.push(b.time_on(ctx, || call(Swizzle::Auto))?);
            }
            let median = |mut v: Vec<f64>| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
            let (off, auto) = (median(off), median(auto));
            let chosen = ctx
                .swizzle_choices()
                .into_iter()
                .find(|c| {
                    kernel.starts_with(c.op)
                        && c.shape.src_width == side
                        && (c.op != "blur_vertical"
                            || kernel.ends_with(&format!("r={}", c.shape.radius)))
                        && (c.op != "map2d" || c.code == BLUR5)
                })
                .map_or_else(|| "?".into(), |c| format!("{:?}", c.chosen));
            println!(
                "{kernel} {side}x{side}: off {off:.4} ms, auto {auto:.4} ms, {:.3}x (chose {chosen})",
                off / auto
            );
            for (order, ms) in [("off", off), ("auto", auto)] {
                let name = format!("{kernel} f32 {side}x{side} swizzle {order}, alternating");
                b.record_time(&name, 8 * px, ms);
            }
        }
    }
    Ok(())
}
