//! gpuprim's sort, argsort, top-k, argmax and cumulative scans for
//! [Burn](https://burn.dev)'s wgpu tensors, on Burn's own device, with no copy through
//! the host.
//!
//! Burn 0.22's wgpu backend sorts by reading the tensor back and sorting on the CPU, and
//! its cumulative sums are a sequential kernel. [`BurnGpu`] makes one wgpu device that
//! Burn's runtime and a gpuprim [`Ctx`] both run on, so a tensor's buffer is handed to
//! gpuprim's sorts, selections and scans as it is, and the results are Burn tensors on
//! the same device.
//!
//! Every call works along one dimension `dim` of a tensor of any rank, as Burn's own
//! calls do: the lines along it are rows, each sorted, selected or scanned on its own
//! (gpuprim's `sort_rows`, `argsort_rows`, `top_k_rows`, `argmax_rows` and
//! `scan_by_key`; a tensor of one row takes the device-wide `argsort`, `top_k` and
//! `scan`). Along a dimension other than the last, Burn makes the tensor contiguous with
//! that dimension last first (one copy), and the results are views with the dimensions
//! back in place. Float tensors are f32 and int tensors i32 (the wgpu backend's default
//! element types).
//!
//! Burn's fusion (its default features turn it on): `burn::backend::Wgpu` is then
//! `Fusion<CubeBackend>`, and these calls take and return its tensors. An input's fused
//! work runs (up to that tensor) before gpuprim reads it; a result enters the fusion
//! graph as the output of an operation, so the fused operations after it read it as
//! they read any tensor. With fusion off the tensors are CubeCL's and nothing changes.
//! This crate's `fusion` feature (on by default) only turns Burn's on.
//!
//! Gradients (a tensor of an autodiff device, `device.autodiff()`): sort and topk values
//! are differentiable through their indices, as in PyTorch. gpuprim computes the indices
//! from the tensor without its graph, and the values are Burn's `gather` of the tensor by
//! them, whose backward pass scatters the output's gradient by the indices. Indices
//! (argsort, argmax, argmin, and the indices of sort and topk) have no gradient. Float
//! cumsum, cumprod, cummin and cummax of an autodiff tensor are Burn's own ops, which have
//! a backward pass (gpuprim-burn has none of its own for scans); integer ones are
//! gpuprim's.
//!
//! Ordering: before gpuprim reads a tensor's buffer, the work Burn queued on the calling
//! thread's stream is submitted, and every call ends by submitting its own work, so Burn
//! work before and after a call runs before and after it. Burn keeps a stream per
//! thread: a tensor whose producing work was queued on another thread must have been
//! submitted there (for example by reading an element of it on that thread) before it
//! is given to these calls.
//!
//! ```
//! use burn::tensor::Tensor;
//! use gpuprim_burn::BurnGpu;
//!
//! let gpu = BurnGpu::new()?;
//! let t = Tensor::<2>::from_floats([[3.0, -1.0, 2.0], [0.5, 0.25, 9.0]], gpu.device());
//! let sorted = gpu.sort(t.clone(), 1, false)?; // each row, ascending
//! assert_eq!(sorted.into_data().try_to_vec::<f32>().unwrap(), [-1.0, 2.0, 3.0, 0.25, 0.5, 9.0]);
//! let order = gpu.argsort(t.clone(), 1, true)?; // descending
//! assert_eq!(order.into_data().try_to_vec::<i32>().unwrap(), [0, 2, 1, 2, 0, 1]);
//! let sums = gpu.cumsum(t.clone(), 1)?;
//! assert_eq!(sums.into_data().try_to_vec::<f32>().unwrap(), [3.0, 2.0, 4.0, 0.5, 0.75, 9.75]);
//! // Along the first dimension: each column.
//! let best = gpu.argmax(t * 2.0, 0)?; // the input of a fused operation
//! assert_eq!(best.dims(), [1, 3]);
//! assert_eq!(best.into_data().try_to_vec::<i32>().unwrap(), [0, 1, 1]);
//! # Ok::<(), gpuprim_burn::Error>(())
//! ```

use burn::backend::wgpu::CubeTensor;
use burn::tensor::wgpu::WgpuSetup;
use burn::tensor::{BackendPrimitive, DType, Device, Float, Int, Shape, Tensor};
use burn_cubecl::Cube;
use cubecl::wgpu::{AutoCompiler, WgpuServer};
#[cfg(feature = "fusion")]
use fused::{CustomOpIr, OperationIr, StreamId, TensorId, TensorIr};
use gpuprim::wgpu;
use gpuprim::{Ctx, GpuElement, GpuVec, ScanOp, Sort, SortKey};

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// gpuprim refused the call or the device failed.
    #[error(transparent)]
    Gpuprim(#[from] gpuprim::Error),
    /// Burn or CubeCL refused a step (setting up the device, reaching a buffer).
    #[error("burn: {0}")]
    Burn(String),
    /// A tensor of an element type these calls do not take.
    #[error("{0}")]
    Unsupported(String),
    /// An argument out of range (a `dim` past the rank, a `k` past the dimension).
    #[error("{0}")]
    InvalidArgument(String),
}

