//! Waiting for the GPU. Every wait in gpuprim goes through here and has three phases:
//!
//! 1. **Spin.** On a GPU, a blocking wait first polls without blocking, for at most
//!    [`SPIN`]: small work lands within tens of microseconds, and a blocking wait would add
//!    the driver's wake-up time to every round trip (CUDA's synchronisation spins first
//!    too). Not on a CPU adapter, whose work runs on the cores a spin would take.
//! 2. **Sleep.** Then it blocks in wgpu's poll, where the driver sleeps on a fence, in
//!    slices of at most [`SLICE`], checking between slices that the device is alive and
//!    that the deadline has not passed. No thread spins longer than [`SPIN`] per wait.
//! 3. **Deadline.** A wait longer than the context's limit
//!    ([`CtxBuilder::wait_timeout`](crate::CtxBuilder::wait_timeout), default
//!    [`DEFAULT_WAIT_TIMEOUT`]) returns [`Error::Timeout`] naming the call and the time
//!    waited, instead of blocking forever. The work goes on: the context stays usable,
//!    and a later wait sees that work finish. The read-back that timed out keeps its
//!    staging buffer out of the pool until the buffer is dropped.
//!
//! Async waits ([`GpuVec::to_vec_async`](crate::GpuVec::to_vec_async) and the `_async`
//! calls) need no executor: each context has one waiter thread, started by its first
//! async wait, that sleeps in the same slices while anything waits, parks while nothing
//! does, and ends with the context. Thousands of awaited read-backs share that thread.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::runtime::context::Ctx;
use crate::runtime::{driver, native};

/// How long a blocking wait polls without blocking before it sleeps (GPU adapters).
pub(crate) const SPIN: Duration = Duration::from_micros(500);

/// The longest a wait sleeps in the driver before it checks the device and its deadline.
pub(crate) const SLICE: Duration = Duration::from_millis(50);

/// Default of [`CtxBuilder::wait_timeout`](crate::CtxBuilder::wait_timeout): longer than
/// any single call's work on a software adapter in the test suite by far, short enough
/// that a hung GPU is an error within minutes.
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(120);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The state of a buffer being mapped for a read-back: the map callback's result, and who
/// to tell when it lands.
#[derive(Default)]
pub(crate) struct MapState {
    result: Mutex<Option<std::result::Result<(), wgpu::BufferAsyncError>>>,
    landed: Condvar,
    waker: Mutex<Option<Waker>>,
    /// Set by the waiter thread when an async wait passes its deadline.
    timed_out: AtomicBool,
}

impl MapState {
    /// The map callback's result: records it and wakes whoever waits.
    pub(crate) fn set(&self, r: std::result::Result<(), wgpu::BufferAsyncError>) {
        *lock(&self.result) = Some(r);
        self.landed.notify_all();
        self.wake();
    }

    fn wake(&self) {
        if let Some(w) = lock(&self.waker).take() {
            w.wake();
        }
    }

    /// Whether the callback has run, waiting up to `timeout` for it.
    fn wait_done(&self, timeout: Duration) -> bool {
        let guard = lock(&self.result);
        let (guard, _) = self
            .landed
            .wait_timeout_while(guard, timeout, |r| r.is_none())
            .unwrap_or_else(|p| p.into_inner());
        guard.is_some()
    }

    pub(crate) fn done(&self) -> bool {
        lock(&self.result).is_some()
    }

    /// The callback's result, once (`None` if it has not run).
    pub(crate) fn take(&self) -> Option<std::result::Result<(), wgpu::BufferAsyncError>> {
        lock(&self.result).take()
    }

    pub(crate) fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Acquire)
    }
}

/// What a wait waits for.
pub(crate) enum Until<'a> {
    /// Every submission of the device so far has finished.
    Idle,
    /// A read-back's map callback has run (its submission is given to wait on it alone).
    Mapped(&'a MapState, Option<&'a wgpu::SubmissionIndex>),
}

