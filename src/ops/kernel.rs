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

use std::fmt::Write as _;

use crate::context::Ctx;
use crate::dispatch::{chunks, elementwise_workgroup_size, units_per_window, workgroup_grid};
use crate::element::GpuElement;
use crate::error::{Error, Limit, Result};
use crate::ops::random::RANDOM_WGSL;
use crate::pipeline::{PipelineKey, render};
use crate::record::{Grid, Work};
use crate::vec::{GpuVec, LANES};
pub(crate) use crate::view::View;

const KERNEL_WGSL: &str = include_str!("../../wgsl/kernel.wgsl");

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

/// Workgroups per binding window for element-wise kernels; they loop over the rest.
///
/// On a GPU, more workgroups were faster up to about 32768, and one per vec4 (no loop)
/// slower again (see docs/perf-journal.md).
/// A CPU adapter runs a workgroup per core at a time, so a few hundred are plenty.
pub(crate) fn max_groups(ctx: &Ctx) -> u64 {
    match ctx.info().device_type {
        wgpu::DeviceType::Cpu => 256,
        _ => 32768,
    }
}

/// How a kernel uses an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// Element `i`, read.
    Read,
    /// Element `i`, read and written back.
    ReadWrite,
    /// Element `i`, written (starts at zero).
    Write,
    /// The whole vector, read, indexed freely.
    Raw,
    /// The whole vector, read and written, indexed freely.
    RawReadWrite,
    /// One element of the vector, read.
    DeviceScalar(usize),
}

impl Access {
    fn name(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::ReadWrite => "read_write",
            Access::Write => "write",
            Access::Raw => "raw",
            Access::RawReadWrite => "raw_read_write",
            Access::DeviceScalar(_) => "device_scalar",
        }
    }

    fn element(self) -> bool {
        matches!(self, Access::Read | Access::ReadWrite | Access::Write)
    }

    fn writes(self) -> bool {
        matches!(
            self,
            Access::ReadWrite | Access::Write | Access::RawReadWrite
        )
    }
}

enum ArgValue<'a> {
    Vec(View<'a>, Access),
    Scalar { wgsl: &'static str, bits: u32 },
}

struct Arg<'a> {
    name: String,
    value: ArgValue<'a>,
}

/// The named arguments of a kernel, checked as they are added; the first mistake is kept
/// and returned when the kernel runs.
pub(crate) struct Args<'a> {
    items: Vec<Arg<'a>>,
    len: Option<usize>,
    error: Option<Error>,
    op: &'static str,
}

impl<'a> Args<'a> {
    pub(crate) fn new(op: &'static str) -> Self {
        Args {
            items: Vec::new(),
            len: None,
            error: None,
            op,
        }
    }

    /// Adds a vector argument used as `access`.
    pub(crate) fn vec(&mut self, name: &str, v: View<'a>, access: Access) {
        if self.check_name(name) {
            self.items.push(Arg {
                name: name.to_string(),
                value: ArgValue::Vec(v, access),
            });
        }
    }

    /// Adds a scalar argument.
    pub(crate) fn scalar<S: KernelScalar>(&mut self, name: &str, value: S) {
        if self.check_name(name) {
            self.items.push(Arg {
                name: name.to_string(),
                value: ArgValue::Scalar {
                    wgsl: S::WGSL,
                    bits: value.to_bits(),
                },
            });
        }
    }

    /// Sets the number of elements (needed when no element vector gives it).
    pub(crate) fn len(&mut self, n: usize) {
        if self.len.is_some_and(|l| l != n) {
            self.fail(format!(
                "the length was given twice ({} and {n})",
                self.len.unwrap_or(0)
            ));
        }
        self.len = Some(n);
    }

    /// Internal arguments (names starting with `gp_`) skip the name check.
    pub(crate) fn internal(&mut self, name: &str, v: View<'a>, access: Access) {
        self.items.push(Arg {
            name: name.to_string(),
            value: ArgValue::Vec(v, access),
        });
    }

    fn fail(&mut self, message: String) {
        self.error.get_or_insert(Error::InvalidArgument {
            op: self.op,
            message,
        });
    }

