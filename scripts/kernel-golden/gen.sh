#!/usr/bin/env bash
# Regenerates tests/kernels/ (inputs, expected outputs, manifest.json) for the nvcc sample kernels.
# Needs the NVIDIA headers (for the __host__ __device__ conversion functions) and g++.
#   PTXSIM_NVIDIA_ROOT  defaults to <repo>/.nv; headers in $PTXSIM_NVIDIA_ROOT/nvidia/cu13/include
# Exits 0 with a message when the tools are absent. Deterministic: fixed seeds.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
root="${PTXSIM_NVIDIA_ROOT:-$repo/.nv}"
NV="$root/nvidia/cu13"
if [ ! -f "$NV/include/cuda_fp8.h" ] || [ ! -x "$NV/bin/nvcc" ]; then
    echo "kernel-golden: NVIDIA headers/nvcc not found under $NV; nothing regenerated (set PTXSIM_NVIDIA_ROOT)."
    exit 0
fi
CXX="${CXX:-g++}"
if ! command -v "$CXX" >/dev/null 2>&1; then
    echo "kernel-golden: $CXX not found; nothing regenerated."
    exit 0
fi
build="$(mktemp -d /tmp/ptxsim-kernel-golden.XXXXXX)"
trap 'rm -rf "$build"' EXIT
flags=(-std=c++17 -O1 -frounding-math -fno-fast-math -ffp-contract=off -I "$NV/include" -I "$NV/include/cccl")
"$CXX" "${flags[@]}" "$here/gen.cpp" -o "$build/gen" -lm
"$CXX" "${flags[@]}" "$here/selfcheck.cpp" -o "$build/selfcheck" -lm
ver="$("$NV/bin/nvcc" --version | grep -i release | sed 's/^ *//')"
ver="$ver; headers: $NV/include (cuda_fp16/bf16/fp8/fp6/fp4.h); host compiler: $("$CXX" --version | head -1)"
rm -rf "$repo/tests/kernels"/*/ "$repo/tests/kernels/manifest.json"
"$build/gen" "$repo" "$ver"
"$build/selfcheck" "$repo"
echo "kernel-golden: done ($(du -sh "$repo/tests/kernels" | cut -f1))"
