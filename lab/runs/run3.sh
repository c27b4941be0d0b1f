# Run 3a: the fix. Round trips old/new alternating, the plain-wgpu reproduction beside the
# shared-instance workaround, the new build's test binaries, tests/batch 200 times.
source .device/lib.sh
for r in 1 2; do
  for b in main new; do
    echo "== bandwidth-$b 20 latency (round $r)"; $B/bandwidth-$b 20 latency > /tmp/bw.out 2>&1; echo "exit $?"; sed -n '/host round trip/,$p' /tmp/bw.out
  done
done
python3 .device/peers.py 20 2>&1 | grep -i latency
tally 20 8 "plain wgpu: own instance, own device, dropped in threads" env LD_PRELOAD=$TRACE $B/multidevice 6 50 own own none drop
tally 20 8 "plain wgpu: one instance, own devices, dropped in threads" env LD_PRELOAD=$TRACE $B/multidevice 6 50 shared own none drop
for t in wait threads device_lost errors; do
  f=$(ls $B/$t-new); runto 120 "$t" $f -q; echo "TEST $t exit $?"; grep -E "test result|FAILED|panicked" /tmp/last.out | head -5
done
tally 200 20 "tests/batch (new)" env LD_PRELOAD=$TRACE $(ls $B/batch-new) -q
