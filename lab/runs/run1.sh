# Run 1: the plain-wgpu reproduction, matrix of workarounds (no gpuprim code).
source .device/lib.sh
M=$B/multidevice
for cfg in "own own none drop" "own own none keep" "own own none main" "own own process drop" "own own process keep" "shared own none drop" "shared shared none drop"; do
  tally 8 8 "multidevice 6 50 $cfg" env LD_PRELOAD=$TRACE $M 6 50 $cfg
done