/// This crate's results.
pub type Result<T> = std::result::Result<T, Error>;

/// A tensor kind these calls take: [`Float`] (f32 elements) or [`Int`] (i32).
pub trait Kind:
    burn::tensor::kind::Ordered
    + burn::tensor::kind::Autodiff
    + BackendPrimitive<Cube, Primitive: WgpuPrimitive>
    + Sized
{
    /// The element type gpuprim sorts and scans.
    type Elem: SortKey + GpuElement;
    /// Burn's name of that type.
    const DTYPE: DType;

    #[doc(hidden)]
    fn into_cube<const D: usize>(t: Tensor<D, Self>) -> Result<CubeTensor> {
        t.try_into_primitive::<Cube>()
            .map(WgpuPrimitive::resolve)
            .map_err(|e| Error::Burn(format!("not a tensor of the wgpu backend: {e:?}")))
    }

    #[doc(hidden)]
    fn from_cube<const D: usize>(c: CubeTensor) -> Tensor<D, Self> {
        Tensor::from_primitive::<Cube>(WgpuPrimitive::wrap(c))
    }
}

/// A tensor primitive of Burn's CubeCL backend (`burn_cubecl::Cube`, which
/// `burn::backend::Wgpu` names), which Burn's features make either CubeCL's tensor
/// (fusion off) or the fused backend's (fusion on, Burn's default): how
/// it becomes the CubeCL tensor whose buffer gpuprim reads, and how a CubeCL tensor
/// gpuprim wrote becomes one. Implemented for both, so the crate works with either.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "gpuprim-burn cannot take `{Self}`: Burn's fusion is on, but gpuprim-burn's `fusion` feature is off",
    note = "turn gpuprim-burn's `fusion` feature on (it is a default feature), or Burn's fusion off (burn with `default-features = false`)"
)]
pub trait WgpuPrimitive: Sized {
    /// The CubeCL tensor, with the work that produces it queued ahead of what comes next.
    fn resolve(self) -> CubeTensor;
    /// A primitive holding `tensor`'s buffer.
    fn wrap(tensor: CubeTensor) -> Self;
}

impl WgpuPrimitive for CubeTensor {
    fn resolve(self) -> CubeTensor {
        self
    }

    fn wrap(tensor: CubeTensor) -> Self {
        tensor
    }
}

#[cfg(feature = "fusion")]
impl WgpuPrimitive for fused::FusionTensor<fused::FusionCubeRuntime> {
    fn resolve(self) -> CubeTensor {
        // Runs the fused work queued on the tensor's stream (up to it) and hands over the
        // CubeCL tensor holding the result.
        let client = self.client.clone();
        if self.dtype.is_float() {
            client.resolve_tensor_float::<fused::CubeBackend>(self)
        } else {
            client.resolve_tensor_int::<fused::CubeBackend>(self)
        }
    }

    fn wrap(tensor: CubeTensor) -> Self {
        // Into the fusion graph as the output of an operation of no inputs that, when the
        // stream runs, publishes the buffer gpuprim already wrote; later fused operations
        // read it as they read any tensor.
        let client = burn_fusion::get_client::<fused::CubeBackend>(&tensor.device);
        let id = client.create_empty_handle();
        let out = TensorIr::uninit(id, tensor.meta.shape().clone(), tensor.dtype);
        let op = CustomOpIr::new("gpuprim-burn result", &[], &[out]);
        client
            .register(
                StreamId::current(),
                OperationIr::Custom(op),
                Publish { id, tensor },
            )
            .pop()
            .expect("the operation declares one output")
    }
}

/// The fusion operation of [`WgpuPrimitive::wrap`].
#[cfg(feature = "fusion")]
struct Publish {
    id: TensorId,
    tensor: CubeTensor,
}

#[cfg(feature = "fusion")]
impl std::fmt::Debug for Publish {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "gpuprim-burn result {:?}", self.id)
    }
}

#[cfg(feature = "fusion")]
impl fused::Operation<fused::FusionCubeRuntime> for Publish {
    fn execute(
        &self,
        handles: &mut fused::HandleContainer<
            <fused::FusionCubeRuntime as burn_fusion::FusionRuntime>::FusionHandle,
        >,
    ) -> std::result::Result<(), burn_fusion::ExecutionError> {
        if self.tensor.dtype.is_float() {
            handles.register_float_tensor::<fused::CubeBackend>(&self.id, self.tensor.clone());
        } else {
            handles.register_int_tensor::<fused::CubeBackend>(&self.id, self.tensor.clone());
        }
        Ok(())
    }
}

impl Kind for Float {
    type Elem = f32;
    const DTYPE: DType = DType::F32;
}

