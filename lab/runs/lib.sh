# Sourced by the run scripts on the GPU machine (from the project root).
for f in .device/gl/*.deb; do dpkg -x "$f" /; done; ldconfig
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
B=/tmp/b; mkdir -p $B
for x in .device/*.xz; do n=$(basename "$x" .xz); xz -dc "$x" > $B/$n; chmod +x $B/$n; done
TRACE=$PWD/.device/segv_trace.so
# runto SECONDS LABEL CMD...: runs CMD, kills it past SECONDS after printing its threads;
# returns CMD's status (124 when killed, 128+N for signal N). Output in $OUTF
# (/tmp/last.out unless set: set it to run tallies side by side).
runto() {
  local t=$1 label=$2; shift 2
  "$@" > ${OUTF:-/tmp/last.out} 2>&1 &
  local pid=$! i=0
  while kill -0 $pid 2>/dev/null; do
    sleep 0.05; i=$((i+1))
    if [ $i -ge $((t*20)) ]; then
      { echo "HANG $label ($t s): threads of $pid:"
        for task in /proc/$pid/task/*; do
          echo "  $(cat $task/comm 2>/dev/null) wchan=$(cat $task/wchan 2>/dev/null) st=$(awk '{print $3}' $task/stat 2>/dev/null)"
          head -8 $task/stack 2>/dev/null | sed 's/^/      /'
        done; } >> ${OUTF:-/tmp/last.out}
      kill -9 $pid; wait $pid 2>/dev/null; return 124
    fi
  done
  wait $pid
}
# tally N SECONDS LABEL CMD...: N runs; prints the count per exit status and the output
# of the first run of each bad status.
tally() {
  local n=$1 t=$2 label=$3; shift 3
  declare -A count; declare -A shown; local k rc s=$(date +%s%N)
  for ((k=0;k<n;k++)); do
    runto $t "$label" "$@"; rc=$?
    count[$rc]=$(( ${count[$rc]:-0} + 1 ))
    if [ $rc -ne 0 ] && [ -z "${shown[$rc]:-}" ]; then
      shown[$rc]=1; echo "---- $label: first run with status $rc:"; tail -c 6000 ${OUTF:-/tmp/last.out}
    fi
  done
  local line="" ; for k in "${!count[@]}"; do line="$line status $k: ${count[$k]};"; done
  echo "TALLY $label: $n runs:$line ($(( ($(date +%s%N) - s) / 1000000 )) ms)"
}
