//! Runs of equal elements: [`Ctx::unique`], [`Ctx::run_length_encode`],
//! [`Ctx::reduce_by_key`], [`Ctx::unique_with`], [`Ctx::unique_by_key`] and the `_into`
//! forms (`wgsl/sort_runs.wgsl`).
//!
//! Keys are any [`RadixKey`], equal when their bits are (the equality of
//! [`f32::total_cmp`], so `-0.0` and `+0.0` are different keys and NaNs with the same
//! bits one key): after a sort, each run is one distinct key. The kernels compare a key
//! as one `u32` word (`u32`, `i32`, `f32`; an `f16`'s 16 bits, read from its half of a
//! word) or as a `vec2<u32>` (the 8-byte keys). `reduce_by_key` reduces any
//! [`RunValue`]: the scalars, the 64-bit integers (as two words, `wgsl/sort_runs_int64.wgsl`)
//! and the records of 2 and 4 components (component by component). The input must fit
//! one storage binding ([`Info::max_binding_bytes`](crate::Info::max_binding_bytes);
//! else [`Error::TooLarge`]).

use super::tuning::SortTuning;
use bytemuck::{Pod, Zeroable};

use super::engine::pow2_workgroup;
use super::{KeyForm, RadixKey, wide};
use crate::element::{Element, GpuElement, ScalarKind};
use crate::error::{Error, Result};
use crate::ops::kernel::{Access, Args, record_statements};
use crate::ops::reduce::Reduce;
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::context::{Ctx, Info, check_len};
use crate::runtime::dispatch::workgroup_grid;
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::GpuVec;
use crate::runtime::view::View;

const RUNS_WGSL: &str = include_str!("../../../wgsl/sort_runs.wgsl");
/// The 64-bit integer operators of `u64` and `i64` values.
const INT64_WGSL: &str = include_str!("../../../wgsl/sort_runs_int64.wgsl");

