//! Scatter-reduce: [`Ctx::scatter_add`], [`Ctx::scatter_max`], [`Ctx::scatter_min`], the
//! general [`Ctx::scatter_reduce`] (with a deterministic order and a count of skipped
//! indices) and [`Ctx::histogram_weighted`]: `out[indices[i]] op= values[i]` for every
//! `i`, as torch's `index_add_` / `scatter_reduce_` and NumPy's `np.add.at`.
//!
//! Two orders (see [`ScatterReduce`]):
//! - **Atomic** (the default): one element-wise kernel of the kernel family
//!   (`ops::kernel`) over the indices and values; each value goes into its element with
//!   one atomic. `u32` and `i32` use WGSL's `atomicAdd` / `atomicMax` / `atomicMin`;
//!   `f32` sums WGSL's `atomicAdd` on `atomic<f32>` where the adapter has
//!   `Features::SHADER_FLOAT32_ATOMIC` (Vulkan's `VK_EXT_shader_atomic_float`, Metal 3),
//!   else, like f32 max and min, a compare-exchange loop on the element's bits (WebGPU
//!   has no float atomics). One pass over the inputs and no scratch, like torch's `index_add_` on CUDA; f32
//!   sums land in whatever order the atomics happen, so their last bits may change from
//!   run to run.
//! - **Deterministic:** the indices and values are sorted by index (a stable radix sort),
//!   each run of equal indices is reduced in its order ([`Ctx::reduce_by_key`]), and each
//!   run's result is combined into its element by one invocation. The same bits on every
//!   run, at the cost of a sort (several passes and two copies of the inputs).
//!
//! The output is indexed freely, so it is bound whole and must fit one storage binding;
//! the indices and values may span several. An index `>= out.len()` is skipped: nothing
//! is written for it, and [`Ctx::scatter_reduce`] can count such indices.

use crate::element::Element;
use crate::error::{Error, Limit, Result};
use crate::ops::atomic::AtomicElement;
use crate::ops::kernel::{Access, Args, View, record_statements};
use crate::ops::reduce::Reduce;
use crate::runtime::context::{Ctx, check_len};
use crate::runtime::record::Work;
use crate::runtime::vec::GpuVec;

/// How [`Ctx::scatter_reduce`] combines each value into its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScatterOp {
    /// `out[j] += v` (integers wrap).
    Sum,
    /// `out[j] = max(out[j], v)`.
    Max,
    /// `out[j] = min(out[j], v)`.
    Min,
}

impl ScatterOp {
    /// The WGSL combination of the element `a` and the value `b`.
    fn combine(self) -> &'static str {
        match self {
            ScatterOp::Sum => "a + b",
            ScatterOp::Max => "max(a, b)",
            ScatterOp::Min => "min(a, b)",
        }
    }

    /// WGSL's integer atomic for this operation.
    fn atomic(self) -> &'static str {
        match self {
            ScatterOp::Sum => "atomicAdd",
            ScatterOp::Max => "atomicMax",
            ScatterOp::Min => "atomicMin",
        }
    }

    fn reduce<T>(self) -> Reduce<T> {
        match self {
            ScatterOp::Sum => Reduce::Sum,
            ScatterOp::Max => Reduce::Max,
            ScatterOp::Min => Reduce::Min,
        }
    }
}

/// The operation and order of [`Ctx::scatter_reduce`].
///
/// ```
/// use gpuprim::{ScatterOp, ScatterReduce};
/// let how = ScatterReduce::new(ScatterOp::Sum).deterministic();
/// assert!(how.is_deterministic());
/// assert_eq!(how.op(), ScatterOp::Sum);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScatterReduce {
    op: ScatterOp,
    deterministic: bool,
}

impl ScatterReduce {
    /// `op` by atomics (the default order; see the [module docs](self)).
    pub fn new(op: ScatterOp) -> ScatterReduce {
        ScatterReduce {
            op,
            deterministic: false,
        }
    }

    /// Sort by index and reduce each index's values in their order, so f32 sums are the
    /// same bits on every run (slower: a sort of the indices and values).
    pub fn deterministic(mut self) -> ScatterReduce {
        self.deterministic = true;
        self
    }

    /// The operation.
    pub fn op(&self) -> ScatterOp {
        self.op
    }

    /// Whether the order is the deterministic one.
    pub fn is_deterministic(&self) -> bool {
        self.deterministic
    }
}

