# Run 35: reduce-then-scan tile shapes at run 34's `new` build (the KPT loops written
# out), keys alone and with values (`GP_RTS_TILES=... bandwidth 26 no_subgroups`, twice).
# One command.
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
for r in 1 2; do
  GP_RTS_TILES=512x8,256x16,128x32,256x32,512x12,256x12,512x6,128x16 $B/bandwidth-new 26 no_subgroups > /tmp/t.out 2>&1; echo "round $r exit $?"; grep -E "sort" /tmp/t.out
done
