//! The random kernels' configurations ([`RandomKernel`], [`RandomSeedKernel`]) and the
//! recording of every fill, with the parameter block they share and the checks of its
//! values.

use super::{MAX_RANDOM_LEN, RANDOM_WGSL, RandomElement, Rng, Xorshift128State};
use crate::error::{Error, Limit, Result};
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::context::{Ctx, check_len};
use crate::runtime::dispatch::{elementwise_workgroup_size, run_indexed};
use crate::runtime::vec::{GpuVec, LANES};
use crate::runtime::view::{View, units_wgsl};

const FILL_WGSL: &str = include_str!("../../../wgsl/random.wgsl");
const STATE_WGSL: &str = include_str!("../../../wgsl/random_state.wgsl");
const SEED_WGSL: &str = include_str!("../../../wgsl/random_seed.wgsl");
/// `{{OUT}}` of the fills ([`Output::body`]).
const OUT_RAW_WGSL: &str = include_str!("../../../wgsl/random_out_raw.wgsl");
const OUT_UNIFORM_WGSL: &str = include_str!("../../../wgsl/random_out_uniform.wgsl");
const OUT_NORMAL_WGSL: &str = include_str!("../../../wgsl/random_out_normal.wgsl");

/// What a fill writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Output {
    /// `T::FROM_BITS` of one `u32`.
    Raw,
    /// f32 in [lo, hi): params lo, hi - lo, hi, below(hi).
    Uniform,
    /// f32 normal: params mean, std.
    Normal,
}

impl Output {
    /// The body of `value`, in terms of `bits(i)` (stateless) or `bits(s)` (stateful);
    /// `from_bits` is the element type's statement for [`Output::Raw`].
    fn body(self, from_bits: &str, stateful: bool) -> Result<String> {
        let arg = if stateful { "s" } else { "i" };
        let (r1, r2) = if stateful {
            ("bits(s)", "bits(s)")
        } else {
            ("bits(2u * i)", "bits(2u * i + 1u)")
        };
        let template = match self {
            Output::Raw => OUT_RAW_WGSL,
            Output::Uniform => OUT_UNIFORM_WGSL,
            Output::Normal => OUT_NORMAL_WGSL,
        };
        // `{{OUT}}`'s template line ends the body.
        let template = template.strip_suffix('\n').unwrap_or(template);
        match self {
            Output::Raw => render(template, &[("ARG", arg), ("FROM_BITS", from_bits)]),
            Output::Uniform => render(template, &[("ARG", arg)]),
            Output::Normal => render(template, &[("R1", r1), ("R2", r2)]),
        }
    }
}

/// The generator a fill uses.
pub(super) enum Source<'a> {
    Stateless(Rng),
    Stateful(&'a mut Xorshift128State),
}

/// A fill for one output and element type: `wgsl/random.wgsl` from a stateless
/// generator, or `wgsl/random_state.wgsl` from per-element xorshift128 state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct RandomKernel {
    /// The WGSL function of a stateless generator, e.g. `rng_pcg32` ([`Rng`]); `None`
    /// for a fill from xorshift128 state.
    generator: Option<&'static str>,
    output: Output,
    /// The element type and its statement for a raw `u32` `r` (`RandomElement`).
    element: &'static str,
    from_bits: &'static str,
    /// Whether the output is bound as `vec4` units.
    dst_vec4: bool,
    workgroup_size: u32,
}

impl KernelSource for RandomKernel {
    fn name(&self) -> &'static str {
        match self.generator {
            Some(_) => "random",
            None => "random_state",
        }
    }

    fn element(&self) -> &'static str {
        self.element
    }

    fn wgsl(&self) -> Result<String> {
        let template = if self.generator.is_some() {
            FILL_WGSL
        } else {
            STATE_WGSL
        };
        let mut vars = vec![
            ("LIB", RANDOM_WGSL.to_string()),
            (
                "DST",
                units_wgsl("dst", 0, self.element, true, self.dst_vec4)?,
            ),
            ("T", self.element.to_string()),
            ("WG", self.workgroup_size.to_string()),
            (
                "OUT",
                self.output.body(self.from_bits, self.generator.is_none())?,
            ),
        ];
        if let Some(generator) = self.generator {
            vars.push(("GEN", generator.to_string()));
        }
        render(template, &vars)
    }
}

/// `wgsl/random_seed.wgsl`: seeds xorshift128 state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct RandomSeedKernel {
    workgroup_size: u32,
}

impl KernelSource for RandomSeedKernel {
    fn name(&self) -> &'static str {
        "random_seed"
    }

    fn element(&self) -> &'static str {
        "u32"
    }

    fn wgsl(&self) -> Result<String> {
        render(
            SEED_WGSL,
            &[
                ("LIB", RANDOM_WGSL.to_string()),
                ("WG", self.workgroup_size.to_string()),
            ],
        )
    }
}

impl Ctx {
    /// Records the seeding of `words`, the state of `n4` elements (a multiple of 4), from
    /// `seed`.
    pub(super) fn seed_xorshift128(
        &self,
        op: &'static str,
        words: &GpuVec<u32>,
        n4: usize,
        seed: u32,
    ) -> Result<()> {
        let workgroup_size = elementwise_workgroup_size(self);
        let kernel = self.pipeline_for(&RandomSeedKernel { workgroup_size }, "main")?;
        run_indexed(
            self,
            op,
            &kernel,
            workgroup_size,
            n4 as u64,
            &[(View::of(words), 16)],
            |first_unit| FillParams {
                first_unit,
                seed,
                ..FillParams::default()
            },
        )
    }

