# Run 8: the new calls' tests and the touched older ones on the GPU; top_k at 2^26 beside
# torch.topk; lower_bound with the pivot count and workgroup cap varied (builds new, B:
# 1024 pivots and one unit an invocation, C: 4096 pivots and one unit an invocation).
source .device/lib.sh
for t in arg_reduce search scan_by_key segmented top_k scan sort reduce; do
  runto 300 "$t" $B/$t-new; echo "TEST $t exit $?"; grep -E "test result|FAILED|panicked" /tmp/last.out | head -8
done
$B/bandwidth-new 26 top_k 2>&1 | grep -E "top_k|smallest|adapter"
for v in new searchB searchC new searchB searchC; do echo "== search build $v"; $B/bandwidth-$v 24 search 2>&1 | grep -E "lower_bound|upper_bound"; done
PYTHONUNBUFFERED=1 python3 lab/peers_next.py 2>&1 | grep -E "torch|topk|searchsorted|argmax|sum f32|cumsum"
