# Run 26: issue 37's example on the GPU (Burn's device request without wgpu's
# experimental features); issue 34's bucketed lower_bound with its pairs buffer kept
# between calls (`bandwidth 28 search search_order`) and torch.searchsorted
# (`lab/peers_next.py search`); issue 35's reduce-then-scan split with its prefix from
# independent loads and 256 x 16 tiles by default (`bandwidth 28 no_subgroups`, run 25's
# build `mid` at 256 x 16 through GP_RTS_TILES and the new one, alternating twice);
# lampshade's key sort at 2^26; the search and sort tests on the GPU. One command.
source .device/lib.sh
for t in search sort; do
  $B/test-$t -q > $OUT/test-$t.out 2>&1; echo "test-$t exit $?"; grep "test result" $OUT/test-$t.out
done
timeout 420 $B/burn_vs_gpuprim > $OUT/burn.out 2>&1; echo "burn_vs_gpuprim exit $?"; cat $OUT/burn.out
$B/bandwidth-new 28 search search_order --csv $OUT/search.csv > $OUT/search.out 2>&1
echo "bandwidth search exit $?"; grep -E "_bound" $OUT/search.out
for round in 1 2; do
  for build in mid new; do
    GP_RTS_TILES=256x16,256x8 $B/bandwidth-$build 28 no_subgroups --csv $OUT/nosg-$build-$round.csv > $OUT/nosg-$build-$round.out 2>&1
    echo "bandwidth-$build round $round exit $?"; grep -E "sort|scan|compact" $OUT/nosg-$build-$round.out
  done
done
WGPU_PRIMITIVES_PROFILE_ITEMS=67108864 WGPU_PRIMITIVES_PROFILE_CASES=key_sort $B/profile_primitives > $OUT/lampshade.txt 2>&1
echo "lampshade exit $?"; grep -E "^key_sort|scatter," $OUT/lampshade.txt
PYTHONUNBUFFERED=1 python3 lab/peers_next.py search > $OUT/peers.txt 2>&1; echo "peers exit $?"; cat $OUT/peers.txt
