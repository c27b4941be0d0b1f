# Run 18 (issue 34, segmented rewrite, final form: tiles of 2048, the totals scanned by
# shuffles): the segmented tests on the GPU; the segmented section of the old build (main
# before the rewrite) and the new one, alternating twice; torch's peers in the same command.
source .device/lib.sh
$B/segmented-new -q 2>&1 | tail -2; echo "segmented tests exit $?"
for round in 1 2; do
  for build in old new; do
    $B/bandwidth-$build 28 segmented --csv $OUT/seg-$build-$round.csv > $OUT/seg-$build-$round.out 2>&1
    echo "bandwidth-$build round $round exit $?"
  done
done
python3 lab/runs/alternate.py $OUT/seg-old-1.csv $OUT/seg-old-2.csv -- $OUT/seg-new-1.csv $OUT/seg-new-2.csv 2>&1 | grep -E "^\| segmented|rows,"
PYTHONUNBUFFERED=1 python3 lab/peers_next.py 2>&1 | grep -E "sum|segment"; echo "peers exit $?"
