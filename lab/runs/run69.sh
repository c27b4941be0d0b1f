# Run 69 (issue 45): run 67 at 9bd4823 (the radix sort of run 68b, from rows of 512 keys
# on a GPU), for docs/PERFORMANCE.md: the release test of segmented_sort at full limits
# and under the WebGPU profile, the bandwidth section segmented_sort at 2^26 (rows of
# 4096 to 16 by the tuning's way and each way forced), then torch's rows with "dim" in
# their names (peers_next.py), each exit status checked. `bash .device/run69.sh`
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
for t in $B/test-*; do
  n=$(basename $t)
  timeout 120 $t -q > $OUT/$n.out 2>&1; echo "$n exit $?: $(grep 'test result' $OUT/$n.out | tail -1)"
  GPUPRIM_PROFILE=webgpu timeout 120 $t -q > $OUT/$n-webgpu.out 2>&1; echo "$n webgpu exit $?: $(grep 'test result' $OUT/$n-webgpu.out | tail -1)"
done
$B/bandwidth 26 segmented_sort --csv $OUT/bw.csv > $OUT/bw.out 2>&1; echo "== bandwidth 26 segmented_sort: exit $?"; cat $OUT/bw.out
python3 .device/peers_next.py dim > $OUT/peers.out 2>&1; echo "== peers_next dim: exit $?"; cat $OUT/peers.out
