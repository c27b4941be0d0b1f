//! Your wgpu code and gpuprim's together: the device and queue handles ([`Interop`]),
//! which submit held work before each use, and [`Ctx::record`], which records calls into
//! your command encoder.

use std::fmt;
use std::sync::{Arc, Mutex};

use super::Ctx;
use crate::error::{Error, Result};

/// A wgpu handle of a [`Ctx`] ([`Ctx::device`], [`Ctx::queue`]) for your own wgpu code.
///
/// gpuprim may hold the work of recent calls to submit it together (see
/// [`CtxBuilder::batch_limit`](super::CtxBuilder::batch_limit)). Every use of this handle (it dereferences to the wgpu
/// type) first submits what is held, so your submissions, `write_buffer`s and polls come
/// after every gpuprim call made before them, even if you keep the handle across calls.
/// A clone of the wgpu object itself (`ctx.queue().clone()` gives a `wgpu::Queue`) does
/// not do this: call [`Ctx::flush`] before using it. An error from that submission is
/// returned by the next gpuprim call.
pub struct Interop<'a, T> {
    ctx: &'a Ctx,
    handle: &'a T,
}

impl<T> std::ops::Deref for Interop<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.ctx.flush_deferring_errors();
        self.handle
    }
}

impl Interop<'_, wgpu::Device> {
    /// Destroys the device ([`wgpu::Device::destroy`]) after submitting the work gpuprim
    /// holds, and marks the context lost: from now on every call of this context, its
    /// clones and every other context on the same device returns [`Error::DeviceLost`],
    /// and read-backs already waiting resolve. Contexts made by [`Ctx::new`] share their
    /// device: make the context with [`CtxBuilder::dedicated_device`](super::CtxBuilder::dedicated_device) to destroy only its
    /// own.
    ///
    /// (A `destroy` through a clone of the `wgpu::Device` is noticed too, by the first
    /// call whose wgpu work fails or that waits for the GPU; a vector allocated before
    /// then reports the loss when it is used.)
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::builder().dedicated_device(true).build()?;
    /// let v = ctx.upload(&[1.0f32, 2.0])?;
    /// ctx.device().destroy();
    /// assert!(matches!(ctx.reduce(&v), Err(gpuprim::Error::DeviceLost { .. })));
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn destroy(&self) {
        self.ctx.flush_deferring_errors();
        self.ctx
            .mark_lost("Destroyed: Ctx::device().destroy() was called");
        self.handle.destroy();
    }
}

impl<T: fmt::Debug> fmt::Debug for Interop<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.handle.fmt(f)
    }
}

impl Ctx {
    /// The underlying wgpu device, for interop with your own wgpu code. Each use of the
    /// handle first submits the work gpuprim holds for batching (see [`Interop`]), so a
    /// `poll` through it waits for every call made so far.
    ///
    /// **The device may be shared.** Contexts made by [`Ctx::new`] and
    /// [`CtxBuilder::build`](super::CtxBuilder::build) on one adapter with the same
    /// features and limits share one device: [`destroy`](Interop::destroy) through any of
    /// them ends all of them (each call returns [`Error::DeviceLost`](crate::Error::DeviceLost)),
    /// and the next `Ctx::new` gets a new device at once. To destroy only one context's
    /// device, build it with [`CtxBuilder::dedicated_device`](super::CtxBuilder::dedicated_device).
    /// On GL, gpuprim serialises its own calls into wgpu (see the crate's notes on GL); calls
    /// you make through this handle from other threads at the same time are not.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let encoder = ctx.device().create_command_encoder(&Default::default());
    /// ctx.queue().submit([encoder.finish()]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn device(&self) -> Interop<'_, wgpu::Device> {
        Interop {
            ctx: self,
            handle: &self.inner.device,
        }
    }

    /// The underlying wgpu queue. Each use of the handle first submits the work gpuprim
    /// holds for batching (see [`Interop`]), so what you submit or write through it comes
    /// after every call made so far.
    pub fn queue(&self) -> Interop<'_, wgpu::Queue> {
        Interop {
            ctx: self,
            handle: &self.inner.queue,
        }
    }

    /// Records the work of the calls `f` makes through the `&Ctx` it is given into
    /// `encoder`, a command encoder of this context's device that you submit, in order
    /// with your own passes before and after: gpuprim inside your frame.
    ///
    /// Ordering rules:
    /// - work gpuprim holds for batching is submitted first, so calls made before
    ///   `record` run before your encoder;
    /// - inside `f`, every call made through its argument is recorded, in call order, at
    ///   this point of `encoder`; it runs when you submit `encoder`, not before;
    /// - calls through other handles (the outer `ctx`) submit as usual, ahead of your
    ///   encoder;
    /// - calls that wait for the GPU or read back (`reduce`, `to_vec`, `synchronize`,
    ///   `compact`, `Swizzle::Auto`'s first call) cannot be recorded: they return
    ///   [`Error::InvalidArgument`]; use their `_into` forms and read back after your
    ///   submission;
    /// - if `f` returns an error, nothing is recorded into `encoder`.
    ///
    /// Scratch buffers and parameters stay alive until the work has run (wgpu keeps what
    /// an encoder uses). Vectors made inside `f` belong to this context as usual.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let a = ctx.upload(&[1.0f32, 2.0, 3.0])?;
    /// let mut doubled = ctx.zeros::<f32>(3)?;
    /// let mut total = ctx.zeros::<f32>(1)?;
    /// let mut encoder = ctx.device().create_command_encoder(&Default::default());
    /// // ... your own passes ...
    /// ctx.record(&mut encoder, |ctx| {
    ///     ctx.map_into(&a, "x * 2.0", &mut doubled)?;
    ///     ctx.reduce_into(&doubled, &mut total)
    /// })?;
    /// // ... more passes of your own, reading `total.buffer()` ...
    /// ctx.queue().submit([encoder.finish()]);
    /// assert_eq!(total.to_vec()?, vec![12.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn record<R>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        f: impl FnOnce(&Ctx) -> Result<R>,
    ) -> Result<R> {
        self.check_not_recording("Ctx::record")?;
        self.flush()?;
        let sink = Arc::new(Mutex::new(Vec::new()));
        let recording = Ctx {
            inner: Arc::clone(&self.inner),
            sink: Some(Arc::clone(&sink)),
        };
        let result = f(&recording);
        drop(recording);
        let works = std::mem::take(&mut *sink.lock().unwrap_or_else(|p| p.into_inner()));
        let value = result?;
        for work in works {
            work.record(encoder)?;
        }
        Ok(value)
    }

    /// This context without a [`Ctx::record`] sink: what vectors keep.
    pub(crate) fn plain(&self) -> Ctx {
        Ctx {
            inner: Arc::clone(&self.inner),
            sink: None,
        }
    }

    /// `Err(InvalidArgument)` inside [`Ctx::record`]: `op` waits for the GPU.
    pub(crate) fn check_not_recording(&self, op: &'static str) -> Result<()> {
        if self.sink.is_none() {
            return Ok(());
        }
        Err(Error::InvalidArgument {
            op,
            message: format!(
                "`{op}` waits for the GPU or reads back, which cannot be recorded into your \
                 encoder (its work runs only when you submit it); use the `_into` form inside \
                 `Ctx::record` and read back after submitting"
            ),
        })
    }
}
