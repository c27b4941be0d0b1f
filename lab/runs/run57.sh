# Run 57: issue 46's 8-byte keys and 16-byte values (src/ops/sort/wide.rs): sort of u64
# and i64 against the u32 sort of as many keys, sort_by_key with [u32; 4] values against
# u32 values, and torch.sort / cupy.sort of int64 and int32 in the same run.
# `bash .device/run57.sh`: `bandwidth 28 wide_sort gather`, then `peers_next.py 2^26`
# (its sort rows).
source .device/lib.sh
timeout 300 $B/bandwidth 28 wide_sort gather --csv $OUT/run57.csv > /tmp/bw.out 2>&1
echo "bandwidth 28 wide_sort gather exit $?"; grep -E "adapter|copy kernel|sort|gather|index|rror" /tmp/bw.out | cut -c1-120
timeout 200 python3 .device/peers_next.py "2^26" > /tmp/p.out 2>&1
echo "peers_next exit $?"; cat /tmp/p.out
