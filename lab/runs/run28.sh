# Run 28: the search and sort tests on the GPU; where gpuprim-burn's sort time goes
# (`burn_probe`: integrations/burn/examples' probe of that day, each call between two
# device syncs); issue 35's table with the reduce-then-scan sort of keys alone in
# 256 x 32 tiles (no origins in the tile), against run 25's build `mid` at 256 x 16
# (`bandwidth 28 no_subgroups`, then `bandwidth 26 no_subgroups`, alternating) and
# lampshade's key sort at 2^26; issue 34's table at HEAD (`bandwidth 28 reduce arg_reduce
# segmented scan_by_key search search_order`, `bandwidth 26 top_k`) with
# `lab/peers_next.py`. One command.
source .device/lib.sh
for t in search sort; do
  $B/test-$t -q > $OUT/test-$t.out 2>&1; echo "test-$t exit $?"; grep "test result" $OUT/test-$t.out
done
timeout 200 $B/burn_probe > $OUT/probe.out 2>&1; echo "burn_probe exit $?"; grep -v XDG $OUT/probe.out
for size in 28 26; do
  for build in mid new; do
    GP_RTS_TILES=256x32,256x16 $B/bandwidth-$build $size no_subgroups --csv $OUT/nosg-$build-$size.csv > $OUT/nosg-$build-$size.out 2>&1
    echo "bandwidth-$build $size exit $?"; grep -E "sort|scan|compact" $OUT/nosg-$build-$size.out
  done
done
WGPU_PRIMITIVES_PROFILE_ITEMS=67108864 WGPU_PRIMITIVES_PROFILE_CASES=key_sort $B/profile_primitives > $OUT/lampshade.txt 2>&1
echo "lampshade exit $?"; grep -E "^key_sort" $OUT/lampshade.txt
$B/bandwidth-new 28 reduce arg_reduce segmented scan_by_key search search_order --csv $OUT/bw34.csv > $OUT/bw34.out 2>&1
echo "bandwidth 28 exit $?"; sed -n '/^primitive/,$p' $OUT/bw34.out | grep -v "search_order\|, auto\|, direct\|, bucketed" ; grep -E "2\^24 (random|sorted) queries, table 2\^(24|28), (direct|bucketed)" $OUT/bw34.out
$B/bandwidth-new 26 top_k --csv $OUT/topk.csv > $OUT/topk.out 2>&1
echo "bandwidth 26 top_k exit $?"; sed -n '/^primitive/,$p' $OUT/topk.out | grep top
PYTHONUNBUFFERED=1 python3 lab/peers_next.py > $OUT/peers.txt 2>&1; echo "peers exit $?"; cat $OUT/peers.txt
