//! The position of the largest or smallest element: [`Ctx::argmax`], [`Ctx::argmin`]
//! and their `_into` forms; per row of a grid and per segment of a vector,
//! [`Ctx::argmax_rows`], [`Ctx::argmin_rows`], [`Ctx::segmented_argmax`],
//! [`Ctx::segmented_argmin`] and their `_into` forms (`rows.rs`, `wgsl/arg_reduce_rows.wgsl`:
//! a power-of-two group of invocations per row, one pass; a second one for a few long
//! rows cut into parts).
//!
//! Of the whole vector, two passes (`wgsl/arg_reduce.wgsl`), shaped like [`Ctx::reduce`]'s: a fixed number of
//! workgroups walk each binding window with vec4 loads in a grid-stride loop, each
//! invocation keeping its best (value, index), and write one partial per workgroup; one
//! workgroup picks the best partial. The workgroup step uses subgroup operations for the
//! 32-bit types where the adapter has them (`wgsl/arg_reduce_subgroup.wgsl`) and a
//! workgroup-memory tree otherwise (`wgsl/arg_reduce_tree.wgsl`).
//!
//! The answer does not depend on the order pairs are combined in: values are compared in
//! a strict weak order (NaN above everything, `-0.0` equal to `+0.0`) and equal values
//! by index, so exactly one element comes first. No atomics; the same bits every run.

mod rows;
pub(crate) mod tuning;

use crate::element::GpuElement;
use crate::error::{Error, Result};
use crate::ops::reduce::partial_windows;
use crate::runtime::cache::{KernelSource, render};
use crate::runtime::context::{Ctx, Info};
use crate::runtime::dispatch::{
    pow2_workgroup_size_within, storage_alignment, units_per_window, workgroup_grid,
};
use crate::runtime::record::{Res, Work};
use crate::runtime::vec::{GpuVec, LANES, ReadBack};
use crate::runtime::view::{View, units_wgsl};

const ARG_REDUCE_WGSL: &str = include_str!("../../../wgsl/arg_reduce.wgsl");
const TREE_WGSL: &str = include_str!("../../../wgsl/arg_reduce_tree.wgsl");
const SUBGROUP_WGSL: &str = include_str!("../../../wgsl/arg_reduce_subgroup.wgsl");
/// Pieces of `{{COMPARE}}` ([`compare_wgsl`]).
const COMPARE_FLOAT_WGSL: &str = include_str!("../../../wgsl/arg_reduce_compare_float.wgsl");
const FAST_F32_WGSL: &str = include_str!("../../../wgsl/arg_reduce_fast_f32.wgsl");
const FAST_WGSL: &str = include_str!("../../../wgsl/arg_reduce_fast.wgsl");
const KEY_F32_WGSL: &str = include_str!("../../../wgsl/arg_reduce_key_f32.wgsl");

/// Which end of the order a call looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Direction {
    Max,
    Min,
}

impl Direction {
    fn name(self) -> &'static str {
        match self {
            Direction::Max => "argmax",
            Direction::Min => "argmin",
        }
    }
}

/// `wgsl/arg_reduce.wgsl`: its partials and finishing passes for one direction,
/// element type and layout.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ArgReduceKernel {
    direction: Direction,
    /// The element type (`T`) and its `enable` directive, or "".
    element: &'static str,
    enable: &'static str,
    /// Statements that return the value every element beats or ties
    /// ([`GpuElement::wgsl_return`]: an infinity is no constant expression).
    worst: String,
    /// The input's layout ([`View::vec4`]).
    vec4: bool,
    /// The workgroup step uses subgroup min/max.
    subgroup: bool,
    workgroup_size: u32,
    finish_workgroup_size: u32,
}

