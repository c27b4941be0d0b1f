# Run 64: run 63's replay of the example (quiet) with Burn's calls made twice and their
# results kept as the example's `once` does (PROBE_EXAMPLE=keep), then as run 63.
source .device/lib.sh
for mode in keep 1 keep; do
PROBE_EXAMPLE=$mode PROBE_QUIET=1 timeout 120 $B/probe47 > $OUT/probe-$mode.out 2>&1; echo "probe47 $mode exit $?"; grep -v XDG $OUT/probe-$mode.out
done
