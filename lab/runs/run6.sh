# Run 6: why device_lost hung once in run 5. Each run killed after 45 s, with the threads
# of every process of the binary (the test spawns itself as children) printed first.
source .device/lib.sh
D=$(ls $B/device_lost-new)
dump() { for pid in $(pgrep -f "$D"); do echo "  process $pid: $(tr '\0' ' ' < /proc/$pid/cmdline | cut -c1-150)"; for task in /proc/$pid/task/*; do echo "    $(cat $task/comm) wchan=$(cat $task/wchan) st=$(awk '{print $3}' $task/stat)"; done; done; }
hung=0
for k in $(seq 1 12); do
  $D > /tmp/dl.out 2>&1 &
  pid=$!; i=0
  while kill -0 $pid 2>/dev/null && [ $i -lt 900 ]; do sleep 0.05; i=$((i+1)); done
  if kill -0 $pid 2>/dev/null; then
    hung=$((hung+1)); echo "== run $k HUNG"; dump; grep -E "^test |running for" /tmp/dl.out | head -20
    pkill -9 -f "$D"; wait $pid 2>/dev/null
  else
    wait $pid; echo "== run $k exit $? $(grep -E 'test result' /tmp/dl.out)"
  fi
done
echo "device_lost: $hung of 12 hung"
