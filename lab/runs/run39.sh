# Run 39 (issue 44): the sections run 38 flagged, old and new builds alternating twice
# (`bash .device/run39.sh SECTION...`), then the ported families' release test binaries on
# the GPU at its full limits and under the WebGPU profile, each exit status checked.
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
for r in 2 3; do
  for b in old new; do
    $B/bandwidth-$b 28 "$@" --csv $OUT/bw-$b-$r.csv > $OUT/bw-$b-$r.out 2>&1
    echo "== bandwidth-$b $* round $r: exit $?"
  done
done
for t in $B/test-*; do
  n=$(basename $t)
  timeout 60 $t -q > $OUT/$n.out 2>&1; echo "$n exit $?: $(grep 'test result' $OUT/$n.out | tail -1)"
  GPUPRIM_PROFILE=webgpu timeout 60 $t -q > $OUT/$n-webgpu.out 2>&1; echo "$n webgpu exit $?: $(grep 'test result' $OUT/$n-webgpu.out | tail -1)"
done
