//! Read-backs: a call's work and a copy into a staging buffer (or a mappable result
//! buffer) in one submission, then the map, waited for blocking ([`GpuVec::to_vec`]) or
//! as a future ([`GpuVec::to_vec_async`], on the context's waiter thread).

use std::marker::PhantomData;
use std::sync::Arc;

use super::{GpuVec, Scratch};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::runtime::context::Ctx;
use crate::runtime::record::Work;
use crate::runtime::wait::{MapState, MapWait, Until};

impl<T: Element> GpuVec<T> {
    /// Copies the vector to the host, blocking until the GPU is done.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1u32, 2, 3])?;
    /// assert_eq!(v.to_vec()?, vec![1, 2, 3]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    ///
    /// A [`GpuVec::prefix`] view reads its count first and returns that many elements.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let len = match &self.count {
            Some(c) => self.count_start(c)?.wait()?[0] as usize,
            None => self.len,
        };
        self.read_back_start(len)?.wait()
    }

    /// Async twin of [`GpuVec::to_vec`]. It needs no particular executor: the GPU is
    /// waited on by the context's one waiter thread, which wakes the task (see the
    /// crate's notes on [waiting](crate#waiting-for-the-gpu)).
    pub async fn to_vec_async(&self) -> Result<Vec<T>> {
        let len = match &self.count {
            Some(c) => self.count_start(c)?.wait_async().await?[0] as usize,
            None => self.len,
        };
        self.read_back_start(len)?.wait_async().await
    }

    fn read_back_start(&self, len: usize) -> Result<ReadBack<T>> {
        let op = "GpuVec::to_vec";
        self.require_usage(op, wgpu::BufferUsages::COPY_SRC)?;
        self.ctx.submit_read_back(
            Work::new(&self.ctx, op),
            (&self.buffer, self.offset),
            len.min(self.len),
        )
    }

    /// The read-back of a prefix view's count.
    fn count_start(&self, (buffer, offset): &(wgpu::Buffer, u64)) -> Result<ReadBack<u32>> {
        self.ctx
            .submit_read_back(Work::new(&self.ctx, "GpuVec::to_vec"), (buffer, *offset), 1)
    }
}

/// A read-back in flight: a staging buffer being mapped (or nothing, for zero elements),
/// and the submission it waits for.
pub(crate) struct ReadBack<T> {
    ctx: Ctx,
    op: &'static str,
    staging: Option<(Scratch, Arc<MapState>, wgpu::SubmissionIndex)>,
    len: usize,
    _element: PhantomData<T>,
}

impl<T: Element> ReadBack<T> {
    /// Blocks until the GPU is done and returns the elements (spin, sleep, deadline).
    pub(crate) fn wait(self) -> Result<Vec<T>> {
        if let Some((_, state, submission)) = &self.staging {
            self.ctx
                .wait_for(self.op, Until::Mapped(state, Some(submission)))?;
        }
        self.finish()
    }

    /// Waits without blocking the task, on the context's waiter thread.
    pub(crate) async fn wait_async(self) -> Result<Vec<T>> {
        let started = std::time::Instant::now();
        if let Some((_, state, submission)) = &self.staging {
            MapWait::new(&self.ctx, Arc::clone(state), submission.clone()).await;
            if !state.done() && state.timed_out() {
                return Err(Error::Timeout {
                    op: self.op,
                    waited: started.elapsed(),
                    limit: self.ctx.wait_timeout(),
                });
            }
        }
        self.finish()
    }

    /// Reads the mapped buffer (the map must have completed).
    fn finish(self) -> Result<Vec<T>> {
        let Some((mut buffer, state, _)) = self.staging else {
            return Ok(Vec::new());
        };
        let result = state.take();
        match result {
            Some(Ok(())) => {}
            Some(Err(e)) => {
                self.ctx.check_alive()?;
                return Err(Error::DeviceLost {
                    reason: format!("mapping the read-back buffer failed: {e}"),
                });
            }
            None => {
                return Err(Error::DeviceLost {
                    reason: "the GPU finished waiting but the read-back never completed".into(),
                });
            }
        }
        let _inside = crate::runtime::driver::enter();
        let view = buffer.get_mapped_range(..).map_err(|e| {
            self.ctx.or_lost(Error::Internal {
                op: "read-back",
                message: e.to_string(),
            })
        })?;
        // The mapped bytes need not be aligned for T; pod_collect_to_vec copies safely.
        let out: Vec<T> = bytemuck::pod_collect_to_vec(&view[..self.len * size_of::<T>()]);
        drop(view);
        buffer.unmap();
        buffer.reusable = true;
        Ok(out)
    }
}

