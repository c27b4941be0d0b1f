# Run 29: issue 35's table at HEAD (`bandwidth 28 no_subgroups`, with a 512 x 8 tile of
# keys alone as an extra row) and lampshade's key sort at 2^26; issue 37's example; and
# where gpuprim-burn's sort time goes (`burn_probe`, integrations/burn's probe of that
# day: each call between two device syncs, before and after a sort through Burn itself).
# One command.
source .device/lib.sh
GP_RTS_TILES=512x8 $B/bandwidth-new 28 no_subgroups --csv $OUT/nosg.csv > $OUT/nosg.out 2>&1
echo "bandwidth no_subgroups exit $?"; grep -E "sort|scan|compact" $OUT/nosg.out
WGPU_PRIMITIVES_PROFILE_ITEMS=67108864 WGPU_PRIMITIVES_PROFILE_CASES=key_sort $B/profile_primitives > $OUT/lampshade.txt 2>&1
echo "lampshade exit $?"; grep -E "^key_sort|^primitive" $OUT/lampshade.txt
timeout 200 $B/burn_probe > $OUT/probe.out 2>&1; echo "burn_probe exit $?"; grep -v XDG $OUT/probe.out
timeout 300 $B/burn_vs_gpuprim > $OUT/burn.out 2>&1; echo "burn_vs_gpuprim exit $?"; grep -v XDG $OUT/burn.out
