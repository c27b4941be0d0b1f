# Run 32: the segmented and sort tests on the GPU; issue 35's table with lampshade's key
# sort at 2^26, run 31's build (`old`: 2e469dd plus the knockouts) against this one
# (`new`: values staged through workgroup memory in the reduce-then-scan downsweep, the
# upsweep's loads four at a time; reduce_columns' finish pass with its lanes' loads side
# by side), alternating (`bandwidth 28 no_subgroups`, `bandwidth 28 segmented`). One
# command.
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
for t in segmented sort; do
  $B/test-$t -q > $OUT/test-$t.out 2>&1; echo "test-$t exit $?"; grep "test result" $OUT/test-$t.out
done
for build in old new old new; do
  $B/bandwidth-$build 28 no_subgroups > /tmp/nosg.out 2>&1; echo "bandwidth-$build no_subgroups exit $?"; grep -E "sort|scan|compact" /tmp/nosg.out
done
WGPU_PRIMITIVES_PROFILE_ITEMS=67108864 WGPU_PRIMITIVES_PROFILE_CASES=key_sort $B/profile_primitives > $OUT/lampshade.txt 2>&1
echo "lampshade exit $?"; grep -E "^key_sort|^primitive" $OUT/lampshade.txt
for build in old new; do
  $B/bandwidth-$build 28 segmented > /tmp/seg.out 2>&1; echo "bandwidth-$build segmented exit $?"; grep -E "reduce_columns|reduce_into|segmented sum" /tmp/seg.out
done
