# Run 19 (issue 34, the short-rows kernel): the segmented tests on the GPU; the segmented
# section of the new build twice; torch's sums in the same command.
source .device/lib.sh
$B/segmented-new -q 2>&1 | tail -2; echo "segmented tests exit $?"
for round in 1 2; do
  $B/bandwidth-new 28 segmented --csv $OUT/seg-new-$round.csv > $OUT/seg-new-$round.out 2>&1
  echo "bandwidth-new round $round exit $?"; sed -n '/^primitive/,$p' $OUT/seg-new-$round.out | grep -E "reduce_into|segmented sum|reduce_"
done
PYTHONUNBUFFERED=1 python3 lab/peers_next.py 2>&1 | grep -E "sum|segment"; echo "peers exit $?"
