# Run 61: issue 47, where gpuprim-burn's argsort of 4096 rows of 4096 (2^24 f32) spends
# its time: `probe47` (an uncommitted probe example: raw `argsort_rows`, gpuprim-burn's
# argsort with each phase ended by both syncs and host-timed, GPU time per primitive from
# a profiling context), its output written straight to the gpuprim-owned buffer and to
# Burn's (`GPUPRIM_BURN_PROBE=own` / `1`), and without the probe's syncs. Exit statuses
# printed.
source .device/lib.sh
for mode in 1 own; do
  GPUPRIM_BURN_PROBE=$mode timeout 120 $B/probe47 > $OUT/probe-$mode.out 2>&1
  echo "probe47 GPUPRIM_BURN_PROBE=$mode exit $?"
done
timeout 120 $B/probe47 > $OUT/probe-plain.out 2>&1
echo "probe47 plain exit $?"
