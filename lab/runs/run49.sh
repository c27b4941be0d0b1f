# Run 49 (issue 48, the 200-run criterion): every exit test 200 times, each exit status
# checked, at the commit that closes issue 48 (kernels bind what their entry point uses;
# the pipeline cache compiles outside its map's lock). Part `exits`: tests/exit and the
# four moments of tests/exit_main, the five tallies side by side (five processes at a
# time on the GPU); part `rest`: tests/contexts (200 children, under the SIGSEGV
# tracer), tests/device_lost, tests/hostile; part `untraced`: tests/contexts without the
# tracer. `bash .device/run49.sh exits|rest|untraced`
source .device/lib.sh
if [ "$1" = untraced ]; then
  # (run as a third call: tests/contexts again, without the tracer)
  GPUPRIM_STRESS_RUNS=200 GPUPRIM_STRESS_MAX_LEN=70000 GPUPRIM_STRESS_DEADLINE=30 timeout 300 $B/contexts-new > /tmp/c.out 2>&1
  echo "contexts (untraced) exit $?"; grep -E "FAILED|of 200" /tmp/c.out | head
elif [ "$1" = exits ]; then
  OUTF=/tmp/o-exit tally 200 30 exit $B/exit-new -q > /tmp/t-exit 2>&1 &
  for mode in dropping using making polling; do
    GPUPRIM_EXIT_MODE=$mode OUTF=/tmp/o-$mode tally 200 30 main-$mode $B/exit_main-new > /tmp/t-$mode 2>&1 &
  done
  wait
  for t in exit dropping using making polling; do tail -c 2500 /tmp/t-$t; done
else
  GPUPRIM_STRESS_RUNS=200 GPUPRIM_STRESS_MAX_LEN=70000 GPUPRIM_STRESS_DEADLINE=30 LD_PRELOAD=$TRACE timeout 300 $B/contexts-new > /tmp/c.out 2>&1
  echo "contexts (traced) exit $?"; grep -E "FAILED|of 200|segv_trace|\.so" /tmp/c.out | head -20
  timeout 100 $B/device_lost-new -q > /tmp/d.out 2>&1; echo "device_lost exit $?: $(grep 'test result' /tmp/d.out | tail -1)"
  timeout 200 $B/hostile-new > /tmp/h.out 2>&1; echo "hostile exit $?"; tail -3 /tmp/h.out | cut -c1-300
fi