impl Until<'_> {
    fn reached(&self, status: &wgpu::PollStatus) -> bool {
        match self {
            Until::Idle => status.is_queue_empty(),
            Until::Mapped(state, _) => state.done(),
        }
    }

    fn submission(&self) -> Option<wgpu::SubmissionIndex> {
        match self {
            Until::Idle => None,
            Until::Mapped(_, index) => index.cloned(),
        }
    }

    /// After a blocking poll saw the submission finish: whether the wait is over, waiting
    /// up to `timeout` for a callback that another thread's poll may be running.
    fn settle(&self, timeout: Duration) -> bool {
        match self {
            Until::Idle => true,
            Until::Mapped(state, _) => state.wait_done(timeout),
        }
    }
}

impl Ctx {
    /// How long this context's waits may take before they return [`Error::Timeout`].
    pub fn wait_timeout(&self) -> Duration {
        Duration::from_nanos(self.inner.wait_timeout.load(Ordering::Relaxed))
    }

    /// Sets how long waits for the GPU may take (this context and its clones; waits
    /// already under way keep the limit they started with). See
    /// [`CtxBuilder::wait_timeout`](crate::CtxBuilder::wait_timeout).
    ///
    /// ```
    /// use std::time::Duration;
    /// let ctx = gpuprim::Ctx::new()?;
    /// ctx.set_wait_timeout(Duration::from_secs(10));
    /// assert_eq!(ctx.wait_timeout(), Duration::from_secs(10));
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn set_wait_timeout(&self, limit: Duration) {
        self.inner
            .wait_timeout
            .store(saturating_nanos(limit), Ordering::Relaxed);
    }

    /// Block until the work of every call made so far has finished on the GPU.
    ///
    /// It spins briefly, then sleeps, and gives up with [`Error::Timeout`] past
    /// [`Ctx::wait_timeout`] (see the crate's notes on [waiting](crate#waiting-for-the-gpu)).
    ///
    /// ```
    /// let ctx = gpuprim::Ctx::new()?;
    /// let v = ctx.upload(&[1.0f32, 2.0])?;
    /// let w = ctx.map(&v, "x + 1.0")?;
    /// ctx.synchronize()?; // the map has run
    /// assert_eq!(w.to_vec()?, vec![2.0, 3.0]);
    /// # Ok::<(), gpuprim::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        self.check_not_recording("Ctx::synchronize")?;
        self.flush()?;
        self.wait_for("Ctx::synchronize", Until::Idle)
    }

    /// Waits until `until` holds: spin, sleep, deadline (see the module's notes).
    pub(crate) fn wait_for(&self, op: &'static str, until: Until<'_>) -> Result<()> {
        let start = Instant::now();
        let limit = self.wait_timeout();
        if self.info().device_type != wgpu::DeviceType::Cpu {
            while start.elapsed() < SPIN.min(limit) {
                self.check_alive()?;
                match self.poll_now() {
                    Some(Ok(status)) if until.reached(&status) => return Ok(()),
                    Some(Ok(_)) | None => {}
                    Some(Err(e)) => return Err(self.poll_error(e)),
                }
            }
        }
        let submission = until.submission();
        loop {
            self.check_alive()?;
            if let Until::Mapped(state, _) = until {
                if state.done() {
                    return Ok(());
                }
            }
            let waited = start.elapsed();
            if waited >= limit {
                // One last look without blocking (a zero limit means "if done now").
                return match self.poll_now() {
                    Some(Ok(status)) if until.reached(&status) => self.check_alive(),
                    _ => Err(Error::Timeout { op, waited, limit }),
                };
            }
            let slice = SLICE.min(limit - waited);
            let polled = {
                let _inside = driver::enter();
                poll_blocking(&self.inner.device, submission.clone(), slice)
            };
            match polled {
                Some(Ok(_)) => {
                    if until.settle(slice) {
                        return self.check_alive();
                    }
                }
                Some(Err(wgpu::PollError::Timeout)) => {}
                // wgpu-core's assertion (see `poll_now`): nothing is left locked; let the
                // other thread's submission land before polling again.
                None => native::sleep(Duration::from_millis(1)),
                Some(Err(e)) => return Err(self.poll_error(e)),
            }
        }
    }

    /// One poll that does not block: `None` when wgpu-core's assertion fired (nothing is
    /// left locked, so the caller polls again later).
    pub(crate) fn poll_now(
        &self,
    ) -> Option<std::result::Result<wgpu::PollStatus, wgpu::PollError>> {
        // wgpu-core 30.0.1 has a defensive assertion in `poll` that another thread's
        // concurrent `submit` can trip (queue seen empty before the fence reached the
        // submission index it waits for; seen in the scan tests).
        let _inside = driver::enter();
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.inner.device.poll(wgpu::PollType::Poll)
        }))
        .ok()
    }

    pub(crate) fn poll_error(&self, e: wgpu::PollError) -> Error {
        self.check_alive().err().unwrap_or(Error::DeviceLost {
            reason: e.to_string(),
        })
    }

    /// Registers an async wait for `state` (the map of `submission`'s read-back) with the
    /// context's waiter thread.
    fn watch(&self, state: &Arc<MapState>, submission: &wgpu::SubmissionIndex) {
        self.inner.waiter.watch(self, state, submission);
    }
}

