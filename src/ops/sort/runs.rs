//! Runs of equal elements: [`Ctx::unique`], [`Ctx::run_length_encode`],
//! [`Ctx::reduce_by_key`] and their `_into` forms (`wgsl/sort_runs.wgsl`).
//!
//! Keys are equal when their bits are (the equality of [`f32::total_cmp`], so `-0.0`
//! and `+0.0` are different keys and NaNs with the same bits one key): after a sort,
//! each run is one distinct key. The input must fit one storage binding
//! ([`Info::max_binding_bytes`](crate::Info::max_binding_bytes); else
//! [`Error::TooLarge`]).

use super::tuning::SortTuning;
use bytemuck::{Pod, Zeroable};

use super::engine::pow2_workgroup;
use super::{SortKey, SortValue};
use crate::error::{Error, Limit, Result};
use crate::ops::kernel::{Access, Args, record_statements};
use crate::ops::reduce::Reduce;
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::context::{Ctx, Info, check_len};
use crate::runtime::dispatch::workgroup_grid;
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::GpuVec;
use crate::runtime::view::View;

const RUNS_WGSL: &str = include_str!("../../../wgsl/sort_runs.wgsl");

/// `RunParams` in `wgsl/sort_runs.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct RunParams {
    n: u32,
    tiles: u32,
    _pad0: u32,
    _pad1: u32,
}

/// What the runs' kernel computes per run besides its key.
enum Output<'a> {
    /// Nothing (unique).
    None,
    /// The run's length (run_length_encode).
    Lengths(View<'a>),
    /// The reduction of the values (reduce_by_key): values, their WGSL type, operator.
    Reduced {
        values: View<'a>,
        out: View<'a>,
        wgsl: &'static str,
        combine: Combine,
        identity: String,
    },
}

/// A reduction's operator in WGSL, in `a` and `b`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Combine {
    /// One of [`Reduce`]'s built-in operators.
    Builtin(&'static str),
    /// The user's expression ([`Reduce::Custom`]).
    Custom(String),
}

/// What `wgsl/sort_runs.wgsl` computes per run besides its key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum RunsOutput {
    Unique,
    Lengths,
    /// The reduction of the values: their WGSL type, operator and identity (WGSL
    /// statements that return it: [`GpuElement::wgsl_return`]).
    Reduced {
        value: &'static str,
        combine: Combine,
        identity: String,
    },
}

/// `wgsl/sort_runs.wgsl`: the runs' three passes (`tile_reduce`, `spine`, `tile_write`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct SortRunsKernel {
    workgroup_size: u32,
    /// Elements per invocation.
    v: u32,
    output: RunsOutput,
}

impl KernelSource for SortRunsKernel {
    fn name(&self) -> &'static str {
        "sort_runs"
    }

    fn element(&self) -> &'static str {
        match &self.output {
            RunsOutput::Reduced { value, .. } => value,
            _ => "u32",
        }
    }

    fn user_code(&self) -> &str {
        match &self.output {
            RunsOutput::Reduced {
                combine: Combine::Custom(op),
                ..
            } => op,
            _ => "",
        }
    }

    fn wgsl(&self) -> Result<String> {
        let (value_bindings, value_at, write_value, combine, identity) = match &self.output {
            RunsOutput::Unique => ("", "0u", "", "a".to_string(), "return 0u;"),
            RunsOutput::Lengths => (
                "@group(0) @binding(7) var<storage, read_write> values_out: array<u32>;",
                "1u",
                WRITE_VALUE,
                "a + b".to_string(),
                "return 0u;",
            ),
            RunsOutput::Reduced {
                combine, identity, ..
            } => (
                REDUCED_BINDINGS.trim_end(),
                "values_in[i]",
                WRITE_VALUE,
                match combine {
                    Combine::Builtin(op) => op.to_string(),
                    Combine::Custom(op) => format!("({op})"),
                },
                identity.as_str(),
            ),
        };
        render(
            RUNS_WGSL,
            &[
                ("WG", self.workgroup_size.to_string()),
                ("V", self.v.to_string()),
                ("T", self.element().to_string()),
                ("VALUE_BINDINGS", value_bindings.to_string()),
                ("IDENTITY", identity.to_string()),
                ("COMBINE", combine),
                ("VALUE_AT", value_at.to_string()),
                ("WRITE_VALUE", write_value.to_string()),
            ],
        )
    }
}

