# Run 52: gather and scatter (issue 46) against torch, and the exit handler's new wait
# for the devices' submitted work on NVIDIA. `bash .device/run52.sh`: `bandwidth 28
# gather` and `peers_next.py` (its gather rows) in one run; then `tests/exit_main`
# (release, at this build) 40 runs of each moment, side by side, each exit status
# tallied.
source .device/lib.sh
timeout 200 $B/bandwidth 28 gather --csv $OUT/gather.csv > /tmp/bw.out 2>&1
echo "bandwidth 28 gather exit $?"; grep -E "adapter|copy kernel|gather|scatter" /tmp/bw.out | cut -c1-110
timeout 200 python3 .device/peers_next.py "f32 2^28," > /tmp/p.out 2>&1
echo "peers_next exit $?"; cat /tmp/p.out
for mode in dropping using making polling; do
  ( OUTF=/tmp/exit-$mode.out; export GPUPRIM_EXIT_MODE=$mode
    tally 40 60 "exit_main $mode" $B/exit_main > /tmp/tally-$mode.txt 2>&1 ) &
done
wait
cat /tmp/tally-*.txt | tail -c 6000
