# Run 48 (issue 48, part 2): a plain `main` that returns while contexts are dropped, used,
# made or polled (tests/exit_main.rs: 10 old and 50 new runs of each moment); user code
# at and past the length limit on 2 MiB threads; the host round trip, old and new builds
# alternating in one run, and torch's. `bash .device/run48.sh`
source .device/lib.sh
for mode in dropping using making polling; do
  GPUPRIM_EXIT_MODE=$mode tally 10 30 main-$mode-old $B/exit_main-old
  GPUPRIM_EXIT_MODE=$mode tally 50 30 main-$mode-new $B/exit_main-new
done
timeout 200 $B/long_code-new -q > /tmp/l.out 2>&1; echo "long_code exit $?: $(grep 'test result' /tmp/l.out)"
[ -x $B/hostile-new ] && { timeout 200 $B/hostile-new > /tmp/h.out 2>&1; echo "hostile exit $?"; tail -4 /tmp/h.out; }
for i in 1 2 3; do for v in old new; do
  timeout 100 $B/bandwidth-$v 24 latency > /tmp/b.out 2>&1; echo "bandwidth-$v round $i exit $?"
  grep -iE "reduce|to_vec|map_into" /tmp/b.out | head -6
done; done
timeout 200 python3 .device/peers.py 24 2>&1 | grep -i latency
GPUPRIM_STRESS_RUNS=100 GPUPRIM_STRESS_MAX_LEN=70000 GPUPRIM_STRESS_DEADLINE=30 LD_PRELOAD=$TRACE timeout 150 $B/contexts-new > /tmp/c.out 2>&1
echo "contexts (new, traced) exit $?"; grep -E "FAILED|of 100|segv_trace|\.so" /tmp/c.out | head -30
