//! A kernel's named arguments ([`Args`]) and their checks against the context and each
//! other, which give the laid-out kernel ([`Plan`]): its length, bindings and parameter
//! block.

use super::KernelScalar;
use crate::error::{Error, Limit, Result};
use crate::runtime::context::Ctx;
use crate::runtime::view::View;

/// How a kernel uses an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    /// The whole vector as atomics, indexed freely: `array<atomic<u32>>` for `u32` and
    /// `f32` (whose bits a compare-exchange loop updates), `array<atomic<i32>>` for
    /// `i32`. gpuprim's own kernels only (scatter-reduce).
    Atomic,
    /// An `f32` vector as `array<atomic<f32>>`, for adapters with
    /// `Features::SHADER_FLOAT32_ATOMIC` (native only: WebGPU has no float atomics).
    AtomicFloat,
    /// One element of the vector, read.
    DeviceScalar(usize),
}

impl Access {
    /// The use as the WGSL sees it: a device scalar's index travels in the parameter
    /// block, so it is 0 here.
    pub(super) fn shape(self) -> Access {
        match self {
            Access::DeviceScalar(_) => Access::DeviceScalar(0),
            other => other,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::ReadWrite => "read_write",
            Access::Write => "write",
            Access::Raw => "raw",
            Access::RawReadWrite => "raw_read_write",
            Access::Atomic => "atomic",
            Access::AtomicFloat => "atomic_float",
            Access::DeviceScalar(_) => "device_scalar",
        }
    }

    pub(super) fn element(self) -> bool {
        matches!(self, Access::Read | Access::ReadWrite | Access::Write)
    }

    pub(super) fn writes(self) -> bool {
        matches!(
            self,
            Access::ReadWrite
                | Access::Write
                | Access::RawReadWrite
                | Access::Atomic
                | Access::AtomicFloat
        )
    }
}

pub(super) enum ArgValue<'a> {
    Vec(View<'a>, Access),
    Scalar { wgsl: &'static str, bits: u32 },
}

pub(super) struct Arg<'a> {
    pub(super) name: String,
    pub(super) value: ArgValue<'a>,
}

/// The named arguments of a kernel, checked as they are added; the first mistake is kept
/// and returned when the kernel runs.
pub(crate) struct Args<'a> {
    pub(super) items: Vec<Arg<'a>>,
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
    pub(super) items: Vec<Arg<'a>>,
    /// Per item: declared read_write because another binding of its buffer writes.
    pub(super) shared: Vec<bool>,
    /// The device count of prefix-view element vectors, bound after the vectors.
    pub(crate) count: Option<&'a (wgpu::Buffer, u64)>,
}

impl<'a> Plan<'a> {
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
        d: &mut crate::runtime::record::Dispatch,
        first_binding: u32,
        chunk: &crate::runtime::dispatch::Chunk,
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
    pub(crate) fn count_binding(&self) -> Option<crate::runtime::record::Res> {
        self.count
            .map(|(buffer, offset)| crate::runtime::record::Res::range(buffer, *offset, 4))
    }
}
