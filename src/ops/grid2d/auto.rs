//! [`Swizzle::Auto`]'s measured choice: the orders it tries and the margin it asks for,
//! the choices it keeps ([`SwizzleChoice`]), and the `Ctx` methods that resolve an order
//! (`ordered`), time the candidates (`measure_orders`) and list what was chosen.

use super::Swizzle;
use crate::error::Result;
use crate::runtime::context::Ctx;

/// The orders [`Swizzle::Auto`] measures, linear order first.
pub const AUTO_CANDIDATES: [Swizzle; 3] = [
    Swizzle::Off,
    Swizzle::Tiles { n: 16 },
    Swizzle::Bands { workgroups: 1024 },
];

/// How much faster than linear order (a fraction of linear's time) another order must
/// measure for [`Swizzle::Auto`] to choose it.
pub const AUTO_MARGIN: f64 = 0.03;

/// Dispatches smaller than this many workgroups run in linear order under
/// [`Swizzle::Auto`], unmeasured.
pub const AUTO_MIN_WORKGROUPS: u32 = 32;

/// What [`Swizzle::Auto`] chose for one kernel and grid ([`Ctx::swizzle_choices`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SwizzleChoice {
    /// The operation, e.g. `"map2d"`.
    pub op: &'static str,
    /// The element type, as WGSL names it (`"f32"`, `"u32"`, ...).
    pub element: &'static str,
    /// The WGSL body of a [`Ctx::map2d`] (empty for the other kernels).
    pub code: String,
    /// The dispatch, in workgroups (width, height).
    pub groups: (u32, u32),
    /// The sizes the choice was made for (see [`SwizzleShape`]).
    pub shape: SwizzleShape,
    /// The order later calls use.
    pub chosen: Swizzle,
    /// Each candidate of [`AUTO_CANDIDATES`] with its measured milliseconds per call (the
    /// best of five rounds, host clock around submission and completion).
    pub ms: Vec<(Swizzle, f64)>,
}

/// The sizes a [`Swizzle::Auto`] choice is kept for ([`SwizzleChoice::shape`]), besides
/// its dispatch: the values of a kernel's call that size its work, so that calls which
/// differ in them are measured apart. Fields a kernel does not have are 0.
///
/// - [`Ctx::map2d`], [`Ctx::transpose`], [`Ctx::blur_vertical`]: both grids' width,
///   height and row pitch, in elements; the blur's `radius`.
/// - [`Ctx::color_filter`]: the image's width and height in pixels as `src_width` and
///   `src_height`; the other fields are 0.
///
/// Fields may be added in later versions (`#[non_exhaustive]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub struct SwizzleShape {
    /// The source grid's width.
    pub src_width: u32,
    /// The source grid's height.
    pub src_height: u32,
    /// The source grid's row pitch.
    pub src_pitch: u32,
    /// The destination grid's width.
    pub dst_width: u32,
    /// The destination grid's height.
    pub dst_height: u32,
    /// The destination grid's row pitch.
    pub dst_pitch: u32,
    /// [`Ctx::blur_vertical`]'s radius.
    pub radius: u32,
}

/// Where [`Swizzle::Auto`]'s choices are kept: by op, element type, dispatch and shape,
/// then by body (looked up without building a key).
pub(crate) type ChoiceKey = (&'static str, &'static str, (u32, u32), SwizzleShape);

/// The orders [`Swizzle::Auto`] chose on a context, per kernel and dispatch (the
/// context's op state).
#[derive(Default)]
pub(crate) struct Choices(
    pub(crate) std::sync::Mutex<std::collections::HashMap<ChoiceKey, Vec<SwizzleChoice>>>,
);

/// [`Swizzle::Auto`]'s rule: the fastest of `ms` (linear order first) if it measured at
/// least [`AUTO_MARGIN`] faster than linear order, else [`Swizzle::Off`].
fn pick(ms: &[(Swizzle, f64)]) -> Swizzle {
    let Some(&(_, linear)) = ms.first() else {
        return Swizzle::Off;
    };
    let (best, best_ms) = ms
        .iter()
        .copied()
        .fold((Swizzle::Off, linear), |b, c| if c.1 < b.1 { c } else { b });
    if best_ms <= linear * (1.0 - AUTO_MARGIN) {
        best
    } else {
        Swizzle::Off
    }
}

