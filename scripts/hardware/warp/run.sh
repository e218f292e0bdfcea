#!/usr/bin/env bash
# Runs the warp and atomic probes (tests/hardware/warp/plan.tsv, from gen.sh) on an sm_90 GPU
# three times. Needs nvcc and nvidia-smi on PATH; without them it says so and exits 0.
#
#   scripts/hardware/warp/run.sh OUTDIR
#
# Writes OUTDIR/warp-gpu.bin.xz (the first run's outputs: what compare.py and CI compare ptxsim
# with) and OUTDIR/warp-log.txt (the device, whether the 3 runs agree byte for byte and, per
# kernel, which runs differ), plus OUTDIR/warp-run{1,2,3}.bin.xz where the runs differ.
# Takes a few seconds after nvcc has built run_gpu.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:?usage: run.sh OUTDIR}
# shellcheck source=scripts/hardware/lib.sh
source "$(dirname "$0")/../lib.sh"
gpu_session warp/run.sh "$out"
cd "$repo"
log=$out/warp-log.txt
{
    echo "device: $device"
    echo "toolkit: $(nvcc --version | tail -n1)"
    echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "plan: tests/hardware/warp/plan.tsv ($(grep -vc '^#' tests/hardware/warp/plan.tsv) launches)"
} | tee "$log"
nvcc -O2 -std=c++17 scripts/hardware/run_gpu.cpp -o "$work/run_gpu" -lcuda
xz() {
    python3 -c 'import lzma, sys; open(sys.argv[2], "wb").write(lzma.compress(open(sys.argv[1], "rb").read(), preset=9))' "$1" "$2"
}
for n in 1 2 3; do
    # A warp-synchronous instruction that never completes would hang: bound each run.
    if ! timeout 60 "$work/run_gpu" tests/hardware/warp/plan.tsv "$work/run$n.bin" > "$work/run$n.txt" 2>&1; then
        cat "$work/run$n.txt" | tee -a "$log"
        echo "run $n failed" | tee -a "$log"
        exit 1
    fi
    sed "s/^/run $n: /" "$work/run$n.txt" | tee -a "$log"
done
xz "$work/run1.bin" "$out/warp-gpu.bin.xz"
echo "first run: $(stat -c %s "$work/run1.bin") bytes -> warp-gpu.bin.xz" | tee -a "$log"
if cmp -s "$work/run1.bin" "$work/run2.bin" && cmp -s "$work/run1.bin" "$work/run3.bin"; then
    echo "the 3 runs agree byte for byte" | tee -a "$log"
else
    echo "the 3 runs DIFFER; per kernel:" | tee -a "$log"
    for n in 1 2 3; do xz "$work/run$n.bin" "$out/warp-run$n.bin.xz"; done
fi
python3 scripts/hardware/warp/compare.py --agree "$work/run1.bin" "$work/run2.bin" "$work/run3.bin" \
    | tee -a "$log" || true
echo "wrote $out/warp-gpu.bin.xz and $log"
