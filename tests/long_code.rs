//! User WGSL of every length, on the threads users call from: naga recurses once per
//! operator of a chain such as `x + x + ... + x`, and a long enough chain overflowed the
//! stack of the calling thread (the process died with `fatal runtime error: stack
//! overflow`, 5 000 terms on a 2 MiB thread). gpuprim now refuses code past
//! `MAX_TERMS` operators and brackets in one statement with an error, and parses and
//! compiles on a thread of its own whose stack fits what it accepts. Every call here
//! runs on a thread spawned with Rust's default 2 MiB stack (as test threads and
//! `std::thread::spawn` threads have), except the one that checks the main thread.

mod common;

use common::*;
use gpuprim::{Ctx, Error, Reduce};

/// The most operators and brackets one statement may hold, as the library has it.
const MAX_TERMS: usize = gpuprim::internals::MAX_USER_TERMS;

/// `f` on a new thread with Rust's default stack (2 MiB), as a user's spawned thread.
fn on_default_thread<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .spawn_scoped(s, f)
            .unwrap()
            .join()
    })
    .unwrap_or_else(|p| std::panic::resume_unwind(p))
}

/// `x + x + ... + x` with `terms` terms (`terms - 1` operators).
fn chain(terms: usize) -> String {
    vec!["x"; terms].join(" + ")
}

fn assert_too_long<T: std::fmt::Debug>(r: gpuprim::Result<T>, op: &str, operators: usize) {
    match r {
        Err(Error::InvalidArgument { op: o, message }) => {
            assert_eq!(o, op, "{message}");
            assert!(
                message.contains(&operators.to_string())
                    && message.contains(&MAX_TERMS.to_string()),
                "the message names the count and the limit: {message}"
            );
        }
        other => panic!("{op}: {operators} operators were not refused: {other:?}"),
    }
}

fn assert_still_works(ctx: &Ctx) {
    let h = random_vec::<u32>(1000, 9);
    let v = ctx.upload(&h).unwrap();
    let want = h.iter().fold(0u32, |a, &b| a.wrapping_add(b));
    assert_eq!(ctx.reduce(&v).unwrap(), want);
}

#[test]
fn a_chain_at_the_limit_compiles_and_is_right() {
    let ctx = ctx();
    let terms = MAX_TERMS; // MAX_TERMS - 1 operators
    let h = random_vec::<u32>(4099, 1);
    let v = ctx.upload(&h).unwrap();
    let got = on_default_thread(|| ctx.map(&v, &chain(terms)).unwrap().to_vec().unwrap());
    let want: Vec<u32> = h.iter().map(|&x| x.wrapping_mul(terms as u32)).collect();
    assert_all_eq(&got, &want, "map of a chain of 4096 terms");
}

#[test]
fn past_the_limit_every_call_with_user_code_is_an_error() {
    let ctx = ctx();
    let v = ctx.upload(&random_vec::<u32>(100, 2)).unwrap();
    let w = ctx.upload(&random_vec::<u32>(100, 3)).unwrap();
    for terms in [MAX_TERMS + 2, 5_000, 20_000] {
        let ops = terms - 1;
        on_default_thread(|| {
            assert_too_long(ctx.map(&v, &chain(terms)), "map", ops);
            let zipped = vec!["a"; terms].join(" + ");
            assert_too_long(ctx.zip(&v, &w, &zipped), "zip", ops);
            let op = format!("a + {}", vec!["b"; terms - 1].join(" + "));
            assert_too_long(
                ctx.reduce_with(&v, Reduce::custom(&op, 0u32)),
                "reduce_with",
                ops,
            );
            let predicate = format!("{} > 7u", chain(terms));
            assert_too_long(ctx.compact(&v, &predicate), "compact", ops + 1);
            let mut out = poisoned::<u32>(ctx, 100);
            let body = format!("y = {};", chain(terms));
            assert_too_long(
                ctx.elementwise(&body)
                    .read("x", &v)
                    .write("y", &mut out)
                    .run(),
                "elementwise",
                ops + 1, // and the `=`
            );
        });
    }
    assert_still_works(ctx);
}

