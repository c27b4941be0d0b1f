#!/usr/bin/env python3
"""PyTorch's figures for the calls of issue 34 (segmented and per-axis reductions, argmax,
searchsorted, top-k), issue 45 (argmax per row) and issue 46 (gather, scatter and scatter_add by index), in the style of peers.py: median
device time over repeated runs (CUDA events, after warm-up) and bandwidth counting each
input read once and each output written once, so the rows compare with the bandwidth
table's sections `segmented`, `arg_reduce`, `scan_by_key`, `search`, `top_k`, `gather`, `scatter_add`, `records` and `wide_sort`.

usage: python3 peers_next.py [WORD]   (only the rows whose name contains WORD)
"""
import sys

import torch

import peer_timing
from peer_timing import timed

only = sys.argv[1] if len(sys.argv) > 1 else ""

dev = "cuda"


def row(name, ms, nbytes):
    peer_timing.row(name, ms, nbytes, width=58)


def attempt(name, fn, nbytes):
    if only not in name:
        return
    try:
        row(name, timed(fn), nbytes)
    except Exception as e:  # a peer that lacks the call prints why
        print(f"{name:<58} unavailable: {type(e).__name__}: {e}", flush=True)


print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
g = torch.Generator(device=dev)
g.manual_seed(7)

n = 1 << 28
x = torch.rand(n, device=dev, generator=g)
attempt("sum f32 2^28 (torch.sum)", lambda: x.sum(), 4 * n)
attempt("argmax f32 2^28 (torch.argmax)", lambda: torch.argmax(x), 4 * n)
attempt("cumsum f32 2^28 (torch.cumsum)", lambda: torch.cumsum(x, 0), 8 * n)

# Gather and scatter by index (bandwidth section `gather`): indices, elements read and
# written, 12 n bytes (torch's int64 indices move 4 n more, not counted).
idx32 = torch.randint(0, n, (n,), device=dev, generator=g, dtype=torch.int32)
attempt("index_select f32 2^28, random int32 indices", lambda: x.index_select(0, idx32), 12 * n)
idx64 = idx32.long()
attempt("gather f32 2^28, random int64 indices (torch.gather)", lambda: x.gather(0, idx64), 12 * n)
del idx32
ident = torch.arange(n, device=dev)
attempt("gather f32 2^28, in-order int64 indices", lambda: x.gather(0, ident), 12 * n)
del ident
perm = torch.randperm(n, device=dev, generator=g)
y = torch.empty_like(x)
attempt("index_copy_ f32 2^28, random permutation", lambda: y.index_copy_(0, perm, x), 12 * n)
del idx64, perm, y

# scatter_add (bandwidth section `scatter_add`): 2^24 values by random indices into 2^10
# and 2^20 bins; 8 bytes per value (int32 indices and f32 values read once).
m = 1 << 24
vals = torch.rand(m, device=dev, generator=g)
for bins_log2 in (10, 20):
    bins = 1 << bins_log2
    sidx = torch.randint(0, bins, (m,), device=dev, generator=g)
    out = torch.zeros(bins, device=dev)
    attempt(f"index_add_ f32 2^24 into 2^{bins_log2} bins", lambda: out.index_add_(0, sidx, vals), 8 * m)
    attempt(f"scatter_add_ f32 2^24 into 2^{bins_log2} bins", lambda: out.scatter_add_(0, sidx, vals), 8 * m)
    del sidx, out
del vals

# unique with inverse and counts, randperm (bandwidth section `records`): 2^24 int32 over
# 2^20 values, 8 bytes per element (read, inverse written); randperm 4 bytes per element.
u = torch.randint(0, 1 << 20, (m,), device=dev, generator=g, dtype=torch.int32)
attempt("unique int32 2^24 (return_inverse, return_counts)", lambda: torch.unique(u, sorted=True, return_inverse=True, return_counts=True), 8 * m)
del u
attempt("randperm 2^24", lambda: torch.randperm(m, device=dev), 4 * m)

