# Run 37: the sort tests on the GPU; the reduce-then-scan sort with values moving one
# word per key through the splits ((digit << 16) | origin; `new`) against run 36's build
# (`old`), alternating (`bandwidth 26 no_subgroups`). One command.
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
$B/test-sort -q > $OUT/test-sort.out 2>&1; echo "test-sort exit $?"; grep "test result" $OUT/test-sort.out
for build in old new old new; do
  $B/bandwidth-$build 26 no_subgroups > /tmp/nosg.out 2>&1; echo "bandwidth-$build 26 exit $?"; grep -E "sort" /tmp/nosg.out
done
