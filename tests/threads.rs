//! Calls from several threads on clones of one Ctx.

mod common;

use common::*;

#[test]
fn calls_from_several_threads() {
    let ctx = ctx().clone();
    let handles: Vec<_> = (0..8u32)
        .map(|t| {
            let ctx = ctx.clone();
            std::thread::spawn(move || {
                for round in 0..6u32 {
                    let len = 1000 + 777 * (t as usize) + round as usize;
                    let host = random_vec::<u32>(len, u64::from(t * 100 + round) + 1);
                    let v = ctx.upload(&host).unwrap();
                    // Half the threads share an expression (one compile), half have their own.
                    let k = if t % 2 == 0 { 3 } else { t + 10 };
                    let out = ctx.map(&v, &format!("x * {k}u + {round}u")).unwrap();
                    let both = ctx.zip(&out, &v, "a - b").unwrap();
                    let want: Vec<u32> = host
                        .iter()
                        .map(|&x| x.wrapping_mul(k).wrapping_add(round).wrapping_sub(x))
                        .collect();
                    assert_all_eq(&both.to_vec().unwrap(), &want, "threaded map+zip");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn blocking_reductions_from_several_threads() {
    // Several threads polling one device at once: each read-back must still land
    // (another thread's poll may run its map callback).
    let ctx = ctx().clone();
    let handles: Vec<_> = (0..6u64)
        .map(|t| {
            let ctx = ctx.clone();
            std::thread::spawn(move || {
                for round in 0..10u64 {
                    let host = random_vec::<u32>(5000 + round as usize, t * 1000 + round + 1);
                    let v = ctx.upload(&host).unwrap();
                    let want = host.iter().fold(0u32, |a, &b| a.wrapping_add(b));
                    assert_eq!(ctx.reduce(&v).unwrap(), want);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
