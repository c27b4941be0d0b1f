//! How a kernel sees a vector: the byte ranges it binds, and the WGSL that loads and
//! stores it a vec4 unit at a time.
//!
//! A [`GpuVec`] made by gpuprim owns a buffer padded to whole groups of four elements, so
//! kernels may load and store whole `vec4`s past its length. A vector over a buffer of
//! the application's ([`GpuVec::from_buffer`]) owns exactly `len` elements from its
//! offset: the bytes around them belong to someone else. Every binding of a vector is cut
//! from [`View`], which never reaches past the vector's bytes, and WGSL's bounds checks
//! keep every access inside its binding; so no call reads or writes outside a vector.
//!
//! Kernels that process vec4 units declare each vector with [`View::units_wgsl`]:
//! `NAME_load(u)`, `NAME_store(u, v)` and `NAME_units()`. With the vec4 layout (a padded
//! vector, or one whose length is a multiple of 4) they are plain `vec4` accesses; with the
//! scalar layout the binding is an `array<T>` of exactly the elements, loads clamp their
//! indices into it and stores skip the lanes past its end. The layout is part of a
//! kernel's pipeline key.

use crate::element::Element;
use crate::error::Result;
use crate::runtime::cache::render;
use crate::runtime::context::Ctx;
use crate::runtime::dispatch::Chunk;
use crate::runtime::record::Res;
use crate::runtime::vec::{GpuVec, LANES};

/// A vector as kernels bind it, with its element type erased.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pub(crate) ctx: &'a Ctx,
    pub(crate) buffer: &'a wgpu::Buffer,
    /// Byte offset of element 0 in the buffer.
    pub(crate) offset: u64,
    pub(crate) len: usize,
    pub(crate) wgsl: &'static str,
    pub(crate) enable: &'static str,
    pub(crate) features: wgpu::Features,
    /// Bytes per element.
    pub(crate) size: u64,
    /// The buffer is gpuprim's, padded to whole vec4 units past `len`.
    pub(crate) padded: bool,
    /// A length on the device ([`GpuVec::prefix`]).
    pub(crate) count: Option<&'a (wgpu::Buffer, u64)>,
}

impl<'a> View<'a> {
    pub(crate) fn of<T: Element>(v: &'a GpuVec<T>) -> Self {
        View {
            ctx: &v.ctx,
            buffer: &v.buffer,
            offset: v.offset,
            len: v.len,
            wgsl: T::WGSL,
            enable: T::ENABLE,
            features: T::FEATURES,
            size: size_of::<T>() as u64,
            padded: v.padded,
            count: v.count.as_ref(),
        }
    }

    /// `Err(TooLarge)` unless the view's elements fit one storage binding, for the calls
    /// that bind a vector whole (to index it freely). The message names `what` of `op`
    /// and the most elements `action` takes per call.
    pub(crate) fn check_bound_whole(
        &self,
        op: &'static str,
        what: &str,
        action: &str,
    ) -> Result<()> {
        let bytes = self.len as u64 * self.size;
        let limit = self.ctx.info().max_binding_bytes;
        if bytes > limit {
            return Err(crate::error::Error::TooLarge {
                what: format!(
                    "the {what} of `{op}` ({} elements of {} bytes), which it binds whole \
                     ({action} at most {} per call),",
                    self.len,
                    self.size,
                    limit / self.size
                ),
                kind: crate::error::Limit::BindingBytes,
                requested: bytes,
                limit,
            });
        }
        Ok(())
    }

