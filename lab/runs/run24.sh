# Run 24 (issue 35): reduce-then-scan workgroups per sort pass, 2048 (new) against 8192
# and 32768, `bandwidth 26 no_subgroups` once each.
source .device/lib.sh
for build in new g8192 g32768; do
  $B/bandwidth-$build 26 no_subgroups > $OUT/nosg-$build.out 2>&1
  echo "== $build exit $?"; grep -E "sort" $OUT/nosg-$build.out
done
