//! Histograms: [`Ctx::histogram`] and [`Ctx::histogram_range`] with their `_into` forms,
//! and their kernel's configuration ([`HistogramKernel`], `wgsl/histogram.wgsl`).

use super::{MAX_BINS, PARAMS_WGSL, Params, Pass, atomic_groups, grid, run_passes, workgroup_size};
use crate::element::GpuElement;
use crate::error::{Error, Result};
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::context::{Ctx, check_len};
use crate::runtime::dispatch::{chunks, units_per_binding};
use crate::runtime::vec::{GpuVec, LANES};
use crate::runtime::view::{View, units_wgsl};

const HISTOGRAM_WGSL: &str = include_str!("../../../wgsl/histogram.wgsl");
/// `gp_n()` of a histogram over a prefix view: the window stops at the device count,
/// bound at 3.
const COUNT_WGSL: &str = include_str!("../../../wgsl/atomic_count.wgsl");
/// `gp_n()` of a histogram over a whole vector.
const WHOLE_N_WGSL: &str = "fn gp_n() -> u32 { return params.n; }\n";

/// The range over which a histogram counts `f32` values.
#[derive(Clone, Copy)]
struct Range {
    lo: f32,
    hi: f32,
}

/// `wgsl/histogram.wgsl`: a histogram of `u32` keys or of values over a range, for one
/// key type, layout and way of counting.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct HistogramKernel {
    /// Values binned over `[lo, hi]` (`histogram_range`), else `u32` keys.
    range: bool,
    key: &'static str,
    /// Whether the keys are bound as `vec4` units.
    src_vec4: bool,
    /// Whether the keys are a prefix view, whose device count is bound at 3.
    counted: bool,
    /// Bins each workgroup counts in workgroup memory, or `None` to count with global
    /// atomics.
    shared_bins: Option<u64>,
    workgroup_size: u32,
}

impl KernelSource for HistogramKernel {
    fn name(&self) -> &'static str {
        if self.range {
            "histogram_range"
        } else {
            "histogram"
        }
    }

    fn element(&self) -> &'static str {
        self.key
    }

    fn wgsl(&self) -> Result<String> {
        let bounds = if self.counted {
            COUNT_WGSL
        } else {
            WHOLE_N_WGSL
        };
        render(
            HISTOGRAM_WGSL,
            &[
                ("KEY_RANGE", self.range.to_string()),
                ("KEY_U32", (!self.range).to_string()),
                ("SHARED", self.shared_bins.is_some().to_string()),
                ("GLOBAL", self.shared_bins.is_none().to_string()),
                ("SRC", units_wgsl("src", 0, self.key, false, self.src_vec4)?),
                ("BOUNDS", bounds.to_string()),
                (
                    "PARAMS",
                    render(PARAMS_WGSL, &[("WG", self.workgroup_size.to_string())])?,
                ),
                ("K", self.key.to_string()),
                ("WG", self.workgroup_size.to_string()),
                ("SB", self.shared_bins.unwrap_or(0).to_string()),
            ],
        )
    }
}