/// `{{VALUE_BINDINGS}}` of a reduction: the values and their reductions (the file less
/// its final newline).
const REDUCED_BINDINGS: &str = include_str!("../../../wgsl/sort_runs_value_bindings.wgsl");
/// `{{WRITE_VALUE}}`: a run's value goes next to its key.
const WRITE_VALUE: &str = "                values_out[run] = s.value;";

impl Ctx {
    /// The first element of every run of equal elements of `v`, in order: on a sorted
    /// vector, its distinct values. Blocks until the number of runs is known (see
    /// [`Ctx::unique_into`] for a form that keeps it on the device).
    ///
    /// Elements are equal when their bits are: for `f32`, `-0.0` and `+0.0` differ, as
    /// in [`f32::total_cmp`] order.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut v = ctx.upload(&[3u32, 1, 3, 3, 2, 1])?;
    /// ctx.sort(&mut v)?;
    /// assert_eq!(ctx.unique(&v)?.to_vec()?, vec![1, 2, 3]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn unique<K: SortKey>(&self, v: &GpuVec<K>) -> Result<GpuVec<K>> {
        let mut out = self.zeros::<K>(v.len())?;
        let mut count = self.zeros::<u32>(1)?;
        self.unique_into(v, &mut out, &mut count)?;
        out.len = count.to_vec()?[0] as usize;
        Ok(out)
    }

    /// [`Ctx::unique`] without waiting: the runs' first elements go to the front of
    /// `out` (at least as long as `v`), their number to `count[0]`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `out` is shorter than `v` or `count` is empty;
    /// [`Error::TooLarge`] when `v` does not fit one storage binding.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[-1i32, -1, 4, 4, 4, 9])?;
    /// let mut out = ctx.zeros::<i32>(6)?;
    /// let mut count = ctx.zeros::<u32>(1)?;
    /// ctx.unique_into(&v, &mut out, &mut count)?;
    /// assert_eq!(count.to_vec()?, vec![3]);
    /// assert_eq!(out.to_vec()?[..3], [-1, 4, 9]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn unique_into<K: SortKey>(
        &self,
        v: &GpuVec<K>,
        out: &mut GpuVec<K>,
        count: &mut GpuVec<u32>,
    ) -> Result<()> {
        let op = "unique_into";
        self.check_owned(op, &[&v.ctx, &out.ctx, &count.ctx])?;
        for len_on_host in [v.require_host_len(op), out.require_host_len(op)] {
            len_on_host?;
        }
        check_room(op, "out", out.len(), v.len())?;
        self.runs(op, v, View::of(out), count, Output::None)
    }

    /// Each run of equal elements of `v` as its element and its length, in order.
    /// Blocks until the number of runs is known (see [`Ctx::run_length_encode_into`]).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[7u32, 7, 7, 2, 7, 7])?;
    /// let (values, lengths) = ctx.run_length_encode(&v)?;
    /// assert_eq!(values.to_vec()?, vec![7, 2, 7]);
    /// assert_eq!(lengths.to_vec()?, vec![3, 1, 2]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn run_length_encode<K: SortKey>(&self, v: &GpuVec<K>) -> Result<(GpuVec<K>, GpuVec<u32>)> {
        let mut values = self.zeros::<K>(v.len())?;
        let mut lengths = self.zeros::<u32>(v.len())?;
        let mut count = self.zeros::<u32>(1)?;
        self.run_length_encode_into(v, &mut values, &mut lengths, &mut count)?;
        let runs = count.to_vec()?[0] as usize;
        values.len = runs;
        lengths.len = runs;
        Ok((values, lengths))
    }

    /// [`Ctx::run_length_encode`] without waiting: the runs' elements and lengths go to
    /// the front of `values` and `lengths` (each at least as long as `v`), their number
    /// to `count[0]`.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[0.5f32, 0.5, -0.0, 0.0])?;
    /// let mut values = ctx.zeros::<f32>(4)?;
    /// let mut lengths = ctx.zeros::<u32>(4)?;
    /// let mut count = ctx.zeros::<u32>(1)?;
    /// ctx.run_length_encode_into(&v, &mut values, &mut lengths, &mut count)?;
    /// assert_eq!(count.to_vec()?, vec![3]); // -0.0 and 0.0 are different keys
    /// assert_eq!(lengths.to_vec()?[..3], [2, 1, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn run_length_encode_into<K: SortKey>(
        &self,
        v: &GpuVec<K>,
        values: &mut GpuVec<K>,
        lengths: &mut GpuVec<u32>,
        count: &mut GpuVec<u32>,
    ) -> Result<()> {
        let op = "run_length_encode_into";
        self.check_owned(op, &[&v.ctx, &values.ctx, &lengths.ctx, &count.ctx])?;
        for len_on_host in [
            v.require_host_len(op),
            values.require_host_len(op),
            lengths.require_host_len(op),
        ] {
            len_on_host?;
        }
        check_room(op, "values", values.len(), v.len())?;
        check_room(op, "lengths", lengths.len(), v.len())?;
        self.runs(
            op,
            v,
            View::of(values),
            count,
            Output::Lengths(View::of(lengths)),
        )
    }

    /// Each run of equal keys as its key and the reduction of its values by `op`
    /// ([`Reduce::Sum`], `Min`, `Max`, `Product` or a custom WGSL operator: the operators
    /// of [`Ctx::segmented_reduce`]), in order: after [`Ctx::sort_by_key`], a group-by.
    /// Blocks until the number of runs is known (see [`Ctx::reduce_by_key_into`]).
    ///
    /// The values of a run are combined in their order, in groups that depend only on the
    /// adapter and the length (so custom operators must be associative, need not be
    /// commutative, and float results are the same bits on every run).
    ///
    /// # Errors
    /// As [`Ctx::reduce_by_key_into`].
    ///
    /// ```
    /// use gpuprim::Reduce;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut city = ctx.upload(&[2u32, 0, 2, 1, 0])?;
    /// let mut sales = ctx.upload(&[5.0f32, 1.0, 2.5, 4.0, 3.0])?;
    /// ctx.sort_by_key(&mut city, &mut sales)?;
    /// let (cities, totals) = ctx.reduce_by_key(&city, &sales, Reduce::Sum)?;
    /// assert_eq!(cities.to_vec()?, vec![0, 1, 2]);
    /// assert_eq!(totals.to_vec()?, vec![4.0, 4.0, 7.5]);
    /// let (_, best) = ctx.reduce_by_key(&city, &sales, Reduce::Max)?;
    /// assert_eq!(best.to_vec()?, vec![3.0, 4.0, 5.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn reduce_by_key<K: SortKey, T: SortValue>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
        op: Reduce<T>,
    ) -> Result<(GpuVec<K>, GpuVec<T>)> {
        let mut keys_out = self.zeros::<K>(keys.len())?;
        let mut values_out = self.zeros::<T>(keys.len())?;
        let mut count = self.zeros::<u32>(1)?;
        self.reduce_by_key_into(keys, values, op, &mut keys_out, &mut values_out, &mut count)?;
        let runs = count.to_vec()?[0] as usize;
        keys_out.len = runs;
        values_out.len = runs;
        Ok((keys_out, values_out))
    }

    /// [`Ctx::reduce_by_key`] without waiting: the runs' keys and reduced values go to the
    /// front of `keys_out` and `values_out` (each at least as long as `keys`), their
    /// number to `count[0]`.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `keys` and `values` have the same length;
    /// [`Error::InvalidArgument`] for outputs shorter than `keys`, an empty `count`, a
    /// custom operator that is not one WGSL expression, and for f32's
    /// [`Reduce::SumCompensated`] and [`Reduce::SumWide`], which runs do not offer (for
    /// integers both are the exact [`Reduce::Sum`]); [`Error::Compile`] if a custom
    /// operator is not valid WGSL.
    ///
    /// ```
    /// use gpuprim::Reduce;
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[1u32, 1, 5, 5, 5])?;
    /// let values = ctx.upload(&[3i32, -8, 4, 9, -1])?;
    /// let mut keys_out = ctx.zeros::<u32>(5)?;
    /// let mut values_out = ctx.zeros::<i32>(5)?;
    /// let mut count = ctx.zeros::<u32>(1)?;
    /// let biggest = Reduce::custom("select(b, a, abs(a) > abs(b))", 0);
    /// ctx.reduce_by_key_into(&keys, &values, biggest, &mut keys_out, &mut values_out, &mut count)?;
    /// assert_eq!(count.to_vec()?, vec![2]);
    /// assert_eq!(values_out.to_vec()?[..2], [-8, 9]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn reduce_by_key_into<K: SortKey, T: SortValue>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<T>,
        op: Reduce<T>,
        keys_out: &mut GpuVec<K>,
        values_out: &mut GpuVec<T>,
        count: &mut GpuVec<u32>,
    ) -> Result<()> {
        let name = "reduce_by_key_into";
        self.check_owned(
            name,
            &[
                &keys.ctx,
                &values.ctx,
                &keys_out.ctx,
                &values_out.ctx,
                &count.ctx,
            ],
        )?;
        for len_on_host in [
            keys.require_host_len(name),
            values.require_host_len(name),
            keys_out.require_host_len(name),
            values_out.require_host_len(name),
        ] {
            len_on_host?;
        }
        check_len(name, ("keys", keys.len()), ("values", values.len()))?;
        check_room(name, "keys_out", keys_out.len(), keys.len())?;
        check_room(name, "values_out", values_out.len(), keys.len())?;
        let float = T::WGSL == "f32";
        let (combine, identity) = match op {
            Reduce::Sum => (Combine::Builtin("a + b"), T::ZERO),
            Reduce::SumCompensated | Reduce::SumWide if !float => {
                (Combine::Builtin("a + b"), T::ZERO)
            }
            Reduce::SumCompensated | Reduce::SumWide => {
                return Err(Error::InvalidArgument {
                    op: name,
                    message: format!(
                        "{op:?} of f32 values: runs are reduced with `Reduce::Sum`, `Product`, \
                         `Min`, `Max` or a custom operator; for a compensated or f64-wide sum \
                         per run, give the runs' offsets to `segmented_reduce`"
                    ),
                });
            }
            Reduce::Product => (Combine::Builtin("a * b"), T::ONE),
            Reduce::Min => (Combine::Builtin("min(a, b)"), T::HIGHEST),
            Reduce::Max => (Combine::Builtin("max(a, b)"), T::LOWEST),
            Reduce::Custom { op, identity } => {
                crate::expr::check_expression(name, "operator", &op)?;
                (Combine::Custom(op), identity)
            }
        };
        self.runs(
            name,
            keys,
            View::of(keys_out),
            count,
            Output::Reduced {
                values: View::of(values),
                out: View::of(values_out),
                wgsl: T::WGSL,
                combine,
                identity: identity.wgsl_return(),
            },
        )
    }

    /// Records the three passes over the runs of `keys` and queues them; `count[0]` gets
    /// the number of runs.
    fn runs<K: SortKey>(
        &self,
        op: &'static str,
        keys: &GpuVec<K>,
        keys_out: View<'_>,
        count: &GpuVec<u32>,
        output: Output<'_>,
    ) -> Result<()> {
        if count.is_empty() {
            return Err(Error::InvalidArgument {
                op,
                message: "`count` has 0 elements; the number of runs goes to element 0".into(),
            });
        }
        let n = keys.len() as u64;
        let bytes = n * 4;
        let max_binding = self.info().max_binding_bytes;
        if bytes > max_binding {
            return Err(Error::TooLarge {
                what: format!("`{op}` of {n} elements, bound whole,"),
                kind: Limit::BindingBytes,
                requested: bytes,
                limit: max_binding,
            });
        }
        let config = runs_config(
            self.info(),
            match &output {
                Output::None => RunsOutput::Unique,
                Output::Lengths(_) => RunsOutput::Lengths,
                Output::Reduced {
                    wgsl,
                    combine,
                    identity,
                    ..
                } => RunsOutput::Reduced {
                    value: wgsl,
                    combine: combine.clone(),
                    identity: identity.clone(),
                },
            },
        );
        let (wg, v) = (config.workgroup_size, config.v);
        let reduce = self.pipeline_for(&config, "tile_reduce")?;
        let spine = self.pipeline_for(&config, "spine")?;
        let write = self.pipeline_for(&config, "tile_write")?;
        // An empty input still writes its count (0): the spine over no tiles.
        let tile = u64::from(wg * v);
        let tiles = n.div_ceil(tile);
        let mut work = Work::new(self, op);
        let usage = wgpu::BufferUsages::STORAGE;
        let part_bytes = tiles.max(1) * 4;
        let heads = work.keep(self.scratch("run partial heads", part_bytes, usage)?);
        let partials = work.keep(self.scratch("run partial values", part_bytes, usage)?);
        let block = work.params(&RunParams {
            n: n as u32,
            tiles: tiles as u32,
            ..Default::default()
        });
        // Every vector bound to its first n elements (outputs may be longer).
        let first_n = |v: &View<'_>| {
            View {
                len: n as usize,
                ..*v
            }
            .exact()
        };
        let keys = View::of(keys);
        let grid = workgroup_grid(tiles, self.info().max_workgroups_per_dimension)?;
        if n > 0 {
            let d = work.dispatch(&reduce, grid);
            d.bind(0, block)
                .bind(1, first_n(&keys))
                .bind(2, Res::range(&heads, 0, part_bytes))
                .bind(3, Res::range(&partials, 0, part_bytes));
            if let Output::Reduced { values, .. } = &output {
                d.bind(6, first_n(values));
            }
        }
        work.dispatch(&spine, [1, 1, 1])
            .bind(0, block)
            .bind(2, Res::range(&heads, 0, part_bytes))
            .bind(3, Res::range(&partials, 0, part_bytes))
            .bind(4, Res::range(&count.buffer, count.offset, 4));
        if n > 0 {
            let d = work.dispatch(&write, grid);
            d.bind(0, block)
                .bind(1, first_n(&keys))
                .bind(2, Res::range(&heads, 0, part_bytes))
                .bind(3, Res::range(&partials, 0, part_bytes))
                .bind(5, first_n(&keys_out));
            match &output {
                Output::None => {}
                Output::Lengths(lengths) => {
                    d.bind(7, first_n(lengths));
                }
                Output::Reduced { values, out, .. } => {
                    d.bind(6, first_n(values)).bind(7, first_n(out));
                }
            }
        }
        work.submit()
    }
}

