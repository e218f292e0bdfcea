#!/usr/bin/env bash
# Regenerates the committed golden tables tests/golden/*.txt.xz from NVIDIA's CUDA headers
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
# The generator writes plain text tables into a scratch directory; the committed files are
# their xz compression (scripts/golden/xz9.sh: preset 9, single-threaded, byte-stable), so
# tests/golden/NAME.txt.xz decompresses to exactly what gen_golden wrote as NAME.txt.
tables=$build/tables
rm -rf "$tables"
mkdir -p "$tables"
"$build/gen_golden" "$tables" "$cmd"
for table in "$tables"/*.txt; do
    out=$repo/tests/golden/$(basename "$table").xz
    "$repo/scripts/golden/xz9.sh" < "$table" > "$out.tmp"
    mv "$out.tmp" "$out"
done
du -ch "$tables"/*.txt | tail -1 | sed 's/total$/as text/'
du -ch "$repo"/tests/golden/*.txt.xz | tail -1 | sed 's/total$/committed (xz)/'
