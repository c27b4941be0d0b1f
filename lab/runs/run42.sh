# Run 42 (issue 45): after the bitonic steps inside a chunk moved to registers and the
# top_k_rows dispatch cap: the release tests of segmented_sort and top_k_rows at full
# limits and under the WebGPU profile, the bandwidth sections top_k and segmented_sort
# at 2^26 and torch's rows with "dim" in their names (peers_next.py), each exit status
# checked. `bash .device/run42.sh`
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
for t in $B/test-*; do
  n=$(basename $t)
  timeout 120 $t -q > $OUT/$n.out 2>&1; echo "$n exit $?: $(grep 'test result' $OUT/$n.out | tail -1)"
  GPUPRIM_PROFILE=webgpu timeout 120 $t -q > $OUT/$n-webgpu.out 2>&1; echo "$n webgpu exit $?: $(grep 'test result' $OUT/$n-webgpu.out | tail -1)"
done
$B/bandwidth 26 top_k segmented_sort --csv $OUT/bw.csv > $OUT/bw.out 2>&1; echo "== bandwidth 26 top_k segmented_sort: exit $?"; cat $OUT/bw.out
python3 .device/peers_next.py dim > $OUT/peers.out 2>&1; echo "== peers_next dim: exit $?"; cat $OUT/peers.out
if [ -x $B/burn_vs_gpuprim ]; then
  timeout 300 $B/burn_vs_gpuprim > $OUT/burn.out 2>&1; echo "== burn_vs_gpuprim: exit $?"; cat $OUT/burn.out
fi
