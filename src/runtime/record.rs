//! The one recording path: a call's GPU work as a list of commands (dispatches, buffer
//! clears, copies) with its kernel parameters, recorded into a command encoder.
//!
//! Every primitive builds a [`Work`] and ends in one of three ways:
//! - [`Work::submit`]: into a new encoder, finished with errors captured and queued (see
//!   [`Ctx::enqueue`]: submitted at once or held for batching);
//! - [`Work::encode_captured`]: into a new encoder inside the caller's error capture (a
//!   read-back, which submits and maps in the same capture);
//! - [`Work::record`]: into an encoder someone else owns and submits.
//!
//! Parameters are named `#[repr(C)]` structs (bytemuck `Pod`) mirrored by a WGSL struct.
//! [`Work::params`] gives each block a slot of one uniform buffer per call, aligned to the
//! device's uniform offset alignment. That buffer is made once per distinct content and
//! never written again ([`Ctx::uniform_constant`]), so parameters travel with the commands
//! that use them: nothing goes through `queue.write_buffer`, which would overtake work held
//! for batching, and a repeated call uploads nothing.
//!
//! Consecutive dispatches share one compute pass (wgpu orders dispatches that write and
//! read the same buffer); a clear or copy ends the pass.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::runtime::cache::Pipeline;
use crate::runtime::context::Ctx;
use crate::runtime::vec::Scratch;

/// A parameter block's slot in a [`Work`]'s uniform buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Params {
    offset: u64,
    bytes: u64,
}

/// What a binding of a dispatch refers to. Buffers are held by handle (a reference
/// count), so the work owns everything it records.
#[derive(Debug, Clone)]
pub(crate) enum Res {
    /// `size` bytes of `buffer` from `offset` (`None`: to the end of the buffer).
    Buffer {
        buffer: wgpu::Buffer,
        offset: u64,
        size: Option<u64>,
    },
    /// A parameter block of this work.
    Params(Params),
}

impl Res {
    /// The whole buffer.
    pub(crate) fn whole(buffer: &wgpu::Buffer) -> Self {
        Res::Buffer {
            buffer: buffer.clone(),
            offset: 0,
            size: None,
        }
    }

    /// `size` bytes from `offset`.
    pub(crate) fn range(buffer: &wgpu::Buffer, offset: u64, size: u64) -> Self {
        Res::Buffer {
            buffer: buffer.clone(),
            offset,
            size: Some(size),
        }
    }
}

impl From<Params> for Res {
    fn from(p: Params) -> Self {
        Res::Params(p)
    }
}

/// How many workgroups a dispatch has.
#[derive(Debug, Clone)]
pub(crate) enum Grid {
    /// Known when recording.
    Direct([u32; 3]),
    /// Three `u32` at `offset` of `buffer`, written by earlier work on the GPU.
    Indirect(wgpu::Buffer, u64),
}

/// One dispatch: a kernel, its bindings (group 0) and its grid.
#[derive(Debug)]
pub(crate) struct Dispatch {
    kernel: Arc<Pipeline>,
    bindings: Vec<(u32, Res)>,
    grid: Grid,
}

impl Dispatch {
    /// Binds `res` at `binding`.
    pub(crate) fn bind(&mut self, binding: u32, res: impl Into<Res>) -> &mut Self {
        self.bindings.push((binding, res.into()));
        self
    }
}

#[derive(Debug)]
enum Command {
    Dispatch(Dispatch),
    Clear {
        buffer: wgpu::Buffer,
        offset: u64,
        size: Option<u64>,
    },
    Copy {
        src: wgpu::Buffer,
        src_offset: u64,
        dst: wgpu::Buffer,
        dst_offset: u64,
        size: u64,
    },
}

/// The GPU work of one call, not yet recorded (see the module docs). It holds what it
/// records (a context handle, buffer handles, pooled buffers), so it can wait in a
/// [`Ctx::record`] until the caller's encoder is known.
pub(crate) struct Work {
    ctx: Ctx,
    op: &'static str,
    commands: Vec<Command>,
    /// Every parameter block, each starting at a multiple of `slot` bytes (the device's
    /// uniform offset alignment).
    params: Vec<u8>,
    slot: u64,
    /// Pooled buffers the commands use: they go back to the pool once the work is queued
    /// or recorded (later work on the queue runs after it). A call whose buffers span
    /// several works gives them to its last.
    keep: Vec<Scratch>,
}

impl Work {
    /// Work of the call `op` (its name labels the passes and the errors).
    pub(crate) fn new(ctx: &Ctx, op: &'static str) -> Self {
        let slot = u64::from(ctx.info().limits.min_uniform_buffer_offset_alignment).max(16);
        Work {
            ctx: ctx.clone(),
            op,
            commands: Vec::new(),
            params: Vec::new(),
            slot,
            keep: Vec::new(),
        }
    }