    fn check_name(&mut self, name: &str) -> bool {
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && name != "_";
        let problem = if !valid {
            Some(format!(
                "{name:?} is not a WGSL identifier (letters, digits and '_', not starting with a digit)"
            ))
        } else if name == "i" || name == "n" {
            Some(format!(
                "{name:?} is taken: the body sees the element index as `i` and the length as `n`"
            ))
        } else if name.starts_with("gp_") || name.starts_with("__") {
            Some(format!(
                "{name:?} starts with a prefix kept for gpuprim's own names (gp_, __)"
            ))
        } else if self.items.iter().any(|a| a.name == name) {
            Some(format!("the argument {name:?} is given twice"))
        } else {
            None
        };
        match problem {
            Some(message) => {
                self.fail(message);
                false
            }
            None => true,
        }
    }

    /// Checks the arguments against `ctx` and each other: the laid-out kernel.
    pub(crate) fn plan(self, ctx: &Ctx) -> Result<Plan<'a>> {
        let op = self.op;
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut n = self.len;
        let mut len_from: Option<String> = self.len.map(|_| "len".to_string());
        let mut features = wgpu::Features::empty();
        let mut storage = 0u32;
        for a in &self.items {
            let ArgValue::Vec(v, access) = &a.value else {
                continue;
            };
            ctx.check_owned(op, &[v.ctx])?;
            features |= v.features;
            storage += 1;
            match *access {
                access if access.element() => match (n, &len_from) {
                    (Some(len), Some(from)) if len != v.len => {
                        return Err(Error::LengthMismatch {
                            op,
                            left_name: from.clone(),
                            left: len,
                            right_name: a.name.clone(),
                            right: v.len,
                        });
                    }
                    _ => {
                        n = Some(v.len);
                        len_from.get_or_insert_with(|| a.name.clone());
                    }
                },
                Access::DeviceScalar(index) if index >= v.len => {
                    return Err(Error::InvalidArgument {
                        op,
                        message: format!(
                            "device scalar {:?} reads element {index} of a vector of {} elements",
                            a.name, v.len
                        ),
                    });
                }
                _ => {
                    let bytes = v.len as u64 * v.size;
                    if bytes > ctx.info().max_binding_bytes {
                        return Err(Error::TooLarge {
                            what: format!(
                                "the {} vector {:?} of `{op}`, which is bound whole",
                                access.name(),
                                a.name
                            ),
                            kind: Limit::BindingBytes,
                            requested: bytes,
                            limit: ctx.info().max_binding_bytes,
                        });
                    }
                }
            }
        }
        ctx.require(features, || {
            format!("a kernel over {features:?} element types")
        })?;
        let Some(n) = n else {
            return Err(Error::InvalidArgument {
                op,
                message: "the kernel has no element vector (read, read_write or write) to take \
                          its length from; give it with `.len(n)`"
                    .into(),
            });
        };
        if n as u64 > u64::from(u32::MAX) - 4 {
            return Err(Error::TooLarge {
                what: format!("`{op}` (its element index is a u32)"),
                kind: Limit::Elements,
                requested: n as u64,
                limit: u64::from(u32::MAX) - 4,
            });
        }
        let limit = ctx.info().limits.max_storage_buffers_per_shader_stage;
        let ours = 0; // map, zip and user kernels bind only the user's vectors
        if storage + ours > limit {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "the kernel binds {storage} storage vectors, more than the {limit} per kernel \
                     this device allows (max_storage_buffers_per_shader_stage); split it into \
                     several kernels"
                ),
            });
        }
        // A buffer bound twice with a write among its uses is declared read_write in every
        // binding: wgpu refuses read-only and writable uses of one buffer in one dispatch.
        let shared: Vec<bool> = self
            .items
            .iter()
            .map(|a| match &a.value {
                ArgValue::Vec(v, _) => self.items.iter().any(|b| match &b.value {
                    ArgValue::Vec(w, access) => {
                        !std::ptr::eq(a, b) && w.buffer == v.buffer && access.writes()
                    }
                    _ => false,
                }),
                _ => false,
            })
            .collect();
        // Element vectors that are prefix views share one device count.
        let mut count: Option<&'a (wgpu::Buffer, u64)> = None;
        for a in &self.items {
            if let ArgValue::Vec(v, access) = &a.value {
                match (v.count, count) {
                    (Some(c), None) if access.element() => count = Some(c),
                    (Some(c), Some(d)) if access.element() && (c.0 != d.0 || c.1 != d.1) => {
                        return Err(Error::InvalidArgument {
                            op,
                            message: format!(
                                "the element vectors are prefix views of different counts \
                                 ({:?} has another); give them the same count vector",
                                a.name
                            ),
                        });
                    }
                    (Some(_), _) if !access.element() => {
                        return Err(Error::InvalidArgument {
                            op,
                            message: format!(
                                "{:?} is a prefix view given as a {} argument, which is bound \
                                 whole; give the whole vector",
                                a.name,
                                access.name()
                            ),
                        });
                    }
                    _ => {}
                }
            }
        }
        Ok(Plan {
            n,
            items: self.items,
            shared,
            count,
        })
    }
}

