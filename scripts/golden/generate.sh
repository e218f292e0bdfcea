#!/usr/bin/env bash
# Regenerates the committed golden tables in tests/golden/ from NVIDIA's CUDA headers
# (style rule 10: golden data is generated, not typed).
#
#   PTXSIM_NVIDIA_ROOT  root of the NVIDIA packages (default: <repo>/.nv); the headers are read
#                       from $PTXSIM_NVIDIA_ROOT/nvidia/cu13/include.
#   CXX                 C++ compiler (default g++); needs C++17 and an IEEE x86-64/aarch64 FPU.
#
# Exits 0 with a message when the headers are absent, so CI without NVIDIA packages passes.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
root=${PTXSIM_NVIDIA_ROOT:-$repo/.nv}
inc=$root/nvidia/cu13/include
if [ ! -f "$inc/cuda_fp8.h" ] || [ ! -f "$inc/cuda_fp6.h" ] || [ ! -f "$inc/cuda_fp4.h" ]; then
    echo "golden: NVIDIA CUDA headers not found under $inc (set PTXSIM_NVIDIA_ROOT); skipping."
    exit 0
fi
CXX=${CXX:-g++}
build=${TMPDIR:-/tmp}/ptxsim-golden
mkdir -p "$build" "$repo/tests/golden"
flags=(-O2 -std=c++17 -frounding-math)
echo "golden: compiling scripts/golden/gen_golden.cpp against $inc"
"$CXX" "${flags[@]}" -I "$inc" -I "$inc/cccl" -o "$build/gen_golden" "$repo/scripts/golden/gen_golden.cpp"
cmd="scripts/golden/generate.sh: $CXX ${flags[*]} -I \$NV/include -I \$NV/include/cccl scripts/golden/gen_golden.cpp && gen_golden tests/golden (NV=\$PTXSIM_NVIDIA_ROOT/nvidia/cu13)"
"$build/gen_golden" "$repo/tests/golden" "$cmd"
du -ch "$repo"/tests/golden/*.txt | tail -1
