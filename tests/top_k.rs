//! top_k and smallest_k (and their `_into` forms) against a stable CPU sort of
//! (value, index): every key type, random values, many ties, f32 specials, k from 0 to
//! n, lengths around the tiles, the three ways the select treats elements equal to the
//! k-th (all taken, ranked in the slack slots, selected by index), the full-sort path
//! for large k, the split-binding context, and the errors.
//!
//! Outputs start poisoned, and every element of both outputs is compared (floats by
//! their bits).

mod common;

use common::*;
use gpuprim::{Ctx, Error, GpuVec, SortKey};

/// The radix select's largest k on the tests' adapter (above it, the full sort) and its
/// candidate slots past k, as the library chooses them.
fn select_limits() -> (usize, usize) {
    gpuprim::internals::top_k_select_limits(ctx())
}

trait Key: SortKey + Copy + std::fmt::Debug + PartialEq {
    fn from_word(bits: u32) -> Self;
    /// The word whose unsigned order is the element order, computed here independently
    /// of the library.
    fn word(self) -> u32;
    fn bits(self) -> u32;
}

impl Key for u32 {
    fn from_word(bits: u32) -> Self {
        bits
    }
    fn word(self) -> u32 {
        self
    }
    fn bits(self) -> u32 {
        self
    }
}

impl Key for i32 {
    fn from_word(bits: u32) -> Self {
        bits as i32
    }
    fn word(self) -> u32 {
        (self as u32) ^ 0x8000_0000
    }
    fn bits(self) -> u32 {
        self as u32
    }
}

impl Key for f32 {
    fn from_word(bits: u32) -> Self {
        f32::from_bits(bits)
    }
    fn word(self) -> u32 {
        let b = self.to_bits();
        if b >> 31 == 1 { !b } else { b | 0x8000_0000 }
    }
    fn bits(self) -> u32 {
        self.to_bits()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum End {
    Largest,
    Smallest,
}

/// The CPU reference: the first k of a stable sort by value (descending for Largest),
/// so equal values keep index order.
fn reference<K: Key>(host: &[K], k: usize, end: End) -> (Vec<u32>, Vec<u32>) {
    let mut order: Vec<u32> = (0..host.len() as u32).collect();
    match end {
        End::Largest => order.sort_by_key(|&i| std::cmp::Reverse(host[i as usize].word())),
        End::Smallest => order.sort_by_key(|&i| host[i as usize].word()),
    }
    order.truncate(k);
    let values = order.iter().map(|&i| host[i as usize].bits()).collect();
    (values, order)
}

/// Runs the `_into` form on poisoned outputs and compares every element with the CPU.
fn check<K: Key + TestElement>(ctx: &Ctx, host: &[K], k: usize, end: End, what: &str) {
    let v = ctx.upload(host).unwrap();
    let mut values: GpuVec<K> = poisoned(ctx, k);
    let mut indices: GpuVec<u32> = poisoned(ctx, k);
    match end {
        End::Largest => ctx.top_k_into(&v, &mut values, &mut indices),
        End::Smallest => ctx.smallest_k_into(&v, &mut values, &mut indices),
    }
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    let (want_values, want_indices) = reference(host, k, end);
    let what = format!("{what}, n {} k {k} {end:?}", host.len());
    let got: Vec<u32> = values.to_vec().unwrap().iter().map(|x| x.bits()).collect();
    assert_all_eq(
        &indices.to_vec().unwrap(),
        &want_indices,
        &format!("{what}: indices"),
    );
    assert_all_eq(&got, &want_values, &format!("{what}: values"));
}

fn ks(n: usize) -> Vec<usize> {
    let mut ks = vec![0, 1, 2, 3, 16, 100, n / 2, n.saturating_sub(1), n];
    ks.retain(|&k| k <= n);
    ks.dedup();
    ks
}

fn random_keys<K: Key>(n: usize, seed: u64) -> Vec<K> {
    random_vec::<u32>(n, seed)
        .into_iter()
        .map(K::from_word)
        .collect()
}

/// Values from `distinct` possibilities: many ties at every k.
fn few_distinct<K: Key>(n: usize, distinct: u32, seed: u64) -> Vec<K> {
    random_vec::<u32>(n, seed)
        .into_iter()
        .map(|r| K::from_word((r % distinct).wrapping_mul(0x9e37_79b9)))
        .collect()
}

fn lengths_and_ks<K: Key + TestElement>(ctx: &Ctx, what: &str) {
    for (s, &n) in [
        0usize, 1, 2, 3, 4, 5, 7, 255, 256, 257, 1023, 1024, 1025, 4097,
    ]
    .iter()
    .enumerate()
    {
        for k in ks(n) {
            for end in [End::Largest, End::Smallest] {
                check(ctx, &random_keys::<K>(n, s as u64 + 1), k, end, what);
                check(ctx, &few_distinct::<K>(n, 5, s as u64 + 7), k, end, what);
            }
        }
    }
}

#[test]
fn u32_random_and_ties_every_length_and_k() {
    lengths_and_ks::<u32>(ctx(), "u32");
}

#[test]
fn i32_random_and_ties_every_length_and_k() {
    lengths_and_ks::<i32>(ctx(), "i32");
}

#[test]
fn f32_random_and_ties_every_length_and_k() {
    // Random words: every bit pattern, NaNs of both signs and payloads included.
    lengths_and_ks::<f32>(ctx(), "f32");
}

#[test]
fn f32_specials_nan_zeros_infinities() {
    let specials = [
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7fc0_0001),
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::MAX,
        f32::MIN,
        1.0,
        -1.0,
    ];
    for n in [14usize, 300, 5000] {
        let host: Vec<f32> = random_vec::<u32>(n, n as u64)
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                if i % 3 == 0 {
                    f32::from_bits(r)
                } else {
                    specials[r as usize % specials.len()]
                }
            })
            .collect();
        for k in ks(n) {
            for end in [End::Largest, End::Smallest] {
                check(ctx(), &host, k, end, "f32 specials");
            }
        }
    }
    // The documented order: NaN first in top_k, -NaN first in smallest_k, +0.0 > -0.0.
    let v = ctx()
        .upload(&[-0.0f32, f32::NAN, 0.0, f32::INFINITY, -f32::NAN])
        .unwrap();
    let (top, idx) = ctx().top_k(&v, 5).unwrap();
    assert_eq!(idx.to_vec().unwrap(), vec![1, 3, 2, 0, 4]);
    assert!(top.to_vec().unwrap()[0].is_nan());
    let (_, idx) = ctx().smallest_k(&v, 2).unwrap();
    assert_eq!(idx.to_vec().unwrap(), vec![4, 0]);
}

