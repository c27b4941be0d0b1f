"""What lab/peers.py and lab/peers_next.py share: the timing of a PyTorch call and the
row it prints.

timed(fn): median device time in ms over `rounds` of `reps` runs (CUDA events, after
three warm-up runs). row(name, ms, nbytes, width): one table row, with the effective
bandwidth counting each input read once and each output written once.
"""
import statistics

import torch


def timed(fn, reps=20, rounds=7):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(rounds):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(reps):
            fn()
        e.record()
        torch.cuda.synchronize()
        out.append(s.elapsed_time(e) / reps)
    return statistics.median(out)


def row(name, ms, nbytes, width=34):
    gbs = nbytes / ms / 1e6 if nbytes else float("nan")
    print(f"{name:<{width}} {ms:10.4f} ms {gbs:9.1f} GB/s", flush=True)
