# Run 33: issue 34's table at the build of run 32 (`bandwidth 28 reduce arg_reduce
# segmented segmented_paths scan_by_key search`, `bandwidth 26 top_k`) with
# `lab/peers_next.py`. One command.
source .device/lib.sh
exec > >(tee $OUT/summary.txt) 2>&1
$B/bandwidth-new 28 reduce arg_reduce segmented segmented_paths scan_by_key search > $OUT/bw34.out 2>&1
echo "bandwidth-new 28 exit $?"; sed -n '/^primitive/,$p' $OUT/bw34.out
$B/bandwidth-new 26 top_k > $OUT/topk.out 2>&1
echo "bandwidth 26 top_k exit $?"; sed -n '/^primitive/,$p' $OUT/topk.out | grep top
PYTHONUNBUFFERED=1 python3 lab/peers_next.py > $OUT/peers.txt 2>&1; echo "peers exit $?"; cat $OUT/peers.txt