impl Ctx {
    /// A histogram of `keys` over `bins` bins: element `b` of the result is the number
    /// of keys equal to `b`. Keys `>= bins` are counted in no bin (ignored).
    ///
    /// Each workgroup counts into private bins in shared memory and adds its nonzero
    /// bins to the result with one atomic each; when the bins do not fit the device's
    /// workgroup memory (`bins * 4 > max_compute_workgroup_storage_size`, e.g. more than
    /// 8192 bins on a 32 KiB device) it counts with global atomics instead. Counts wrap
    /// past `u32::MAX`. An empty `keys` gives `bins` zeros.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `bins` is 0 or more than [`MAX_BINS`] (2^24).
    ///
    /// # Examples
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[0u32, 2, 2, 3, 9])?;      // 9 is out of range
    /// assert_eq!(ctx.histogram(&keys, 4)?, vec![1, 0, 2, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn histogram(&self, keys: &GpuVec<u32>, bins: u32) -> Result<Vec<u32>> {
        check_bins("histogram", bins)?;
        let mut counts = self.zeros::<u32>(bins as usize)?;
        self.histogram_impl("histogram", keys, bins, None, &mut counts)?;
        counts.to_vec()
    }

    /// [`Ctx::histogram`] added into `counts` on the device (`counts[b] += ...`), without
    /// reading back. `counts` must have exactly `bins` elements.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if `counts.len() != bins`; otherwise as
    /// [`Ctx::histogram`].
    ///
    /// # Examples
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[1u32, 1, 0])?;
    /// let mut counts = ctx.upload(&[10u32, 20])?;
    /// ctx.histogram_into(&keys, 2, &mut counts)?;
    /// assert_eq!(counts.to_vec()?, vec![11, 22]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn histogram_into(
        &self,
        keys: &GpuVec<u32>,
        bins: u32,
        counts: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.histogram_impl("histogram_into", keys, bins, None, counts)
    }

    /// A histogram of `f32` values over `bins` equal-width bins spanning `[lo, hi]`,
    /// like `numpy.histogram(v, bins, (lo, hi))` and `torch.histc`.
    ///
    /// `x` goes to bin `floor((x - lo) * (bins / (hi - lo)))` (the scale is computed in
    /// f64 and rounded to f32); `x == hi` counts in the last bin; NaN and values outside
    /// `[lo, hi]` are counted in no bin. Values within an ulp or so of a bin edge may land
    /// on either side, as the GPU rounds.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `bins` is 0 or more than [`MAX_BINS`], or unless
    /// `lo < hi` with both finite.
    ///
    /// # Examples
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[0.0f32, 0.25, 0.5, 0.99, 1.0, -0.1, f32::NAN])?;
    /// assert_eq!(ctx.histogram_range(&v, 2, 0.0, 1.0)?, vec![2, 3]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn histogram_range(
        &self,
        v: &GpuVec<f32>,
        bins: u32,
        lo: f32,
        hi: f32,
    ) -> Result<Vec<u32>> {
        check_bins("histogram_range", bins)?;
        check_range("histogram_range", lo, hi)?;
        let mut counts = self.zeros::<u32>(bins as usize)?;
        let range = Some(Range { lo, hi });
        self.histogram_impl("histogram_range", v, bins, range, &mut counts)?;
        counts.to_vec()
    }

    /// [`Ctx::histogram_range`] added into `counts` on the device, without reading
    /// back. `counts` must have exactly `bins` elements.
    ///
    /// # Examples
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1.0f32, 3.0, 3.5])?;
    /// let mut counts = ctx.zeros::<u32>(2)?;
    /// ctx.histogram_range_into(&v, 2, 0.0, 4.0, &mut counts)?;
    /// ctx.histogram_range_into(&v, 2, 0.0, 4.0, &mut counts)?;
    /// assert_eq!(counts.to_vec()?, vec![2, 4]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn histogram_range_into(
        &self,
        v: &GpuVec<f32>,
        bins: u32,
        lo: f32,
        hi: f32,
        counts: &mut GpuVec<u32>,
    ) -> Result<()> {
        check_range("histogram_range_into", lo, hi)?;
        self.histogram_impl(
            "histogram_range_into",
            v,
            bins,
            Some(Range { lo, hi }),
            counts,
        )
    }

    fn histogram_impl<K: GpuElement>(
        &self,
        op: &'static str,
        src: &GpuVec<K>,
        bins: u32,
        range: Option<Range>,
        counts: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.check_owned(op, &[&src.ctx, &counts.ctx])?;
        check_bins(op, bins)?;
        check_len(op, ("counts", counts.len()), ("bins", bins as usize))?;
        if src.is_empty() {
            return Ok(());
        }
        let wg = workgroup_size(self);
        // Bins are processed in windows that fit one binding (one window on real
        // devices; several only when the binding limit is tiny).
        let window = units_per_binding(self, 4).min(u64::from(bins));
        let shared_cap = u64::from(self.info().limits.max_compute_workgroup_storage_size / 4);
        let shared_bins = (window <= shared_cap).then(|| {
            window
                .next_power_of_two()
                .max(u64::from(wg))
                .min(shared_cap)
        });
        let keys = View::of(src);
        let config = HistogramKernel {
            range: range.is_some(),
            key: K::WGSL,
            src_vec4: keys.vec4(),
            counted: src.count.is_some(),
            shared_bins,
            workgroup_size: wg,
        };
        let kernel = self.pipeline_for(&config, "main")?;
        let (lo, hi, scale) = match range {
            Some(Range { lo, hi }) => (
                lo,
                hi,
                (f64::from(bins) / (f64::from(hi) - f64::from(lo))) as f32,
            ),
            None => (0.0, 0.0, 0.0),
        };
        let unit = (LANES * size_of::<K>()) as u64;
        let mut passes = Vec::new();
        for w in chunks(u64::from(bins), window) {
            for c in chunks(src.lanes4(), units_per_binding(self, unit)) {
                let n =
                    (src.len() as u64 - c.offset_units * LANES as u64).min(c.units * LANES as u64);
                let elements = c.units * LANES as u64;
                // Each group zeroes and merges its shared bins: keep groups few enough
                // that this costs less than the counting.
                let groups = c.units.div_ceil(u64::from(wg)).min(atomic_groups(self));
                let groups = match shared_bins {
                    Some(sb) => groups.min((elements / sb).max(1)),
                    None => groups,
                };
                passes.push(Pass {
                    src: c,
                    dst: (w.offset_units * 4, w.units * 4),
                    params: Params {
                        n: n as u32,
                        base: w.offset_units as u32,
                        width: w.units as u32,
                        bins,
                        lo,
                        hi,
                        scale,
                        first: (c.offset_units * LANES as u64) as u32,
                    },
                    grid: grid(self, groups)?,
                });
            }
        }
        run_passes(self, op, &kernel, &keys, counts, &passes)
    }
}

