# Run 7: issue 34's calls against their peers, one command; device_lost with its tests
# taking turns, 12 times.
source .device/lib.sh
D=$(ls $B/device_lost-new); ok=0
for k in $(seq 1 12); do runto 60 "device_lost" $D -q; rc=$?; [ $rc -eq 0 ] && ok=$((ok+1)) || { echo "device_lost run $k status $rc"; grep -E "wchan|test result" /tmp/last.out | head -30; }; done
echo "device_lost: $ok of 12 exited 0"
$B/bandwidth-new 28 reduce arg_reduce segmented scan_by_key search top_k --csv $OUT/bw34.csv 2>&1; echo "bandwidth exit $?"
PYTHONUNBUFFERED=1 python3 lab/peers_next.py 2>&1; echo "peers exit $?"