impl Kind for Int {
    type Elem = i32;
    const DTYPE: DType = DType::I32;
}

/// What the fused backend's tensors need (Burn's fusion is on).
#[cfg(feature = "fusion")]
mod fused {
    pub use burn_cubecl::CubeBackend;
    pub use burn_cubecl::fusion::FusionCubeRuntime;
    pub use burn_fusion::FusionTensor;
    pub use burn_fusion::custom::{
        CustomOpIr, HandleContainer, Operation, OperationIr, StreamId, TensorId, TensorIr,
    };
}

/// One wgpu device shared by Burn's wgpu runtime ([`BurnGpu::device`]) and a gpuprim
/// context ([`BurnGpu::ctx`]).
pub struct BurnGpu {
    ctx: Ctx,
    device: Device,
    /// Buffers of gpuprim's own that calls borrow for their intermediate vectors and
    /// give back when their work is queued (a new buffer of tens of MiB costs about as
    /// much as the kernel it feeds: the driver's allocation and wgpu's zeroing).
    temps: std::sync::Mutex<Vec<wgpu::Buffer>>,
}

/// How many buffers [`BurnGpu`] keeps for later calls.
const TEMPS_KEPT: usize = 8;

impl BurnGpu {
    /// The machine's default adapter (as wgpu picks it among Vulkan, Metal and DX12,
    /// else GL; `WGPU_BACKEND` and wgpu's other environment variables apply), one device
    /// on it with the adapter's features and limits (less wgpu's experimental ones),
    /// registered with Burn (which reads them from the adapter) and wrapped by gpuprim.
    /// The instance is [`gpuprim::new_instance`]'s, which on a machine without a desktop
    /// session prints nothing. Make one per process: Burn keeps the device registered for
    /// the process's lifetime.
    ///
    /// # Errors
    /// [`Error::Gpuprim`] with gpuprim's advice when there is no adapter;
    /// [`Error::Burn`] when the device cannot be made or Burn refuses it.
    pub fn new() -> Result<BurnGpu> {
        // Vulkan, Metal and DX12 first, GL only where they have no adapter (probing GL
        // also probes EGL's displays, which complains on machines without one);
        // `WGPU_BACKEND` chooses instead.
        let from_env = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        let chosen = std::env::var_os("WGPU_BACKEND").is_some();
        let tries = if chosen {
            vec![from_env.backends]
        } else {
            vec![wgpu::Backends::PRIMARY, wgpu::Backends::GL]
        };
        let mut found = None;
        for backends in tries {
            // (gpuprim's instance: no libwayland lines on machines without a desktop)
            let instance = gpuprim::new_instance(wgpu::InstanceDescriptor {
                backends,
                ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
            });
            if let Ok(adapter) = pollster::block_on(instance.request_adapter(&Default::default())) {
                found = Some((instance, adapter));
                break;
            }
        }
        let (instance, adapter) = found.ok_or_else(|| {
            Error::Gpuprim(gpuprim::Error::NoAdapter {
                searched: "wgpu's default adapter of Vulkan, Metal or DX12, then of GL".into(),
            })
        })?;
        // CubeCL's own device request (every feature of the adapter but mapped primary
        // buffers, its full limits), so the code it generates matches the device; less
        // wgpu's experimental features (mesh shaders, cooperative matrices, ray tracing,
        // which some GPUs' adapters list), which a device takes only with an `unsafe`
        // opt-in and which CubeCL's WGSL compiler does not use.
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("gpuprim-burn"),
            required_features: adapter.features().difference(
                wgpu::Features::MAPPABLE_PRIMARY_BUFFERS | wgpu::Features::all_experimental_mask(),
            ),
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| {
            Error::Gpuprim(gpuprim::Error::RequestDevice {
                adapter: adapter.get_info().name,
                message: e.to_string(),
            })
        })?;
        let setup = WgpuSetup {
            instance: instance.clone(),
            adapter: adapter.clone(),
            device: device.clone(),
            queue: queue.clone(),
            backend: adapter.get_info().backend,
        };
        let burn_device = Device::wgpu_options()
            .setup(setup)
            .init()
            .map_err(|e| Error::Burn(format!("registering the device with Burn: {e:?}")))?;
        let ctx = Ctx::from_wgpu(device, queue)?;
        Ok(BurnGpu {
            ctx,
            device: burn_device,
            temps: Default::default(),
        })
    }

    /// Burn's device: make the tensors for these calls on it.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The gpuprim context on the same wgpu device.
    pub fn ctx(&self) -> &Ctx {
        &self.ctx
    }

    /// The tensor sorted along dimension `dim`, ascending or descending, stable
    /// (equal elements keep their order). f32 elements are ordered as `f32::total_cmp`
    /// orders them, as Burn's sort does: -NaN first, then -inf ... -0.0, 0.0 ... inf,
    /// then NaN.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a `dim` not below the rank;
    /// [`Error::Unsupported`] for elements other than f32 / i32; gpuprim's errors (for
    /// example a tensor past one storage binding).
    pub fn sort<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        dim: usize,
        descending: bool,
    ) -> Result<Tensor<D, K>> {
        Ok(self
            .sort_impl(t, dim, descending, true, false)?
            .0
            .expect("values asked"))
    }

    /// The sorting permutation along `dim`: the indices (within
    /// the row) of its elements in sorted order, stable, ordered as [`BurnGpu::sort`].
    ///
    /// # Errors
    /// As [`BurnGpu::sort`].
    pub fn argsort<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        dim: usize,
        descending: bool,
    ) -> Result<Tensor<D, Int>> {
        Ok(self
            .sort_impl(t, dim, descending, false, true)?
            .1
            .expect("indices asked"))
    }

    /// [`BurnGpu::sort`] and [`BurnGpu::argsort`] in one call.
    ///
    /// # Errors
    /// As [`BurnGpu::sort`].
    pub fn sort_with_indices<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        dim: usize,
        descending: bool,
    ) -> Result<(Tensor<D, K>, Tensor<D, Int>)> {
        let (values, indices) = self.sort_impl(t, dim, descending, true, true)?;
        Ok((
            values.expect("values asked"),
            indices.expect("indices asked"),
        ))
    }

    /// The `k` largest elements along `dim` (that dimension becomes `k`), largest first;
    /// among equal elements the lower index first; NaN is largest (the order of
    /// [`BurnGpu::sort`], descending). Each row is a selection (gpuprim's `top_k_rows`:
    /// a radix select per row, never a sort of the row for small `k`; one row is
    /// `top_k`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a `k` larger than dimension `dim`; as
    /// [`BurnGpu::sort`] otherwise.
    pub fn topk<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        k: usize,
        dim: usize,
    ) -> Result<Tensor<D, K>> {
        Ok(self.topk_impl(t, k, dim, false)?.0)
    }

    /// [`BurnGpu::topk`] and the indices (within the row) of the elements it picks.
    ///
    /// # Errors
    /// As [`BurnGpu::topk`].
    pub fn topk_with_indices<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        k: usize,
        dim: usize,
    ) -> Result<(Tensor<D, K>, Tensor<D, Int>)> {
        let (values, indices) = self.topk_impl(t, k, dim, true)?;
        Ok((values, indices.expect("indices asked")))
    }

    /// The top `k` along `dim`, with their indices if `want_indices`.
    fn topk_impl<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        k: usize,
        dim: usize,
        want_indices: bool,
    ) -> Result<(Tensor<D, K>, Option<Tensor<D, Int>>)> {
        if t.is_autodiff() {
            // The indices from the tensor without its graph; the values Burn's gather of
            // them, whose gradient is the scatter of the output's by the indices.
            let (_, indices) = self.topk_impl(t.clone().inner(), k, dim, true)?;
            let indices = indices.expect("indices asked").autodiff();
            return Ok((
                t.gather(dim, indices.clone()),
                want_indices.then_some(indices),
            ));
        }
        let t = to_last(t, dim, "topk")?;
        let (values, indices) = self.topk_last(t, k, want_indices)?;
        Ok((from_last(values, dim), indices.map(|i| from_last(i, dim))))
    }

    /// The top `k` of each row along the last dimension.
    fn topk_last<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        k: usize,
        want_indices: bool,
    ) -> Result<(Tensor<D, K>, Option<Tensor<D, Int>>)> {
        let cols = t.dims().last().copied().unwrap_or(1);
        if k > cols {
            return Err(Error::InvalidArgument(format!(
                "topk of k = {k} along a dimension of {cols}: k must be at most {cols}"
            )));
        }
        if k == 0 {
            // Burn has no empty narrow: empty tensors of the shape with a last dimension of 0.
            let mut dims = t.dims();
            dims[D - 1] = 0;
            return Ok((
                Tensor::empty(dims, &self.device),
                want_indices.then(|| Tensor::empty(dims, &self.device)),
            ));
        }
        let rows = Rows::of(&t);
        let mut dims = t.dims();
        dims[D - 1] = k;
        let out_len = rows.rows * k;
        if out_len == 0 {
            return Ok((
                Tensor::empty(dims, &self.device),
                want_indices.then(|| Tensor::empty(dims, &self.device)),
            ));
        }
        let input = self.contiguous::<D, K>(t)?;
        let keys: GpuVec<K::Elem> = self.vec_of(&input, rows.n)?;
        // gpuprim's per-row selection into vectors of its own (Burn may keep the input
        // and the results in one buffer, which one dispatch cannot bind read-only and
        // writable), then copied into the results.
        let mut top = self.temp::<K::Elem>(out_len)?;
        let mut cols = self.temp::<u32>(out_len)?;
        if rows.rows == 1 {
            // One row: the device-wide select.
            self.ctx.top_k_into(&keys, &mut top, &mut cols)?;
        } else {
            let grid = gpuprim::Grid2D::new(&keys, rows.cols as u32, rows.rows as u32)?;
            self.ctx.top_k_rows_into(&grid, &mut top, &mut cols)?;
        }
        let values_out = self.empty_like(&input, K::DTYPE, out_len);
        let mut v: GpuVec<K::Elem> = self.vec_of(&values_out, out_len)?;
        self.ctx
            .elementwise("v = x;")
            .read("x", &top)
            .write("v", &mut v)
            .run()?;
        let indices_out = if want_indices {
            let out = self.empty_like(&input, DType::I32, out_len);
            let mut idx: GpuVec<i32> = self.vec_of(&out, out_len)?;
            self.ctx
                .elementwise("idx = i32(c);")
                .read("c", &cols)
                .write("idx", &mut idx)
                .run()?;
            Some(out)
        } else {
            None
        };
        self.ctx.flush()?;
        self.keep([top.buffer().clone(), cols.buffer().clone()]);
        Ok((
            K::from_cube::<1>(values_out).reshape(dims),
            indices_out.map(|c| Int::from_cube::<1>(c).reshape(dims)),
        ))
    }

    /// The index along `dim` of the largest element of each line along it, that
    /// dimension kept with size 1, as Burn's `argmax`: ties go to the
    /// lowest index, the first NaN wins (as in NumPy), -0.0 equals 0.0: gpuprim's
    /// `argmax_rows`, a reduction of each row.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a dimension `dim` of 0; as [`BurnGpu::sort`].
    pub fn argmax<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        dim: usize,
    ) -> Result<Tensor<D, Int>> {
        self.arg(t, dim, true)
    }

    /// [`BurnGpu::argmax`] for the smallest element (the first NaN wins here too).
    ///
    /// # Errors
    /// As [`BurnGpu::argmax`].
    pub fn argmin<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        dim: usize,
    ) -> Result<Tensor<D, Int>> {
        self.arg(t, dim, false)
    }

    /// Running sums along `dim` (integers wrap). f32 sums are added in an
    /// order fixed by the length (gpuprim's scan), not one by one.
    ///
    /// # Errors
    /// As [`BurnGpu::sort`].
    pub fn cumsum<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        dim: usize,
    ) -> Result<Tensor<D, K>> {
        self.scan(t, dim, Cumulative::Sum)
    }

    /// Running products along `dim` (integers wrap).
    ///
    /// # Errors
    /// As [`BurnGpu::sort`].
    pub fn cumprod<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        dim: usize,
    ) -> Result<Tensor<D, K>> {
        self.scan(t, dim, Cumulative::Product)
    }

    /// Running minima along `dim`.
    ///
    /// # Errors
    /// As [`BurnGpu::sort`].
    pub fn cummin<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        dim: usize,
    ) -> Result<Tensor<D, K>> {
        self.scan(t, dim, Cumulative::Min)
    }

    /// Running maxima along `dim`.
    ///
    /// # Errors
    /// As [`BurnGpu::sort`].
    pub fn cummax<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        dim: usize,
    ) -> Result<Tensor<D, K>> {
        self.scan(t, dim, Cumulative::Max)
    }

    /// The sort of `t`'s rows: its values and / or indices as asked.
    #[allow(clippy::type_complexity)]
    fn sort_impl<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        dim: usize,
        descending: bool,
        want_values: bool,
        want_indices: bool,
    ) -> Result<(Option<Tensor<D, K>>, Option<Tensor<D, Int>>)> {
        if t.is_autodiff() {
            // As in `topk_impl`: the order from the tensor without its graph, the values
            // Burn's (differentiable) gather by it.
            let (_, order) = self.sort_impl(t.clone().inner(), dim, descending, false, true)?;
            let order = order.expect("indices asked").autodiff();
            let values = want_values.then(|| t.gather(dim, order.clone()));
            return Ok((values, want_indices.then_some(order)));
        }
        let t = to_last(t, dim, if want_values { "sort" } else { "argsort" })?;
        let (values, indices) = self.sort_last(t, descending, want_values, want_indices)?;
        Ok((
            values.map(|v| from_last(v, dim)),
            indices.map(|i| from_last(i, dim)),
        ))
    }

    /// [`BurnGpu::sort_impl`] along the last dimension.
    #[allow(clippy::type_complexity)]
    fn sort_last<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        descending: bool,
        want_values: bool,
        want_indices: bool,
    ) -> Result<(Option<Tensor<D, K>>, Option<Tensor<D, Int>>)> {
        let rows = Rows::of(&t);
        if rows.n == 0 {
            // Nothing to sort: empty tensors of the shape, from Burn.
            let shape = rows.shape.clone();
            return Ok((
                want_values.then(|| Tensor::empty(shape.clone(), &self.device)),
                want_indices.then(|| Tensor::empty(shape, &self.device)),
            ));
        }
        let input = self.contiguous::<D, K>(t)?;
        let values_out = want_values.then(|| self.empty_like(&input, K::DTYPE, rows.n));
        let indices_out = want_indices.then(|| self.empty_like(&input, DType::I32, rows.n));
        let order = if descending {
            Sort::descending()
        } else {
            Sort::ascending()
        };
        let keys: GpuVec<K::Elem> = self.vec_of(&input, rows.n)?;
        let mut borrowed = Vec::new();
        if rows.rows == 1 {
            // One row: the device-wide radix sort.
            let mut p = self.temp::<u32>(rows.n)?;
            self.ctx.argsort_into(&keys, &order, &mut p)?;
            if let Some(out) = &values_out {
                let mut v: GpuVec<K::Elem> = self.vec_of(out, rows.n)?;
                self.ctx
                    .elementwise("v = src[p];")
                    .read("p", &p)
                    .raw("src", &keys)
                    .write("v", &mut v)
                    .run()?;
            }
            if let Some(out) = &indices_out {
                let mut idx: GpuVec<i32> = self.vec_of(out, rows.n)?;
                self.ctx
                    .elementwise("idx = i32(p);")
                    .read("p", &p)
                    .write("idx", &mut idx)
                    .run()?;
            }
            borrowed.push(p.buffer().clone());
        } else {
            // Rows: gpuprim's row sorts, each row on its own.
            let (w, h) = (rows.cols as u32, rows.rows as u32);
            match (&values_out, &indices_out) {
                (Some(v_out), indices) => {
                    // The values start as a copy of the keys (Burn may keep the input and
                    // the result in one buffer, so the copy binds both writable), the
                    // indices as each element's column; both are sorted in place.
                    let mut v: GpuVec<K::Elem> = self.vec_of(v_out, rows.n)?;
                    self.ctx
                        .elementwise("v = x;")
                        .read("x", &keys)
                        .write("v", &mut v)
                        .run()?;
                    let mut grid = gpuprim::Grid2DMut::new(&mut v, w, h)?;
                    if let Some(i_out) = indices {
                        let mut idx: GpuVec<i32> = self.vec_of(i_out, rows.n)?;
                        self.ctx
                            .elementwise("idx = i32(i % cols);")
                            .scalar("cols", w)
                            .write("idx", &mut idx)
                            .run()?;
                        self.ctx.sort_rows_by_key_with(
                            &mut grid,
                            &mut gpuprim::Grid2DMut::new(&mut idx, w, h)?,
                            &order,
                        )?;
                    } else {
                        self.ctx.sort_rows_with(&mut grid, &order)?;
                    }
                }
                (None, Some(i_out)) => {
                    // Indices within the row are below 2^31: their u32 bits are the i32s.
                    // The keys are read from a copy: Burn may keep the input and the result
                    // in one buffer, which one dispatch cannot bind read-only and writable.
                    let mut idx: GpuVec<u32> = self.vec_of(i_out, rows.n)?;
                    let mut copy = self.temp::<K::Elem>(rows.n)?;
                    copy.copy_from(&keys)?;
                    self.ctx.argsort_rows_into(
                        &gpuprim::Grid2D::new(&copy, w, h)?,
                        &order,
                        &mut idx,
                    )?;
                    borrowed.push(copy.buffer().clone());
                }
                (None, None) => {}
            }
        }
        // What gpuprim holds for batching goes to the queue now, ahead of Burn's next work.
        self.ctx.flush()?;
        self.keep(borrowed);
        Ok((
            values_out.map(|c| rows.shaped(K::from_cube(c))),
            indices_out.map(|c| rows.shaped(Int::from_cube(c))),
        ))
    }

    /// argmax (`max`) or argmin along `dim`.
    fn arg<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        dim: usize,
        max: bool,
    ) -> Result<Tensor<D, Int>> {
        let name = if max { "argmax" } else { "argmin" };
        if t.is_autodiff() {
            // Indices have no gradient.
            return Ok(self.arg(t.inner(), dim, max)?.autodiff());
        }
        let t = to_last(t, dim, name)?;
        Ok(from_last(self.arg_last(t, name, max)?, dim))
    }

    /// argmax (`max`) or argmin of each row of `t`.
    fn arg_last<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        name: &str,
        max: bool,
    ) -> Result<Tensor<D, Int>> {
        let rows = Rows::of(&t);
        let mut dims = t.dims();
        if rows.cols == 0 {
            return Err(Error::InvalidArgument(format!(
                "{name} along a dimension of 0 (shape {dims:?}): there is no element to pick"
            )));
        }
        dims[D - 1] = 1;
        if rows.n == 0 {
            return Ok(Tensor::empty(dims, &self.device));
        }
        let input = self.contiguous::<D, K>(t)?;
        let out = self.empty_like(&input, DType::I32, rows.rows);
        let values: GpuVec<K::Elem> = self.vec_of(&input, rows.n)?;
        let mut result: GpuVec<i32> = self.vec_of(&out, rows.rows)?;
        // gpuprim's per-row argmax into vectors of its own (see `topk_impl`), then the
        // indices copied into the result.
        let mut best = self.temp::<K::Elem>(rows.rows)?;
        let mut found = self.temp::<u32>(rows.rows)?;
        let grid = gpuprim::Grid2D::new(&values, rows.cols as u32, rows.rows as u32)?;
        if max {
            self.ctx.argmax_rows_into(&grid, &mut best, &mut found)?;
        } else {
            self.ctx.argmin_rows_into(&grid, &mut best, &mut found)?;
        }
        self.ctx
            .elementwise("o = i32(f);")
            .read("f", &found)
            .write("o", &mut result)
            .run()?;
        self.ctx.flush()?;
        self.keep([best.buffer().clone(), found.buffer().clone()]);
        Ok(Int::from_cube::<1>(out).reshape(dims))
    }

    /// The inclusive scan `cumulative` along `dim`.
    fn scan<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        dim: usize,
        cumulative: Cumulative,
    ) -> Result<Tensor<D, K>> {
        let name = cumulative.name();
        if t.is_autodiff() {
            if K::DTYPE.is_float() {
                // gpuprim-burn has no backward pass of its own for scans: Burn's op,
                // which has one.
                check_dim::<D>(dim, name, &t.dims())?;
                return Ok(match cumulative {
                    Cumulative::Sum => t.cumsum(dim),
                    Cumulative::Product => t.cumprod(dim),
                    Cumulative::Min => t.cummin(dim),
                    Cumulative::Max => t.cummax(dim),
                });
            }
            // Integers have no gradient.
            return Ok(self.scan(t.inner(), dim, cumulative)?.autodiff());
        }
        let op = match cumulative {
            Cumulative::Sum => ScanOp::Sum,
            Cumulative::Product => ScanOp::Product,
            Cumulative::Min => ScanOp::Min,
            Cumulative::Max => ScanOp::Max,
        };
        let t = to_last(t, dim, name)?;
        Ok(from_last(self.scan_last(t, &op)?, dim))
    }

    /// An inclusive scan of each row of `t` by `op`.
    fn scan_last<const D: usize, K: Kind>(
        &self,
        t: Tensor<D, K>,
        op: &ScanOp<K::Elem>,
    ) -> Result<Tensor<D, K>> {
        let rows = Rows::of(&t);
        if rows.n == 0 {
            return Ok(Tensor::empty(rows.shape.clone(), &self.device));
        }
        let input = self.contiguous::<D, K>(t)?;
        let out = self.empty_like(&input, K::DTYPE, rows.n);
        let mut borrowed = Vec::new();
        if rows.n > 0 {
            // Burn keeps tensors in shared pages, so the input and the result may be two
            // views of one wgpu buffer, which one dispatch cannot bind read-only and
            // writable: the scan reads a copy (made by an element-wise kernel, which
            // binds both views writable).
            let input: GpuVec<K::Elem> = self.vec_of(&input, rows.n)?;
            let mut values = self.temp::<K::Elem>(rows.n)?;
            self.ctx
                .elementwise("y = x;")
                .read("x", &input)
                .write("y", &mut values)
                .run()?;
            let mut result: GpuVec<K::Elem> = self.vec_of(&out, rows.n)?;
            if rows.rows > 1 {
                // The running value restarts where the key (the row) changes.
                let mut row = self.temp::<u32>(rows.n)?;
                self.ctx
                    .elementwise("r = i / cols;")
                    .scalar("cols", rows.cols as u32)
                    .write("r", &mut row)
                    .run()?;
                self.ctx.scan_by_key_with_into(
                    &row,
                    &values,
                    &gpuprim::Scan::inclusive(op.clone()),
                    &mut result,
                )?;
                borrowed.push(row.buffer().clone());
            } else {
                self.ctx.scan_with_into(
                    &values,
                    &gpuprim::Scan::inclusive(op.clone()),
                    &mut result,
                )?;
            }
            borrowed.push(values.buffer().clone());
        }
        self.ctx.flush()?;
        self.keep(borrowed);
        Ok(rows.shaped(K::from_cube(out)))
    }

    /// `t` as a contiguous CubeCL tensor of `K`'s element type.
    fn contiguous<const D: usize, K: Kind>(&self, t: Tensor<D, K>) -> Result<CubeTensor> {
        let cube = K::into_cube(t)?;
        if cube.dtype != K::DTYPE {
            return Err(Error::Unsupported(format!(
                "a tensor of {:?}: gpuprim-burn takes {:?} tensors of this kind",
                cube.dtype,
                K::DTYPE
            )));
        }
        Ok(if cube.is_contiguous() {
            cube
        } else {
            burn_cubecl::kernel::into_contiguous(cube)
        })
    }

    /// A new contiguous tensor of `n` elements of `dtype` on `like`'s device (flat: the
    /// caller gives it its shape).
    fn empty_like(&self, like: &CubeTensor, dtype: DType, n: usize) -> CubeTensor {
        let handle = like.client.empty(n * dtype.size());
        CubeTensor::new_contiguous(
            like.client.clone(),
            like.device.clone(),
            Shape::new([n]),
            handle,
            dtype,
        )
    }

    /// A vector of `n` elements (contents unspecified) on a kept buffer of at least its
    /// size and at most twice it, else on a new one. Give it back with
    /// [`BurnGpu::keep`] once the work that uses it is queued.
    fn temp<T: GpuElement>(&self, n: usize) -> Result<GpuVec<T>> {
        let bytes = (n.max(1) * size_of::<T>()) as u64;
        let kept = {
            let mut temps = self.temps.lock().unwrap_or_else(|e| e.into_inner());
            temps
                .iter()
                .position(|b| b.size() >= bytes && b.size() <= 2 * bytes)
                .map(|i| temps.remove(i))
        };
        Ok(match kept {
            Some(buffer) => GpuVec::from_buffer_at(&self.ctx, buffer, 0, n)?,
            None => self.ctx.zeros::<T>(n)?,
        })
    }

    /// Keeps the buffers of [`BurnGpu::temp`]'s vectors for later calls; the oldest go
    /// past [`TEMPS_KEPT`]. Only after the work that uses them is queued (the next call's
    /// work then runs after it on the one queue).
    fn keep(&self, buffers: impl IntoIterator<Item = wgpu::Buffer>) {
        let mut temps = self.temps.lock().unwrap_or_else(|e| e.into_inner());
        temps.extend(buffers);
        let extra = temps.len().saturating_sub(TEMPS_KEPT);
        temps.drain(..extra);
    }

    /// The first `n` elements of a contiguous tensor's buffer as a gpuprim vector. Burn's
    /// queued work is submitted first, so gpuprim's work on the shared queue runs after
    /// it.
    fn vec_of<T: GpuElement>(&self, cube: &CubeTensor, n: usize) -> Result<GpuVec<T>> {
        let managed = cube
            .client
            .get_resource::<WgpuServer<AutoCompiler>>(cube.handle.clone())
            .map_err(|e| Error::Burn(format!("reaching a tensor's buffer: {e:?}")))?;
        cube.client
            .flush()
            .map_err(|e| Error::Burn(format!("submitting Burn's queued work: {e:?}")))?;
        let resource = managed.resource();
        Ok(GpuVec::from_buffer_at(
            &self.ctx,
            resource.buffer.clone(),
            resource.offset,
            n,
        )?)
    }
}

