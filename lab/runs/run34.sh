# Run 34: the sort tests on the GPU; the reduce-then-scan sort with its KPT loops
# written out by the host (`new`) against run 32's build (`old`), alternating
# (`bandwidth 26 no_subgroups`, then `bandwidth 28 no_subgroups` once each), with
# lampshade's key sort at 2^26; `new`'s phases (GP_RTS_KNOCKOUT 8: no scatter; 10: no
# splits and no scatter). One command.
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
$B/test-sort -q > $OUT/test-sort.out 2>&1; echo "test-sort exit $?"; grep "test result" $OUT/test-sort.out
for build in old new old new; do
  $B/bandwidth-$build 26 no_subgroups > /tmp/nosg.out 2>&1; echo "bandwidth-$build 26 exit $?"; grep -E "sort" /tmp/nosg.out
done
for build in old new; do
  $B/bandwidth-$build 28 no_subgroups > /tmp/nosg.out 2>&1; echo "bandwidth-$build 28 exit $?"; grep -E "sort|scan|compact" /tmp/nosg.out
done
WGPU_PRIMITIVES_PROFILE_ITEMS=67108864 WGPU_PRIMITIVES_PROFILE_CASES=key_sort $B/profile_primitives > $OUT/lampshade.txt 2>&1
echo "lampshade exit $?"; grep -E "^key_sort|^primitive" $OUT/lampshade.txt
for k in 8 10; do
  GP_RTS_KNOCKOUT=$k $B/bandwidth-new 26 no_subgroups > /tmp/ko.out 2>&1; echo "GP_RTS_KNOCKOUT=$k exit $?"; grep -E "sort.*without" /tmp/ko.out
done
