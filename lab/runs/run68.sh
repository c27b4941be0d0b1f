# Run 68 (issue 45): three builds of the rows' radix sort side by side, the bandwidth
# section segmented_sort at 2^26 for each: (a) run 67's kernel, (b) the digit's count
# picked from the packed counts without indexing a vector by a value, (c) b and the scan
# reading its counters again from workgroup memory instead of holding 16 in registers.
# `bash .device/run68.sh`
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
for v in a b c; do
  $B/bandwidth-$v 26 segmented_sort > $OUT/bw-$v.out 2>&1; echo "== bandwidth-$v 26 segmented_sort: exit $?"
  grep -v "the results are" $OUT/bw-$v.out | grep "sort_rows\|argsort_rows"
done
