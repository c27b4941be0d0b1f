# Run 25: issue 37's example on the GPU (Burn's own calls beside gpuprim-burn's, 2^24);
# issue 34's bucketed lower_bound (`bandwidth 28 search search_order`, new build) with
# torch.searchsorted (`lab/peers_next.py`); issue 35's reduce-then-scan sort with its
# tile padded and loaded striped (`bandwidth 26 no_subgroups`, the old build (main) and
# the new one alternating twice, reduce-then-scan tiles of GP_RTS_TILES on the new one);
# lampshade's key sort at 2^26; the search and sort tests on the GPU. One command.
source .device/lib.sh
for t in search sort; do
  $B/test-$t -q > $OUT/test-$t.out 2>&1; echo "test-$t exit $?"; grep "test result" $OUT/test-$t.out
done
timeout 420 $B/burn_vs_gpuprim > $OUT/burn.out 2>&1; echo "burn_vs_gpuprim exit $?"; cat $OUT/burn.out
$B/bandwidth-new 28 search search_order --csv $OUT/search.csv > $OUT/search.out 2>&1
echo "bandwidth search exit $?"; sed -n '/^primitive/,$p' $OUT/search.out
for round in 1 2; do
  for build in old new; do
    GP_RTS_TILES=256x16,128x16,512x8 $B/bandwidth-$build 26 no_subgroups --csv $OUT/nosg-$build-$round.csv > $OUT/nosg-$build-$round.out 2>&1
    echo "bandwidth-$build round $round exit $?"; grep "sort" $OUT/nosg-$build-$round.out
  done
done
WGPU_PRIMITIVES_PROFILE_ITEMS=67108864 WGPU_PRIMITIVES_PROFILE_CASES=key_sort $B/profile_primitives > $OUT/lampshade.txt 2>&1
echo "lampshade exit $?"; tail -5 $OUT/lampshade.txt
PYTHONUNBUFFERED=1 python3 lab/peers_next.py > $OUT/peers.txt 2>&1; echo "peers exit $?"; cat $OUT/peers.txt
