source .device/lib.sh
$B/segmented-new -q 2>&1 | tail -2; echo "segmented tests exit $?"
for b in new v8 new v8; do $B/bandwidth-$b 28 segmented > $OUT/seg-$b.out 2>&1; echo "== $b exit $?"; grep -E "reduce_into|segmented sum|reduce_rows" $OUT/seg-$b.out; done
