//! The one door into the driver: every gpuprim call into wgpu that reaches the driver
//! (compiling, allocating and freeing buffers, recording and submitting work, polling,
//! mapping, making and dropping devices) runs inside [`enter`]. The door does two things.
//!
//! **The process may exit at any moment.** `exit()` runs its handlers in the reverse
//! order of registration, and NVIDIA's driver tears itself down in its own: a thread of
//! the process still inside the driver then crashed it (a waiter thread polling, 13 of
//! 20 runs; a context dropped on one thread while `main` returned, 37 of 40 on an H200;
//! docs/multidevice-hang.md). gpuprim registers [`close`] with `atexit` once the driver
//! is loaded (after the first instance lists its adapters), so it runs before the
//! driver's handlers: it closes the door, waits for the threads inside to come out (a
//! wgpu call, a poll of at most `wait::SLICE`; at most [`CLOSE_WAIT`] in all) and
//! returns. A thread that reaches the door after that never enters the driver again: it
//! sleeps until the process is gone (calls do not return, drops do not finish), except
//! the thread that is exiting, which goes on (its own exit handlers may drop what they
//! hold) and the waiter threads, which end ([`try_enter`]). Once nobody is inside,
//! it also waits (within the same [`CLOSE_WAIT`]) for the work already submitted to
//! every device gpuprim knows (`device::quiesce`): lavapipe runs that work, and
//! JIT-compiles for it, on a queue thread of its own that no door can hold. The handler
//! is registered again after the first compile and after the first finished
//! submission, since a driver may register handlers of its own at either.
//!
//! **GL's context lock never times out because of gpuprim.** On GL, wgpu-hal holds one
//! lock on the EGL context for each call, and a call that waits more than 6 s for it
//! panics inside wgpu-hal ("Could not lock adapter context. This is most-likely a
//! deadlock."). Mesa's llvmpipe runs a whole submission, and compiles a whole shader,
//! while holding it: on a loaded machine another thread's call waited past 6 s. Once a
//! GL device exists in the process, the door is also a lock, so one gpuprim thread at
//! a time calls into wgpu and the others wait at the door, without a limit. Your own
//! wgpu calls on a GL device gpuprim uses do not go through it.
//!
//! Entering is re-entrant (a thread inside may enter again) and costs two atomic
//! operations on other backends. A thread inside never waits for another thread that
//! needs the door: waits for the GPU poll in slices, each entering on its own, and
//! kernels are compiled on a thread of their own that enters by itself (the caller
//! holds no entry then).

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use super::native;

/// Threads inside the door (each counted once, however often it entered).
static INSIDE: AtomicUsize = AtomicUsize::new(0);
/// Set by [`close`]: the process is exiting.
static CLOSED: AtomicBool = AtomicBool::new(false);
/// The thread that runs the exit handlers.
static EXITING_THREAD: OnceLock<ThreadId> = OnceLock::new();
/// Whether a GL device exists in the process: the door is then a lock too.
static GL: AtomicBool = AtomicBool::new(false);
/// The longest [`close`] waits for threads to come out of the driver; past it the exit
/// goes on (a hang at exit would be worse than the crash it may risk).
pub(crate) const CLOSE_WAIT: Duration = Duration::from_secs(5);

