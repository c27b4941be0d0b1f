# Run 41 (issue 45): the row and segmented calls on the GPU: their release test binaries
# at the GPU's full limits and under the WebGPU profile, the bandwidth sections
# arg_reduce, top_k and segmented_sort at 2^26 and torch's rows of the same shapes
# (peers_next.py's rows with "dim" in their names), then gpuprim-burn's example if it
# came along; each exit status checked. `bash .device/run41.sh`
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
for t in $B/test-*; do
  n=$(basename $t)
  timeout 120 $t -q > $OUT/$n.out 2>&1; echo "$n exit $?: $(grep 'test result' $OUT/$n.out | tail -1)"
  GPUPRIM_PROFILE=webgpu timeout 120 $t -q > $OUT/$n-webgpu.out 2>&1; echo "$n webgpu exit $?: $(grep 'test result' $OUT/$n-webgpu.out | tail -1)"
done
$B/bandwidth 26 arg_reduce top_k segmented_sort --csv $OUT/bw.csv > $OUT/bw.out 2>&1; echo "== bandwidth 26 arg_reduce top_k segmented_sort: exit $?"; cat $OUT/bw.out
python3 .device/peers_next.py dim > $OUT/peers.out 2>&1; echo "== peers_next dim: exit $?"; cat $OUT/peers.out
if [ -x $B/burn_vs_gpuprim ]; then
  timeout 300 $B/burn_vs_gpuprim > $OUT/burn.out 2>&1; echo "== burn_vs_gpuprim: exit $?"; cat $OUT/burn.out
fi
