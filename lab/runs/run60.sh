# Run 60: run 59 again after the example warms each call up for 200 ms: issue 47's example, `burn_vs_gpuprim` (2^24 f32), built twice: Burn's fusion on
# (gpuprim-burn's default) and off (`--no-default-features`). One command; each exit
# status printed.
source .device/lib.sh
for build in fusion nofusion; do
  timeout 280 $B/burn_vs_gpuprim-$build > $OUT/burn-$build.out 2>&1
  echo "burn_vs_gpuprim-$build exit $?"; grep -v XDG $OUT/burn-$build.out
done