#[test]
fn ties_at_the_kth_each_way() {
    // Elements equal to the k-th largest: exactly the wanted ones (all taken), a few more
    // than wanted (ranked in the slack slots), many more (selected by index).
    let n = 20_000;
    let (rank_max, slack) = select_limits();
    for (distinct, what) in [
        (1_000_000_000u32, "distinct"),
        (2000, "few ties"),
        (3, "many ties"),
    ] {
        for k in [1usize, 7, 300, rank_max, rank_max + 1, 3000] {
            for end in [End::Largest, End::Smallest] {
                check(ctx(), &few_distinct::<f32>(n, distinct, 11), k, end, what);
                check(ctx(), &few_distinct::<u32>(n, distinct, 12), k, end, what);
            }
        }
    }
    // Ties at the k-th that just fit the slack slots, and that overflow them by one
    // (selected by index). The larger elements come last, so a gather that let the slots
    // overflow would drop one of them (the software adapter gathers in index order).
    for extra in [slack, slack + 1] {
        let k = 10;
        let len = 5000.max(k + extra + 2000) as i32;
        let mut host: Vec<i32> = (0..len).map(|i: i32| -i).collect();
        for x in host.iter_mut().skip(1000).take(k + extra - 5) {
            *x = 100;
        }
        for (i, x) in host.iter_mut().rev().take(5).enumerate() {
            *x = 200 + i as i32;
        }
        check(ctx(), &host, k, End::Largest, "slack edge");
    }
    // All equal: the first k indices.
    check(ctx(), &vec![7u32; 9000], 500, End::Largest, "all equal");
    check(ctx(), &vec![-1.5f32; 9000], 500, End::Smallest, "all equal");
}