/// A poll that blocks until `submission` (every submission if `None`) has finished or
/// `timeout` has passed; `None` when wgpu-core's assertion fired (see [`Ctx::poll_now`]).
pub(crate) fn poll_blocking(
    device: &wgpu::Device,
    submission: Option<wgpu::SubmissionIndex>,
    timeout: Duration,
) -> Option<std::result::Result<wgpu::PollStatus, wgpu::PollError>> {
    let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        device.poll(wgpu::PollType::Wait {
            submission_index: submission,
            timeout: Some(timeout),
        })
    }))
    .ok();
    if let Some(Ok(_)) = polled {
        driver::close_at_exit_after_running();
    }
    polled
}

/// Resolves when a map callback has run, or its wait passed the context's deadline.
/// Dropped before then (an abandoned future), it takes its wait back from the waiter.
pub(crate) struct MapWait {
    ctx: Ctx,
    state: Arc<MapState>,
    submission: wgpu::SubmissionIndex,
    watched: bool,
}

impl MapWait {
    pub(crate) fn new(ctx: &Ctx, state: Arc<MapState>, submission: wgpu::SubmissionIndex) -> Self {
        MapWait {
            ctx: ctx.clone(),
            state,
            submission,
            watched: false,
        }
    }
}

impl Drop for MapWait {
    fn drop(&mut self) {
        if self.watched {
            self.ctx.inner.waiter.unwatch(&self.state);
        }
    }
}

impl Future for MapWait {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        *lock(&self.state.waker) = Some(cx.waker().clone());
        if self.state.done() || self.state.timed_out() {
            return Poll::Ready(());
        }
        if !self.watched {
            if self.ctx.wait_timeout().is_zero() {
                // A zero limit means "if done now", as for blocking waits: one look
                // without blocking, on this thread, rather than on the waiter's schedule.
                let _ = self.ctx.poll_now();
                if !self.state.done() {
                    self.state.timed_out.store(true, Ordering::Release);
                }
                return Poll::Ready(());
            }
            self.watched = true;
            self.ctx.watch(&self.state, &self.submission);
        }
        Poll::Pending
    }
}