/// The runs' kernel configuration on an adapter: its shape ([`SortTuning::runs_shape`],
/// the workgroup within the device's limits) and `output`.
fn runs_config(info: &Info, output: RunsOutput) -> SortRunsKernel {
    let (wg, v) = SortTuning::of(info).runs_shape;
    SortRunsKernel {
        workgroup_size: pow2_workgroup(info, wg),
        v,
        output,
    }
}

/// `Err(InvalidArgument)` unless an output of `have` elements has room for `need`.
impl Ctx {
    /// The sorted distinct values of `v`, for each element of `v` the index of its value
    /// among them (the inverse: `values[inverse[i]] == v[i]`), and how often each value
    /// occurs: `torch.unique(v, sorted=True, return_inverse=True, return_counts=True)`,
    /// NumPy's `unique(v, return_inverse=True, return_counts=True)`. `v` need not be
    /// sorted. Blocks until the number of distinct values is known.
    ///
    /// Values are equal when their bits are, as in [`Ctx::unique`] (so `-0.0` and `+0.0`
    /// are two values, in [`f32::total_cmp`] order). A stable sort of `v` with its indices
    /// ([`Ctx::sort_by_key`]), [`Ctx::run_length_encode`] of the sorted values, a scan of
    /// the runs' first elements and a scatter of each run's number to its elements'
    /// places.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[30u32, 10, 30, 20, 10, 30])?;
    /// let (values, inverse, counts) = ctx.unique_with(&v)?;
    /// assert_eq!(values.to_vec()?, vec![10, 20, 30]);
    /// assert_eq!(inverse.to_vec()?, vec![2, 0, 2, 1, 0, 2]);
    /// assert_eq!(counts.to_vec()?, vec![2, 1, 3]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::TooLarge`] if `v` does not fit one storage binding;
    /// [`Error::InvalidArgument`] for a prefix view; [`Error::ContextMismatch`].
    pub fn unique_with<K: SortKey>(
        &self,
        v: &GpuVec<K>,
    ) -> Result<(GpuVec<K>, GpuVec<u32>, GpuVec<u32>)> {
        let op = "unique_with";
        self.check_owned(op, &[&v.ctx])?;
        self.freely_indexed_len(op, "v", v)?;
        let n = v.len();
        if n == 0 {
            return Ok((self.zeros(0)?, self.zeros(0)?, self.zeros(0)?));
        }
        let mut sorted = v.try_clone()?;
        let mut order = self.iota(op, n)?;
        self.sort_by_key(&mut sorted, &mut order)?;
        let (values, counts) = self.run_length_encode(&sorted)?;
        // Sorted position j belongs to run (heads up to j) - 1; its element came from
        // order[j].
        let rank = self.scan(&self.run_heads(op, &sorted)?)?;
        let inverse = self.zeros::<u32>(n)?;
        let mut args = Args::new(op);
        args.vec("index", View::of(&order), Access::Read);
        args.vec("rank", View::of(&rank), Access::Read);
        args.vec("dst", View::of(&inverse), Access::RawReadWrite);
        let mut work = Work::new(self, op);
        record_statements(self, &mut work, "dst[index] = rank - 1u;", args)?;
        work.submit()?;
        Ok((values, inverse, counts))
    }