impl Ctx {
    /// `out[indices[i]] += values[i]` for every `i`, by atomics, without waiting (torch's
    /// `out.index_add_(0, indices, values)`, NumPy's `np.add.at(out, indices, values)`).
    /// Integers wrap. An index `>= out.len()` is skipped.
    ///
    /// For `f32` the additions into one element happen in no fixed order, so the result
    /// may differ in its last bits from run to run: each element's error is at most
    /// `(k - 1) * f32::EPSILON * sum(|v|)` over its `k` values. Use
    /// [`ScatterReduce::deterministic`] with [`Ctx::scatter_reduce`] for the same bits on
    /// every run.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut out = ctx.upload(&[0.0f32; 4])?;
    /// let idx = ctx.upload(&[1u32, 3, 1, 9, 1])?;
    /// let val = ctx.upload(&[0.5f32, 2.0, 0.25, 7.0, 1.0])?;
    /// ctx.scatter_add(&mut out, &idx, &val)?;
    /// assert_eq!(out.to_vec()?, vec![0.0, 1.75, 0.0, 2.0]); // index 9 is skipped
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::scatter_reduce`].
    pub fn scatter_add<T: AtomicElement>(
        &self,
        out: &mut GpuVec<T>,
        indices: &GpuVec<u32>,
        values: &GpuVec<T>,
    ) -> Result<()> {
        self.scatter_reduce(
            out,
            indices,
            values,
            ScatterReduce::new(ScatterOp::Sum),
            None,
        )
    }

    /// `out[indices[i]] = max(out[indices[i]], values[i])` for every `i`, by atomics,
    /// without waiting (torch's `scatter_reduce_(0, indices, values, "amax")` with
    /// `include_self`). An index `>= out.len()` is skipped. The result does not depend on
    /// the order; for `f32` a NaN value or element gives an unspecified one of the two
    /// (WGSL's `max`).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut out = ctx.upload(&[0i32, 0, 0])?;
    /// let idx = ctx.upload(&[2u32, 0, 2, 2])?;
    /// let val = ctx.upload(&[5i32, -3, 8, 1])?;
    /// ctx.scatter_max(&mut out, &idx, &val)?;
    /// assert_eq!(out.to_vec()?, vec![0, 0, 8]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::scatter_reduce`].
    pub fn scatter_max<T: AtomicElement>(
        &self,
        out: &mut GpuVec<T>,
        indices: &GpuVec<u32>,
        values: &GpuVec<T>,
    ) -> Result<()> {
        self.scatter_reduce(
            out,
            indices,
            values,
            ScatterReduce::new(ScatterOp::Max),
            None,
        )
    }

    /// `out[indices[i]] = min(out[indices[i]], values[i])` for every `i`; see
    /// [`Ctx::scatter_max`].
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut out = ctx.upload(&[f32::INFINITY; 2])?;
    /// let idx = ctx.upload(&[1u32, 1, 0])?;
    /// let val = ctx.upload(&[2.5f32, -1.0, 4.0])?;
    /// ctx.scatter_min(&mut out, &idx, &val)?;
    /// assert_eq!(out.to_vec()?, vec![4.0, -1.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Ctx::scatter_reduce`].
    pub fn scatter_min<T: AtomicElement>(
        &self,
        out: &mut GpuVec<T>,
        indices: &GpuVec<u32>,
        values: &GpuVec<T>,
    ) -> Result<()> {
        self.scatter_reduce(
            out,
            indices,
            values,
            ScatterReduce::new(ScatterOp::Min),
            None,
        )
    }

    /// `out[indices[i]] = op(out[indices[i]], values[i])` for every `i`, in the order
    /// `how` says ([`ScatterReduce`]), without waiting. An index `>= out.len()` is
    /// skipped; with `skipped`, their number is added to `skipped[0]` (on the device).
    ///
    /// ```
    /// use gpuprim::{ScatterOp, ScatterReduce};
    /// let ctx = gpuprim::Ctx::new()?;
    /// let mut out = ctx.upload(&[1.0f32, 1.0])?;
    /// let idx = ctx.upload(&[0u32, 5, 1, 0, 2])?;
    /// let val = ctx.upload(&[0.1f32, 9.0, 0.2, 0.3, 9.0])?;
    /// let mut skipped = ctx.zeros::<u32>(1)?;
    /// let how = ScatterReduce::new(ScatterOp::Sum).deterministic();
    /// ctx.scatter_reduce(&mut out, &idx, &val, how, Some(&mut skipped))?;
    /// // Index 0's values are added in their order, 0.1 then 0.3, on every run.
    /// assert_eq!(out.to_vec()?, vec![1.0 + (0.1f32 + 0.3), 1.2]);
    /// assert_eq!(skipped.to_vec()?, vec![2]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `indices` and `values` have one length,
    /// [`Error::TooLarge`] if `out` does not fit one storage binding,
    /// [`Error::InvalidArgument`] for prefix views, an empty `skipped`, `skipped` sharing
    /// a buffer with another argument, or `out` sharing a buffer with an input, [`Error::ContextMismatch`] for vectors of another context;
    /// in the deterministic order, [`Error::TooLarge`] if the indices do not fit one
    /// storage binding.
    pub fn scatter_reduce<T: AtomicElement>(
        &self,
        out: &mut GpuVec<T>,
        indices: &GpuVec<u32>,
        values: &GpuVec<T>,
        how: ScatterReduce,
        skipped: Option<&mut GpuVec<u32>>,
    ) -> Result<()> {
        let op = "scatter_reduce";
        self.check_owned(op, &[&out.ctx, &indices.ctx, &values.ctx])?;
        check_len(op, ("indices", indices.len()), ("values", values.len()))?;
        indices.require_host_len(op)?;
        values.require_host_len(op)?;
        let len = self.freely_indexed_len(op, "out", out)?;
        if let Some(s) = &skipped {
            self.check_skipped(op, s, &[View::of(out), View::of(indices), View::of(values)])?;
        }
        if indices.is_empty() {
            return Ok(());
        }
        if how.deterministic {
            return self.scatter_sorted(out, len, indices, values, how.op, skipped);
        }
        // f32 sums by the adapter's float atomics where it has them (one `atomicAdd`, as
        // CUDA's), else by compare-exchange.
        let native_add = T::WGSL == "f32"
            && how.op == ScatterOp::Sum
            && self.has_features(wgpu::Features::SHADER_FLOAT32_ATOMIC);
        let mut args = Args::new(op);
        args.vec("index", View::of(indices), Access::Read);
        args.vec("value", View::of(values), Access::Read);
        let access = if native_add {
            Access::AtomicFloat
        } else {
            Access::Atomic
        };
        args.vec("dst", View::of(out), access);
        args.scalar("dst_len", len);
        let update = if T::WGSL == "f32" && !native_add {
            // Compare-exchange on the bits; an update that changes no bit (a max that
            // loses, adding +0.0) writes nothing.
            format!(
                "var old = atomicLoad(&dst[index]);
                loop {{
                    let a = bitcast<f32>(old);
                    let b = value;
                    let next = bitcast<u32>({});
                    if next == old {{ break; }}
                    let r = atomicCompareExchangeWeak(&dst[index], old, next);
                    if r.exchanged {{ break; }}
                    old = r.old_value;
                }}",
                how.op.combine()
            )
        } else {
            format!("{}(&dst[index], value);", how.op.atomic())
        };
        let count = crate::ops::gather::counted(&mut args, skipped);
        let code = format!("if index < dst_len {{ {update} }}{count}");
        let mut work = Work::new(self, op);
        record_statements(self, &mut work, &code, args)?;
        work.submit()
    }

    /// The deterministic order: sort by index, reduce each index's run in order, combine
    /// each run's result into its element (one invocation per element, so no atomics).
    fn scatter_sorted<T: AtomicElement>(
        &self,
        out: &mut GpuVec<T>,
        len: u32,
        indices: &GpuVec<u32>,
        values: &GpuVec<T>,
        op: ScatterOp,
        skipped: Option<&mut GpuVec<u32>>,
    ) -> Result<()> {
        let name = "scatter_reduce";
        let n = indices.len();
        // The runs are found by `reduce_by_key`, which binds its vectors whole.
        let bytes = n as u64 * 4;
        let limit = self.info().max_binding_bytes;
        if bytes > limit {
            return Err(Error::TooLarge {
                what: format!(
                    "the deterministic order of {name} over {n} indices (its reduce_by_key binds \
                     them whole); use the atomic order, or scatter in parts"
                ),
                kind: Limit::BindingBytes,
                requested: bytes,
                limit,
            });
        }
        let mut keys = indices.try_clone()?;
        let mut vals = values.try_clone()?;
        self.sort_by_key(&mut keys, &mut vals)?;
        let mut run_keys = self.zeros::<u32>(n)?;
        let mut run_vals = self.zeros::<T>(n)?;
        let mut runs = self.zeros::<u32>(1)?;
        self.reduce_by_key_into(
            &keys,
            &vals,
            op.reduce(),
            &mut run_keys,
            &mut run_vals,
            &mut runs,
        )?;
        let run_keys = run_keys.prefix(&runs)?;
        let run_vals = run_vals.prefix(&runs)?;
        let mut args = Args::new(name);
        args.vec("index", View::of(&run_keys), Access::Read);
        args.vec("value", View::of(&run_vals), Access::Read);
        args.vec("dst", View::of(out), Access::RawReadWrite);
        args.scalar("dst_len", len);
        let code = format!(
            "if index < dst_len {{ let a = dst[index]; let b = value; dst[index] = {}; }}",
            op.combine()
        );
        let mut work = Work::new(self, name);
        record_statements(self, &mut work, &code, args)?;
        if let Some(s) = skipped {
            // Counted over the sorted indices (unchanged in number).
            self.record_skipped(&mut work, &keys, len, s)?;
        }
        work.submit()
    }

    /// Checks a vector that counts skipped indices: on the host, not empty, in no buffer
    /// of `others` (the call's other vectors).
    pub(crate) fn check_skipped(
        &self,
        op: &'static str,
        skipped: &GpuVec<u32>,
        others: &[View<'_>],
    ) -> Result<()> {
        self.check_owned(op, &[&skipped.ctx])?;
        skipped.require_host_len(op)?;
        if skipped.is_empty() {
            return Err(Error::InvalidArgument {
                op,
                message: "`skipped` has 0 elements; the count is added to element 0".into(),
            });
        }
        if others.iter().any(|v| v.buffer == View::of(skipped).buffer) {
            return Err(Error::InvalidArgument {
                op,
                message: "`skipped` shares a buffer with another argument; give it a vector of \
                          its own"
                    .into(),
            });
        }
        Ok(())
    }

    /// Adds to `work` the count of the indices `>= len` into `skipped[0]`, by atomics.
    pub(crate) fn record_skipped(
        &self,
        work: &mut Work,
        indices: &GpuVec<u32>,
        len: u32,
        skipped: &GpuVec<u32>,
    ) -> Result<()> {
        let mut args = Args::new(work.op());
        args.vec("index", View::of(indices), Access::Read);
        args.vec("skipped", View::of(skipped), Access::Atomic);
        args.scalar("len", len);
        record_statements(
            self,
            work,
            "if index >= len { atomicAdd(&skipped[0], 1u); }",
            args,
        )
    }

    /// The weighted histogram of `keys`: bin `b` is the sum of the `weights` of the keys
    /// equal to `b`, for `b` in `0..bins` (NumPy's `bincount(keys, weights, minlength)`,
    /// torch's `bincount(keys, weights)`). Keys `>= bins` are skipped. Blocks until the
    /// bins are read back.
    ///
    /// A [`Ctx::scatter_add`] into `bins` zeros: for `f32` weights the sums of a bin are
    /// added in no fixed order (see there); for `u32` and `i32` weights they are exact
    /// (wrapping).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let keys = ctx.upload(&[0u32, 2, 2, 1, 2, 7])?;
    /// let w = ctx.upload(&[0.5f32, 1.0, 2.0, 4.0, 8.0, 100.0])?;
    /// assert_eq!(ctx.histogram_weighted(&keys, &w, 3)?, vec![0.5, 4.0, 11.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for 0 bins; [`Error::TooLarge`] if the bins do not fit
    /// one storage binding; otherwise as [`Ctx::scatter_reduce`].
    pub fn histogram_weighted<T: AtomicElement>(
        &self,
        keys: &GpuVec<u32>,
        weights: &GpuVec<T>,
        bins: u32,
    ) -> Result<Vec<T>> {
        if bins == 0 {
            return Err(Error::InvalidArgument {
                op: "histogram_weighted",
                message: "0 bins: give at least one".into(),
            });
        }
        let mut out = self.zeros::<T>(bins as usize)?;
        self.scatter_add(&mut out, keys, weights)?;
        out.to_vec()
    }

    /// The length of a vector a kernel indexes freely, checked: one storage binding
    /// holds it (so every index fits a `u32`). Shared by the scatter-reduce calls,
    /// select_flagged and the unique calls.
    pub(crate) fn freely_indexed_len<T: Element>(
        &self,
        op: &'static str,
        name: &str,
        v: &GpuVec<T>,
    ) -> Result<u32> {
        v.require_host_len(op)?;
        let bytes = v.len() as u64 * size_of::<T>() as u64;
        let limit = self.info().max_binding_bytes;
        if bytes > limit {
            return Err(Error::TooLarge {
                what: format!(
                    "{op}'s {name}, indexed freely, of {} {} ({bytes} bytes), which must be \
                     bound whole",
                    v.len(),
                    T::WGSL
                ),
                kind: Limit::BindingBytes,
                requested: bytes,
                limit,
            });
        }
        u32::try_from(v.len()).map_err(|_| Error::Internal {
            op,
            message: format!("{} elements fit one binding but not a u32", v.len()),
        })
    }
}