fn check_bins(op: &'static str, bins: u32) -> Result<()> {
    if bins == 0 {
        return Err(Error::InvalidArgument {
            op,
            message: "bins is 0; pass at least 1 bin".into(),
        });
    }
    if bins > MAX_BINS {
        return Err(Error::InvalidArgument {
            op,
            message: format!("{bins} bins is more than the maximum of {MAX_BINS} (2^24)"),
        });
    }
    Ok(())
}

fn check_range(op: &'static str, lo: f32, hi: f32) -> Result<()> {
    if lo.is_finite() && hi.is_finite() && lo < hi {
        Ok(())
    } else {
        Err(Error::InvalidArgument {
            op,
            message: format!("the range [lo, hi] = [{lo}, {hi}] must have finite lo < hi"),
        })
    }
}

/// The histogram kernels for the catalog test (`ops/catalog.rs`): keys and ranges, both
/// layouts, counted or not, global atomics and the shared bins a workgroup may take under
/// WebGPU's 16 KiB (up to 4096 bins) and past it (lavapipe's 32 KiB, a GPU's 48 KiB).
#[cfg(test)]
pub(super) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    for range in [false, true] {
        let key = if range { "f32" } else { "u32" };
        for src_vec4 in [true, false] {
            for counted in [false, true] {
                for shared_bins in [None, Some(256), Some(4096), Some(8192), Some(12288)] {
                    let config = HistogramKernel {
                        range,
                        key,
                        src_vec4,
                        counted,
                        shared_bins,
                        workgroup_size: 256,
                    };
                    if shared_bins.is_some_and(|b| b * 4 > 16384) {
                        c.add_native(&config);
                    } else {
                        c.add(&config);
                    }
                }
            }
        }
    }
}