impl ArgReduceKernel {
    /// The configuration a device described by `info` takes for `T`, `direction` and
    /// the input's layout.
    fn new<T: GpuElement>(info: &Info, direction: Direction, vec4: bool) -> ArgReduceKernel {
        let workgroup_size = pow2_workgroup_size_within(&info.limits, 256);
        ArgReduceKernel {
            direction,
            element: T::WGSL,
            enable: T::ENABLE,
            worst: match direction {
                Direction::Max => T::LOWEST,
                Direction::Min => T::HIGHEST,
            }
            .wgsl_return(),
            vec4,
            // Subgroup min/max are defined for the 32-bit types.
            subgroup: info.features.contains(wgpu::Features::SUBGROUP) && size_of::<T>() == 4,
            workgroup_size,
            finish_workgroup_size: pow2_workgroup_size_within(&info.limits, 1024)
                .max(workgroup_size),
        }
    }
}

impl KernelSource for ArgReduceKernel {
    fn name(&self) -> &'static str {
        self.direction.name()
    }

    fn element(&self) -> &'static str {
        self.element
    }

    fn wgsl(&self) -> Result<String> {
        let step = if self.subgroup {
            SUBGROUP_WGSL
        } else {
            TREE_WGSL
        };
        render(
            ARG_REDUCE_WGSL,
            &[
                ("ENABLE", self.enable.to_string()),
                ("T", self.element.to_string()),
                (
                    "INPUT",
                    units_wgsl("gp_x", 3, self.element, false, self.vec4)?,
                ),
                ("COMPARE", compare_wgsl(self)?),
                ("WORKGROUP_BEST", step.to_string()),
                ("WG", self.workgroup_size.to_string()),
                ("FINISH_WG", self.finish_workgroup_size.to_string()),
            ],
        )
    }
}

