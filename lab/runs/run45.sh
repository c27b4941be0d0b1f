# Run 45 (issue 45): the merge way with its large scratch kept by the context: the release
# test of segmented_sort at full limits and under the WebGPU profile, then the bandwidth
# section segmented_sort at 2^26, each exit status checked. `bash .device/run45.sh`
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
for t in $B/test-*; do
  n=$(basename $t)
  timeout 120 $t -q > $OUT/$n.out 2>&1; echo "$n exit $?: $(grep 'test result' $OUT/$n.out | tail -1)"
  GPUPRIM_PROFILE=webgpu timeout 120 $t -q > $OUT/$n-webgpu.out 2>&1; echo "$n webgpu exit $?: $(grep 'test result' $OUT/$n-webgpu.out | tail -1)"
done
$B/bandwidth 26 segmented_sort sort --csv $OUT/bw.csv > $OUT/bw.out 2>&1; echo "== bandwidth 26 segmented_sort sort: exit $?"; cat $OUT/bw.out