#[test]
fn candidate_sort_sentinels_tie_with_the_extremes() {
    // k past the rank step (and at most n / 2): the candidate slots left over hold
    // sentinels, the smallest value in the call's order, which real candidates equal.
    let (rank_max, slack) = select_limits();
    let k = 5000.max(rank_max + 1);
    let n = (2 * k).max(k + slack + 1);
    let mut u = vec![0u32; n];
    let mut i = vec![i32::MAX; n];
    let mut f = vec![f32::from_bits(0xffff_ffff); n]; // the smallest -NaN
    let mut g = vec![f32::from_bits(0x7fff_ffff); n]; // the largest NaN
    for (j, r) in random_vec::<u32>(n, 61).into_iter().enumerate() {
        if r % 5 < 2 {
            u[j] = 1 + r % 3;
            i[j] = -(r as i32 % 7);
            f[j] = (r % 3) as f32;
            g[j] = (r % 3) as f32;
        }
    }
    check(ctx(), &u, k, End::Largest, "sentinel u32");
    check(ctx(), &i, k, End::Smallest, "sentinel i32");
    check(ctx(), &f, k, End::Largest, "sentinel f32");
    check(ctx(), &g, k, End::Smallest, "sentinel f32");
    // Ties that fit the slack in the candidate-sort path.
    let mut h: Vec<u32> = (0..n as u32).collect();
    for x in h.iter_mut().take(k + slack) {
        *x = 20_000;
    }
    check(ctx(), &h, k + 1, End::Largest, "slack, sorted candidates");
}

#[test]
fn clustered_values_select_every_digit() {
    // Values in a narrow range: the first digits' buckets hold nearly everything, so
    // selecting runs to the last digit before the candidates fit the slots.
    let n = 200_000;
    let r = random_vec::<u32>(n, 71);
    let u: Vec<u32> = r.iter().map(|x| x % 100_000).collect();
    let i: Vec<i32> = r.iter().map(|x| (x % 100_000) as i32 - 50_000).collect();
    let f: Vec<f32> = r
        .iter()
        .map(|x| f32::from_bits(1.0f32.to_bits() + x % 100_000))
        .collect();
    let (rank_max, _) = select_limits();
    for k in [1usize, 40, rank_max, 3000] {
        for end in [End::Largest, End::Smallest] {
            check(ctx(), &u, k, end, "clustered u32");
            check(ctx(), &i, k, end, "clustered i32");
            check(ctx(), &f, k, end, "clustered f32");
        }
    }
}

#[test]
fn large_vectors_both_paths() {
    let (rank_max, _) = select_limits();
    for (n, seed) in [(100_000usize, 21u64), (300_001, 22)] {
        let host = random_keys::<f32>(n, seed);
        for k in [1usize, 16, rank_max, rank_max + 1, 5000] {
            check(ctx(), &host, k, End::Largest, "large f32");
        }
        let host = few_distinct::<i32>(n, 1000, seed);
        for k in [16usize, 900, 3000] {
            check(ctx(), &host, k, End::Smallest, "large i32 ties");
        }
    }
}

#[test]
fn split_bindings_and_folded_dispatches() {
    // 4 KiB bindings: windows of 1024 elements and at most 1024 candidate slots (fewer
    // slack slots as k nears 1024), so k up to 1024 is a select and past it a full sort,
    // which needs its digit counts in one binding: 4 windows at most here (`Ctx::sort`'s
    // TooLarge).
    let ctx = split_ctx();
    for &n in &[1usize, 1023, 1024, 1025, 4096, 5000, 20_000] {
        for k in [0usize, 1, 16, 500, 960, 1000, 1024, 1025, 1500, n] {
            if k > n || (k > 1024 && n > 4096) {
                continue;
            }
            for end in [End::Largest, End::Smallest] {
                check(ctx, &random_keys::<f32>(n, 31), k, end, "split f32");
                check(
                    ctx,
                    &few_distinct::<u32>(n, 4, 32),
                    k,
                    end,
                    "split u32 ties",
                );
            }
        }
    }
}

#[test]
fn allocating_forms_match_into_forms() {
    let host = few_distinct::<i32>(3000, 50, 41);
    let v = ctx().upload(&host).unwrap();
    let (values, indices) = ctx().top_k(&v, 40).unwrap();
    let (want_values, want_indices) = reference(&host, 40, End::Largest);
    assert_eq!(indices.to_vec().unwrap(), want_indices);
    assert_eq!(
        values
            .to_vec()
            .unwrap()
            .iter()
            .map(|x| x.bits())
            .collect::<Vec<_>>(),
        want_values
    );
    let (values, indices) = ctx().smallest_k(&v, 40).unwrap();
    let (want_values, want_indices) = reference(&host, 40, End::Smallest);
    assert_eq!(indices.to_vec().unwrap(), want_indices);
    assert_eq!(
        values
            .to_vec()
            .unwrap()
            .iter()
            .map(|x| x.bits())
            .collect::<Vec<_>>(),
        want_values
    );
    let empty = ctx().upload::<f32>(&[]).unwrap();
    let (values, indices) = ctx().top_k(&empty, 0).unwrap();
    assert!(values.is_empty() && indices.is_empty());
}

