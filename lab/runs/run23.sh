# Run 23 (issue 34's table in one run): gpuprim's rows of issue 34's calls at HEAD
# (`bandwidth 28 reduce arg_reduce segmented scan_by_key search`, then `bandwidth 26 top_k`,
# the size torch.topk is timed at) and PyTorch's (`lab/peers_next.py`), one command.
source .device/lib.sh
$B/bandwidth-new 28 reduce arg_reduce segmented scan_by_key search --csv $OUT/bw34.csv > $OUT/bw34.out 2>&1
echo "bandwidth 28 exit $?"; sed -n '/^primitive/,$p' $OUT/bw34.out
$B/bandwidth-new 26 top_k --csv $OUT/topk.csv > $OUT/topk.out 2>&1
echo "bandwidth 26 top_k exit $?"; sed -n '/^primitive/,$p' $OUT/topk.out
PYTHONUNBUFFERED=1 python3 lab/peers_next.py > $OUT/peers.txt 2>&1; echo "peers exit $?"; cat $OUT/peers.txt
