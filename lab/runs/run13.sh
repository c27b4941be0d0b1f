# Run 13 (issue 33): the rows run 11 flagged, again, alternating old and new builds in
# one process each: `bandwidth 28 atomic` three times each, then `bandwidth 28 grid2d`
# twice each (only the flagged rows printed).
source .device/lib.sh
for i in 1 2 3; do
  for b in old new; do
    $B/bandwidth-$b 28 atomic > /tmp/a.out 2>&1; rc=$?
    echo "atomic $b $i (exit $rc): $(grep -E 'histogram u32, 65536' /tmp/a.out)"
  done
done
for i in 1 2; do
  for b in old new; do
    $B/bandwidth-$b 28 grid2d > /tmp/g.out 2>&1; rc=$?
    echo "grid2d $b $i (exit $rc):"; grep -E 'transpose f32 4096x4096' /tmp/g.out
  done
done
