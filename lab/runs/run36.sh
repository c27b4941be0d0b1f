# Run 36: issue 35's table at the build with keys-alone tiles of 256 x 32 by default
# (`bandwidth 28 no_subgroups`) with lampshade's key sort at 2^26; the sort tests on the
# GPU; a small sort (2^20) with the new default against 512 x 8 (GP_RTS_TILES). One
# command.
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
$B/test-sort -q > $OUT/test-sort.out 2>&1; echo "test-sort exit $?"; grep "test result" $OUT/test-sort.out
$B/bandwidth-new 28 no_subgroups --csv $OUT/nosg.csv > $OUT/nosg.out 2>&1; echo "bandwidth 28 no_subgroups exit $?"; grep -E "sort|scan|compact" $OUT/nosg.out
WGPU_PRIMITIVES_PROFILE_ITEMS=67108864 WGPU_PRIMITIVES_PROFILE_CASES=key_sort $B/profile_primitives > $OUT/lampshade.txt 2>&1
echo "lampshade exit $?"; grep -E "^key_sort|^primitive" $OUT/lampshade.txt
GP_RTS_TILES=512x8,256x32 $B/bandwidth-new 20 no_subgroups > /tmp/s.out 2>&1; echo "bandwidth 20 exit $?"; grep -E "sort" /tmp/s.out