impl Ctx {
    /// Runs a 2D kernel once in `order` (`run(order)` builds and records it), resolving
    /// [`Swizzle::Auto`] first: the choice made earlier for this kernel (`op`, element
    /// type, user code) and dispatch (`groups`, `shape`: the sizes of the work), or
    /// one measured now (see [`Swizzle::Auto`]).
    pub(super) fn ordered(
        &self,
        (op, element, code): (&'static str, &'static str, &str),
        (groups, shape): ((u32, u32), SwizzleShape),
        order: Swizzle,
        run: impl Fn(Swizzle) -> Result<()>,
    ) -> Result<()> {
        if order != Swizzle::Auto {
            return run(order);
        }
        if u64::from(groups.0) * u64::from(groups.1) < u64::from(AUTO_MIN_WORKGROUPS) {
            return run(Swizzle::Off);
        }
        let key: ChoiceKey = (op, element, groups, shape);
        let known = self
            .op_state::<Choices>()
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            .and_then(|v| v.iter().find(|c| c.code == code))
            .map(|c| c.chosen);
        if let Some(chosen) = known {
            return run(chosen);
        }
        let ms = self.measure_orders(&run)?;
        let chosen = pick(&ms);
        let choice = SwizzleChoice {
            op,
            element,
            code: code.to_string(),
            groups,
            shape,
            chosen,
            ms,
        };
        let choices = self.op_state::<Choices>();
        let mut map = choices.0.lock().unwrap_or_else(|p| p.into_inner());
        let same = map.entry(key).or_default();
        // Another thread may have measured the same kernel meanwhile: keep one entry.
        same.retain(|c| c.code != code);
        same.push(choice);
        Ok(())
    }

    /// Milliseconds per call of `run` in each of [`AUTO_CANDIDATES`]: each run once
    /// (pipelines compiled, caches warm), then five rounds that time every candidate in
    /// turn over the same number of calls (about 8 ms of the linear order's time, at least
    /// 3 calls), host clock from the first submission to the GPU's completion; the best
    /// round of each.
    fn measure_orders(&self, run: &impl Fn(Swizzle) -> Result<()>) -> Result<Vec<(Swizzle, f64)>> {
        use std::time::Instant;
        const ROUNDS: usize = 5;
        const ROUND_MS: f64 = 8.0;
        for order in AUTO_CANDIDATES {
            run(order)?;
        }
        self.synchronize()?;
        let t = Instant::now();
        run(Swizzle::Off)?;
        self.synchronize()?;
        let one = t.elapsed().as_secs_f64() * 1e3;
        let calls = ((ROUND_MS / one.max(1e-3)) as usize).clamp(3, 256);
        let mut best = [f64::INFINITY; AUTO_CANDIDATES.len()];
        for _ in 0..ROUNDS {
            for (i, order) in AUTO_CANDIDATES.into_iter().enumerate() {
                let t = Instant::now();
                for _ in 0..calls {
                    run(order)?;
                }
                self.synchronize()?;
                best[i] = best[i].min(t.elapsed().as_secs_f64() * 1e3 / calls as f64);
            }
        }
        Ok(AUTO_CANDIDATES.into_iter().zip(best).collect())
    }