/// Checked kernel arguments and the length they run over.
pub(crate) struct Plan<'a> {
    /// Elements (at most: with a device count, the count says how many run).
    pub(crate) n: usize,
    items: Vec<Arg<'a>>,
    /// Per item: declared read_write because another binding of its buffer writes.
    shared: Vec<bool>,
    /// The device count of prefix-view element vectors, bound after the vectors.
    pub(crate) count: Option<&'a (wgpu::Buffer, u64)>,
}

/// The WGSL pieces a template takes from a [`Plan`].
#[derive(Default)]
pub(crate) struct Pieces {
    pub(crate) enable: String,
    pub(crate) scalar_fields: String,
    pub(crate) bindings: String,
    pub(crate) in_params: String,
    pub(crate) prelude: String,
    pub(crate) out_fields: String,
    pub(crate) out_values: String,
    pub(crate) loads: String,
    pub(crate) lane_args: String,
    pub(crate) lane_stores: String,
    pub(crate) stores: String,
    /// Element vectors as vec4 lane values for an expression kernel (transform-reduce):
    /// arguments of `gp_user_expr` for lane `.x`, `.y`, ... (with `{L}` for the lane).
    pub(crate) expr_lane_args: String,
    /// `gp_n()`, and the count's binding for a prefix view.
    pub(crate) count: String,
}

impl<'a> Plan<'a> {
    /// The signature part of the pipeline key: every argument's name, use and type.
    pub(crate) fn signature(&self) -> String {
        let mut s = String::new();
        for (a, shared) in self.items.iter().zip(&self.shared) {
            match &a.value {
                ArgValue::Vec(v, access) => {
                    let _ = write!(
                        s,
                        "{}:{}:{}:{}{};",
                        a.name,
                        access.name(),
                        v.wgsl,
                        v.layout(),
                        if *shared { "+shared" } else { "" }
                    );
                }
                ArgValue::Scalar { wgsl, .. } => {
                    let _ = write!(s, "{}:scalar:{wgsl};", a.name);
                }
            }
        }
        if self.count.is_some() {
            s.push_str("count;");
        }
        s
    }

    /// The WGSL pieces, with vector bindings numbered from `first_binding` in argument
    /// order.
    pub(crate) fn pieces(&self, first_binding: u32) -> Pieces {
        let mut p = Pieces::default();
        let mut enables: Vec<&str> = Vec::new();
        let mut binding = first_binding;
        let mut element = 0;
        let mut device = 0;
        for (a, &shared) in self.items.iter().zip(&self.shared) {
            let name = &a.name;
            let (v, access) = match &a.value {
                ArgValue::Scalar { wgsl, .. } => {
                    let _ = writeln!(p.scalar_fields, "    {name}: {wgsl},");
                    let _ = writeln!(p.prelude, "    let {name} = gp_params.{name};");
                    continue;
                }
                ArgValue::Vec(v, access) => (v, *access),
            };
            if !v.enable.is_empty() && !enables.contains(&v.enable) {
                enables.push(v.enable);
            }
            let t = v.wgsl;
            let mode = if shared || access.writes() {
                "read_write"
            } else {
                "read"
            };
            match access {
                Access::Read | Access::ReadWrite | Access::Write => {
                    let k = element;
                    element += 1;
                    p.bindings += &v.units_wgsl(&format!("gp_e{k}"), binding, mode == "read_write");
                    if access != Access::Write {
                        let _ = write!(p.in_params, ", gp_in_{name}: {t}");
                        let _ = write!(p.lane_args, ", gp_v{k}[k]");
                        let _ = write!(p.expr_lane_args, ", gp_v{k}.{{L}}");
                    }
                    let declare = if access == Access::Read { "let" } else { "var" };
                    match access {
                        Access::Write => {
                            let _ = writeln!(p.prelude, "    var {name}: {t};");
                            let _ = writeln!(p.loads, "        var gp_v{k} = vec4<{t}>();");
                        }
                        _ => {
                            let _ = writeln!(p.prelude, "    {declare} {name} = gp_in_{name};");
                            let _ =
                                writeln!(p.loads, "        {declare} gp_v{k} = gp_e{k}_load(u);");
                        }
                    }
                    if access != Access::Read {
                        let _ = writeln!(p.out_fields, "    {name}: {t},");
                        let _ = write!(p.out_values, ", {name}");
                        let _ = writeln!(p.lane_stores, "                gp_v{k}[k] = r.{name};");
                        let _ = writeln!(p.stores, "        gp_e{k}_store(u, gp_v{k});");
                    }
                }
                Access::Raw | Access::RawReadWrite => {
                    let _ = writeln!(
                        p.bindings,
                        "@group(0) @binding({binding}) var<storage, {mode}> {name}: array<{t}>;"
                    );
                }
                Access::DeviceScalar(_) => {
                    let k = device;
                    device += 1;
                    let _ = writeln!(
                        p.bindings,
                        "@group(0) @binding({binding}) var<storage, {mode}> gp_d{k}: array<{t}>;"
                    );
                    let _ = writeln!(p.scalar_fields, "    gp_d{k}_index: u32,");
                    let _ = writeln!(
                        p.prelude,
                        "    let {name} = gp_d{k}[gp_params.gp_d{k}_index];"
                    );
                }
            }
            binding += 1;
        }
        p.enable = enables.join("\n");
        p.count = match self.count {
            Some(_) => format!(
                "@group(0) @binding({binding}) var<storage, read> gp_count: array<u32>;\n\
                 fn gp_n() -> u32 {{ return min(gp_params.n, gp_count[0]); }}\n"
            ),
            None => "fn gp_n() -> u32 { return gp_params.n; }\n".to_string(),
        };
        p
    }

