//! What both sort algorithms share: a checked sort's plan (its digit passes, binding
//! windows and the algorithm chosen), the scratch buffers the passes ping-pong through,
//! and each pass's route between them. OneSweep's shape and recording are in
//! `onesweep.rs`, reduce-then-scan's in `rts.rs`, and the kernels' configurations in
//! `kernels.rs`.

use super::onesweep::{ONESWEEP_MAX_KEYS, onesweep_shape, status_bytes};
use super::rts::{rts_groups, rts_shape};
use super::tuning::SortTuning;
use super::{Sort, SortAlgorithm, check_bits};
use crate::error::{Error, Limit, Result};
use crate::ops::copy::record_copy;
use crate::runtime::context::{Ctx, Info};
use crate::runtime::dispatch::{Chunk, chunks, units_per_window};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::LANES;
use crate::runtime::view::View;

/// Digits per pass (8 bits each).
pub(super) const RADIX: u32 = 256;

/// `wanted` invocations, or the largest power of two `info`'s device allows if fewer
/// (`dispatch::pow2_workgroup_size` from an adapter's description, for the catalog).
pub(super) fn pow2_workgroup(info: &Info, wanted: u32) -> u32 {
    let l = &info.limits;
    let most = wanted
        .min(l.max_compute_invocations_per_workgroup)
        .min(l.max_compute_workgroup_size_x)
        .max(1);
    1 << most.ilog2()
}

/// What moves with the keys.
pub(super) enum Values<'a> {
    None,
    /// Values sorted in place along with the keys.
    InPlace(View<'a>),
    /// The keys' indices, written here (argsort).
    Indices(View<'a>),
}

/// The vectors of one sort, each exactly `n` elements of 4 bytes (gpuprim's padded
/// vectors or views of an application's buffer). When not `keys_writable` the keys are
/// only read (argsort).
pub(super) struct Buffers<'a> {
    pub(super) keys: View<'a>,
    pub(super) keys_writable: bool,
    pub(super) values: Values<'a>,
}

/// A checked sort: its length, key words, digit passes, algorithm and binding windows.
pub(super) struct Plan {
    pub(super) op: &'static str,
    pub(super) n: u64,
    pub(super) key_xor: u32,
    pub(super) neg_mask: u32,
    /// (shift, mask) of each digit pass, least significant first.
    pub(super) passes: Vec<(u32, u32)>,
    pub(super) algorithm: SortAlgorithm,
    pub(super) spin: u32,
    pub(super) peers: Peers,
    pub(super) tile: Option<(u32, u32)>,
    /// The binding windows every vector is cut into: a pass reads each input window and
    /// writes each output window in a dispatch of its own.
    pub(super) windows: Vec<Window>,
}

/// One binding window of the keys (and of every other vector of `n` 4-byte elements).
#[derive(Clone, Copy, Debug)]
pub(super) struct Window {
    /// Its first element.
    pub(super) first: u64,
    /// Its elements.
    pub(super) len: u64,
    /// Its vec4 units (`len` rounded up), as [`View::window`] cuts them.
    pub(super) chunk: Chunk,
}

