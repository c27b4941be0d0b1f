//! How recorded work reaches the queue: finished command buffers go through
//! [`Ctx::enqueue`], submitted at once while the GPU is idle, else held and submitted
//! together (see the `impl Ctx` block below).

use crate::error::Result;
use crate::runtime::context::Ctx;

/// Longest a call's work is held before the next call submits it, even when the GPU is
/// still busy and the batch is not full. Without it, a batch of large calls (each much
/// longer on the GPU than to record) reached the GPU only after it had run out of work;
/// 100 us keeps back-to-back large calls fed without many more submissions (measured
/// with `lab/src/bin/reduce_lab.rs`; see lab/perf-journal.md).
pub(crate) const HOLD_MAX: std::time::Duration = std::time::Duration::from_micros(100);

/// Work recorded and not yet submitted, in call order, and when the oldest of it was
/// held.
#[derive(Default)]
pub(crate) struct Held {
    buffers: Vec<wgpu::CommandBuffer>,
    since: Option<std::time::Instant>,
}

impl Held {
    /// Everything held, which is then empty.
    pub(crate) fn take(&mut self) -> Vec<wgpu::CommandBuffer> {
        self.since = None;
        std::mem::take(&mut self.buffers)
    }
}

/// Submission. Each `queue.submit` costs the GPU idle time between the work of two
/// submissions (see lab/perf-journal.md), so work recorded while the GPU is busy is held
/// and submitted together with the calls after it; work recorded while it is idle goes
/// at once, and work held for 100 us goes with the next call. The held command buffers
/// keep call order, and a pooled scratch buffer goes back to the pool once the command
/// buffer that uses it is queued here: whatever takes it next is recorded, and so runs,
/// after it.
impl Ctx {
    /// Queues finished `commands`: submitted with the held ones when the GPU is idle,
    /// the batch is full or the oldest held work has waited [`HOLD_MAX`], else held.
    /// Only valid command buffers come here (finished inside a capture that reported no
    /// error), so a submission never fails for a call that already returned.
    pub(crate) fn enqueue(&self, op: &'static str, commands: wgpu::CommandBuffer) -> Result<()> {
        // The door before the held work's lock, as everywhere (a read-back submits
        // inside its capture).
        let _inside = crate::runtime::driver::enter();
        let mut pending = self.lock_pending();
        pending.buffers.push(commands);
        let waited = pending
            .since
            .is_some_and(|t| t.elapsed() >= self.inner.hold_max);
        if pending.buffers.len() >= self.inner.batch_limit || waited || self.queue_idle() {
            self.submit_held(op, &mut pending)?;
        } else if pending.since.is_none() {
            pending.since = Some(std::time::Instant::now());
        }
        Ok(())
    }

    /// Submits every held command buffer, with errors captured as `op`'s. The caller holds
    /// the lock, so no other thread's work gets between them and the queue.
    fn submit_held(&self, op: &'static str, pending: &mut Held) -> Result<()> {
        let batch = pending.take();
        self.capture(op, || {
            self.inner.queue.submit(batch);
            self.count_submission();
        })
    }

    /// Inside a capture: finishes `enc` and submits it with every held command buffer.
    /// For work the host waits for next (a read-back).
    pub(crate) fn submit_now(&self, enc: wgpu::CommandEncoder) -> wgpu::SubmissionIndex {
        let _inside = crate::runtime::driver::enter();
        let mut pending = self.lock_pending();
        pending.buffers.push(enc.finish());
        let index = self.inner.queue.submit(pending.take());
        self.count_submission();
        index
    }

    /// Submits the work that calls made while the GPU was busy left held for batching
    /// (see [`CtxBuilder::batch_limit`](crate::CtxBuilder::batch_limit)), without
    /// waiting for it. Reading results and [`Ctx::synchronize`] do this themselves; call
    /// it when the GPU should start on held work while the host does something else.
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1.0f32, 2.0, 3.0])?;
    /// let doubled = ctx.map(&v, "x * 2.0")?; // may be held while the GPU is busy
    /// ctx.flush()?; // the GPU has it now; the host is free to do other work
    /// assert_eq!(doubled.to_vec()?, vec![2.0, 4.0, 6.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn flush(&self) -> Result<()> {
        let _inside = crate::runtime::driver::enter();
        let mut pending = self.lock_pending();
        if pending.buffers.is_empty() {
            return self.check_alive();
        }
        self.submit_held("Ctx::flush", &mut pending)
    }

    /// How many calls' work is held for batching right now (not yet submitted).
    pub fn held_calls(&self) -> usize {
        self.lock_pending().buffers.len()
    }

    /// [`Ctx::flush`] for accessors that cannot return an error: the next call returns it.
    pub(crate) fn flush_deferring_errors(&self) {
        if let Err(e) = self.flush() {
            let mut deferred = self
                .inner
                .deferred
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            deferred.get_or_insert(e);
        }
    }

    fn lock_pending(&self) -> std::sync::MutexGuard<'_, Held> {
        self.inner.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the GPU has finished every submission (a poll that does not block); never
    /// for a context built with [`CtxBuilder::assume_gpu_busy`](crate::CtxBuilder::assume_gpu_busy).
    fn queue_idle(&self) -> bool {
        if self.inner.assume_busy {
            return false;
        }
        matches!(self.poll_now(), Some(Ok(status)) if status.is_queue_empty())
    }
}