    /// How many vector arguments (bindings) there are.
    pub(crate) fn vectors(&self) -> u32 {
        self.items
            .iter()
            .filter(|a| matches!(a.value, ArgValue::Vec(..)))
            .count() as u32
    }

    /// Unit sizes of the element vectors (for binding windows); empty without any.
    pub(crate) fn unit_sizes(&self) -> Vec<u64> {
        self.element_vecs().map(|v| v.unit_bytes()).collect()
    }

    fn element_vecs(&self) -> impl Iterator<Item = &View<'a>> {
        self.items.iter().filter_map(|a| match &a.value {
            ArgValue::Vec(v, access) if access.element() => Some(v),
            _ => None,
        })
    }

    /// The parameter block's words after the 4-word header: scalars, then device-scalar
    /// indices, in argument order, padded to whole 16-byte rows.
    pub(crate) fn params(&self, header: [u32; 4]) -> Vec<u32> {
        // The order of `pieces`' scalar fields: scalars and device-scalar indices in
        // argument order.
        let mut words = header.to_vec();
        for a in &self.items {
            match a.value {
                ArgValue::Scalar { bits, .. } => words.push(bits),
                ArgValue::Vec(_, Access::DeviceScalar(index)) => words.push(index as u32),
                _ => {}
            }
        }
        words.resize(words.len().next_multiple_of(4), 0);
        words
    }

    /// Binds every vector argument of one binding window (`chunk` of the element
    /// vectors' units) from `first_binding` on, in argument order.
    pub(crate) fn bind(
        &self,
        d: &mut crate::record::Dispatch,
        first_binding: u32,
        chunk: &crate::dispatch::Chunk,
    ) {
        let mut binding = first_binding;
        for a in &self.items {
            let ArgValue::Vec(v, access) = &a.value else {
                continue;
            };
            d.bind(
                binding,
                if access.element() {
                    v.window(chunk)
                } else {
                    v.exact()
                },
            );
            binding += 1;
        }
    }

    /// The binding of the device count, if any (element-wise kernels bind it after the
    /// vectors).
    pub(crate) fn count_binding(&self) -> Option<crate::record::Res> {
        self.count
            .map(|(buffer, offset)| crate::record::Res::range(buffer, *offset, 4))
    }
}

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
    /// [`Error::InvalidArgument`] for a name that is not a WGSL identifier, taken (`i`,
    /// `n`, `gp_...`) or given twice, a kernel with no length, a device scalar's index
    /// past its vector, more storage vectors than the device binds per kernel;
    /// [`Error::LengthMismatch`] for element vectors of different lengths (naming
    /// both); [`Error::TooLarge`] for a raw vector larger than one storage binding;
    /// [`Error::Compile`] if the body does not compile (the compiler's message);
    /// [`Error::ContextMismatch`]; [`Error::Unsupported`] for f16/f64 vectors on an
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
}

/// Compiles (once) and adds to `work` an element-wise kernel of `body` over `args`.
pub(crate) fn record_elementwise(
    ctx: &Ctx,
    work: &mut Work,
    body: &str,
    args: Args<'_>,
) -> Result<()> {
    record(ctx, work, "elementwise", body, args, str::to_string)
}