    /// The first key of every run of equal keys and the value beside it, in order
    /// (Thrust's `unique_by_key`): on keys sorted with [`Ctx::sort_by_key`], each
    /// distinct key with the first of its values. Blocks until the number of runs is
    /// known. Keys are equal when their bits are, as in [`Ctx::unique`]; values may be
    /// any element type.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[1u32, 1, 4, 4, 4, 1])?;
    /// let vals = ctx.upload(&[0.5f32, 0.25, 9.0, 8.0, 7.0, 3.0])?;
    /// let (k, v) = ctx.unique_by_key(&keys, &vals)?;
    /// assert_eq!(k.to_vec()?, vec![1, 4, 1]);
    /// assert_eq!(v.to_vec()?, vec![0.5, 9.0, 3.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `keys` and `values` have one length;
    /// [`Error::TooLarge`] if either does not fit one storage binding;
    /// [`Error::InvalidArgument`] for prefix views; [`Error::ContextMismatch`].
    pub fn unique_by_key<K: SortKey, V: crate::element::GpuElement>(
        &self,
        keys: &GpuVec<K>,
        values: &GpuVec<V>,
    ) -> Result<(GpuVec<K>, GpuVec<V>)> {
        let op = "unique_by_key";
        self.check_owned(op, &[&keys.ctx, &values.ctx])?;
        check_len(op, ("keys", keys.len()), ("values", values.len()))?;
        self.freely_indexed_len(op, "keys", keys)?;
        self.freely_indexed_len(op, "values", values)?;
        if keys.is_empty() {
            return Ok((self.zeros(0)?, self.zeros(0)?));
        }
        let firsts = self.compact_indices(&self.run_heads(op, keys)?, "x != 0u")?;
        Ok((self.gather(keys, &firsts)?, self.gather(values, &firsts)?))
    }

