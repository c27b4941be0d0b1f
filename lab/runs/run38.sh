# Run 38 (issue 44): the kernels made valid WebGPU change no speed. The full bandwidth
# table at 2^28 of the build before (bandwidth-old: 5f4c898) and after (bandwidth-new),
# alternating: `bash .device/run38.sh ROUND BUILD...` runs those builds' tables and
# leaves each CSV and printout in $OUT. Compare with lab/runs/alternate.py.
source .device/lib.sh
r=$1; shift
for b in "$@"; do
  t0=$(date +%s)
  $B/bandwidth-$b 28 --csv $OUT/bw-$b-$r.csv > $OUT/bw-$b-$r.out 2>&1
  echo "== bandwidth-$b round $r: exit $?, $(( $(date +%s) - t0 )) s"
  grep -iE "error|panick" $OUT/bw-$b-$r.out | head -5
done
