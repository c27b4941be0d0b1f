# Run 5: the fix with adapters enumerated once under a lock. Test binaries, tests/batch
# 200 times, 8 contexts x 2 threads in 200 processes, round trips old/new.
source .device/lib.sh
for t in wait threads device_lost errors faults interop; do
  f=$(ls $B/$t-new); runto 150 "$t" env LD_PRELOAD=$TRACE $f -q; echo "TEST $t exit $?"; grep -E "test result|FAILED|panicked|segv" /tmp/last.out | head -5
done
C=$(ls $B/contexts-new)
for p in 1 2; do
  GPUPRIM_STRESS_RUNS=100 GPUPRIM_STRESS_MAX_LEN=70000 GPUPRIM_STRESS_DEADLINE=30 LD_PRELOAD=$TRACE timeout 400 $C > /tmp/ctx$p.out 2>&1 &
done
tally 200 20 "tests/batch (new)" env LD_PRELOAD=$TRACE $(ls $B/batch-new) -q
wait
for p in 1 2; do echo "== contexts parent $p"; grep -vE "^\s+\[<0>\]" /tmp/ctx$p.out | tail -25; done
for r in 1 2; do
  for b in main new; do
    echo "== bandwidth-$b 20 latency (round $r)"; $B/bandwidth-$b 20 latency > /tmp/bw.out 2>&1; echo "exit $?"; sed -n '/host round trip/,$p' /tmp/bw.out
  done
done
python3 .device/peers.py 20 2>&1 | grep -i latency
