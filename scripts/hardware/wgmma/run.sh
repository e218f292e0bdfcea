#!/usr/bin/env bash
# wgmma golden data on an sm_90 GPU (see wgmma.cu for what is measured and the file format).
#   scripts/hardware/wgmma/run.sh OUTDIR   -> OUTDIR/wgmma-golden.bin.xz, wgmma-sass.txt, wgmma-log.txt
# Needs nvcc and nvidia-smi; without them it says so and exits 0.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUTDIR}
# shellcheck source=scripts/hardware/lib.sh
source "$(dirname "$0")/../lib.sh"
gpu_session wgmma/run.sh "$out"
log=$out/wgmma-log.txt
echo "$(date -u +%FT%TZ); $device; $(nvcc --version | tail -n1)" | tee "$log"
nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a "$here/wgmma.cu" -o "$work/wgmma" 2>&1 | tee -a "$log"
cuobjdump -sass "$work/wgmma" | grep -E "Function|GMMA|WARPGROUP" > "$out/wgmma-sass.txt" || true
"$work/wgmma" "$work/golden.bin" 2>&1 | tee -a "$log"
"$work/wgmma" "$work/again.bin" > /dev/null 2>&1 && cmp "$work/golden.bin" "$work/again.bin" && echo "two runs agree" | tee -a "$log"
python3 -c 'import lzma, sys; open(sys.argv[2], "wb").write(lzma.compress(open(sys.argv[1], "rb").read(), preset=9))' \
    "$work/golden.bin" "$out/wgmma-golden.bin.xz"
ls -la "$out" | tee -a "$log"
