# Run 22 (issue 35): the reduce-then-scan sort's tile, 256 x 8 (new) against 256 x 16 (k16)
# and 128 x 16 (w128), `bandwidth 26 no_subgroups` twice each, alternating; lampshade's key
# sort at 2^26 in the same command.
source .device/lib.sh
for round in 1 2; do
  for build in new k16 w128; do
    $B/bandwidth-$build 26 no_subgroups --csv $OUT/nosg-$build-$round.csv > $OUT/nosg-$build-$round.out 2>&1
    echo "== $build round $round exit $?"; grep -E "sort" $OUT/nosg-$build-$round.out | grep without
  done
done
WGPU_PRIMITIVES_PROFILE_ITEMS=67108864 WGPU_PRIMITIVES_PROFILE_CASES=key_sort $B/profile_primitives > $OUT/lampshade.txt 2>&1
echo "lampshade exit $?"; grep "^key_sort" $OUT/lampshade.txt
