# Run 58: run 57's wide sorts after the keys-only form carries the other word through
# both word sorts (no order, no gather), with torch.sort / cupy.sort in the same run.
# `bash .device/run58.sh`: `bandwidth 28 wide_sort`, then `peers_next.py "sort int"`.
source .device/lib.sh
timeout 300 $B/bandwidth 28 wide_sort --csv $OUT/run58.csv > /tmp/bw.out 2>&1
echo "bandwidth 28 wide_sort exit $?"; grep -E "adapter|copy kernel|sort|rror" /tmp/bw.out | cut -c1-120
timeout 200 python3 .device/peers_next.py "sort int" > /tmp/p.out 2>&1
echo "peers_next exit $?"; cat /tmp/p.out