#[test]
fn the_main_threads_limit_is_the_same() {
    // 20 000 terms overflowed the main thread's 8 MiB; this test's thread stands for it
    // with the same text.
    let ctx = ctx();
    let v = ctx.upload(&[1u32, 2, 3]).unwrap();
    assert_too_long(ctx.map(&v, &chain(20_000)), "map", 19_999);
    assert_still_works(ctx);
}

#[test]
fn many_short_statements_are_not_a_long_chain() {
    let ctx = ctx();
    let h = random_vec::<u32>(513, 4);
    let v = ctx.upload(&h).unwrap();
    let mut out = poisoned::<u32>(ctx, h.len());
    // 2 000 statements of a few operators each: far more text than one chain allowed.
    let mut body = String::from("var s = x;\n");
    for k in 0..2000 {
        body.push_str(&format!("s = s * 3u + {k}u;\n"));
    }
    body.push_str("y = s;");
    on_default_thread(|| {
        ctx.elementwise(&body)
            .read("x", &v)
            .write("y", &mut out)
            .run()
            .unwrap()
    });
    let want: Vec<u32> = h
        .iter()
        .map(|&x| (0..2000u32).fold(x, |s, k| s.wrapping_mul(3).wrapping_add(k)))
        .collect();
    assert_all_eq(&out.to_vec().unwrap(), &want, "2 000 statements");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let ctx = ctx();
    let v = ctx.upload(&[1.0f32, 2.0]).unwrap();
    on_default_thread(|| {
        let parens = format!("{}x{}", "(".repeat(300), ")".repeat(300));
        let unary = format!("{}x", "-".repeat(300));
        let selects = format!("{}x{}", "select(0.0, 1.0, ".repeat(300), ")".repeat(300));
        for text in [parens, unary, selects] {
            let r = ctx.map(&v, &text);
            assert!(
                matches!(r, Err(Error::InvalidArgument { .. })),
                "{:?}...: {r:?}",
                &text[..40]
            );
        }
        // naga's parser limit is named, not its generic "internal WGSL front end error".
        let r = ctx.map(&v, &format!("{}x{}", "(".repeat(300), ")".repeat(300)));
        let message = r.unwrap_err().to_string();
        assert!(
            message.contains("nests deeper than naga's parser allows"),
            "{message}"
        );
    });
    assert_still_works(ctx);
}

#[test]
fn errors_quote_long_code_by_its_ends() {
    // A 64 KiB identifier is quoted three times (the code, naga's message and its source
    // line): each is cut, and the error stays short; `code` keeps the whole text.
    let ctx = ctx();
    let v = ctx.upload(&[1.0f32, 2.0]).unwrap();
    let long = format!("x + q{}", "_".repeat(65_536));
    match ctx.map(&v, &long) {
        Err(e @ Error::Compile { .. }) => {
            let message = e.to_string();
            assert!(message.len() < 4096, "{} bytes: {message}", message.len());
            assert!(
                message.contains(&format!("({} bytes)", long.len())),
                "{message}"
            );
            let Error::Compile { code, .. } = e else {
                unreachable!()
            };
            assert_eq!(code, long);
        }
        other => panic!("{other:?}"),
    }
    let mut z = ctx.zeros::<f32>(2).unwrap();
    let body = format!("z = {long};");
    let r = ctx
        .elementwise(&body)
        .read("x", &v)
        .write("z", &mut z)
        .run();
    let message = r.unwrap_err().to_string();
    assert!(message.len() < 4096, "{} bytes: {message}", message.len());
    // A predicate that is not one expression is quoted by its ends too.
    let r = ctx.compact(&v, &format!("{}; x > 1.0", "x".repeat(10_000)));
    let message = r.unwrap_err().to_string();
    assert!(message.len() < 1024, "{} bytes: {message}", message.len());
    assert_still_works(ctx);
}
