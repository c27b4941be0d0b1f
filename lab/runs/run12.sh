# Run 12 (issue 33): the test binaries of the redesigned build (release, `cargo test
# --release --no-run`, xz-compressed in .device/ as test-NAME.xz) on the GPU, each
# program's exit status checked, not only its "test result" line. Then, when asked
# (`bash .device/run12.sh ROUND BUILD...`), run 11's bandwidth tables.
source .device/lib.sh
for t in $B/test-*; do
  n=$(basename $t)
  timeout 300 $t -q > /tmp/t.out 2>&1; rc=$?
  echo "TEST $n exit $rc: $(grep -E '^test result' /tmp/t.out | tail -1)"
  [ $rc -ne 0 ] && tail -30 /tmp/t.out
done
if [ $# -ge 2 ]; then bash .device/run11.sh "$@"; fi
