//! An ordinary test that lets the process exit while a context is still being dropped:
//! six contexts, each made and used by threads of its own, and the test returns as soon
//! as the last one has sent its results, while its thread may still be dropping it.
//! libtest then exits the process. On an H200 this ended in a segmentation fault at exit
//! in 37 of 40 runs, inside NVIDIA's driver, which `exit()` was tearing down while the
//! context's drop was in it; gpuprim's exit handler now waits for such a drop to leave
//! the driver (src/runtime/driver.rs). One test, so the exit follows it at once;
//! `tests/exit_main.rs` does the same from a plain `main`, and the GPU machine runs both
//! 200 times (docs/PERFORMANCE.md, "Several contexts").

mod exiting;

use std::sync::mpsc;

#[test]
fn the_process_exits_while_the_last_context_is_dropped() {
    let (tx, rx) = mpsc::channel();
    for c in 0..6u64 {
        let tx = tx.clone();
        // Not scoped and never joined: the test returns without waiting for these threads.
        std::thread::spawn(move || {
            let ctx = match gpuprim::Ctx::new() {
                Ok(ctx) => ctx,
                Err(e) => return tx.send(Err(format!("context {c}: {e}"))).unwrap(),
            };
            let len = 20_000 + 10_000 * c as usize;
            let results: Vec<Result<(), String>> = std::thread::scope(|s| {
                let ctx = &ctx;
                let users: Vec<_> = (0..2u64)
                    .map(|t| s.spawn(move || exiting::round(ctx, len + t as usize, c * 2 + t)))
                    .collect();
                users.into_iter().map(|u| u.join().unwrap()).collect()
            });
            let _ = tx.send(results.into_iter().collect::<Result<(), String>>());
            // `ctx` is dropped here, perhaps while the process exits.
        });
    }
    for _ in 0..6 {
        rx.recv().unwrap().unwrap();
    }
}
