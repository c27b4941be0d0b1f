# Run 14 (issue 35's starting point): `bandwidth 28 no_subgroups` at main after the
# redesign: scans, compaction, and sorts at 2^26 and 2^28, each on the context and on one
# built without subgroups, in one process.
source .device/lib.sh
$B/bandwidth-new 28 no_subgroups --csv $OUT/no_subgroups.csv > $OUT/no_subgroups.out 2>&1
echo "exit $?"; sed -n '/^primitive/,$p' $OUT/no_subgroups.out
