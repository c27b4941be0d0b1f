# Run 47 (issue 48, part 1): the builds before (old, 18eb7a4) and after the driver's door,
# each exit status checked. The sequence after a destroyed shared device; an
# ordinary libtest test that exits while a context is dropped (40 old, 200 new); the
# multi-context soak (200 children). `bash .device/run47.sh`
source .device/lib.sh
for v in old new; do
  timeout 120 $B/device_lost-$v -q after_ctx_new a_shared_device_destroyed > /tmp/d.out 2>&1
  echo "device_lost ($v) exit $?: $(grep 'test result' /tmp/d.out | tail -1)"
  grep -E "panicked|assert|Error" /tmp/d.out | head -6 | cut -c1-300
done
tally 40 30 exit-old $B/exit-old -q
tally 200 30 exit-new $B/exit-new -q
GPUPRIM_STRESS_RUNS=200 GPUPRIM_STRESS_MAX_LEN=70000 GPUPRIM_STRESS_DEADLINE=30 timeout 280 $B/contexts-new > /tmp/c.out 2>&1
echo "contexts (new) exit $?"; grep -E "FAILED|of 200|passed" /tmp/c.out | head -8
