# Run 21 (issue 35, the reduce-then-scan sort's raking split): the sort tests on the GPU;
# `bandwidth 28 no_subgroups` of the old build (main before the change) and the new one;
# lampshade's key sort at 2^26, all in one command.
source .device/lib.sh
$B/sort-new -q 2>&1 | tail -2; echo "sort tests exit $?"
for build in old new; do
  $B/bandwidth-$build 28 no_subgroups --csv $OUT/nosg-$build.csv > $OUT/nosg-$build.out 2>&1
  echo "bandwidth-$build exit $?"
done
python3 lab/runs/alternate.py $OUT/nosg-old.csv -- $OUT/nosg-new.csv 2>&1 | grep -E "^\||rows,"
sed -n '/^primitive/,$p' $OUT/nosg-new.out
WGPU_PRIMITIVES_PROFILE_ITEMS=67108864 WGPU_PRIMITIVES_PROFILE_CASES=key_sort $B/profile_primitives > $OUT/lampshade.txt 2>&1
echo "lampshade exit $?"; cat $OUT/lampshade.txt | tail -5
