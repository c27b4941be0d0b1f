# Run 53: issue 46's scatter_add (atomics, native f32 atomicAdd on Vulkan, and the sorted
# order) and partition against compact, with torch's index_add_ / scatter_add_ in the same
# run. `bash .device/run53.sh`: `bandwidth 28 scan gather scatter_add` (scatter_add's
# values are 2^24 at 2^28), then `peers_next.py` (its gather and scatter_add rows).
source .device/lib.sh
timeout 300 $B/bandwidth 28 scan gather scatter_add --csv $OUT/run53.csv > /tmp/bw.out 2>&1
echo "bandwidth 28 scan gather scatter_add exit $?"; grep -E "adapter|copy kernel|compact|partition|gather|scatter|error|Error" /tmp/bw.out | cut -c1-110
timeout 200 python3 .device/peers_next.py "f32 2^2" > /tmp/p.out 2>&1
echo "peers_next exit $?"; cat /tmp/p.out
