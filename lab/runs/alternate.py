#!/usr/bin/env python3
"""Compares bandwidth tables of two builds run alternately (old, new, old, new, ...).

usage: alternate.py OLD.csv [OLD.csv ...] -- NEW.csv [NEW.csv ...]

Each CSV is one run of the bandwidth table (`--csv PATH`). Per row (section, primitive,
n): each build's median time over its runs, its spread (the largest relative distance of
a run from that median), and new / old. A row is flagged when the new build is slower
than old by more than max(the larger spread of the two builds, 2%). Latency rows (no
byte count) are compared the same way. Prints a Markdown table, flagged rows marked, and
exits 1 if any row is flagged.
"""

import csv
import statistics
import sys


def load(paths):
    rows = {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                key = (r["section"], r["primitive"], r["n"])
                rows.setdefault(key, []).append(float(r["ms"]))
    return rows


def summary(times):
    m = statistics.median(times)
    spread = max(abs(t - m) for t in times) / m if m > 0 else 0.0
    return m, spread


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__)
    cut = argv.index("--")
    old, new = load(argv[:cut]), load(argv[cut + 1 :])
    print("| section | row | old ms | new ms | new / old | spread | |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    flagged = 0
    for key in old:
        if key not in new:
            print(f"| {key[0]} | {key[1]} | {statistics.median(old[key]):.4f} | (missing) | | | |")
            continue
        (mo, so), (mn, sn) = summary(old[key]), summary(new[key])
        ratio = mn / mo if mo > 0 else float("nan")
        allowed = max(so, sn, 0.02)
        bad = ratio - 1.0 > allowed
        flagged += bad
        mark = "**slower**" if bad else ""
        print(
            f"| {key[0]} | {key[1]} | {mo:.4f} | {mn:.4f} | {ratio:.3f} | "
            f"{max(so, sn) * 100:.1f}% | {mark} |"
        )
    for key in new:
        if key not in old:
            print(f"| {key[0]} | {key[1]} | (missing) | {statistics.median(new[key]):.4f} | | | |")
    print(f"\n{len(old)} rows, {flagged} slower than max(spread, 2%)")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
