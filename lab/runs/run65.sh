# Run 65: run 60 again after the example warms each call up for 500 ms and 20 runs past its first
# (runs 63-64: 200 ms counted from a first run of 200 ms left the GPU clocks low):
# `burn_vs_gpuprim` (2^24 f32), Burn's fusion on (gpuprim-burn's default) and off. One
# command; each exit status printed.
source .device/lib.sh
for build in fusion nofusion; do
  timeout 280 $B/burn_vs_gpuprim-$build > $OUT/burn-$build.out 2>&1
  echo "burn_vs_gpuprim-$build exit $?"; grep -v XDG $OUT/burn-$build.out
done
