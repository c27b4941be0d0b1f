# Run 31: issue 34's segmented rows at 2e469dd+ (the kernel for short segments):
# the segmented tests on the GPU; `bandwidth 28 segmented_paths` (both kernels forced,
# then the automatic choice) and `bandwidth 28 reduce segmented`; reduce_columns with
# other shapes (GP_COLUMNS=COLS:GROUPS, the `internals` override) on the `segmented`
# section; issue 35's downsweep phases timed apart (GP_RTS_KNOCKOUT, `bandwidth 26
# no_subgroups`); PyTorch's sums (`lab/peers_next.py sum`). One command.
source .device/lib.sh
$B/test-segmented -q > $OUT/test-segmented.out 2>&1; echo "test-segmented exit $?"; grep "test result" $OUT/test-segmented.out
$B/bandwidth-new 28 segmented_paths > $OUT/paths.out 2>&1; echo "paths exit $?"; sed -n '/^primitive/,$p' $OUT/paths.out | grep -E "segmented|reduce_into"
$B/bandwidth-new 28 reduce segmented > $OUT/seg.out 2>&1; echo "segmented exit $?"; sed -n '/^primitive/,$p' $OUT/seg.out | grep -E "segmented|reduce_rows|reduce_columns|reduce_into|^sum f32"
for c in 16:4096 64:2048 64:8192 128:4096 256:2048 256:4096 256:8192; do
  GP_COLUMNS=$c $B/bandwidth-new 28 segmented > $OUT/col.out 2>&1; echo "GP_COLUMNS=$c exit $?"; grep -E "reduce_columns" $OUT/col.out
done
for k in 0 1 2 4 8 16 10 0; do
  GP_RTS_KNOCKOUT=$k $B/bandwidth-new 26 no_subgroups > $OUT/ko.out 2>&1; echo "GP_RTS_KNOCKOUT=$k exit $?"; grep -E "sort" $OUT/ko.out
done
PYTHONUNBUFFERED=1 python3 lab/peers_next.py sum > $OUT/peers.txt 2>&1; echo "peers exit $?"; cat $OUT/peers.txt
