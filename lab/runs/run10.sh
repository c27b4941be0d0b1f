# Run 10: the final build (shared devices kept, the waiter on its submission, waiters
# stopped at exit). tests/batch 200 times with tests/contexts in 200 processes beside it;
# tests/reduce 30 times and tests/device_lost 12 times (exit status each time).
source .device/lib.sh
C=$(ls $B/contexts-new)
for p in 1 2; do
  GPUPRIM_STRESS_RUNS=100 GPUPRIM_STRESS_MAX_LEN=70000 GPUPRIM_STRESS_DEADLINE=30 LD_PRELOAD=$TRACE timeout 400 $C > /tmp/ctx$p.out 2>&1 &
done
tally 200 20 "tests/batch" env LD_PRELOAD=$TRACE $(ls $B/batch-new) -q
wait
for p in 1 2; do echo "== contexts parent $p"; grep -vE "^\s+\[<0>\]" /tmp/ctx$p.out | tail -25; done
tally 30 60 "tests/reduce" env LD_PRELOAD=$TRACE $(ls $B/reduce-new) -q
tally 12 60 "tests/device_lost" env LD_PRELOAD=$TRACE $(ls $B/device_lost-new) -q
for t in wait segmented; do
  runto 300 "$t" env LD_PRELOAD=$TRACE $B/$t-new -q; echo "TEST $t exit $?"; grep -E "test result|FAILED|panicked|segv" /tmp/last.out | head -8
done