impl Ctx {
    /// Adds to `work` a copy of the `len` elements at `src` into a staging buffer,
    /// submits it and starts mapping the staging buffer: one submission carries a
    /// kernel and its read-back.
    pub(crate) fn submit_read_back<T: Element>(
        &self,
        mut work: Work,
        (src, src_offset): (&wgpu::Buffer, u64),
        len: usize,
    ) -> Result<ReadBack<T>> {
        let op = work.op();
        self.check_alive()?;
        self.check_not_recording(op)?;
        if len == 0 {
            work.submit()?;
            return Ok(ReadBack {
                ctx: self.clone(),
                op,
                staging: None,
                len,
                _element: PhantomData,
            });
        }
        let bytes = (len * size_of::<T>()).next_multiple_of(4) as u64;
        let staging = self.scratch(
            "read-back staging buffer",
            bytes,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        )?;
        work.copy((src, src_offset), (&staging, 0), bytes);
        self.submit_mapped(work, staging, len)
    }

    /// Records `work`, submits it with what is held and starts mapping `buffer`, which
    /// holds the `len` elements once the work is done (a staging buffer `work` copies
    /// into, or a result buffer its kernels write directly: [`Ctx::result_buffer`]).
    /// One error capture covers the recording, the submission and the map.
    fn submit_mapped<T: Element>(
        &self,
        work: Work,
        mut buffer: Scratch,
        len: usize,
    ) -> Result<ReadBack<T>> {
        let op = work.op();
        self.check_not_recording(op)?;
        buffer.reusable = false; // until it is unmapped again
        let state = Arc::new(MapState::default());
        let submission = self.capture(op, || -> Result<wgpu::SubmissionIndex> {
            let (enc, kept) = work.encode_captured()?;
            let submission = self.submit_now(enc);
            drop(kept); // queued: the pooled buffers may go to later work
            let s = Arc::clone(&state);
            buffer
                .slice(..)
                .map_async(wgpu::MapMode::Read, move |r| s.set(r));
            Ok(submission)
        })??;
        Ok(ReadBack {
            ctx: self.clone(),
            op,
            staging: Some((buffer, state, submission)),
            len,
            _element: PhantomData,
        })
    }

    /// A small buffer for a kernel's result that the host reads back (a blocking
    /// `reduce`'s one value); read it back with [`Ctx::submit_result`]. Where the adapter
    /// allows storage buffers to be mapped (`MAPPABLE_PRIMARY_BUFFERS`), the kernel writes
    /// the result straight into mappable memory: no copy into a staging buffer, and one
    /// command less in the round trip. Elsewhere it is a storage buffer to copy from.
    pub(crate) fn result_buffer(&self, bytes: u64) -> Result<Scratch> {
        let usage = if self.has_features(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS) {
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::MAP_READ
        } else {
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC
        };
        self.scratch("result", bytes, usage)
    }

    /// Submits `work` and reads back the first `len` elements of `result` (from
    /// [`Ctx::result_buffer`]): mapped directly where it is mappable, else through a copy
    /// into a staging buffer.
    pub(crate) fn submit_result<T: Element>(
        &self,
        work: Work,
        result: Scratch,
        len: usize,
    ) -> Result<ReadBack<T>> {
        if result.usage().contains(wgpu::BufferUsages::MAP_READ) {
            self.submit_mapped(work, result, len)
        } else {
            let buffer = (*result).clone();
            let mut work = work;
            work.keep(result);
            self.submit_read_back(work, (&buffer, 0), len)
        }
    }
}
