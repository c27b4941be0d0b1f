# Run 46 (issue 45): the engine calls of the reverted radix way alone (tests/sort.rs
# `argsort_then_sort_by_group_bits`), and the whole sort test binary, at full limits and
# under the WebGPU profile, each exit status checked. `bash .device/run46.sh`
source .device/lib.sh
t=$B/test-sort
timeout 120 $t -q argsort_then > /tmp/a.out 2>&1; echo "argsort_then exit $?"; tail -5 /tmp/a.out
GPUPRIM_PROFILE=webgpu timeout 120 $t -q argsort_then > /tmp/b.out 2>&1; echo "argsort_then webgpu exit $?"; grep -v "^$" /tmp/b.out | cut -c1-400 | tail -8
GPUPRIM_PROFILE=webgpu timeout 200 $t -q > /tmp/c.out 2>&1; echo "sort webgpu exit $?: $(grep 'test result' /tmp/c.out | tail -1)"