impl Ctx {
    /// The largest element of `v` and the index of its first occurrence. Blocks until
    /// the GPU is done and reads back only the pair.
    ///
    /// Ties go to the lowest index. Floats follow NumPy's `argmax`: a NaN counts as
    /// larger than every number, so the first NaN wins; `-0.0` and `+0.0` are equal (the
    /// first of them wins). The value returned is that element's bits.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[3.0f32, 9.5, -1.0, 9.5])?;
    /// assert_eq!(ctx.argmax(&v)?, (9.5, 1)); // the first of the two 9.5s
    /// let w = ctx.upload(&[1.0f32, f32::NAN, 7.0, f32::NAN])?;
    /// let (value, index) = ctx.argmax(&w)?;
    /// assert!(value.is_nan());
    /// assert_eq!(index, 1); // the first NaN, as in NumPy
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty `v` (there is no largest element of
    /// nothing) or a [`GpuVec::prefix`] view; [`Error::Unsupported`] for `f16`/`f64` on
    /// adapters without them.
    pub fn argmax<T: GpuElement>(&self, v: &GpuVec<T>) -> Result<(T, u32)> {
        self.arg_start(v, Direction::Max)?.wait()
    }

    /// The smallest element of `v` and the index of its first occurrence (ties: the
    /// lowest index; the first NaN wins, as in NumPy's `argmin`; `-0.0 == +0.0`).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[4i32, -2, 7, -2])?;
    /// assert_eq!(ctx.argmin(&v)?, (-2, 1));
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::argmax`].
    pub fn argmin<T: GpuElement>(&self, v: &GpuVec<T>) -> Result<(T, u32)> {
        self.arg_start(v, Direction::Min)?.wait()
    }

    /// Async twin of [`Ctx::argmax`].
    pub async fn argmax_async<T: GpuElement>(&self, v: &GpuVec<T>) -> Result<(T, u32)> {
        self.arg_start(v, Direction::Max)?.wait_async().await
    }

    /// Async twin of [`Ctx::argmin`].
    pub async fn argmin_async<T: GpuElement>(&self, v: &GpuVec<T>) -> Result<(T, u32)> {
        self.arg_start(v, Direction::Min)?.wait_async().await
    }

    /// [`Ctx::argmax`] on the device, without waiting or reading back: the value goes to
    /// `out_value[0]` and its index to `out_index[0]` (other elements are not touched).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[2u32, 8, 5, 8])?;
    /// let mut value = ctx.zeros::<u32>(1)?;
    /// let mut index = ctx.zeros::<u32>(1)?;
    /// ctx.argmax_into(&v, &mut value, &mut index)?;
    /// assert_eq!((value.to_vec()?, index.to_vec()?), (vec![8], vec![1]));
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::argmax`], and [`Error::InvalidArgument`] for an empty output or an
    /// output that shares a buffer with `v`.
    pub fn argmax_into<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        out_value: &mut GpuVec<T>,
        out_index: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.arg_submit(v, Direction::Max, out_value, out_index)
    }

    /// [`Ctx::argmin`] on the device, without waiting: the value to `out_value[0]`, its
    /// index to `out_index[0]`.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[0.5f32, -3.0, 2.0])?;
    /// let mut value = ctx.zeros::<f32>(1)?;
    /// let mut index = ctx.zeros::<u32>(1)?;
    /// ctx.argmin_into(&v, &mut value, &mut index)?;
    /// assert_eq!((value.to_vec()?, index.to_vec()?), (vec![-3.0], vec![1]));
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::argmax_into`].
    pub fn argmin_into<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        out_value: &mut GpuVec<T>,
        out_index: &mut GpuVec<u32>,
    ) -> Result<()> {
        self.arg_submit(v, Direction::Min, out_value, out_index)
    }

    /// Records both passes into a fresh result buffer (value at byte 0, index at the
    /// storage offset alignment) and submits them with its read-back.
    fn arg_start<T: GpuElement>(&self, v: &GpuVec<T>, dir: Direction) -> Result<ArgReadBack<T>> {
        let op = dir.name();
        check_input(self, op, v)?;
        let align = storage_alignment(self);
        let result = self.result_buffer(align + 16)?;
        let mut work = Work::new(self, op);
        self.record_arg(
            &mut work,
            v,
            dir,
            Res::range(&result, 0, 16),
            Res::range(&result, align, 16),
        )?;
        let words = (align / 4) as usize + 1;
        Ok(ArgReadBack {
            read_back: self.submit_result::<u32>(work, result, words)?,
            index_word: words - 1,
            _element: std::marker::PhantomData,
        })
    }

    fn arg_submit<T: GpuElement>(
        &self,
        v: &GpuVec<T>,
        dir: Direction,
        out_value: &mut GpuVec<T>,
        out_index: &mut GpuVec<u32>,
    ) -> Result<()> {
        let op = dir.name();
        check_input(self, op, v)?;
        self.check_owned(op, &[&out_value.ctx, &out_index.ctx])?;
        out_value.require_host_len(op)?;
        out_index.require_host_len(op)?;
        if out_value.is_empty() || out_index.is_empty() {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "out_value has {} elements and out_index {} elements; the value goes to element 0 of \
                     out_value and the index to element 0 of out_index: pass vectors of length \
                     >= 1",
                    out_value.len(),
                    out_index.len()
                ),
            });
        }
        let mut work = Work::new(self, op);
        self.record_arg(
            &mut work,
            v,
            dir,
            out_value.whole_binding(),
            out_index.whole_binding(),
        )?;
        work.submit()
    }

    /// Adds both passes to `work`: the value lands in element 0 of `out_value`, the
    /// index in element 0 of `out_index`.
    fn record_arg<T: GpuElement>(
        &self,
        work: &mut Work,
        v: &GpuVec<T>,
        dir: Direction,
        out_value: Res,
        out_index: Res,
    ) -> Result<()> {
        let view = View::of(v);
        let config = ArgReduceKernel::new::<T>(self.info(), dir, view.vec4());
        let (wg, finish_wg) = (config.workgroup_size, config.finish_workgroup_size);
        let partials_kernel = self.pipeline_for(&config, "partials_main")?;
        let finish_kernel = self.pipeline_for(&config, "finish_main")?;

        // One parameter block per binding window, then one for the finishing pass.
        let n = v.len() as u64;
        let per_window = units_per_window(self, &[view.unit_bytes()]);
        let windows = partial_windows(self, n, per_window, wg, finish_wg);
        let base: u32 = windows.iter().map(|w| w.groups).sum();
        let mut params: Vec<_> = windows
            .iter()
            .map(|w| ArgParams {
                full_units: w.full_units,
                tail: w.tail,
                groups: w.groups,
                base: w.base,
                first_index: (w.chunk.offset_units * LANES as u64) as u32,
                ..ArgParams::default()
            })
            .collect();
        // One workgroup in all: it writes the result, and there is no second pass.
        let direct = base == 1;
        if direct {
            params[0].direct = 1;
        }
        let partial_values = work.keep(self.scratch(
            "argmax/argmin partial values",
            size_of::<T>() as u64 * u64::from(base),
            wgpu::BufferUsages::STORAGE,
        )?);
        let partial_indices = work.keep(self.scratch(
            "argmax/argmin partial indices",
            4 * u64::from(base),
            wgpu::BufferUsages::STORAGE,
        )?);
        for (w, p) in windows.iter().map(|w| &w.chunk).zip(&params) {
            let grid = workgroup_grid(
                u64::from(p.groups),
                self.info().max_workgroups_per_dimension,
            )?;
            let block = work.params(p);
            work.dispatch(&partials_kernel, grid)
                .bind(0, block)
                .bind(1, Res::whole(&partial_values))
                .bind(2, Res::whole(&partial_indices))
                .bind(3, view.window(w))
                .bind(4, out_value.clone())
                .bind(5, out_index.clone());
        }
        if !direct {
            let block = work.params(&ArgParams {
                full_units: base,
                groups: 1,
                ..ArgParams::default()
            });
            work.dispatch(&finish_kernel, [1, 1, 1])
                .bind(0, block)
                .bind(1, Res::whole(&partial_values))
                .bind(2, Res::whole(&partial_indices))
                .bind(4, out_value)
                .bind(5, out_index);
        }
        Ok(())
    }
}

/// The checks of every argmax/argmin: same context, a length on the host, not empty,
/// indices that fit a `u32` below the "no index" marker.
fn check_input<T: GpuElement>(ctx: &Ctx, op: &'static str, v: &GpuVec<T>) -> Result<()> {
    ctx.check_element::<T>()?;
    ctx.check_owned(op, &[&v.ctx])?;
    v.require_host_len(op)?;
    if v.is_empty() {
        return Err(Error::InvalidArgument {
            op,
            message: format!(
                "the vector has 0 elements, and `{op}` of an empty vector has no value or \
                 index; check `is_empty()` first"
            ),
        });
    }
    if v.len() > u32::MAX as usize {
        return Err(Error::InvalidArgument {
            op,
            message: format!(
                "the vector has {} elements; indices are u32, so `{op}` takes at most {}",
                v.len(),
                u32::MAX
            ),
        });
    }
    Ok(())
}

/// A blocking argmax/argmin in flight: the result buffer's words, the value's bytes
/// first and the index at word `index_word`.
struct ArgReadBack<T> {
    read_back: ReadBack<u32>,
    index_word: usize,
    _element: std::marker::PhantomData<T>,
}

impl<T: GpuElement> ArgReadBack<T> {
    fn wait(self) -> Result<(T, u32)> {
        let index_word = self.index_word;
        self.read_back.wait().map(|w| decode(&w, index_word))
    }

    async fn wait_async(self) -> Result<(T, u32)> {
        let index_word = self.index_word;
        self.read_back
            .wait_async()
            .await
            .map(|w| decode(&w, index_word))
    }
}

fn decode<T: GpuElement>(words: &[u32], index_word: usize) -> (T, u32) {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    (
        bytemuck::pod_read_unaligned(&bytes[..size_of::<T>()]),
        words[index_word],
    )
}

/// The parameter block of `wgsl/arg_reduce.wgsl` (`struct GpArgParams` there).
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct ArgParams {
    /// Whole vec4 units in this binding window (the finishing pass: partials to combine).
    full_units: u32,
    /// Valid elements (0..3) in the unit after them.
    tail: u32,
    /// Workgroups that take part; the surplus ones of a folded grid return.
    groups: u32,
    /// Where this window's partials go.
    base: u32,
    /// Index in the vector of the window's first element.
    first_index: u32,
    /// 1: the only workgroup of the first pass writes the result.
    direct: u32,
    _pad0: u32,
    _pad1: u32,
}

/// `gp_worst()` (the value every element beats or ties: `worst`'s statements) and
/// `gp_beats(a, b)` (`a` strictly before `b` in the order of `better`, `>` or `<`; NaN
/// tested on the bits, above every number) for element type `t`: the comparison both the
/// whole-vector and the per-row kernels use.
pub(super) fn beats_wgsl(t: &str, better: &str, worst: &str) -> Result<String> {
    let mut s = format!("fn gp_worst() -> T {{ {worst} }}\n");
    if matches!(t, "f16" | "f32" | "f64") {
        let bits = if t == "f32" {
            "bitcast<u32>(x)"
        } else {
            "bitcast<u32>(f32(x))"
        };
        s += &render(COMPARE_FLOAT_WGSL, &[("BITS", bits), ("BETTER", better)])?;
    } else {
        s += &format!("fn gp_beats(a: T, b: T) -> bool {{ return a {better} b; }}\n");
    }
    Ok(s)
}

/// `gp_worst`, `gp_beats`, `gp_fast`, `gp_mask`, `gp_first_nan` and (with subgroups)
/// `gp_key` for the kernel's element type and direction (see `wgsl/arg_reduce.wgsl`).
///
/// NaN is tested on the bits (through `f32` for `f16` and `f64`, whose conversions keep
/// NaN), never by `x != x`: WGSL lets compilers assume floats are not NaN. `gp_beats`
/// tests NaN before it compares, so no comparison with a NaN decides anything.
///
/// The loop over the input is the hot path: for `f32` it compares plainly (one
/// comparison and two selects per element) and keeps the largest magnitude bits it saw
/// (two integer operations per element); an invocation that saw a NaN then walks its
/// units again for its first NaN, whose value and index are its answer (a NaN beats every
/// number). The NaN-aware comparison costs about twice the operations per element,
/// which would come close to the memory time of a large GPU.
fn compare_wgsl(config: &ArgReduceKernel) -> Result<String> {
    let (dir, subgroup, t) = (config.direction, config.subgroup, config.element);
    let better = match dir {
        Direction::Max => ">",
        Direction::Min => "<",
    };
    let mut s = beats_wgsl(t, better, &config.worst)?;
    if t == "f32" {
        s += &render(FAST_F32_WGSL, &[("BETTER", better)])?;
    } else {
        s += FAST_WGSL;
    }
    if subgroup {
        // A u32 whose unsigned order is gp_beats's: the sortable bits (sign flipped for
        // i32; for f32 -0.0 made +0.0, then sign flipped for positives and every bit for
        // negatives), inverted for argmin; NaN above all.
        let ordered = match t {
            "u32" => "x",
            "i32" => "bitcast<u32>(x) ^ 0x80000000u",
            _ => "gp_f32_order(x)",
        };
        let key = match dir {
            Direction::Max => ordered.to_string(),
            Direction::Min => format!("~({ordered})"),
        };
        if t == "f32" {
            s += &render(KEY_F32_WGSL, &[("KEY", key)])?;
        } else {
            s += &format!("fn gp_key(x: T) -> u32 {{ return {key}; }}\n");
        }
    }
    Ok(s)
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`): both directions, every element type the device has, both input
/// layouts, as each catalog device would choose them.
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    use crate::ops::catalog::{Catalog, Device, devices, layout};
    fn add<T: GpuElement>(c: &mut Catalog, device: &Device) {
        if !device.info.features.contains(T::FEATURES) {
            return;
        }
        for direction in [Direction::Max, Direction::Min] {
            for vec4 in [true, false] {
                c.add_for(
                    device,
                    &ArgReduceKernel::new::<T>(&device.info, direction, vec4),
                );
            }
        }
    }
    rows::catalog(c);
    for d in devices() {
        add::<f32>(c, &d);
        add::<i32>(c, &d);
        add::<u32>(c, &d);
        add::<half::f16>(c, &d);
        add::<f64>(c, &d);
    }
    let wgsl = ArgReduceKernel::new::<u32>(&devices()[0].info, Direction::Max, true)
        .wgsl()
        .expect("argmax renders");
    layout!(
        c,
        ArgParams,
        "GpArgParams",
        wgsl,
        [
            full_units,
            tail,
            groups,
            base,
            first_index,
            direct,
            _pad0,
            _pad1
        ]
    );
}
