# Run 63: issue 47, probe47 replaying the example's sequence (PROBE_EXAMPLE): Burn's sort,
# ours (200 ms warm-up, five timed), Burn's argsort, ours twice; the timed runs with
# their phases (probe47-lib.patch) and without (PROBE_QUIET).
source .device/lib.sh
PROBE_EXAMPLE=1 timeout 120 $B/probe47 > $OUT/probe-example.out 2>&1; echo "probe47 example exit $?"
PROBE_EXAMPLE=1 PROBE_QUIET=1 timeout 120 $B/probe47 > $OUT/probe-example-quiet.out 2>&1; echo "probe47 example quiet exit $?"
