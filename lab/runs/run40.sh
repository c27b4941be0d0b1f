# Run 40 (issue 45): the segmented and row sorts on the GPU: their release test binary at
# the GPU's full limits and under the WebGPU profile, then the bandwidth section
# `segmented_sort` at 2^26 and torch's rows of the same shapes (peers_next.py), each exit
# status checked. `bash .device/run40.sh`
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
for t in $B/test-*; do
  n=$(basename $t)
  timeout 120 $t -q > $OUT/$n.out 2>&1; echo "$n exit $?: $(grep 'test result' $OUT/$n.out | tail -1)"
  GPUPRIM_PROFILE=webgpu timeout 120 $t -q > $OUT/$n-webgpu.out 2>&1; echo "$n webgpu exit $?: $(grep 'test result' $OUT/$n-webgpu.out | tail -1)"
done
$B/bandwidth 26 "$@" --csv $OUT/bw.csv > $OUT/bw.out 2>&1; echo "== bandwidth 26 $*: exit $?"; cat $OUT/bw.out
python3 .device/peers_next.py sort > $OUT/peers.out 2>&1; echo "== peers_next sort: exit $?"; cat $OUT/peers.out
