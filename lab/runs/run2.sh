# Run 2: gpuprim today: several contexts (tests/contexts) and tests/batch.
source .device/lib.sh
C=$(ls $B/contexts-* | head -1); T=$(ls $B/batch-* | head -1)
GPUPRIM_STRESS_RUNS=1 GPUPRIM_STRESS_MAX_LEN=70000 runto 60 "contexts warm-up" $C; echo "warm-up status $?"; tail -5 /tmp/last.out
export GPUPRIM_STRESS_RUNS=1 GPUPRIM_STRESS_MAX_LEN=70000 GPUPRIM_STRESS_DEADLINE=25
tally 20 30 "contexts 8x2" env LD_PRELOAD=$TRACE $C
tally 30 15 "batch" env LD_PRELOAD=$TRACE $T -q
