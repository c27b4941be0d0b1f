# Run 3b: the fix. The 60-s soak on 8 contexts x 2 threads; then 8 contexts x 2 threads in
# 200 processes (two parents of 100 at once, each child checked for exit status and time).
source .device/lib.sh
runto 150 "soak 8 contexts x 2 threads, 60 s" env LD_PRELOAD=$TRACE $B/soak-new 2 60 1048576 8; echo "soak exit $?"
tail -22 /tmp/last.out
C=$(ls $B/contexts-new)
for p in 1 2; do
  GPUPRIM_STRESS_RUNS=100 GPUPRIM_STRESS_MAX_LEN=70000 GPUPRIM_STRESS_DEADLINE=30 LD_PRELOAD=$TRACE timeout 480 $C > /tmp/ctx$p.out 2>&1 &
done
wait
for p in 1 2; do echo "== parent $p"; grep -vE "^run [0-9]+: 8 contexts" /tmp/ctx$p.out | tail -30; grep -cE "^run [0-9]+: 8 contexts x 2 threads on .*: 208 calls checked, 0 failed" /tmp/ctx$p.out; done