    /// Keeps `scratch` out of the pool until the work is queued or recorded; returns its
    /// buffer for the commands' bindings.
    pub(crate) fn keep(&mut self, scratch: Scratch) -> wgpu::Buffer {
        let buffer = (*scratch).clone();
        self.keep.push(scratch);
        buffer
    }

    /// The context the work runs on.
    pub(crate) fn ctx(&self) -> &Ctx {
        &self.ctx
    }

    /// The call this work belongs to.
    pub(crate) fn op(&self) -> &'static str {
        self.op
    }

    /// Adds a parameter block; bind the returned slot with [`Dispatch::bind`]. `P` is a
    /// `#[repr(C)]` struct whose size is a multiple of 16 bytes, mirrored in WGSL.
    pub(crate) fn params<P: bytemuck::Pod>(&mut self, p: &P) -> Params {
        self.params_bytes(bytemuck::bytes_of(p))
    }

    /// [`Work::params`] for a block laid out at run time (a kernel's scalars).
    pub(crate) fn params_words(&mut self, words: &[u32]) -> Params {
        self.params_bytes(bytemuck::cast_slice(words))
    }

    fn params_bytes(&mut self, bytes: &[u8]) -> Params {
        debug_assert!(
            bytes.len().is_multiple_of(16),
            "parameter blocks are whole 16-byte rows"
        );
        let offset = self.params.len() as u64;
        self.params.extend_from_slice(bytes);
        let end = self.params.len().next_multiple_of(self.slot as usize);
        self.params.resize(end, 0);
        Params {
            offset,
            bytes: bytes.len() as u64,
        }
    }

    /// Adds a dispatch of `kernel` over `grid` workgroups; add its bindings to the result.
    pub(crate) fn dispatch(&mut self, kernel: &Arc<Pipeline>, grid: [u32; 3]) -> &mut Dispatch {
        self.dispatch_grid(kernel, Grid::Direct(grid))
    }

    /// [`Work::dispatch`] with a grid of either kind.
    pub(crate) fn dispatch_grid(&mut self, kernel: &Arc<Pipeline>, grid: Grid) -> &mut Dispatch {
        self.commands.push(Command::Dispatch(Dispatch {
            kernel: Arc::clone(kernel),
            bindings: Vec::new(),
            grid,
        }));
        match self.commands.last_mut() {
            Some(Command::Dispatch(d)) => d,
            _ => unreachable!("just pushed a dispatch"),
        }
    }

    /// Adds a clear to zero of `size` bytes (`None`: to the end) of `buffer` from `offset`.
    pub(crate) fn clear(&mut self, buffer: &wgpu::Buffer, offset: u64, size: Option<u64>) {
        self.commands.push(Command::Clear {
            buffer: buffer.clone(),
            offset,
            size,
        });
    }

    /// Adds a copy of `size` bytes.
    pub(crate) fn copy(
        &mut self,
        (src, src_offset): (&wgpu::Buffer, u64),
        (dst, dst_offset): (&wgpu::Buffer, u64),
        size: u64,
    ) {
        self.commands.push(Command::Copy {
            src: src.clone(),
            src_offset,
            dst: dst.clone(),
            dst_offset,
            size,
        });
    }

    /// Records the work into a new encoder and queues it ([`Ctx::enqueue`]); inside
    /// [`Ctx::record`], keeps it for the caller's encoder instead.
    pub(crate) fn submit(self) -> Result<()> {
        let (ctx, op) = (self.ctx.clone(), self.op);
        if let Some(sink) = &ctx.sink {
            sink.lock().unwrap_or_else(|p| p.into_inner()).push(self);
            return Ok(());
        }
        let (commands, kept) = ctx.capture(op, || -> Result<_> {
            let mut enc = self.new_encoder();
            let kept = self.record_unchecked(&mut enc, true)?;
            Ok((enc.finish(), kept))
        })??;
        let queued = ctx.enqueue(op, commands);
        // Only now may the pooled buffers go to other work: queued after this.
        drop(kept);
        queued
    }

    /// Records the work into a new encoder inside the caller's error capture (a
    /// read-back's, which submits and maps in the same capture).
    /// The pooled buffers the work used come back with the encoder: the caller drops
    /// them once it has submitted it.
    pub(crate) fn encode_captured(self) -> Result<(wgpu::CommandEncoder, Vec<Scratch>)> {
        let mut enc = self.new_encoder();
        let kept = self.record_unchecked(&mut enc, true)?;
        Ok((enc, kept))
    }

    /// Records the work into `enc`, an encoder the caller submits, with errors captured.
    pub(crate) fn record(self, enc: &mut wgpu::CommandEncoder) -> Result<()> {
        let ctx = self.ctx.clone();
        // Not profiled: the profiler's read-back could not map buffers that an encoder
        // the caller has not submitted yet uses.
        ctx.capture(self.op, || self.record_unchecked(enc, false).map(drop))?
    }

    fn new_encoder(&self) -> wgpu::CommandEncoder {
        self.ctx
            .inner
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(self.op),
            })
    }

    /// `Err(InvalidArgument)` if a dispatch binds one buffer both read-only and writable
    /// (two views of one buffer as a call's input and output): wgpu refuses that
    /// dispatch. Kernels of your own declare such bindings writable, so they may.
    fn check_aliasing(&self) -> Result<()> {
        for command in &self.commands {
            let Command::Dispatch(d) = command else {
                continue;
            };
            for (i, (b1, r1)) in d.bindings.iter().enumerate() {
                let Res::Buffer { buffer: x, .. } = r1 else {
                    continue;
                };
                if !d.kernel.uses(*b1) {
                    continue;
                }
                let w1 = d.kernel.writable >> b1 & 1 == 1;
                for (b2, r2) in &d.bindings[i + 1..] {
                    let Res::Buffer { buffer: y, .. } = r2 else {
                        continue;
                    };
                    if !d.kernel.uses(*b2) {
                        continue;
                    }
                    let w2 = d.kernel.writable >> b2 & 1 == 1;
                    if x == y && w1 != w2 {
                        return Err(Error::InvalidArgument {
                            op: self.op,
                            message: "two of the call's vectors are views of one buffer, one \
                                      read and one written: wgpu cannot bind a buffer read-only \
                                      and writable in one dispatch; use vectors of separate \
                                      buffers, or `Ctx::elementwise`, which binds both writable"
                                .into(),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Records into `enc`, with the profiler's queries around it when the context
    /// profiles and `profiled`; the caller captures errors.
    /// Returns the pooled buffers the work used ([`Work::keep`]): they go back to the pool
    /// when dropped, which must wait until the commands are queued. Another call could
    /// otherwise take one, queue work on it first, and find it overwritten by this work
    /// between two submissions of its own.
    fn record_unchecked(
        self,
        enc: &mut wgpu::CommandEncoder,
        profiled: bool,
    ) -> Result<Vec<Scratch>> {
        self.check_aliasing()?;
        let Work {
            ctx,
            op,
            commands,
            params,
            keep,
            ..
        } = self;
        let uniform = if params.is_empty() {
            None
        } else {
            Some(ctx.uniform_constant(&params)?)
        };
        let device = &ctx.inner.device;
        let mut profiler = match &ctx.inner.profiler {
            Some(p) if profiled => Some(p.lock().unwrap_or_else(|e| e.into_inner())),
            _ => None,
        };
        let call = profiler.as_mut().map(|p| p.begin_call(op, enc));
        let mut commands = commands.into_iter().peekable();
        while let Some(command) = commands.next() {
            match command {
                Command::Dispatch(first) => {
                    let query = profiler
                        .as_ref()
                        .zip(call.as_ref())
                        .map(|(p, call)| p.begin_pass(call, enc));
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(op),
                        timestamp_writes: query
                            .as_ref()
                            .and_then(|q| q.compute_pass_timestamp_writes()),
                    });
                    let mut next = Some(first);
                    while let Some(d) = next.take() {
                        let entries: Vec<_> = d
                            .bindings
                            .iter()
                            .filter(|(binding, _)| d.kernel.uses(*binding))
                            .map(|(binding, res)| wgpu::BindGroupEntry {
                                binding: *binding,
                                resource: match res {
                                    Res::Buffer {
                                        buffer,
                                        offset,
                                        size,
                                    } => wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                        buffer,
                                        offset: *offset,
                                        size: size.and_then(wgpu::BufferSize::new),
                                    }),
                                    Res::Params(p) => {
                                        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                            buffer: uniform.as_ref().expect("params were added"),
                                            offset: p.offset,
                                            size: wgpu::BufferSize::new(p.bytes),
                                        })
                                    }
                                },
                            })
                            .collect();
                        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
                            label: Some(op),
                            layout: &d.kernel.layout,
                            entries: &entries,
                        });
                        // wgpu drops a repeated `set_pipeline` of the same pipeline.
                        pass.set_pipeline(&d.kernel.pipeline);
                        pass.set_bind_group(0, &bind, &[]);
                        match d.grid {
                            Grid::Direct([x, y, z]) => pass.dispatch_workgroups(x, y, z),
                            Grid::Indirect(buffer, offset) => {
                                pass.dispatch_workgroups_indirect(&buffer, offset)
                            }
                        }
                        if let Some(Command::Dispatch(_)) = commands.peek() {
                            if let Some(Command::Dispatch(d)) = commands.next() {
                                next = Some(d);
                            }
                        }
                    }
                    drop(pass);
                    if let (Some(p), Some(q)) = (&profiler, query) {
                        p.end_pass(enc, q);
                    }
                }
                Command::Clear {
                    buffer,
                    offset,
                    size,
                } => enc.clear_buffer(&buffer, offset, size),
                Command::Copy {
                    src,
                    src_offset,
                    dst,
                    dst_offset,
                    size,
                } => enc.copy_buffer_to_buffer(&src, src_offset, &dst, dst_offset, size),
            }
        }
        if let (Some(p), Some(call)) = (profiler.as_mut(), call) {
            p.end_call(enc, call);
        }
        Ok(keep)
    }
}