#[test]
fn repeated_calls_give_the_same_result() {
    let host = few_distinct::<f32>(50_000, 3000, 51);
    let v = ctx().upload(&host).unwrap();
    let first = ctx().top_k(&v, 700).unwrap();
    let (a, b) = (first.0.to_vec().unwrap(), first.1.to_vec().unwrap());
    for _ in 0..3 {
        let (values, indices) = ctx().top_k(&v, 700).unwrap();
        assert_eq!(indices.to_vec().unwrap(), b);
        assert_eq!(
            values
                .to_vec()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>(),
            a.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }
}

#[test]
fn recorded_into_an_application_encoder() {
    // Each path (rank step, candidate sort, full sort) records into the caller's encoder
    // and runs only when it is submitted.
    let ctx = ctx();
    let host = few_distinct::<f32>(10_000, 4000, 81);
    let v = ctx.upload(&host).unwrap();
    for k in [16usize, 3000, 9000] {
        let mut values: GpuVec<f32> = poisoned(ctx, k);
        let mut indices: GpuVec<u32> = poisoned(ctx, k);
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        ctx.record(&mut encoder, |ctx| {
            ctx.top_k_into(&v, &mut values, &mut indices)
        })
        .unwrap();
        assert_eq!(
            indices.to_vec().unwrap(),
            vec![u32::POISON; k],
            "k {k}: ran early"
        );
        ctx.queue().submit([encoder.finish()]);
        let (want_values, want_indices) = reference(&host, k, End::Largest);
        assert_all_eq(
            &indices.to_vec().unwrap(),
            &want_indices,
            "recorded indices",
        );
        let got: Vec<u32> = values.to_vec().unwrap().iter().map(|x| x.bits()).collect();
        assert_all_eq(&got, &want_values, "recorded values");
    }
}

#[test]
fn errors_name_the_numbers() {
    let ctx = ctx();
    let v = ctx.upload(&[1u32, 2, 3]).unwrap();
    match ctx.top_k(&v, 4) {
        Err(Error::InvalidArgument { op, message }) => {
            assert_eq!(op, "top_k");
            assert!(
                message.contains("k = 4") && message.contains('3'),
                "{message}"
            );
        }
        other => panic!("k > n: {other:?}"),
    }
    match ctx.smallest_k(&ctx.upload::<f32>(&[]).unwrap(), 1) {
        Err(Error::InvalidArgument { message, .. }) => {
            assert!(
                message.contains("k = 1") && message.contains('0'),
                "{message}"
            )
        }
        other => panic!("k > n = 0: {other:?}"),
    }
    let mut values = ctx.zeros::<u32>(4).unwrap();
    let mut indices = ctx.zeros::<u32>(4).unwrap();
    assert!(matches!(
        ctx.top_k_into(&v, &mut values, &mut indices),
        Err(Error::InvalidArgument { .. })
    ));
    let mut indices2 = ctx.zeros::<u32>(2).unwrap();
    let mut values3 = ctx.zeros::<u32>(3).unwrap();
    assert!(matches!(
        ctx.top_k_into(&v, &mut values3, &mut indices2),
        Err(Error::LengthMismatch {
            left: 3,
            right: 2,
            ..
        })
    ));
    // values and indices over the same bytes of one buffer.
    let shared = ctx.zeros::<u32>(128).unwrap();
    let buffer = shared.buffer().clone();
    let mut a = GpuVec::<u32>::from_buffer_at(ctx, buffer.clone(), 0, 2).unwrap();
    let mut b = GpuVec::<u32>::from_buffer_at(ctx, buffer.clone(), 0, 2).unwrap();
    match ctx.top_k_into(&v, &mut a, &mut b) {
        Err(Error::InvalidArgument { message, .. }) => assert!(message.contains("overlap")),
        other => panic!("overlapping outputs: {other:?}"),
    }
    // Apart in one buffer is fine.
    let mut b = GpuVec::<u32>::from_buffer_at(ctx, buffer, 256, 2).unwrap();
    ctx.top_k_into(&v, &mut a, &mut b).unwrap();
    assert_eq!(a.to_vec().unwrap(), vec![3, 2]);
    assert_eq!(b.to_vec().unwrap(), vec![2, 1]);
    // A prefix view has no host length.
    let count = ctx.upload(&[2u32]).unwrap();
    let prefix = v.prefix(&count).unwrap();
    assert!(matches!(
        ctx.top_k(&prefix, 1),
        Err(Error::InvalidArgument { .. })
    ));
}