    /// 1 where a run of equal keys (by bits) starts, 0 elsewhere. `keys` fits one
    /// binding (it is bound whole, to read each element's predecessor).
    fn run_heads<K: SortKey>(&self, op: &'static str, keys: &GpuVec<K>) -> Result<GpuVec<u32>> {
        let heads = self.zeros::<u32>(keys.len())?;
        let mut args = Args::new(op);
        args.vec("head", View::of(&heads), Access::Write);
        args.vec("keys", View::of(keys), Access::Raw);
        let mut work = Work::new(self, op);
        record_statements(
            self,
            &mut work,
            "head = select(0u, 1u, i == 0u || bitcast<u32>(keys[i]) != bitcast<u32>(keys[i - 1u]));",
            args,
        )?;
        work.submit()?;
        Ok(heads)
    }
}

fn check_room(op: &'static str, name: &str, have: usize, need: usize) -> Result<()> {
    if have < need {
        return Err(Error::InvalidArgument {
            op,
            message: format!(
                "`{name}` has {have} elements, fewer than the {need} of the input: every \
                 element may be a run of its own"
            ),
        });
    }
    Ok(())
}

/// The runs' configurations on `info`'s adapter for the catalog (`ops/catalog.rs`):
/// unique, the lengths, and every operator of a reduction of every value type (a
/// custom one as an example).
#[cfg(test)]
pub(super) fn catalog(c: &mut crate::ops::catalog::Catalog, info: &Info, native: bool) {
    fn reduced<T: SortValue>(out: &mut Vec<RunsOutput>, custom_identity: T) {
        for (combine, identity) in [
            (Combine::Builtin("a + b"), T::ZERO),
            (Combine::Builtin("a * b"), T::ONE),
            (Combine::Builtin("min(a, b)"), T::HIGHEST),
            (Combine::Builtin("max(a, b)"), T::LOWEST),
            (
                Combine::Custom("select(b, a, abs(a) > abs(b))".into()),
                custom_identity,
            ),
        ] {
            out.push(RunsOutput::Reduced {
                value: T::WGSL,
                combine,
                identity: identity.wgsl_return(),
            });
        }
    }
    let mut outputs = vec![RunsOutput::Unique, RunsOutput::Lengths];
    reduced::<u32>(&mut outputs, 0);
    reduced::<i32>(&mut outputs, 0);
    reduced::<f32>(&mut outputs, f32::NEG_INFINITY);
    for output in outputs {
        let config = runs_config(info, output);
        c.add_with(&config, native);
    }
}

/// The parameter layout of the runs' kernels, for the catalog.
#[cfg(test)]
pub(super) fn catalog_layouts(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::layout;
    let config = SortRunsKernel {
        workgroup_size: 64,
        v: 4,
        output: RunsOutput::Lengths,
    };
    layout!(
        c,
        RunParams,
        "RunParams",
        config.wgsl().expect("the runs render"),
        [n, tiles, _pad0, _pad1]
    );
}
