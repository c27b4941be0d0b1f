//! Rows for top_k and smallest_k: the radix select with its rank step (k = 16, 4096),
//! with its candidates sorted (k = 2^16), and the full sort (k past n / 2).
//!
//! Bytes count the input read once (4 n): the select reads it three times for these
//! inputs at 2^26 (two digit histograms, then the third digit's pass gathers the
//! candidates), so the GPU moves three times what the GB/s column says. The inputs are uniform f32 in [0, 1) (2^24
//! distinct values, as `torch.rand` makes: the k-th largest has a few equal copies) and
//! u32 over the whole range.
//!
//! Then top_k_rows of the same floats viewed as grids: 1024 rows of 16384 with k = 100,
//! and 2^16 rows of 1024 with k = 16 (fewer rows where n is smaller), against
//! `torch.topk(x.view(h, w), k, dim=-1)` in lab/peers_next.py. Bytes count the grid read
//! once.

use gpuprim::{GpuVec, Grid2D, Result};

use gpuprim_lab::timing::Bench;

pub fn rows(b: &mut Bench) -> Result<()> {
    let (ctx, n) = (b.ctx, b.n);
    let a = b.random_f32(8)?;
    let u = b.random_u32(9)?;
    for k in [16usize, 4096] {
        let mut values = ctx.zeros::<f32>(k)?;
        let mut indices = ctx.zeros::<u32>(k)?;
        b.row(&format!("top_k f32 k={k} (top_k_into)"), 4 * n, || {
            ctx.top_k_into(&a, &mut values, &mut indices)
        })?;
        check(&a, &values, &indices)?;
        b.row(&format!("smallest_k f32 k={k}"), 4 * n, || {
            ctx.smallest_k_into(&a, &mut values, &mut indices)
        })?;
        let mut values_u = ctx.zeros::<u32>(k)?;
        b.row(&format!("top_k u32 k={k}"), 4 * n, || {
            ctx.top_k_into(&u, &mut values_u, &mut indices)
        })?;
    }
    // Past the rank step's largest k (8192 on a GPU): the select, then two sorts of the
    // candidates. Past n / 2: a stable sort of all (value, index) pairs.
    for (k, name) in [
        (1 << 16, "top_k f32 k=2^16 (candidates sorted)"),
        (n / 2 + 1, "top_k f32 k=n/2+1 (full sort)"),
    ] {
        if k > n {
            continue;
        }
        let mut values = ctx.zeros::<f32>(k)?;
        let mut indices = ctx.zeros::<u32>(k)?;
        b.row(name, 4 * n, || {
            ctx.top_k_into(&a, &mut values, &mut indices)
        })?;
    }
    for (w, h, k) in [(16384usize, 1024usize, 100usize), (1024, 1 << 16, 16)] {
        let h = h.min(n / w);
        if h == 0 {
            continue;
        }
        let grid = Grid2D::new(&a, w as u32, h as u32)?;
        let mut values = ctx.zeros::<f32>(h * k)?;
        let mut indices = ctx.zeros::<u32>(h * k)?;
        b.row(
            &format!("top_k_rows f32 {h} x {w} k={k} (top_k_rows_into)"),
            4 * w * h,
            || ctx.top_k_rows_into(&grid, &mut values, &mut indices),
        )?;
        check_rows(&a, (w, k), (&values, &indices))?;
    }
    Ok(())
}

/// That each row's output is its top k (as [`check`] does for a vector), on the host.
fn check_rows(
    a: &GpuVec<f32>,
    (w, k): (usize, usize),
    (values, indices): (&GpuVec<f32>, &GpuVec<u32>),
) -> Result<()> {
    let (host, got, idx) = (a.to_vec()?, values.to_vec()?, indices.to_vec()?);
    let ok = (0..got.len() / k).all(|r| {
        let row = &host[r * w..][..w];
        let (g, i) = (&got[r * k..][..k], &idx[r * k..][..k]);
        g.windows(2).all(|p| p[0] >= p[1])
            && i.iter().zip(g).all(|(&c, &x)| row[c as usize] == x)
            && row.iter().filter(|&&x| x > g[k - 1]).count() < k
    });
    let verdict = if ok { "is" } else { "is NOT" };
    println!("  (top_k_rows f32: each row's result {verdict} its top {k})");
    Ok(())
}
/// That the row's output is the top k: non-increasing values that are the input's
/// values at their indices, and no larger value left out (checked on the host).
fn check(a: &GpuVec<f32>, values: &GpuVec<f32>, indices: &GpuVec<u32>) -> Result<()> {
    let (host, got, idx) = (a.to_vec()?, values.to_vec()?, indices.to_vec()?);
    let Some(&last) = got.last() else {
        return Ok(());
    };
    let ok = got.windows(2).all(|w| w[0] >= w[1])
        && idx.iter().zip(&got).all(|(&i, &x)| host[i as usize] == x)
        && host.iter().filter(|&&x| x > last).count() < got.len();
    let verdict = if ok { "is" } else { "is NOT" };
    println!(
        "  (top_k f32: the result {verdict} the top {} of the input)",
        got.len()
    );
    Ok(())
}
