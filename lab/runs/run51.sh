# Run 51 (issue 49's "speed stays", second step): the build at this session's start
# (old, 5d8ad4c) and after its steps (new: tuning in one place per family, reduce_by_key
# on Reduce, scan_by_key on Scan, the renames), one after the other in one run, each
# row's time new/old. `bash .device/run51.sh a` (reduce, arg_reduce, kernel, scan,
# scan_by_key, segmented, atomic at 2^28, and latency) and `bash .device/run51.sh b`
# (sort, search, top_k, segmented_sort at 2^28) in a second call.
source .device/lib.sh
case "$1" in
  a) S="reduce arg_reduce kernel scan scan_by_key segmented atomic" ;;
  b) S="sort search top_k segmented_sort" ;;
esac
for v in old new; do
  timeout 280 $B/bandwidth-$v 28 $S --csv $OUT/$1-$v.csv > /tmp/b-$v.out 2>&1
  echo "bandwidth $v ($S) exit $?"
done
if [ "$1" = a ]; then for i in 1 2; do for v in old new; do
  timeout 60 $B/bandwidth-$v 24 latency > /tmp/l.out 2>&1; echo "latency $v round $i exit $?"
  grep -iE "reduce" /tmp/l.out | head -2 | cut -c1-100
done; done; fi
python3 - "$OUT/$1-old.csv" "$OUT/$1-new.csv" <<'PY'
import csv, statistics, sys
def rows(p):
    with open(p) as f:
        return {(r[1], r[2], r[3]): float(r[5]) for r in csv.reader(f) if len(r) > 5 and r[5][:1].isdigit()}
old, new = rows(sys.argv[1]), rows(sys.argv[2])
common = [k for k in old if k in new]
ratios = {k: new[k] / old[k] for k in common}
print(f"{len(common)} rows in both; new/old time: median {statistics.median(ratios.values()):.4f}, "
      f"min {min(ratios.values()):.4f}, max {max(ratios.values()):.4f}")
for k, r in sorted(ratios.items(), key=lambda kv: -abs(kv[1] - 1))[:12]:
    print(f"  {r:.4f}  {k[0]:>14}  {k[1][:60]}  old {old[k]:.4f} ms new {new[k]:.4f} ms")
PY