/// A value type [`Ctx::reduce_by_key`] reduces: the scalars `u32`, `i32`, `f32`, `f64`
/// (where the adapter has `SHADER_F64`) and [`half::f16`] (`SHADER_F16`); `u64` and
/// `i64`, held as two 32-bit words (no 64-bit shader feature needed), which add and
/// multiply wrapping and compare as integers; and the records `[f32; 2]`, `[i32; 2]`,
/// `[u32; 2]`, `[f32; 4]`, `[i32; 4]`, `[u32; 4]`, reduced component by component
/// (`Reduce::Sum` of `[f32; 4]` sums each of the four).
///
/// A custom operator ([`Reduce::Custom`]) sees `a` and `b` as the WGSL type of the value:
/// `vec4<f32>` for `[f32; 4]`, and `vec2<u32>` for `u64` and `i64` (`x` the low word,
/// `y` the high; the kernels' `add64(a, b)`, `mul64(a, b)`, `min_u64`, `max_u64`,
/// `min_i64` and `max_i64` are there to call).
///
/// ```
/// use gpuprim::Reduce;
/// let ctx = gpuprim::Ctx::new()?;
/// let cell = ctx.upload(&[0u32, 0, 1])?;
/// // Per cell: the summed (x, y, z, weight) of its points, and the total bytes as u64.
/// let points = ctx.upload(&[[1.0f32, 2.0, 0.5, 1.0], [3.0, 0.0, 0.5, 1.0], [2.0, 2.0, 2.0, 1.0]])?;
/// let (_, sums) = ctx.reduce_by_key(&cell, &points, Reduce::Sum)?;
/// assert_eq!(sums.to_vec()?, vec![[4.0, 2.0, 1.0, 2.0], [2.0, 2.0, 2.0, 1.0]]);
/// let bytes = ctx.upload(&[u64::from(u32::MAX), 1, 7])?;
/// let (_, total) = ctx.reduce_by_key(&cell, &bytes, Reduce::Sum)?;
/// assert_eq!(total.to_vec()?, vec![1 << 32, 7]);
/// # Ok::<(), gpuprim::Error>(())
/// ```
///
/// Sealed; other types are rejected at compile time:
///
/// ```compile_fail
/// use gpuprim::Reduce;
/// let ctx = gpuprim::Ctx::new()?;
/// let keys = ctx.upload(&[1u32, 1])?;
/// let values = ctx.upload(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]])?; // not an Element
/// ctx.reduce_by_key(&keys, &values, Reduce::Sum)?;
/// # Ok::<(), gpuprim::Error>(())
/// ```
pub trait RunValue: Element + super::sealed::Sealed {
    /// Whether the components are floats (no compensated or wide sums per run).
    #[doc(hidden)]
    const FLOAT: bool;
    /// The identities of `Sum`, `Product`, `Min` and `Max`.
    #[doc(hidden)]
    const IDENTITIES: [Self; 4];
    /// `Sum`, `Product`, `Min` and `Max` in WGSL, in `a` and `b`.
    #[doc(hidden)]
    const OPS: [&'static str; 4];
    /// WGSL functions the operators call ("" for none).
    #[doc(hidden)]
    const HELPERS: &'static str;
    /// WGSL statements that return this value, exact to the bit.
    #[doc(hidden)]
    fn wgsl_return(self) -> String;
}

macro_rules! scalar_value {
    ($($t:ty),*) => {$(
        impl RunValue for $t {
            const FLOAT: bool = matches!(<$t as GpuElement>::KIND, ScalarKind::Float);
            const IDENTITIES: [Self; 4] = [
                <$t as GpuElement>::ZERO,
                <$t as GpuElement>::ONE,
                <$t as GpuElement>::HIGHEST,
                <$t as GpuElement>::LOWEST,
            ];
            const OPS: [&'static str; 4] = ["a + b", "a * b", "min(a, b)", "max(a, b)"];
            const HELPERS: &'static str = "";
            fn wgsl_return(self) -> String {
                GpuElement::wgsl_return(self)
            }
        }
    )*};
}
scalar_value!(u32, i32, f32, f64, half::f16);

/// WGSL statements that return `v` from its words: a `let` of them bitcast to the
/// value's type (a run-time value, so an infinite identity is never a constant
/// expression, which WebGPU's compilers reject).
fn words_return<T: Element>(v: T) -> String {
    let words: &[u32] = bytemuck::cast_slice(std::slice::from_ref(&v));
    let list: Vec<String> = words.iter().map(|w| format!("{w}u")).collect();
    format!(
        "let gp_bits = vec{}<u32>({}); return bitcast<{}>(gp_bits);",
        words.len(),
        list.join(", "),
        T::WGSL
    )
}

macro_rules! record_value {
    ($($t:ty: $float:expr, [$zero:expr, $one:expr, $high:expr, $low:expr]);* $(;)?) => {$(
        impl RunValue for $t {
            const FLOAT: bool = $float;
            const IDENTITIES: [Self; 4] = [$zero, $one, $high, $low];
            const OPS: [&'static str; 4] = ["a + b", "a * b", "min(a, b)", "max(a, b)"];
            const HELPERS: &'static str = "";
            fn wgsl_return(self) -> String {
                words_return(self)
            }
        }
    )*};
}
record_value!(
    [f32; 2]: true, [[0.0; 2], [1.0; 2], [f32::INFINITY; 2], [f32::NEG_INFINITY; 2]];
    [f32; 4]: true, [[0.0; 4], [1.0; 4], [f32::INFINITY; 4], [f32::NEG_INFINITY; 4]];
    [i32; 2]: false, [[0; 2], [1; 2], [i32::MAX; 2], [i32::MIN; 2]];
    [i32; 4]: false, [[0; 4], [1; 4], [i32::MAX; 4], [i32::MIN; 4]];
    [u32; 2]: false, [[0; 2], [1; 2], [u32::MAX; 2], [0; 2]];
    [u32; 4]: false, [[0; 4], [1; 4], [u32::MAX; 4], [0; 4]];
);

impl RunValue for u64 {
    const FLOAT: bool = false;
    const IDENTITIES: [Self; 4] = [0, 1, u64::MAX, 0];
    const OPS: [&'static str; 4] = [
        "add64(a, b)",
        "mul64(a, b)",
        "min_u64(a, b)",
        "max_u64(a, b)",
    ];
    const HELPERS: &'static str = INT64_WGSL;
    fn wgsl_return(self) -> String {
        words_return(self)
    }
}

impl RunValue for i64 {
    const FLOAT: bool = false;
    const IDENTITIES: [Self; 4] = [0, 1, i64::MAX, i64::MIN];
    const OPS: [&'static str; 4] = [
        "add64(a, b)",
        "mul64(a, b)",
        "min_i64(a, b)",
        "max_i64(a, b)",
    ];
    const HELPERS: &'static str = INT64_WGSL;
    fn wgsl_return(self) -> String {
        words_return(self)
    }
}

/// `RunParams` in `wgsl/sort_runs.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct RunParams {
    n: u32,
    tiles: u32,
    _pad0: u32,
    _pad1: u32,
}

/// How the runs' kernels read and compare a key ([`KeyForm`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum RunKey {
    /// One 32-bit word.
    Word,
    /// Two words, compared as a `vec2<u32>`.
    Pair,
    /// An `f16`: 16 bits of a word that holds two keys.
    Half,
}

impl RunKey {
    fn of(form: KeyForm) -> RunKey {
        match form {
            KeyForm::Word { .. } => RunKey::Word,
            KeyForm::Pair { .. } => RunKey::Pair,
            KeyForm::Half => RunKey::Half,
        }
    }

