# Run 62: run 60 again after the example drops each timed output before the next run
# (run 61's probe: a kept 64 MiB result makes Burn's pool take the next from the driver):
# `burn_vs_gpuprim` (2^24 f32), Burn's fusion on (gpuprim-burn's default) and off. One
# command; each exit status printed.
source .device/lib.sh
for build in fusion nofusion; do
  timeout 280 $B/burn_vs_gpuprim-$build > $OUT/burn-$build.out 2>&1
  echo "burn_vs_gpuprim-$build exit $?"; grep -v XDG $OUT/burn-$build.out
done
