#!/usr/bin/env bash
# wgmma golden data on an sm_90 GPU (see wgmma.cu for what is measured and the file format).
#   scripts/hardware/wgmma/run.sh OUTDIR   -> OUTDIR/wgmma-golden.bin.xz, wgmma-sass.txt, wgmma-log.txt
# Needs nvcc and nvidia-smi; without them it says so and exits 0.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUTDIR}
if ! command -v nvcc >/dev/null || ! command -v nvidia-smi >/dev/null; then
    echo "wgmma/run.sh: no CUDA toolkit or GPU here; nothing to do"
    exit 0
fi
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$out/wgmma-log.txt
echo "$(date -u +%FT%TZ); $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -n1); $(nvcc --version | tail -n1)" | tee "$log"
nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a "$here/wgmma.cu" -o "$work/wgmma" 2>&1 | tee -a "$log"
cuobjdump -sass "$work/wgmma" | grep -E "Function|GMMA|WARPGROUP" > "$out/wgmma-sass.txt" || true
"$work/wgmma" "$work/golden.bin" 2>&1 | tee -a "$log"
"$work/wgmma" "$work/again.bin" > /dev/null 2>&1 && cmp "$work/golden.bin" "$work/again.bin" && echo "two runs agree" | tee -a "$log"
python3 -c 'import lzma, sys; open(sys.argv[2], "wb").write(lzma.compress(open(sys.argv[1], "rb").read(), preset=9))' \
    "$work/golden.bin" "$out/wgmma-golden.bin.xz"
ls -la "$out" | tee -a "$log"