    /// What [`Swizzle::Auto`] has chosen so far on this `Ctx`, one entry per kernel and
    /// dispatch it measured, with the times it measured; sorted by op, element type,
    /// dispatch, body and shape.
    ///
    /// # Examples
    /// ```
    /// use gpuprim::{Grid2D, Grid2DMut, Swizzle};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&vec![1.0f32; 256 * 256])?;
    /// let mut b = ctx.zeros::<f32>(256 * 256)?;
    /// let (src, mut dst) = (Grid2D::new(&a, 256, 256)?, Grid2DMut::new(&mut b, 256, 256)?);
    /// ctx.blur_vertical(&src, &mut dst, 4, Swizzle::Auto)?;  // measures, then keeps one
    /// let choices = ctx.swizzle_choices();
    /// assert_eq!(choices.len(), 1);
    /// assert_eq!(choices[0].op, "blur_vertical");
    /// assert_eq!(choices[0].ms.len(), 3);
    /// assert_eq!(b.to_vec()?, vec![1.0; 256 * 256]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn swizzle_choices(&self) -> Vec<SwizzleChoice> {
        let choices = self.op_state::<Choices>();
        let map = choices.0.lock().unwrap_or_else(|p| p.into_inner());
        let mut v: Vec<SwizzleChoice> = map.values().flatten().cloned().collect();
        v.sort_by(|a, b| {
            (a.op, a.element, a.groups, &a.code, a.shape)
                .cmp(&(b.op, b.element, b.groups, &b.code, b.shape))
        });
        v
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn auto_picks_the_fastest_only_past_the_margin() {
        use super::{AUTO_MARGIN, Swizzle, pick};
        let (t, b) = (
            Swizzle::Tiles { n: 16 },
            Swizzle::Bands { workgroups: 1024 },
        );
        let m = |l: f64, x: f64, y: f64| [(Swizzle::Off, l), (t, x), (b, y)];
        assert_eq!(pick(&m(1.0, 0.9, 0.95)), t);
        assert_eq!(pick(&m(1.0, 0.95, 0.9)), b);
        // Faster, but not by the margin: linear.
        let near = 1.0 - AUTO_MARGIN / 2.0;
        assert_eq!(pick(&m(1.0, near, 1.1)), Swizzle::Off);
        // Exactly the margin is enough; slower or equal never is.
        assert_eq!(pick(&m(1.0, 1.0 - AUTO_MARGIN, 1.0)), t);
        assert_eq!(pick(&m(1.0, 1.0, 1.2)), Swizzle::Off);
        // Ties between the others: the first listed.
        assert_eq!(pick(&m(1.0, 0.5, 0.5)), t);
        assert_eq!(pick(&[]), Swizzle::Off);
    }

    #[test]
    fn auto_runs_the_order_it_chose() {
        use super::{AUTO_CANDIDATES, Choices, Swizzle};
        let ctx = crate::Ctx::new().expect("a GPU context (lavapipe will do)");
        // A kernel that records the orders it is run in and does no GPU work.
        let log = std::cell::RefCell::new(Vec::new());
        let run = |order: Swizzle| {
            log.borrow_mut().push(order);
            Ok(())
        };
        let take = || std::mem::take(&mut *log.borrow_mut());
        let shape = super::SwizzleShape {
            src_width: 7,
            ..Default::default()
        };
        let (kernel, dispatch) = (("map2d", "f32", "body"), ((64, 64), shape));
        ctx.ordered(kernel, dispatch, Swizzle::Auto, run).unwrap();
        let measured = take();
        for c in AUTO_CANDIDATES {
            assert!(measured.contains(&c), "{c:?} not measured");
        }
        let chosen = ctx.swizzle_choices()[0].chosen;
        ctx.ordered(kernel, dispatch, Swizzle::Auto, run).unwrap();
        assert_eq!(take(), [chosen], "the choice, once, unmeasured");
        // Whatever was chosen is what runs: set it to each candidate.
        for c in AUTO_CANDIDATES {
            let choices = ctx.op_state::<Choices>();
            let mut map = choices.0.lock().unwrap();
            map.get_mut(&("map2d", "f32", (64, 64), shape)).unwrap()[0].chosen = c;
            drop(map);
            ctx.ordered(kernel, dispatch, Swizzle::Auto, run).unwrap();
            assert_eq!(take(), [c]);
        }
        // Fixed orders run as given; a small dispatch runs linear, unmeasured.
        let tiles = Swizzle::Tiles { n: 3 };
        ctx.ordered(kernel, dispatch, tiles, run).unwrap();
        assert_eq!(take(), [tiles]);
        ctx.ordered(kernel, ((31, 1), shape), Swizzle::Auto, run)
            .unwrap();
        assert_eq!(take(), [Swizzle::Off]);
        assert_eq!(ctx.swizzle_choices().len(), 1);
    }
}
