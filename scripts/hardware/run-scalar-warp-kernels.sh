#!/usr/bin/env bash
# One GPU session's measurements (2026-11-26): the scalar-ISA modules (tests/hardware/scalar,
# tests/hardware/packed),
# the warp and atomic probes (tests/hardware/warp) and every sm_80/sm_90 sample kernel of
# tests/kernels/manifest.json, on an sm_90 GPU. Needs nvcc and nvidia-smi; without them it says
# so and exits 0. Compare afterwards, without a GPU:
#   python3 scripts/hardware/warp/compare.py OUTDIR/warp-gpu.bin.xz --ptxsim target/release/ptxsim
#   python3 scripts/hardware/kernels.py plan W > /dev/null; xz -dk OUTDIR/kernels-gpu.bin.xz;
#   python3 scripts/hardware/kernels.py compare W OUTDIR/kernels-gpu.bin --ptxsim target/release/ptxsim
# and crates/exec/tests/suite/hardware.rs for the scalar module (tests/hardware/scalar/scalar-gpu.bin.xz).
#
#   scripts/hardware/run-scalar-warp-kernels.sh OUTDIR
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run-scalar-warp-kernels.sh OUTDIR}
# shellcheck source=scripts/hardware/lib.sh
source "$(dirname "$0")/lib.sh"
gpu_session run-scalar-warp-kernels.sh "$out"
cd "$repo"
log=$out/session-log.txt
echo "start $(date -u +%FT%TZ); $device" | tee "$log"
time scripts/hardware/run-ops.sh "$out" tests/hardware/scalar 2>&1 | tee -a "$log"
time scripts/hardware/run-ops.sh "$out" tests/hardware/packed 2>&1 | tee -a "$log"
time scripts/hardware/warp/run.sh "$out" 2>&1 | tee -a "$log"
nvcc -O2 -std=c++17 scripts/hardware/run_gpu.cpp -o "$work/run_gpu" -lcuda
python3 scripts/hardware/kernels.py plan "$work/k" > "$work/k.plan"
echo "kernels: $(wc -l < "$work/k.plan") launches" | tee -a "$log"
time "$work/run_gpu" "$work/k.plan" "$work/kernels.bin" 2>&1 | tail -n 5 | tee -a "$log"
python3 -c 'import lzma, sys; open(sys.argv[2], "wb").write(lzma.compress(open(sys.argv[1], "rb").read(), preset=6))' \
    "$work/kernels.bin" "$out/kernels-gpu.bin.xz"
echo "kernels: $(stat -c %s "$work/kernels.bin") bytes; done $(date -u +%FT%TZ)" | tee -a "$log"
ls -la "$out" | tee -a "$log"