thread_local! {
    /// How many entries this thread holds.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// The GL lock: which thread holds it, and how often.
struct GlLock {
    owner: Mutex<Option<(ThreadId, usize)>>,
    free: Condvar,
}

static GL_LOCK: GlLock = GlLock {
    owner: Mutex::new(None),
    free: Condvar::new(),
};

/// Held while a thread is inside the door; leaving is dropping it. Not `Send`: an entry
/// belongs to its thread.
pub(crate) struct Entered {
    gl: bool,
    _thread_bound: std::marker::PhantomData<*const ()>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        if self.gl {
            gl_unlock();
        }
        let depth = DEPTH.with(|d| {
            d.set(d.get() - 1);
            d.get()
        });
        if depth == 0 {
            INSIDE.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// Enters the driver's door (see the module). After the process began to exit, a thread
/// other than the exiting one sleeps here for good.
pub(crate) fn enter() -> Entered {
    match try_enter() {
        Some(entered) => entered,
        None => loop {
            native::sleep(Duration::from_secs(3600));
        },
    }
}

/// [`enter`], or `None` once the process is exiting (for gpuprim's own threads, which
/// then end).
pub(crate) fn try_enter() -> Option<Entered> {
    let depth = DEPTH.with(Cell::get);
    if depth == 0 {
        INSIDE.fetch_add(1, Ordering::SeqCst);
        if CLOSED.load(Ordering::SeqCst)
            && EXITING_THREAD.get() != Some(&std::thread::current().id())
        {
            INSIDE.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
    }
    DEPTH.with(|d| d.set(depth + 1));
    let gl = GL.load(Ordering::Acquire);
    if gl {
        gl_lock();
    }
    Some(Entered {
        gl,
        _thread_bound: std::marker::PhantomData,
    })
}

/// From now on the door is a lock as well (a GL device is about to exist).
pub(crate) fn serialize_for_gl() {
    GL.store(true, Ordering::Release);
}

fn gl_lock() {
    let me = std::thread::current().id();
    let mut owner = GL_LOCK.owner.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        match &mut *owner {
            None => {
                *owner = Some((me, 1));
                return;
            }
            Some((id, n)) if *id == me => {
                *n += 1;
                return;
            }
            Some(_) => {
                owner = GL_LOCK.free.wait(owner).unwrap_or_else(|p| p.into_inner());
            }
        }
    }
}

fn gl_unlock() {
    let mut owner = GL_LOCK.owner.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, n)) = &mut *owner {
        *n -= 1;
        if *n == 0 {
            *owner = None;
            GL_LOCK.free.notify_one();
        }
    }
}

/// The exit handler: closes the door, waits (at most [`CLOSE_WAIT`] in all) for the
/// threads inside to come out and then for the devices' submitted work. Cannot unwind.
extern "C" fn close() {
    let _ = EXITING_THREAD.set(std::thread::current().id());
    CLOSED.store(true, Ordering::SeqCst);
    // This thread's own entries (an exit from inside a gpuprim call) do not count.
    let mine = usize::from(DEPTH.try_with(Cell::get).unwrap_or(0) > 0);
    let start = Instant::now();
    while INSIDE.load(Ordering::SeqCst) > mine && start.elapsed() < CLOSE_WAIT {
        native::sleep(Duration::from_micros(200));
    }
    // Then the work the devices still run on the driver's own threads, once nobody else
    // is inside (a thread still inside may hold a lock the wait would need).
    if INSIDE.load(Ordering::SeqCst) <= mine {
        super::device::quiesce(CLOSE_WAIT.saturating_sub(start.elapsed()));
    }
}

/// Registers [`close`] to run at `exit()`, once. Called after an instance has listed its
/// adapters, so the driver is loaded and its own exit handlers, registered when it was,
/// run after this one.
pub(crate) fn close_at_exit() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    native::at_exit(&ONCE, close);
}

/// Registers [`close`] once more after the first kernel is compiled. A driver may
/// register exit handlers of its own when it first compiles (our reading of lavapipe:
/// LLVM statics made on first use, destroyed at exit), and those run before a handler
/// registered earlier, tearing the compiler down while a thread inside the door still
/// uses it (lavapipe: `free(): invalid pointer` in `~MCJIT` at exit, about 1 exit in 10
/// while contexts were made; none in 100 with this). Running twice is harmless: the second run finds the door
/// closed and nobody inside.
pub(crate) fn close_at_exit_after_compiling() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    native::at_exit(&ONCE, close);
}

/// Registers [`close`] once more after the first submission was seen finished. A driver
/// may compile when the work runs, on a thread of its own (lavapipe's queue thread
/// JIT-compiles a kernel's LLVM variant at its first dispatch), and register exit
/// handlers of its own then, after the registration at the first compile.
pub(crate) fn close_at_exit_after_running() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if !CLOSED.load(Ordering::SeqCst) {
        native::at_exit(&ONCE, close);
    }
}

/// A wgpu object whose drop goes through the door (a vector's buffer, a context's
/// device and queue): dropping the last handle of a buffer or a device frees it in the
/// driver.
pub(crate) struct Gated<T>(std::mem::ManuallyDrop<T>);

impl<T> Gated<T> {
    pub(crate) fn new(value: T) -> Self {
        Self(std::mem::ManuallyDrop::new(value))
    }

    /// The value, whose drop is then the caller's.
    pub(crate) fn into_inner(self) -> T {
        let mut this = std::mem::ManuallyDrop::new(self);
        // SAFETY: taken once; `this` is never dropped, so neither is the value twice.
        unsafe { std::mem::ManuallyDrop::take(&mut this.0) }
    }
}

impl<T: PartialEq> PartialEq for Gated<T> {
    fn eq(&self, other: &Self) -> bool {
        *self.0 == *other.0
    }
}

impl<T> std::ops::Deref for Gated<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> Drop for Gated<T> {
    fn drop(&mut self) {
        let _inside = enter();
        // SAFETY: dropped once, here; never used again.
        unsafe { std::mem::ManuallyDrop::drop(&mut self.0) }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Gated<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_nest_and_count_once() {
        {
            let _a = enter();
            let _b = enter();
            assert!(INSIDE.load(Ordering::SeqCst) >= 1);
            assert_eq!(DEPTH.with(Cell::get), 2);
        }
        assert_eq!(DEPTH.with(Cell::get), 0);
    }

    #[test]
    fn the_gl_lock_is_reentrant_and_exclusive() {
        gl_lock();
        gl_lock();
        let other = std::thread::spawn(|| {
            gl_lock();
            gl_unlock();
        });
        std::thread::sleep(Duration::from_millis(20));
        assert!(
            !other.is_finished(),
            "another thread entered a held GL lock"
        );
        gl_unlock();
        std::thread::sleep(Duration::from_millis(20));
        assert!(
            !other.is_finished(),
            "a lock held twice was freed by one unlock"
        );
        gl_unlock();
        other.join().unwrap();
    }
}