    /// `u32` words of the same bytes, exactly those (not padded): for raw bindings of
    /// kernels that index them. A vector of `f16` of odd length ends in half a word:
    /// gpuprim's vectors pad it, and a borrowed one holds whole words.
    pub(crate) fn exact_words(&self) -> View<'a> {
        View {
            padded: false,
            ..self.words()
        }
    }

    /// The same bytes as `u32` words, for kernels that move bits without knowing the
    /// element type (copies, and the sorts of 8-byte keys and wider values). A vector of
    /// 2-byte elements of odd length ends in half a word: gpuprim's are padded past it,
    /// and a borrowed one always holds whole words.
    pub(crate) fn words(&self) -> View<'a> {
        View {
            len: (self.len as u64 * self.size).div_ceil(4) as usize,
            wgsl: "u32",
            enable: "",
            features: wgpu::Features::empty(),
            size: 4,
            // Padded units of 4 elements are whole units of 4 words for 4 bytes and more.
            padded: self.padded && self.size >= 4,
            ..*self
        }
    }

    /// Bytes of a vec4 unit.
    pub(crate) fn unit_bytes(&self) -> u64 {
        LANES as u64 * self.size
    }

    /// vec4 units, the last one possibly partial.
    pub(crate) fn units(&self) -> u64 {
        self.len.div_ceil(LANES) as u64
    }

    /// Whether kernels may treat the vector as whole vec4 units.
    pub(crate) fn vec4(&self) -> bool {
        self.padded || self.len.is_multiple_of(LANES)
    }

    /// The bytes kernels may touch: the padded units of gpuprim's vectors (at least one),
    /// exactly the elements of a borrowed one (at least 4 bytes, for an empty vector's
    /// binding; such a binding is never dispatched over).
    pub(crate) fn bytes(&self) -> u64 {
        let exact = (self.len as u64 * self.size).max(4);
        if self.padded {
            (self.units().max(1) * self.unit_bytes()).min(self.buffer.size() - self.offset)
        } else {
            exact
        }
    }

    /// The binding of all of the vector's bytes.
    pub(crate) fn whole(&self) -> Res {
        Res::range(self.buffer, self.offset, self.bytes())
    }

    /// The binding of exactly its elements (rounded up to 4 bytes, which only an owned
    /// f16 vector of odd length needs): raw vectors and device scalars, indexed by
    /// element.
    pub(crate) fn exact(&self) -> Res {
        let bytes = (self.len.max(1) as u64 * self.size).next_multiple_of(4);
        Res::range(self.buffer, self.offset, bytes.min(self.bytes().max(4)))
    }

    /// The binding of the vec4 units of `chunk`, cut at the vector's end.
    pub(crate) fn window(&self, chunk: &Chunk) -> Res {
        self.window_of(chunk, self.unit_bytes())
    }

    /// The binding of units `chunk` of `unit_bytes` each (a unit of another vector's
    /// dispatch: 4 elements' generator state are 16 words), cut at the vector's end.
    pub(crate) fn window_of(&self, chunk: &Chunk, unit_bytes: u64) -> Res {
        let start = chunk.offset_units * unit_bytes;
        let end = ((chunk.offset_units + chunk.units) * unit_bytes).min(self.bytes());
        Res::range(self.buffer, self.offset + start, end - start)
    }

    /// The binding of the device count of a [`GpuVec::prefix`] view.
    pub(crate) fn count_binding(&self) -> Option<Res> {
        self.count
            .map(|(buffer, offset)| Res::range(buffer, *offset, 4))
    }
}

/// `wgsl/view_units_vec4.wgsl` and `wgsl/view_units_scalar.wgsl`: a vector's declaration
/// and load functions, and its store function where it is writable.
const UNITS_VEC4_WGSL: &str = include_str!("../../wgsl/view_units_vec4.wgsl");
const UNITS_SCALAR_WGSL: &str = include_str!("../../wgsl/view_units_scalar.wgsl");

/// WGSL declaring a vector of `t` as `name` at `binding` (`read`, or `read_write` when
/// `writable`), with `NAME_load(u) -> vec4<t>`, `NAME_units() -> u32` and, when
/// writable, `NAME_store(u, v)`: plain vec4 accesses when `vec4`, else the scalar layout
/// (see the module docs).
pub(crate) fn units_wgsl(
    name: &str,
    binding: u32,
    t: &str,
    writable: bool,
    vec4: bool,
) -> Result<String> {
    let template = if vec4 {
        UNITS_VEC4_WGSL
    } else {
        UNITS_SCALAR_WGSL
    };
    let mode = if writable { "read_write" } else { "read" };
    render(
        template,
        &[
            ("NAME", name),
            ("BINDING", &binding.to_string()),
            ("T", t),
            ("MODE", mode),
            ("WRITABLE", &writable.to_string()),
        ],
    )
}
