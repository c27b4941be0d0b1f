# Run 56: issue 46's unique_with, merge (against the sort of the concatenation) and
# random_permutation after the merge-path kernel (wgsl/merge.wgsl), and the cost of a new vector, torch.unique / torch.randperm in the same run.
# `bash .device/run56.sh`: `bandwidth 28 records`, then `peers_next.py 2^24` (its
# unique, randperm and scatter_add rows).
source .device/lib.sh
timeout 300 $B/bandwidth 28 records --csv $OUT/run56.csv > /tmp/bw.out 2>&1
echo "bandwidth 28 records exit $?"; grep -E "adapter|copy kernel|unique|merge|sort|permutation|rror" /tmp/bw.out | cut -c1-110
timeout 200 python3 .device/peers_next.py "2^24" > /tmp/p.out 2>&1
echo "peers_next exit $?"; cat /tmp/p.out
