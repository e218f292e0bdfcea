#!/usr/bin/env bash
# Runs every cvt / cvt.pack form of sm_90, and the sample kernels, on an sm_90 GPU and compares
# with ptxsim. Needs a CUDA toolkit (nvcc, ptxas) and a GPU of compute capability 9.0; without
# them it says so and exits 0.
#
#   scripts/hardware/run-gpu.sh OUTDIR [PTXSIM_BINARY] [DATA_DIR]
#
# DATA_DIR (default tests/hardware) holds sm90.ptx, forms.tsv and in-*.bin from gen.py. Writes
# OUTDIR/sm90-gpu.bin.xz (the GPU's outputs in forms.tsv order: the file that
# crates/exec/tests/suite/hardware.rs reads from tests/hardware/) and, given a ptxsim binary,
# OUTDIR/report.md (compare.py) and OUTDIR/kernels.md (kernels.py: every sm_80/sm_90 sample
# kernel of tests/kernels/manifest.json on the GPU, against ptxsim and the host reference).
# The forms module runs twice, JIT-compiled from PTX by the driver and assembled by the
# toolkit's ptxas; the two must agree byte for byte.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run-gpu.sh OUTDIR [PTXSIM_BINARY] [DATA_DIR]}
ptxsim=${2:-}
data=$(cd "${3:-$repo/tests/hardware}" && pwd)
# shellcheck source=scripts/hardware/lib.sh
source "$(dirname "$0")/lib.sh"
gpu_session run-gpu.sh "$out"
echo "device: $device; $(nvcc --version | tail -n1)"
nvcc -O2 -std=c++17 "$repo/scripts/hardware/run_gpu.cpp" -o "$work/run_gpu" -lcuda
ptxas -arch=sm_90 "$data/sm90.ptx" -o "$work/sm90.cubin"
# One launch per form: 256-thread CTAs over the form's inputs, output buffer poisoned and saved.
plan() {
    awk -F'\t' -v module="$1" -v dir="$data" '!/^#/ && NF == 5 {
        printf "%s\t%s\t%d\t256\tbuf:%s/in-%s.bin poison:%d\t1\n", module, $1, $4 / 256, dir, $3, $4 * $5
    }' "$data/forms.tsv"
}
plan "$data/sm90.ptx" > "$work/jit.plan"
plan "$work/sm90.cubin" > "$work/ptxas.plan"
time "$work/run_gpu" "$work/jit.plan" "$work/jit.bin"
time "$work/run_gpu" "$work/ptxas.plan" "$work/ptxas.bin"
cmp "$work/jit.bin" "$work/ptxas.bin"
echo "driver JIT and ptxas outputs agree ($(stat -c %s "$work/jit.bin") bytes)"
if [ "$(stat -c %s "$work/jit.bin")" -le $((128 << 20)) ]; then
    python3 -c 'import lzma, sys; open(sys.argv[2], "wb").write(lzma.compress(open(sys.argv[1], "rb").read(), preset=9))' \
        "$work/jit.bin" "$out/sm90-gpu.bin.xz"
fi
if [ -n "$ptxsim" ]; then
    time python3 "$repo/scripts/hardware/compare.py" --dir "$data" --hw "$work/jit.bin" \
        --ptxsim "$ptxsim" --report "$out/report.md" --device "$device" || true
    python3 "$repo/scripts/hardware/kernels.py" plan "$work/kernels" > "$work/kernels.plan"
    time "$work/run_gpu" "$work/kernels.plan" "$work/kernels.bin"
    python3 "$repo/scripts/hardware/kernels.py" compare "$work/kernels" "$work/kernels.bin" \
        --ptxsim "$ptxsim" --report "$out/kernels.md" --device "$device" || true
fi
