# Run 39 (issue 44): the ported families' release test binaries on the GPU, at its full
# limits and under the WebGPU profile (each exit status checked), then the sections that
# run 38 flagged, alternating builds: `bash .device/run39.sh SECTION...`.
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
for t in $B/test-*; do
  n=$(basename $t)
  $t -q > $OUT/$n.out 2>&1; echo "$n exit $?: $(grep 'test result' $OUT/$n.out | tail -1)"
  GPUPRIM_PROFILE=webgpu $t -q > $OUT/$n-webgpu.out 2>&1; echo "$n webgpu exit $?: $(grep 'test result' $OUT/$n-webgpu.out | tail -1)"
done
if [ $# -gt 0 ]; then
  for r in 3 4; do
    for b in old new; do
      $B/bandwidth-$b 28 "$@" --csv $OUT/bw-$b-$r.csv > $OUT/bw-$b-$r.out 2>&1
      echo "== bandwidth-$b $* round $r: exit $?"
    done
  done
fi
