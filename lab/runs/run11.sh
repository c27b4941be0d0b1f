# Run 11 (issue 33): the redesign changes no speed. The full bandwidth table at 2^28 of
# the build before the redesign (bandwidth-old: 1693c08, examples/bandwidth) and after it
# (bandwidth-new: lab's bandwidth), alternating: `bash .device/run11.sh ROUND BUILD...`
# runs the tables of those builds (old, new) and leaves each CSV and printout in $OUT.
# One table takes about 6 minutes, so the device tool's calls ran old 1, new 1, old 2,
# new 2 one at a time on one warm machine. Compare with lab/runs/alternate.py.
source .device/lib.sh
r=$1; shift
for b in "$@"; do
  t0=$(date +%s)
  $B/bandwidth-$b 28 --csv $OUT/bw-$b-$r.csv > $OUT/bw-$b-$r.out 2>&1
  echo "== bandwidth-$b round $r: exit $?, $(( $(date +%s) - t0 )) s"
  grep -iE "error|panick" $OUT/bw-$b-$r.out | head -5
done
