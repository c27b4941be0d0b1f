# Run 20 (issue 34): the segmented tests on the GPU; the segmented section of the new build
# (4096 workgroup ranges) and of a variant with 2048, alternating twice; torch's sums.
source .device/lib.sh
$B/segmented-new -q 2>&1 | tail -2; echo "segmented tests exit $?"
for round in 1 2; do
  for build in new r2k; do
    $B/bandwidth-$build 28 segmented --csv $OUT/seg-$build-$round.csv > $OUT/seg-$build-$round.out 2>&1
    echo "bandwidth-$build round $round exit $?"
  done
done
python3 lab/runs/alternate.py $OUT/seg-new-1.csv $OUT/seg-new-2.csv -- $OUT/seg-r2k-1.csv $OUT/seg-r2k-2.csv 2>&1 | grep -E "^\| segmented|rows,"
PYTHONUNBUFFERED=1 python3 lab/peers_next.py 2>&1 | grep -E "sum|segment"; echo "peers exit $?"
