# Run 30: issue 35's table at HEAD (keys alone in 512 x 8 tiles by default;
# `bandwidth 28 no_subgroups`) with lampshade's key sort at 2^26, and the sort tests on
# the GPU (every reduce-then-scan default shape). One command.
source .device/lib.sh
$B/test-sort -q > $OUT/test-sort.out 2>&1; echo "test-sort exit $?"; grep "test result" $OUT/test-sort.out
$B/bandwidth-new 28 no_subgroups --csv $OUT/nosg.csv > $OUT/nosg.out 2>&1
echo "bandwidth no_subgroups exit $?"; grep -E "sort|scan|compact" $OUT/nosg.out
WGPU_PRIMITIVES_PROFILE_ITEMS=67108864 WGPU_PRIMITIVES_PROFILE_CASES=key_sort $B/profile_primitives > $OUT/lampshade.txt 2>&1
echo "lampshade exit $?"; grep -E "^key_sort|^primitive" $OUT/lampshade.txt