/// A tensor's shape as rows (every dimension but the last) of `cols` elements.
struct Rows {
    shape: Shape,
    rows: usize,
    cols: usize,
    n: usize,
}

impl Rows {
    fn of<const D: usize, K: Kind>(t: &Tensor<D, K>) -> Rows {
        let shape = t.shape();
        let dims = t.dims();
        let cols = dims.last().copied().unwrap_or(1);
        let n: usize = dims.iter().product();
        Rows {
            shape,
            rows: n.checked_div(cols).unwrap_or(0),
            cols,
            n,
        }
    }

    /// A flat result in the input's shape.
    fn shaped<const D: usize, K: Kind>(&self, flat: Tensor<1, K>) -> Tensor<D, K> {
        flat.reshape(self.shape.clone())
    }
}

/// `t` with `dim` moved last (swapped with the last dimension: a view, made contiguous
/// when its buffer is read), for `call`.
fn to_last<const D: usize, K: Kind>(
    t: Tensor<D, K>,
    dim: usize,
    call: &str,
) -> Result<Tensor<D, K>> {
    check_dim::<D>(dim, call, &t.dims())?;
    Ok(if dim + 1 == D {
        t
    } else {
        t.swap_dims(dim, D - 1)
    })
}

/// `dim` names a dimension of a tensor of rank `D` and shape `dims`, for `call`.
fn check_dim<const D: usize>(dim: usize, call: &str, dims: &[usize; D]) -> Result<()> {
    if dim >= D {
        return Err(Error::InvalidArgument(format!(
            "{call} along dimension {dim} of a tensor of rank {D} (shape {dims:?}): dim must be below {D}"
        )));
    }
    Ok(())
}

/// The cumulative scans: which one a call is.
#[derive(Clone, Copy)]
enum Cumulative {
    Sum,
    Product,
    Min,
    Max,
}

impl Cumulative {
    /// The call's name, for messages.
    fn name(self) -> &'static str {
        match self {
            Cumulative::Sum => "cumsum",
            Cumulative::Product => "cumprod",
            Cumulative::Min => "cummin",
            Cumulative::Max => "cummax",
        }
    }
}

/// [`to_last`] undone: the last dimension swapped back to `dim`.
fn from_last<const D: usize, K: Kind>(t: Tensor<D, K>, dim: usize) -> Tensor<D, K> {
    if dim + 1 == D {
        t
    } else {
        t.swap_dims(dim, D - 1)
    }
}
