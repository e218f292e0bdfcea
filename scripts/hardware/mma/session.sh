#!/usr/bin/env bash
# One GPU session for the tensor-core work (issue 21), meant for an H100 (an H200 works too):
#   1. the sample kernels of tests/mma-kernels (bf16 GEMM fed by ldmatrix, FP8 GEMM with a scale
#      and a satfinite e4m3 output, Triton tl.dot for sm_80) -> OUT/mma-kernels-gpu.bin.xz;
#   2. wmma fragment layouts and wmma.mma results (scripts/hardware/wmma/wmma.cu)
#      -> OUT/wmma.txt.xz and the SASS of its kernels -> OUT/wmma-sass.txt;
#   3. the mma.sync golden measurement again (scripts/hardware/mma/run.sh) -> OUT/mma/, to
#      compare this GPU with the H200 of tests/hardware/mma;
#   4. every sm_80/sm_90 sample kernel of tests/kernels (scripts/hardware/kernels.py plan)
#      -> OUT/kernels-gpu.bin.xz, to compare with the H200's tests/hardware/kernels-gpu.bin.xz.
# Needs nvcc and nvidia-smi; without them it says so and exits 0.
#
#   scripts/hardware/mma/session.sh OUTDIR
set -uo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:?usage: session.sh OUTDIR}
# shellcheck source=scripts/hardware/lib.sh
source "$(dirname "$0")/../lib.sh"
gpu_session session.sh "$out"
cd "$repo"
log=$out/session-log.txt
echo "start $(date -u +%FT%TZ); $device; $(nvcc --version | tail -n1)" | tee "$log"
nvcc -O2 -std=c++17 scripts/hardware/run_gpu.cpp -o "$work/run_gpu" -lcuda &
nvcc -O2 -std=c++17 -arch=sm_90 scripts/hardware/wmma/wmma.cu -o "$work/wmma" &
wait
# 1. tensor-core sample kernels
python3 tests/mma-kernels/gen.py plan "$work/mk" > "$work/mk.plan"
echo "mma kernels: $(wc -l < "$work/mk.plan") launches" | tee -a "$log"
( time "$work/run_gpu" "$work/mk.plan" "$work/mk.bin" ) 2>&1 | tail -n 5 | tee -a "$log"
xz9 "$work/mk.bin" "$out/mma-kernels-gpu.bin.xz"
echo "mma kernels: $(stat -c %s "$work/mk.bin") bytes, sha256 $(sha256sum < "$work/mk.bin" | cut -c1-16)" | tee -a "$log"
# 2. wmma
( time "$work/wmma" > "$work/wmma.txt" ) 2>&1 | tail -n 4 | tee -a "$log"
xz9 "$work/wmma.txt" "$out/wmma.txt.xz"
cuobjdump -sass "$work/wmma" | grep -E "Function|MMA|MOVM|LDSM" > "$out/wmma-sass.txt" || true
echo "wmma: $(grep -c '^layout' "$work/wmma.txt") layouts, $(grep -c '^mma' "$work/wmma.txt") mma tiles" | tee -a "$log"
# 4. the scalar/warp sample kernels (before 3, which takes longest)
python3 scripts/hardware/kernels.py plan "$work/k" > "$work/k.plan"
( time "$work/run_gpu" "$work/k.plan" "$work/kernels.bin" ) 2>&1 | tail -n 5 | tee -a "$log"
xz9 "$work/kernels.bin" "$out/kernels-gpu.bin.xz"
echo "kernels: $(stat -c %s "$work/kernels.bin") bytes" | tee -a "$log"
# 3. mma.sync golden run
( time scripts/hardware/mma/run.sh "$out/mma" ) 2>&1 | tail -n 8 | tee -a "$log"
echo "done $(date -u +%FT%TZ)" | tee -a "$log"
ls -la "$out" "$out/mma" | tee -a "$log"
