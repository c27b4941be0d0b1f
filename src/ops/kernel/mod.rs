//! Kernels of your own: [`Ctx::elementwise`] runs a body of WGSL statements once per
//! element over named vectors of any element types, with scalars given per call.
//! [`Ctx::map`] and [`Ctx::zip`] are short forms of it, and
//! [`Ctx::transform_reduce`](crate::Ctx::transform_reduce) reduces an expression over the
//! same kinds of arguments.
//!
//! What a body sees:
//! - `i` (`u32`), the element's index, and `n` (`u32`), the number of elements;
//! - each *element* vector (`read`, `read_write`, `write`) as a variable of its element
//!   type holding element `i` (`let` for inputs, `var` for outputs, which start as the
//!   stored value or zero); what an output variable holds after the body is stored;
//! - each *raw* vector as a WGSL `array<T>` under its name, to index freely (`u[i + 1u]`,
//!   gathers, scatters). It is bound to exactly its elements (rounded up to 4 bytes), and
//!   the bounds checks of WGSL keep every access inside that binding: an index past the
//!   end reads or writes an element of the vector, never memory around it;
//! - each *scalar* (`f32`, `i32`, `u32`) as a `let`; its value travels with the call, so
//!   a new value compiles nothing;
//! - each *device scalar* as a `let` holding one element of a vector, read on the GPU
//!   (a value a reduction wrote, never read by the host).
//!
//! The kernel is compiled once per body and signature (names, kinds and element types of
//! the arguments, in order) and cached. Element vectors may be larger than one storage
//! binding: the work is split into binding windows, as for every primitive.

mod args;
mod record;
mod signature;
pub(crate) mod tuning;

pub(crate) use args::{Access, Args, Plan};
pub(crate) use record::{record_elementwise, record_expression, record_statements};
#[cfg(test)]
pub(crate) use signature::catalog_signatures;
pub(crate) use signature::{Pieces, Signature};
pub(crate) use tuning::ElementwiseTuning;

use crate::element::GpuElement;
use crate::error::Result;
use crate::runtime::context::Ctx;
use crate::runtime::record::Work;
use crate::runtime::vec::GpuVec;
pub(crate) use crate::runtime::view::View;

mod sealed {
    pub trait Sealed {}
}

/// A scalar parameter type of a kernel: `f32`, `i32` or `u32`.
pub trait KernelScalar: Copy + std::fmt::Debug + sealed::Sealed + 'static {
    /// The WGSL type.
    const WGSL: &'static str;
    /// The value's bits, as the kernel's parameter block holds them.
    fn to_bits(self) -> u32;
}

macro_rules! kernel_scalar {
    ($t:ty, $wgsl:literal, |$v:ident| $bits:expr) => {
        impl sealed::Sealed for $t {}
        impl KernelScalar for $t {
            const WGSL: &'static str = $wgsl;
            fn to_bits(self) -> u32 {
                let $v = self;
                $bits
            }
        }
    };
}
kernel_scalar!(f32, "f32", |v| v.to_bits());
kernel_scalar!(i32, "i32", |v| v as u32);
kernel_scalar!(u32, "u32", |v| v);

/// A kernel of your own over named vectors and scalars, made by [`Ctx::elementwise`];
/// add its arguments, then [`run`](Elementwise::run) it.
///
/// Mistakes in the arguments (a name given twice, vectors of different lengths, a vector
/// of another context) are returned by `run`.
#[must_use = "a kernel does nothing until `run` is called"]
pub struct Elementwise<'a> {
    ctx: &'a Ctx,
    body: String,
    args: Args<'a>,
}