    /// Records one fill of `v` from `source`.
    pub(super) fn fill<T: RandomElement>(
        &self,
        op: &'static str,
        v: &mut GpuVec<T>,
        source: Source<'_>,
        output: Output,
        p: FillParams,
    ) -> Result<()> {
        self.check_owned(op, &[&v.ctx])?;
        v.require_host_len(op)?;
        check_random_len(op, v.len())?;
        let wg = elementwise_workgroup_size(self);
        let unit_bytes = (LANES * size_of::<T>()) as u64;
        let units = v.lanes4();
        let dst = View::of(v);
        let mut buffers = vec![(dst, unit_bytes)];
        // A stateless generator brings its seed; a stateful fill reads and writes the state.
        let (generator, seed) = match &source {
            Source::Stateless(rng) => (Some(rng.wgsl_fn()), rng.seed()),
            Source::Stateful(state) => {
                self.check_owned(op, &[&state.words.ctx])?;
                check_len(op, ("v", v.len()), ("state", state.len()))?;
                buffers.push((View::of(&state.words), 4 * LANES as u64 * 4));
                (None, p.seed)
            }
        };
        let config = RandomKernel {
            generator,
            output,
            element: T::WGSL,
            from_bits: T::FROM_BITS,
            dst_vec4: dst.vec4(),
            workgroup_size: wg,
        };
        let kernel = self.pipeline_for(&config, "main")?;
        run_indexed(self, op, &kernel, wg, units, &buffers, |first_unit| {
            FillParams {
                first_unit,
                seed,
                ..p
            }
        })
    }
}

pub(super) fn check_random_len(op: &'static str, n: usize) -> Result<()> {
    if n > MAX_RANDOM_LEN {
        return Err(Error::TooLarge {
            what: format!("`{op}` (its random indices are u32)"),
            kind: Limit::Elements,
            requested: n as u64,
            limit: MAX_RANDOM_LEN as u64,
        });
    }
    Ok(())
}

/// The parameter block of `wgsl/random*.wgsl` (`struct Params` there).
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(super) struct FillParams {
    /// The binding window's first vec4 unit: global index = first_unit + local unit.
    pub(super) first_unit: u32,
    /// The stateless generator's seed.
    pub(super) seed: u32,
    /// Uniform: lo; normal: the mean.
    offset: f32,
    /// Uniform: hi - lo; normal: the standard deviation.
    scale: f32,
    /// Uniform: hi. A value that rounds up to it is replaced by `below_hi`.
    hi: f32,
    /// Uniform: the largest f32 below hi.
    below_hi: f32,
    _pad: [u32; 2],
}

pub(super) fn uniform_params(op: &'static str, lo: f32, hi: f32) -> Result<FillParams> {
    let width = hi - lo;
    if !(lo.is_finite() && hi.is_finite() && lo < hi && width.is_finite()) {
        return Err(Error::InvalidArgument {
            op,
            message: format!(
                "the range [lo, hi) = [{lo}, {hi}) must have finite lo < hi and a finite width \
                 hi - lo (here {width})"
            ),
        });
    }
    Ok(FillParams {
        offset: lo,
        scale: width,
        hi,
        below_hi: hi.next_down(),
        ..FillParams::default()
    })
}

pub(super) fn normal_params(op: &'static str, mean: f32, std_dev: f32) -> Result<FillParams> {
    if !(mean.is_finite() && std_dev.is_finite() && std_dev >= 0.0) {
        return Err(Error::InvalidArgument {
            op,
            message: format!(
                "mean ({mean}) and std_dev ({std_dev}) must be finite, with std_dev >= 0"
            ),
        });
    }
    Ok(FillParams {
        offset: mean,
        scale: std_dev,
        ..FillParams::default()
    })
}

/// The fills for the catalog test (`ops/catalog.rs`): every generator (and xorshift128
/// state), output, element type and layout, and the seeding of the state.
#[cfg(test)]
pub(super) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::layout;
    fn fills<T: RandomElement>(c: &mut crate::ops::catalog::Catalog) {
        let generators = [
            Some("rng_wang_hash"),
            Some("rng_xorshift32"),
            Some("rng_pcg32"),
            None,
        ];
        for generator in generators {
            for output in [Output::Raw, Output::Uniform, Output::Normal] {
                // Uniform and normal fills are of f32 alone.
                if output != Output::Raw && T::WGSL != "f32" {
                    continue;
                }
                for dst_vec4 in [true, false] {
                    c.add(&RandomKernel {
                        generator,
                        output,
                        element: T::WGSL,
                        from_bits: T::FROM_BITS,
                        dst_vec4,
                        workgroup_size: 256,
                    });
                }
            }
        }
    }
    fills::<u32>(c);
    fills::<i32>(c);
    fills::<f32>(c);
    let seed = RandomSeedKernel {
        workgroup_size: 256,
    };
    c.add(&seed);
    let wgsl = seed.wgsl().expect("random_seed renders");
    layout!(
        c,
        FillParams,
        "Params",
        wgsl,
        [first_unit, seed, offset, scale, hi, below_hi, _pad]
    );
}