impl Plan {
    /// Checks a sort of `n` one-word keys whose sortable words are `ordered(x, key_xor,
    /// neg_mask)` (`wgsl/sort_keys.wgsl`; [`SortKey`](super::SortKey)'s constants) with
    /// `sort`'s options on `ctx`, with values moving along (`pairs`: a sort by key or an
    /// argsort) or not, and picks the algorithm.
    pub(super) fn new(
        ctx: &Ctx,
        op: &'static str,
        n: usize,
        (key_xor, neg_mask): (u32, u32),
        sort: &Sort,
        pairs: bool,
    ) -> Result<Plan> {
        let bits = sort.bits_of(32);
        check_bits(op, &bits)?;
        let n = n as u64;
        let (start, end) = (bits.start, bits.end);
        let passes = if start == end {
            // No bits: one pass with every digit 0 keeps the order (and writes argsort's
            // indices).
            vec![(0, 0)]
        } else {
            (start..end)
                .step_by(8)
                .map(|shift| (shift, (1u32 << (end - shift).min(8)) - 1))
                .collect()
        };
        let windows: Vec<Window> = chunks(
            n.div_ceil(LANES as u64),
            units_per_window(ctx, &[4 * LANES as u64]),
        )
        .map(|c| {
            let first = c.offset_units * LANES as u64;
            Window {
                first,
                len: (n - first).min(c.units * LANES as u64),
                chunk: c,
            }
        })
        .collect();
        let max_binding = ctx.info().max_binding_bytes;
        let tile = sort.tile;
        // Why OneSweep cannot sort this here, if it cannot.
        let onesweep = || -> Result<()> {
            ctx.require(wgpu::Features::SUBGROUP, || {
                format!("`{op}` with SortAlgorithm::OneSweep")
            })?;
            let shape = onesweep_shape(ctx.info(), tile)
                .map_err(|message| Error::InvalidArgument { op, message })?;
            if n > ONESWEEP_MAX_KEYS {
                return Err(Error::TooLarge {
                    what: format!(
                        "`{op}` with SortAlgorithm::OneSweep (its tile counts have 30 bits; \
                         Auto and ReduceThenScan sort more)"
                    ),
                    kind: Limit::Elements,
                    requested: n,
                    limit: ONESWEEP_MAX_KEYS,
                });
            }
            let status = status_bytes(&windows, shape.tile());
            if status > max_binding {
                return Err(Error::TooLarge {
                    what: format!(
                        "the tile statuses of `{op}` with SortAlgorithm::OneSweep over {n} keys \
                         (1 KiB per tile of {} keys, in one storage binding)",
                        shape.tile()
                    ),
                    kind: Limit::BindingBytes,
                    requested: status,
                    limit: max_binding,
                });
            }
            Ok(())
        };
        let algorithm = match sort.algorithm {
            SortAlgorithm::Auto if onesweep().is_ok() => SortAlgorithm::OneSweep,
            SortAlgorithm::Auto => SortAlgorithm::ReduceThenScan,
            SortAlgorithm::OneSweep => {
                onesweep()?;
                SortAlgorithm::OneSweep
            }
            other => other,
        };
        if algorithm == SortAlgorithm::ReduceThenScan {
            let shape = rts_shape(ctx.info(), tile, pairs)
                .map_err(|message| Error::InvalidArgument { op, message })?;
            let counts = 4 * u64::from(RADIX) * rts_groups(ctx, &windows, &shape).1;
            if counts > max_binding {
                return Err(Error::TooLarge {
                    what: format!(
                        "the digit counts of `{op}` over {n} keys in {} binding windows (1 KiB \
                         per workgroup, in one storage binding)",
                        windows.len()
                    ),
                    kind: Limit::BindingBytes,
                    requested: counts,
                    limit: max_binding,
                });
            }
        }
        Ok(Plan {
            op,
            n,
            key_xor: key_xor ^ if sort.descending { u32::MAX } else { 0 },
            neg_mask,
            passes,
            algorithm,
            spin: sort.spin.unwrap_or(SortTuning::of(ctx.info()).spin),
            peers: sort.peers,
            tile,
            windows,
        })
    }
    /// Records the sort and queues it (or keeps it for [`Ctx::record`]'s encoder).
    pub(super) fn run(&self, ctx: &Ctx, buffers: Buffers<'_>) -> Result<()> {
        if self.n == 0 {
            return Ok(());
        }
        let mut work = Work::new(ctx, self.op);
        let scratch = self.scratch(&mut work, ctx, &buffers)?;
        let routes = self.routes(&buffers, &scratch);
        match self.algorithm {
            SortAlgorithm::ReduceThenScan => self.record_rts(&mut work, ctx, &routes, &scratch)?,
            _ => self.record_onesweep(&mut work, ctx, &buffers.keys, &routes, &scratch)?,
        }
        // An odd number of passes leaves an in-place sort in the scratch buffers.
        let last = routes.last().expect("at least one pass");
        if buffers.keys_writable && self.passes.len() % 2 == 1 {
            let keys_out = last.keys_out.as_ref().expect("in-place passes write keys");
            record_copy(&mut work, keys_out, &buffers.keys)?;
            if let (Values::InPlace(v), Some(out)) = (&buffers.values, &last.values_out) {
                record_copy(&mut work, out, v)?;
            }
        }
        work.submit()
    }

    fn padded_bytes(&self) -> u64 {
        self.n.next_multiple_of(LANES as u64) * 4
    }

    /// The scratch buffers the passes ping-pong through, kept by `work`. The large ones
    /// are kept by the context for the next sort of the same size ([`Ctx::scratch_kept`]).
    fn scratch(&self, work: &mut Work, ctx: &Ctx, buffers: &Buffers<'_>) -> Result<ScratchBuffers> {
        let p = self.passes.len();
        let bytes = self.padded_bytes();
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let mut make = |what: &str, bytes: u64| -> Result<_> {
            Ok(work.keep(ctx.scratch_kept(what, bytes, usage)?))
        };
        let argsort = !buffers.keys_writable;
        Ok(ScratchBuffers {
            // argsort writes keys in every pass but the last
            keys: if !argsort || p >= 2 {
                Some(make("sort keys (scratch)", bytes)?)
            } else {
                None
            },
            keys2: if argsort && p >= 3 {
                Some(make("argsort keys (scratch)", bytes)?)
            } else {
                None
            },
            // argsort's last pass binds an output for keys it does not write
            unused: if argsort {
                Some(make("argsort keys (not written)", 256)?)
            } else {
                None
            },
            values: match buffers.values {
                Values::InPlace(_) => Some(make("sort values (scratch)", bytes)?),
                Values::Indices(_) if p >= 2 => Some(make("argsort indices (scratch)", bytes)?),
                _ => None,
            },
        })
    }

