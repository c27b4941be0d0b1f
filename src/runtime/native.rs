//! What only a native build may use, in one place: blocking on a future, sleeping, the
//! waiter thread and the exit handler. Everything else in gpuprim reaches the platform
//! through these functions, so a browser build (wasm32, where the main thread must not
//! block, threads are Web Workers and `exit` has no handlers) changes this module and
//! nothing else; docs/PORTABILITY.md says what each function would become there.

use std::future::Future;
use std::time::Duration;

/// Runs `future` to completion on this thread. Used for wgpu's error scopes and device
/// requests, whose futures resolve at once on native backends.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    pollster::block_on(future)
}

/// Sleeps this thread (a wait's back-off between polls).
pub(crate) fn sleep(duration: Duration) {
    std::thread::sleep(duration)
}

/// Starts a named thread (the waiter that polls the device for timed waits).
pub(crate) fn spawn(
    name: &str,
    body: impl FnOnce() + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new().name(name.into()).spawn(body)
}

/// Runs `f` on a thread of its own with a stack of `bytes` and returns what it returns
/// (a panic in `f` goes on in the caller). gpuprim parses and compiles WGSL this way:
/// naga recurses once per operator of a chain, so how much stack a compile needs depends
/// on the user's code, not on the caller's thread (see `expr::check_size`). The stack is
/// reserved address space; only what the compile touches is used. Err if no thread of
/// that stack can be started.
pub(crate) fn on_stack<R: Send>(bytes: usize, f: impl FnOnce() -> R + Send) -> std::io::Result<R> {
    std::thread::scope(|s| {
        let thread = std::thread::Builder::new()
            .name("gpuprim compile".into())
            .stack_size(bytes)
            .spawn_scoped(s, f)?;
        Ok(thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

/// Registers `handler` to run at `exit()`, once per call site's `Once`; does nothing
/// where there is no C `atexit`.
pub(crate) fn at_exit(once: &'static std::sync::Once, handler: extern "C" fn()) {
    #[cfg(unix)]
    once.call_once(|| {
        unsafe extern "C" {
            fn atexit(f: extern "C" fn()) -> std::ffi::c_int;
        }
        // SAFETY: `atexit` (C99, POSIX) only records the function; the handlers given
        // here are plain `extern "C" fn`s that cannot unwind.
        unsafe {
            atexit(handler);
        }
    });
    #[cfg(not(unix))]
    let _ = (once, handler);
}