/// The context's waiter thread for async waits (see the module's notes).
#[derive(Default)]
pub(crate) struct Waiter {
    shared: Arc<WaiterShared>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

#[derive(Default)]
struct WaiterShared {
    state: Mutex<Watched>,
    wake: Condvar,
}

#[derive(Default)]
struct Watched {
    /// Each wait with the submission it waits for and its deadline.
    waits: Vec<(Arc<MapState>, wgpu::SubmissionIndex, Instant)>,
    stop: bool,
}

impl Waiter {
    fn watch(&self, ctx: &Ctx, state: &Arc<MapState>, submission: &wgpu::SubmissionIndex) {
        let deadline = Instant::now() + ctx.wait_timeout();
        {
            let mut watched = lock(&self.shared.state);
            watched
                .waits
                .push((Arc::clone(state), submission.clone(), deadline));
        }
        self.shared.wake.notify_one();
        let mut thread = lock(&self.thread);
        if thread.is_none() {
            let shared = Arc::clone(&self.shared);
            let device = ctx.inner.device.clone();
            let lost = Arc::clone(&ctx.inner.lost);
            let spawned = native::spawn("gpuprim waiter", move || {
                run_waiter(&shared, &device, &lost)
            });
            match spawned {
                Ok(handle) => *thread = Some(handle),
                // No thread to be had: the wait ends now and reports the timeout.
                Err(_) => {
                    state.timed_out.store(true, Ordering::Release);
                    state.wake();
                }
            }
        }
    }
}

impl Waiter {
    fn unwatch(&self, state: &Arc<MapState>) {
        lock(&self.shared.state)
            .waits
            .retain(|(s, _, _)| !Arc::ptr_eq(s, state));
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Waiter {
    /// Ends the waiter thread, if there is one, and waits for it to end.
    pub(crate) fn stop(&self) {
        lock(&self.shared.state).stop = true;
        self.shared.wake.notify_all();
        if let Some(handle) = lock(&self.thread).take() {
            let _ = handle.join();
        }
    }
}

/// The waiter thread: while anything waits, a blocking poll until the earliest deadline
/// or for [`SLICE`] (the poll runs the map callbacks, which wake the tasks), then the
/// deadlines; parked while nothing waits.
fn run_waiter(shared: &WaiterShared, device: &wgpu::Device, lost: &Mutex<Option<String>>) {
    loop {
        let (earliest, submission) = {
            let mut watched = lock(&shared.state);
            loop {
                watched
                    .waits
                    .retain(|(s, _, _)| !s.done() && !s.timed_out());
                if watched.stop {
                    return;
                }
                if let Some((_, submission, _)) = watched.waits.first() {
                    let earliest = watched.waits.iter().map(|(_, _, d)| *d).min();
                    break (earliest.unwrap_or_else(Instant::now), submission.clone());
                }
                watched = shared.wake.wait(watched).unwrap_or_else(|p| p.into_inner());
            }
        };
        let slice = SLICE.min(earliest.saturating_duration_since(Instant::now()));
        let Some(polled) = driver::try_enter().map(|_inside| {
            if slice.is_zero() {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    device.poll(wgpu::PollType::Poll)
                }))
                .ok()
            } else {
                poll_blocking(device, Some(submission), slice)
            }
        }) else {
            return; // the process is exiting
        };
        let now = Instant::now();
        let gone = lock(lost).is_some()
            || matches!(polled, Some(Err(ref e)) if !matches!(e, wgpu::PollError::Timeout));
        let watched = lock(&shared.state);
        for (state, _, deadline) in &watched.waits {
            if state.done() {
                continue;
            }
            if gone {
                state.set(Err(wgpu::BufferAsyncError));
            } else if now >= *deadline {
                state.timed_out.store(true, Ordering::Release);
                state.wake();
            }
        }
        drop(watched);
        if polled.is_none() {
            native::sleep(Duration::from_millis(1));
        }
    }
}

/// A wait's limit as stored in the context (nanoseconds, saturating).
pub(crate) fn limit_nanos(limit: Duration) -> AtomicU64 {
    AtomicU64::new(saturating_nanos(limit))
}

/// `limit` in nanoseconds, `u64::MAX` past what a `u64` holds (about 584 years).
fn saturating_nanos(limit: Duration) -> u64 {
    u64::try_from(limit.as_nanos()).unwrap_or(u64::MAX)
}
