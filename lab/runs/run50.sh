# Run 50 (issue 49's "speed stays"): the build at the session's start (old, e9b1ed0) and
# after it (new: dispatches bind what the entry point uses, the pipeline cache compiles
# outside its lock), alternating in one run: the host round trip (`latency`) twice each,
# then `reduce` and `kernel` at 2^28 once each (`bash .device/run50.sh`); scan and sort
# at 2^28 in a second call (`bash .device/run50.sh scan_sort`).
source .device/lib.sh
if [ "$1" != scan_sort ]; then
for i in 1 2; do for v in old new; do
  timeout 120 $B/bandwidth-$v 24 latency > /tmp/b.out 2>&1; echo "latency $v round $i exit $?"
  grep -iE "reduce|to_vec|map_into" /tmp/b.out | head -6
done; done
for v in old new; do
  timeout 200 $B/bandwidth-$v 28 reduce kernel > /tmp/b.out 2>&1; echo "reduce kernel $v exit $?"
  grep -vE "^\s*$|adapter|^n = " /tmp/b.out | head -40 | cut -c1-110
done
fi
# Second call of run 50: scan and sort at 2^28, old then new.
if [ "$1" = scan_sort ]; then for v in old new; do
  timeout 280 $B/bandwidth-$v 28 scan sort > /tmp/b.out 2>&1; echo "scan sort $v exit $?"
  grep -vE "^\s*$|adapter|^n = |^times|^primitive" /tmp/b.out | head -40 | cut -c1-100
done; fi
