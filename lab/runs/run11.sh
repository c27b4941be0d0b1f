# Run 11 (issue 33): the redesign changes no speed. The full bandwidth table at 2^28 of
# the build before the redesign (bandwidth-old: 1693c08, examples/bandwidth) and after it
# (bandwidth-new: lab's bandwidth), alternating; `bash .device/run11.sh ROUND` runs one
# round (old, then new) and leaves each table's CSV and printout in $OUT. Compare the
# rounds with lab/runs/alternate.py.
source .device/lib.sh
r=${1:-1}
for b in old new; do
  t0=$(date +%s)
  $B/bandwidth-$b 28 --csv $OUT/bw-$b-$r.csv > $OUT/bw-$b-$r.out 2>&1
  echo "== bandwidth-$b round $r: exit $?, $(( $(date +%s) - t0 )) s"
  grep -iE "error|panick" $OUT/bw-$b-$r.out | head -5
done