    /// Each pass's input and output vectors.
    fn routes<'a>(&self, buffers: &Buffers<'a>, scratch: &'a ScratchBuffers) -> Vec<Route<'a>> {
        let p = self.passes.len();
        let keys = buffers.keys;
        let mut routes = Vec::with_capacity(p);
        for i in 0..p {
            let (keys_in, keys_out) = if buffers.keys_writable {
                let alt = over(
                    &keys,
                    scratch.keys.as_ref().expect("allocated for in-place sorts"),
                );
                if i % 2 == 0 {
                    (keys, Some(alt))
                } else {
                    (alt, Some(keys))
                }
            } else {
                // argsort: the input is only read; passes alternate between two scratch
                // buffers, and the last writes no keys.
                let alt = |j: usize| {
                    let b = if j.is_multiple_of(2) {
                        &scratch.keys
                    } else {
                        &scratch.keys2
                    };
                    over(
                        &keys,
                        b.as_ref()
                            .expect("allocated for the passes that write keys"),
                    )
                };
                let keys_in = if i == 0 { keys } else { alt(i - 1) };
                let keys_out = (i + 1 < p).then(|| alt(i));
                (keys_in, keys_out)
            };
            let (values_in, values_out, indices) = match &buffers.values {
                Values::None => (None, None, false),
                Values::InPlace(v) => {
                    let alt = over(v, scratch.values.as_ref().expect("allocated for pairs"));
                    if i % 2 == 0 {
                        (Some(*v), Some(alt), false)
                    } else {
                        (Some(alt), Some(*v), false)
                    }
                }
                Values::Indices(out) => {
                    // The last pass writes `out`; passes before alternate with scratch.
                    let dst = |j: usize| {
                        if (p - 1 - j).is_multiple_of(2) {
                            *out
                        } else {
                            over(
                                out,
                                scratch.values.as_ref().expect("allocated for 2+ passes"),
                            )
                        }
                    };
                    // The first pass makes the indices: its values input is never read.
                    let src = if i == 0 { keys } else { dst(i - 1) };
                    (Some(src), Some(dst(i)), i == 0)
                }
            };
            routes.push(Route {
                keys_in,
                keys_out,
                values_in,
                values_out,
                indices,
            });
        }
        routes
    }
}

/// A pass's keys output for output window `w`; argsort's last pass writes no keys and
/// binds a stand-in buffer whole.
pub(super) fn keys_out(route: &Route<'_>, w: &Window, unused: Option<&wgpu::Buffer>) -> Res {
    match &route.keys_out {
        Some(v) => v.window(&w.chunk),
        None => Res::whole(unused.expect("allocated for argsort")),
    }
}

/// `v`'s shape over `buffer`, a scratch buffer of gpuprim's (offset 0, padded).
fn over<'a>(v: &View<'a>, buffer: &'a wgpu::Buffer) -> View<'a> {
    View {
        buffer,
        offset: 0,
        padded: true,
        count: None,
        ..*v
    }
}

/// The passes' scratch buffers (pooled or kept; the work keeps them until it is queued).
pub(super) struct ScratchBuffers {
    pub(super) keys: Option<wgpu::Buffer>,
    pub(super) keys2: Option<wgpu::Buffer>,
    pub(super) unused: Option<wgpu::Buffer>,
    pub(super) values: Option<wgpu::Buffer>,
}

/// One pass's vectors.
pub(super) struct Route<'a> {
    pub(super) keys_in: View<'a>,
    /// `None`: no keys are written (argsort's last pass).
    pub(super) keys_out: Option<View<'a>>,
    pub(super) values_in: Option<View<'a>>,
    pub(super) values_out: Option<View<'a>>,
    /// The values are the keys' indices (argsort's first pass).
    pub(super) indices: bool,
}

/// How the digit pass finds a row's peers, the lanes of the subgroup with the same digit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Peers {
    /// Tables in workgroup memory where `peer_tables` allows them, else ballots.
    Auto,
    /// Eight ballots a row (one-word masks where subgroups have at most 32 lanes). `Auto`
    /// takes this form inside the kernel; only the `internals` hook forces it.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    Ballots,
    /// Eight ballots a row in four-word masks, as for subgroups of more than 32 lanes.
    FourWordBallots,
}
