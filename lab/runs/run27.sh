# Run 27: issue 37's example on the GPU, each call ended by Burn's Device::sync and
# gpuprim's synchronize (a one-element read of a Burn result came back before the kernel
# had finished: run 26's Burn cumsum times were not the kernel's).
source .device/lib.sh
timeout 500 $B/burn_vs_gpuprim > $OUT/burn.out 2>&1; echo "burn_vs_gpuprim exit $?"; cat $OUT/burn.out
