# Run 16 (issue 34, segmented rewrite, second form): the segmented tests on the GPU and
# the new build's reduce + segmented sections (run 15 has the old build's and torch's).
source .device/lib.sh
$B/segmented-new -q 2>&1 | tail -2; echo "segmented tests exit $?"
$B/bandwidth-new 28 segmented --csv $OUT/seg-new.csv > $OUT/seg-new.out 2>&1; echo "bandwidth exit $?"
sed -n '/^primitive/,$p' $OUT/seg-new.out