impl std::fmt::Debug for Elementwise<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Elementwise")
            .field("body", &self.body)
            .field(
                "args",
                &self.args.items.iter().map(|a| &a.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// The argument methods every kernel builder shares.
macro_rules! read_only_args {
    () => {
        /// Element `i` of `v`, read, as a `let` named `name`. Every element vector of the
        /// kernel has the same length, `n`.
        pub fn read<T: GpuElement>(mut self, name: &str, v: &'a GpuVec<T>) -> Self {
            self.args.vec(name, View::of(v), Access::Read);
            self
        }

        /// The whole of `v` as a WGSL `array<T>` named `name`, read, indexed freely
        /// (`u[i + 1u]`). An index past the end reads an element of `v` (WGSL's bounds
        /// checks clamp it), never memory outside it. Bound whole: it must fit one
        /// storage binding.
        pub fn raw<T: GpuElement>(mut self, name: &str, v: &'a GpuVec<T>) -> Self {
            self.args.vec(name, View::of(v), Access::Raw);
            self
        }

        /// A scalar named `name`, given per call: a new value compiles nothing.
        pub fn scalar<S: KernelScalar>(mut self, name: &str, value: S) -> Self {
            self.args.scalar(name, value);
            self
        }

        /// Element `index` of `v`, read on the GPU, as a scalar named `name`: a value
        /// an earlier call left on the device (a reduction's result) with no read-back.
        pub fn device_scalar<T: GpuElement>(
            mut self,
            name: &str,
            v: &'a GpuVec<T>,
            index: usize,
        ) -> Self {
            self.args
                .vec(name, View::of(v), Access::DeviceScalar(index));
            self
        }

        /// The number of elements, for a kernel whose arguments include no element
        /// vector (only raw vectors and scalars). With element vectors it must equal
        /// their length.
        pub fn len(mut self, n: usize) -> Self {
            self.args.len(n);
            self
        }
    };
}
pub(crate) use read_only_args;

impl<'a> Elementwise<'a> {
    read_only_args!();

    /// Element `i` of `v`, read and written back, as a `var` named `name`.
    pub fn read_write<T: GpuElement>(mut self, name: &str, v: &'a mut GpuVec<T>) -> Self {
        self.args.vec(name, View::of(v), Access::ReadWrite);
        self
    }

    /// Element `i` of `v`, written, as a `var` named `name` that starts at zero.
    pub fn write<T: GpuElement>(mut self, name: &str, v: &'a mut GpuVec<T>) -> Self {
        self.args.vec(name, View::of(v), Access::Write);
        self
    }

    /// The whole of `v` as a WGSL `array<T>` named `name`, read and written, indexed
    /// freely (scatters). Writes past the end land on an element of `v` (WGSL's bounds
    /// checks clamp them), never outside it; two elements writing one index race.
    pub fn raw_read_write<T: GpuElement>(mut self, name: &str, v: &'a mut GpuVec<T>) -> Self {
        self.args.vec(name, View::of(v), Access::RawReadWrite);
        self
    }

    /// Records the kernel and queues it, without waiting (like every `_into` call).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a name that is not a WGSL identifier, taken (`i`,
    /// `n`, `gp_...`) or given twice, a kernel with no length, a device scalar's index
    /// past its vector, more storage vectors than the device binds per kernel;
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) for element vectors of different lengths (naming
    /// both); [`Error::TooLarge`](crate::Error::TooLarge) for a raw vector larger than one storage binding;
    /// [`Error::Compile`](crate::Error::Compile) if the body does not compile (the compiler's message);
    /// [`Error::ContextMismatch`](crate::Error::ContextMismatch); [`Error::Unsupported`](crate::Error::Unsupported) for f16/f64 vectors on an
    /// adapter without them.
    pub fn run(self) -> Result<()> {
        let mut work = Work::new(self.ctx, "elementwise");
        record_elementwise(self.ctx, &mut work, &self.body, self.args)?;
        work.submit()
    }
}

impl Ctx {
    /// A kernel of your own: `body`, WGSL statements run once for every element `i` in
    /// `0..n`, over the vectors and scalars you name (see the [module docs](self) for
    /// what the body sees). Compiled once per body and signature; scalars change per call
    /// without compiling.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let x = ctx.upload(&[1.0f32, 2.0, 3.0])?;
    /// let mut y = ctx.upload(&[10.0f32, 20.0, 30.0])?;
    /// let mut bins = ctx.zeros::<u32>(3)?;
    /// for alpha in [2.0f32, 0.5] {
    ///     ctx.elementwise("y = alpha * x + y; bin = u32(y) / 10u + i;")
    ///         .read("x", &x)
    ///         .read_write("y", &mut y)
    ///         .write("bin", &mut bins)
    ///         .scalar("alpha", alpha)
    ///         .run()?;
    /// }
    /// assert_eq!(y.to_vec()?, vec![12.5, 25.0, 37.5]);
    /// assert_eq!(bins.to_vec()?, vec![1, 3, 5]);
    /// assert_eq!(ctx.pipelines_compiled(), 1); // one kernel for both alphas
    ///
    /// // Raw vectors are indexed freely: a 3-point stencil, clamped at the ends.
    /// let mut d = ctx.zeros::<f32>(3)?;
    /// ctx.elementwise("let l = u[max(i, 1u) - 1u]; let r = u[min(i + 1u, n - 1u)]; d = r - l;")
    ///     .raw("u", &x)
    ///     .write("d", &mut d)
    ///     .run()?;
    /// assert_eq!(d.to_vec()?, vec![1.0, 2.0, 1.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn elementwise(&self, body: &str) -> Elementwise<'_> {
        Elementwise {
            ctx: self,
            body: body.to_string(),
            args: Args::new("elementwise"),
        }
    }

    /// `0, 1, ..., n - 1` as a new vector (for gpuprim's own calls: the indices sorted
    /// along with keys).
    pub(crate) fn iota(&self, op: &'static str, n: usize) -> Result<GpuVec<u32>> {
        let v = self.zeros::<u32>(n)?;
        if n > 0 {
            let mut args = Args::new(op);
            args.vec("p", View::of(&v), Access::Write);
            let mut work = Work::new(self, op);
            record_statements(self, &mut work, "p = i;", args)?;
            work.submit()?;
        }
        Ok(v)
    }
}

/// Every configuration of this family's kernels, for the catalog test
/// (`ops/catalog.rs`).
#[cfg(test)]
pub(crate) fn catalog(c: &mut crate::ops::catalog::Catalog) {
    record::catalog(c);
}