# Segmented sums over the same 2^28 values.
one = torch.tensor([n], device=dev)
attempt("segment_reduce sum, 1 segment of 2^28", lambda: torch.segment_reduce(x, "sum", lengths=one), 4 * n)
sixteen = torch.full((n // 16,), 16, device=dev)
attempt("segment_reduce sum, 2^24 segments of 16", lambda: torch.segment_reduce(x, "sum", lengths=sixteen), 4 * n + 4 * (n // 16))
attempt("sum(dim=1) of 2^24 x 16 (segments of 16)", lambda: x.view(-1, 16).sum(dim=1), 4 * n + 4 * (n // 16))
lengths = torch.randint(0, 100_001, (2 * n // 100_000 + 16,), device=dev, generator=g)
lengths = lengths[: int((torch.cumsum(lengths, 0) <= n).sum().item())]
rest = n - int(lengths.sum().item())
lengths = torch.cat([lengths, torch.tensor([rest], device=dev)])
attempt(f"segment_reduce sum, {lengths.numel()} random lengths 0..100000", lambda: torch.segment_reduce(x, "sum", lengths=lengths), 4 * n)

for h, w in [(16384, 16384), (1 << 20, 256), (256, 1 << 20), (1 << 24, 16), (1 << 17, 2048)]:
    m = x[: h * w].view(h, w)
    attempt(f"sum(dim=1) {h} x {w} (reduce_rows)", lambda: m.sum(dim=1), 4 * h * w + 4 * h)
    attempt(f"sum(dim=0) {h} x {w} (reduce_columns)", lambda: m.sum(dim=0), 4 * h * w + 4 * w)
# argmax per row (argmax_rows; bytes as the bandwidth table's: values read, values and
# indices written), next to amax(dim=1) (reduce_rows max) of the same shapes.
for h, w in [(16384, 16384), (1 << 20, 256)]:
    m = x[: h * w].view(h, w)
    attempt(f"argmax(dim=1) {h} x {w} (argmax_rows)", lambda: torch.argmax(m, dim=1), 4 * h * w + 8 * h)
    attempt(f"max(dim=1) {h} x {w} (argmax_rows: values and indices)", lambda: torch.max(m, dim=1), 4 * h * w + 8 * h)
    attempt(f"amax(dim=1) {h} x {w} (reduce_rows max)", lambda: torch.amax(m, dim=1), 4 * h * w + 4 * h)

del x
n = 1 << 24
table = torch.sort(torch.randint(0, 1 << 31, (n,), device=dev, dtype=torch.int32, generator=g)).values
queries = torch.randint(0, 1 << 31, (n,), device=dev, dtype=torch.int32, generator=g)
attempt("searchsorted 2^24 queries in 2^24 int32 (left)", lambda: torch.searchsorted(table, queries, out_int32=True), 4 * n + 4 * n)
in_order = torch.sort(queries).values
attempt("searchsorted 2^24 sorted queries in 2^24 int32 (left)", lambda: torch.searchsorted(table, in_order, out_int32=True), 4 * n + 4 * n)
del in_order
for t in [20, 28]:
    other = torch.sort(torch.randint(0, 1 << 31, (1 << t,), device=dev, dtype=torch.int32, generator=g)).values
    attempt(f"searchsorted 2^24 queries in 2^{t} int32 (left)", lambda: torch.searchsorted(other, queries, out_int32=True), 4 * n + 4 * n)
    del other

n = 1 << 26
y = torch.rand(n, device=dev, generator=g)
for k in [16, 4096]:
    attempt(f"topk f32 2^26, k = {k}", lambda: torch.topk(y, k), 4 * n)

# top_k_rows: the same uniform floats as grids.
for (h, w, k) in [(1024, 16384, 100), (1 << 16, 1024, 16)]:
    v = y[: h * w].view(h, w)
    attempt(f"topk rows f32 {h} x {w}, k = {k} (dim=-1)", lambda: torch.topk(v, k, dim=-1), 4 * h * w)

# Issue 45: sorts along the last dimension (torch.sort(dim=-1) returns values and int64
# indices; counted as 12 bytes a key, as the bandwidth section `segmented_sort` counts
# its sort_rows_by_key with u32 indices), and a flat sort of the segmented_sort keys.
del y
n = 1 << 24
x = torch.rand(n, device=dev, generator=g)
for h, w in [(4096, 4096), (1 << 16, 256), (1 << 20, 16)]:
    m = x.view(h, w)
    attempt(f"sort(dim=-1) f32 + indices {h} x {w} (sort_rows)", lambda: torch.sort(m, dim=-1), 12 * n)
    attempt(f"argsort(dim=-1) f32 {h} x {w} (argsort_rows)", lambda: torch.argsort(m, dim=-1), 8 * n)
del x
n = 1 << 26
ku = torch.randint(0, 1 << 31, (n,), device=dev, dtype=torch.int32, generator=g)
attempt("sort int32 2^26 (torch.sort; segmented_sort's keys)", lambda: torch.sort(ku), 8 * n)

# Issue 46: 8-byte keys. torch.sort returns values and int64 indices (CUB's pair sort),
# counted as 16 bytes a key as the bandwidth section `wide_sort` counts its keys-only
# u64 sort; CuPy's sort of int64 is CUB's keys-only radix sort.
k64 = torch.randint(-(1 << 62), 1 << 62, (n,), device=dev, dtype=torch.int64, generator=g)
attempt("sort int64 2^26 (torch.sort, values and indices)", lambda: torch.sort(k64), 16 * n)
attempt("sort int32 2^26 + int32 values (torch.sort, stable)", lambda: torch.sort(ku, stable=True), 8 * n)
try:
    import cupy as cp
    c64 = cp.from_dlpack(k64)
    attempt("sort int64 2^26 (cupy.sort: CUB keys only)", lambda: cp.sort(c64), 16 * n)
    c32 = cp.from_dlpack(ku)
    attempt("sort int32 2^26 (cupy.sort: CUB keys only)", lambda: cp.sort(c32), 8 * n)
except ImportError as e:
    print(f"cupy unavailable: {e}")