/// [`record_elementwise`] of `gp_out = (expr);`, with `expr` as the user code (the
/// output `gp_out` is one of `args`): map and zip.
pub(crate) fn record_expression(
    ctx: &Ctx,
    work: &mut Work,
    expr: &str,
    args: Args<'_>,
) -> Result<()> {
    record(ctx, work, work.op(), expr, args, |code| {
        if code.is_empty() {
            String::new()
        } else {
            format!("gp_out = ({code});")
        }
    })
}

/// The recording of an element-wise kernel whose body is `body_of(code)`; the kernel is
/// keyed as `key_op` with `code`.
fn record(
    ctx: &Ctx,
    work: &mut Work,
    key_op: &'static str,
    code: &str,
    args: Args<'_>,
    body_of: impl Fn(&str) -> String,
) -> Result<()> {
    let op = work.op();
    let plan = args.plan(ctx)?;
    let wg = elementwise_workgroup_size(ctx);
    let key = PipelineKey {
        op: key_op,
        element: "",
        workgroup_size: wg,
        variant: plan.signature(),
        code: code.to_string(),
    };
    // Rendered only when the kernel is not cached yet: a call that finds it builds no
    // WGSL text.
    let pieces = std::cell::OnceCell::new();
    let wg_text = wg.to_string();
    let kernel = ctx.kernel_checked(key, "main", op, "", |code| {
        let p = pieces.get_or_init(|| plan.pieces(1));
        render(
            KERNEL_WGSL,
            &[
                ("ENABLE", p.enable.as_str()),
                ("LIB", RANDOM_WGSL),
                ("SCALAR_FIELDS", &p.scalar_fields),
                ("BINDINGS", &p.bindings),
                ("OUT_FIELDS", &p.out_fields),
                ("IN_PARAMS", &p.in_params),
                ("PRELUDE", &p.prelude),
                ("BODY", &body_of(code)),
                ("OUT_VALUES", &p.out_values),
                ("WG", &wg_text),
                ("LOADS", &p.loads),
                ("LANE_ARGS", &p.lane_args),
                ("LANE_STORES", &p.lane_stores),
                ("STORES", &p.stores),
                ("COUNT", &p.count),
            ],
        )
    })?;
    let n = plan.n as u64;
    let units = n.div_ceil(LANES as u64);
    if units == 0 {
        return Ok(());
    }
    let unit_sizes = plan.unit_sizes();
    let per_window = if unit_sizes.is_empty() {
        units
    } else {
        units_per_window(ctx, &unit_sizes)
    };
    let max_per_dim = ctx.info().max_workgroups_per_dimension;
    let windows: Vec<_> = chunks(units, per_window).collect();
    // A device count: the workgroups of each window are worked out on the GPU.
    let args = match plan.count {
        Some(&(ref count, offset)) => {
            let max_groups = max_groups(ctx).min(u64::from(max_per_dim).pow(3)) as u32;
            let bytes = 12 * windows.len() as u64;
            let args = work.keep(ctx.scratch(
                "indirect arguments",
                bytes,
                wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::STORAGE,
            )?);
            crate::ops::count::record_args(
                work,
                (count, offset),
                &crate::ops::count::CountParams {
                    windows: windows.len() as u32,
                    units_per_window: per_window.min(u64::from(u32::MAX)) as u32,
                    elems_per_unit: LANES as u32,
                    per_group: wg,
                    max_groups,
                    max_per_dim,
                    n_cap: n as u32,
                    _pad: 0,
                },
                crate::record::Res::range(&args, 0, bytes),
            )?;
            Some(args)
        }
        None => None,
    };
    for (k, chunk) in windows.iter().enumerate() {
        let grid = match &args {
            Some(args) => Grid::Indirect(args.clone(), 12 * k as u64),
            None => {
                let groups = chunk.units.div_ceil(u64::from(wg)).min(max_groups(ctx));
                Grid::Direct(workgroup_grid(groups, max_per_dim)?)
            }
        };
        let words = plan.params([
            (chunk.offset_units * LANES as u64) as u32,
            n as u32,
            chunk.units as u32,
            0,
        ]);
        let block = work.params_words(&words);
        let d = work.dispatch_grid(&kernel, grid);
        d.bind(0, block);
        plan.bind(d, 1, chunk);
        if let Some(count) = plan.count_binding() {
            d.bind(1 + plan.vectors(), count);
        }
    }
    Ok(())
}