    /// `K`, `KEY_WORD`, `KEY_AT` and `DIFFERS` of `wgsl/sort_runs.wgsl`.
    fn wgsl(self) -> [String; 4] {
        let [k, at, differs] = match self {
            RunKey::Word => ["u32", "keys[i]", "a != b"],
            RunKey::Pair => ["vec2<u32>", "keys[i]", "any(a != b)"],
            RunKey::Half => ["u32", "", "a != b"],
        };
        let at = match self {
            RunKey::Half => super::half_bits("keys", "i"),
            _ => at.to_string(),
        };
        [k.to_string(), k.to_string(), at, differs.to_string()]
    }

    /// `keys` bound for the kernels: its first `n` elements, or for `f16` the words that
    /// hold them.
    fn bind(self, keys: View<'_>, n: usize) -> View<'_> {
        let first = View { len: n, ..keys };
        match self {
            RunKey::Half => first.exact_words(),
            _ => first,
        }
    }
}

/// What the runs' kernel computes per run besides its key.
enum Output<'a> {
    /// Nothing (unique).
    None,
    /// The run's length (run_length_encode).
    Lengths(View<'a>),
    /// The reduction of the values (reduce_by_key): values, their reductions, and what
    /// the kernel computes them with.
    Reduced {
        values: View<'a>,
        out: View<'a>,
        kernel: RunsOutput,
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
    /// The reduction of the values: their WGSL type and directives, operator, identity
    /// (WGSL statements that return it: [`RunValue::wgsl_return`]) and the functions
    /// the operator calls.
    Reduced {
        value: &'static str,
        enable: &'static str,
        combine: Combine,
        identity: String,
        helpers: &'static str,
    },
}

/// `wgsl/sort_runs.wgsl`: the runs' three passes (`tile_reduce`, `spine`, `tile_write`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct SortRunsKernel {
    workgroup_size: u32,
    /// Elements per invocation.
    v: u32,
    key: RunKey,
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
        let (value_bindings, value_at, write_value, combine, identity, enable, helpers) =
            match &self.output {
                RunsOutput::Unique => ("", "0u", "", "a".to_string(), "return 0u;", "", ""),
                RunsOutput::Lengths => (
                    "@group(0) @binding(7) var<storage, read_write> values_out: array<u32>;",
                    "1u",
                    WRITE_VALUE,
                    "a + b".to_string(),
                    "return 0u;",
                    "",
                    "",
                ),
                RunsOutput::Reduced {
                    combine,
                    identity,
                    enable,
                    helpers,
                    ..
                } => (
                    REDUCED_BINDINGS.trim_end(),
                    "values_in[i]",
                    WRITE_VALUE,
                    match combine {
                        Combine::Builtin(op) => op.to_string(),
                        Combine::Custom(op) => format!("({op})"),
                    },
                    identity.as_str(),
                    *enable,
                    helpers.trim_end(),
                ),
            };
        let [key, key_word, key_at, differs] = self.key.wgsl();
        render(
            RUNS_WGSL,
            &[
                ("ENABLE", enable.to_string()),
                ("WG", self.workgroup_size.to_string()),
                ("V", self.v.to_string()),
                ("T", self.element().to_string()),
                ("K", key),
                ("KEY_WORD", key_word),
                ("KEY_AT", key_at),
                ("DIFFERS", differs),
                ("HELPERS", helpers.to_string()),
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
    pub fn unique<K: RadixKey>(&self, v: &GpuVec<K>) -> Result<GpuVec<K>> {
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
    pub fn unique_into<K: RadixKey>(
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
    /// let ids = ctx.upload(&[1u64 << 40, 1 << 40, 1])?; // 8-byte keys too
    /// assert_eq!(ctx.run_length_encode(&ids)?.1.to_vec()?, vec![2, 1]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn run_length_encode<K: RadixKey>(
        &self,
        v: &GpuVec<K>,
    ) -> Result<(GpuVec<K>, GpuVec<u32>)> {
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
    pub fn run_length_encode_into<K: RadixKey>(
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
    pub fn reduce_by_key<K: RadixKey, T: RunValue>(
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
    pub fn reduce_by_key_into<K: RadixKey, T: RunValue>(
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
        let [sum, product, min, max] = T::OPS;
        let [zero, one, highest, lowest] = T::IDENTITIES;
        let (combine, identity) = match op {
            Reduce::Sum => (Combine::Builtin(sum), zero),
            Reduce::SumCompensated | Reduce::SumWide if !T::FLOAT => (Combine::Builtin(sum), zero),
            Reduce::SumCompensated | Reduce::SumWide => {
                return Err(Error::InvalidArgument {
                    op: name,
                    message: format!(
                        "{op:?} of {} values: runs of floats are reduced with `Reduce::Sum`, \
                         `Product`, `Min`, `Max` or a custom operator; for a compensated or \
                         f64-wide sum per run, give the runs' offsets to `segmented_reduce`",
                        T::WGSL
                    ),
                });
            }
            Reduce::Product => (Combine::Builtin(product), one),
            Reduce::Min => (Combine::Builtin(min), highest),
            Reduce::Max => (Combine::Builtin(max), lowest),
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
                kernel: RunsOutput::Reduced {
                    value: T::WGSL,
                    enable: T::ENABLE,
                    combine,
                    identity: identity.wgsl_return(),
                    helpers: T::HELPERS,
                },
            },
        )
    }

    /// Records the three passes over the runs of `keys` and queues them; `count[0]` gets
    /// the number of runs.
    fn runs<K: RadixKey>(
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
        let n = keys.len();
        let keys = View::of(keys);
        let mut bound = vec![("keys", keys)];
        if let Output::Reduced { values, .. } = &output {
            bound.push(("values", *values));
        }
        for (what, v) in bound {
            v.check_bound_whole(op, what, "take")?;
        }
        let key = RunKey::of(K::FORM);
        let config = runs_config(
            self.info(),
            key,
            match &output {
                Output::None => RunsOutput::Unique,
                Output::Lengths(_) => RunsOutput::Lengths,
                Output::Reduced { kernel, .. } => kernel.clone(),
            },
        );
        let (wg, v) = (config.workgroup_size, config.v);
        let reduce = self.pipeline_for(&config, "tile_reduce")?;
        let spine = self.pipeline_for(&config, "spine")?;
        let write = self.pipeline_for(&config, "tile_write")?;
        // An empty input still writes its count (0): the spine over no tiles.
        let tile = (wg * v) as usize;
        let tiles = n.div_ceil(tile) as u64;
        let mut work = Work::new(self, op);
        let usage = wgpu::BufferUsages::STORAGE;
        let part_bytes = tiles.max(1) * 4;
        let value_bytes = match &output {
            Output::Reduced { values, .. } => values.size,
            _ => 4,
        };
        let part_values = (tiles.max(1) * value_bytes).next_multiple_of(4);
        let heads = work.keep(self.scratch("run partial heads", part_bytes, usage)?);
        let partials = work.keep(self.scratch("run partial values", part_values, usage)?);
        let block = work.params(&RunParams {
            n: n as u32,
            tiles: tiles as u32,
            ..Default::default()
        });
        // Every vector bound to its first n elements (outputs may be longer).
        // (Bindings are whole words: an odd number of f16 values takes the other half of
        // the last word, which gpuprim's vectors pad and borrowed ones hold.)
        let first_n = |v: &View<'_>| {
            let len = if v.size == 2 {
                n.next_multiple_of(2)
            } else {
                n
            };
            View { len, ..*v }.exact()
        };
        // f16 keys: each run's 16 bits go to a word of their own, packed after.
        let halves = match key {
            RunKey::Half if n > 0 => {
                Some(work.keep(self.large_scratch("run keys (f16 halves)", n)?))
            }
            _ => None,
        };
        let grid = workgroup_grid(tiles, self.info().max_workgroups_per_dimension)?;
        if n > 0 {
            let d = work.dispatch(&reduce, grid);
            d.bind(0, block)
                .bind(1, key.bind(keys, n).exact())
                .bind(2, Res::range(&heads, 0, part_bytes))
                .bind(3, Res::range(&partials, 0, part_values));
            if let Output::Reduced { values, .. } = &output {
                d.bind(6, first_n(values));
            }
        }
        work.dispatch(&spine, [1, 1, 1])
            .bind(0, block)
            .bind(2, Res::range(&heads, 0, part_bytes))
            .bind(3, Res::range(&partials, 0, part_values))
            .bind(4, Res::range(&count.buffer, count.offset, 4));
        if n > 0 {
            let d = work.dispatch(&write, grid);
            d.bind(0, block)
                .bind(1, key.bind(keys, n).exact())
                .bind(2, Res::range(&heads, 0, part_bytes))
                .bind(3, Res::range(&partials, 0, part_values))
                .bind(
                    5,
                    match &halves {
                        Some(h) => Res::range(h, 0, n as u64 * 4),
                        None => first_n(&keys_out),
                    },
                );
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
        if let Some(h) = &halves {
            // The runs' keys two to a word; the words past the runs are left as they
            // were, and so is the upper half of the last word of an odd number of runs.
            let h = GpuVec::<u32>::over_scratch(self, h.clone(), n);
            let mut args = Args::new(op);
            args.vec("w", RunKey::Half.bind(keys_out, n), Access::ReadWrite);
            args.vec("h", View::of(&h), Access::Raw);
            args.vec("c", View::of(count), Access::Raw);
            record_statements(
                self,
                &mut work,
                "let runs = c[0]; if 2u * i < runs { \
                 let high = select(w >> 16u, h[min(2u * i + 1u, runs - 1u)], 2u * i + 1u < runs); \
                 w = h[2u * i] | (high << 16u); }",
                args,
            )?;
        }
        work.submit()
    }
}

/// The runs' kernel configuration on an adapter: its shape ([`SortTuning::runs_shape`],
/// the workgroup within the device's limits), the key's form and `output`.
fn runs_config(info: &Info, key: RunKey, output: RunsOutput) -> SortRunsKernel {
    let (wg, v) = SortTuning::of(info).runs_shape;
    SortRunsKernel {
        workgroup_size: pow2_workgroup(info, wg),
        v,
        key,
        output,
    }
}

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
    /// // Any sort key: (tile, depth) pairs, element 0 first.
    /// let splats = ctx.upload(&[[2u32, 5], [1, 9], [2, 5]])?;
    /// let (values, inverse, counts) = ctx.unique_with(&splats)?;
    /// assert_eq!(values.to_vec()?, vec![[1, 9], [2, 5]]);
    /// assert_eq!(inverse.to_vec()?, vec![1, 0, 1]);
    /// assert_eq!(counts.to_vec()?, vec![1, 2]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::TooLarge`] if `v` does not fit one storage binding;
    /// [`Error::InvalidArgument`] for a prefix view; [`Error::ContextMismatch`].
    pub fn unique_with<K: RadixKey>(
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
    pub fn unique_by_key<K: RadixKey, V: GpuElement>(
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
        // The runs' first keys are their keys (equal bits); the values are gathered.
        let firsts = self.compact_indices(&self.run_heads(op, keys)?, "x != 0u")?;
        Ok((self.unique(keys)?, self.gather(values, &firsts)?))
    }

    /// 1 where a run of equal keys (by bits) starts, 0 elsewhere. `keys` fits one
    /// binding (it is bound whole, to read each element's predecessor).
    pub(crate) fn run_heads<K: RadixKey>(
        &self,
        op: &'static str,
        keys: &GpuVec<K>,
    ) -> Result<GpuVec<u32>> {
        let n = keys.len();
        let heads = self.zeros::<u32>(n)?;
        let key = RunKey::of(K::FORM);
        let mut args = Args::new(op);
        args.vec("head", View::of(&heads), Access::Write);
        let bound = match key {
            RunKey::Pair => wide::elements(View::of(keys)),
            _ => key.bind(View::of(keys), n),
        };
        args.vec("keys", bound, Access::Raw);
        let code = match key {
            RunKey::Word => "head = select(0u, 1u, i == 0u || \
                             bitcast<u32>(keys[i]) != bitcast<u32>(keys[i - 1u]));"
                .to_string(),
            RunKey::Pair => {
                "head = select(0u, 1u, i == 0u || any(keys[i] != keys[i - 1u]));".to_string()
            }
            RunKey::Half => format!(
                "let j = max(i, 1u) - 1u; \
                 head = select(0u, 1u, i == 0u || ({}) != ({}));",
                super::half_bits("keys", "i"),
                super::half_bits("keys", "j")
            ),
        };
        let mut work = Work::new(self, op);
        record_statements(self, &mut work, &code, args)?;
        work.submit()?;
        Ok(heads)
    }
}

/// `Err(InvalidArgument)` unless an output of `have` elements has room for `need`.
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
/// unique and the lengths for every key form, and every operator of a reduction of every
/// value type (a custom one as an example) by one-word keys and by 8-byte keys.
#[cfg(test)]
pub(super) fn catalog(c: &mut crate::ops::catalog::Catalog, info: &Info, native: bool) {
    fn reduced<T: RunValue>(out: &mut Vec<RunsOutput>, custom: &str, custom_identity: T) {
        let [zero, one, highest, lowest] = T::IDENTITIES;
        let [sum, product, min, max] = T::OPS;
        for (combine, identity) in [
            (Combine::Builtin(sum), zero),
            (Combine::Builtin(product), one),
            (Combine::Builtin(min), highest),
            (Combine::Builtin(max), lowest),
            (Combine::Custom(custom.into()), custom_identity),
        ] {
            out.push(RunsOutput::Reduced {
                value: T::WGSL,
                enable: T::ENABLE,
                combine,
                identity: identity.wgsl_return(),
                helpers: T::HELPERS,
            });
        }
    }
    let pick = "select(b, a, abs(a) > abs(b))";
    let mut outputs = vec![RunsOutput::Unique, RunsOutput::Lengths];
    reduced::<u32>(&mut outputs, pick, 0);
    reduced::<i32>(&mut outputs, pick, 0);
    reduced::<f32>(&mut outputs, pick, f32::NEG_INFINITY);
    reduced::<half::f16>(&mut outputs, pick, half::f16::NEG_INFINITY);
    reduced::<f64>(&mut outputs, pick, f64::NEG_INFINITY);
    reduced::<u64>(&mut outputs, "select(b, a, a.y > b.y)", 0);
    reduced::<i64>(&mut outputs, "max_i64(a, b)", i64::MIN);
    reduced::<[u32; 2]>(&mut outputs, "a ^ b", [0; 2]);
    reduced::<[i32; 2]>(&mut outputs, pick, [0; 2]);
    reduced::<[f32; 2]>(&mut outputs, pick, [f32::NEG_INFINITY; 2]);
    reduced::<[u32; 4]>(&mut outputs, "a ^ b", [0; 4]);
    reduced::<[i32; 4]>(&mut outputs, pick, [0; 4]);
    reduced::<[f32; 4]>(&mut outputs, pick, [f32::NEG_INFINITY; 4]);
    for key in [RunKey::Word, RunKey::Pair, RunKey::Half] {
        for output in &outputs {
            let reduced = matches!(output, RunsOutput::Reduced { .. });
            if reduced && key == RunKey::Half {
                continue; // the same kernel as one-word keys' but for reading the keys
            }
            let f64_values = matches!(output, RunsOutput::Reduced { value: "f64", .. });
            let config = runs_config(info, key, output.clone());
            c.add_with(&config, native || f64_values);
        }
    }
}

/// The parameter layout of the runs' kernels, for the catalog.
#[cfg(test)]
pub(super) fn catalog_layouts(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::layout;
    let config = SortRunsKernel {
        workgroup_size: 64,
        v: 4,
        key: RunKey::Word,
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
