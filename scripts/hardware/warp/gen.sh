#!/usr/bin/env bash
# Compiles scripts/hardware/warp/probe.cu to tests/hardware/warp/probe.ptx (committed; .version
# lowered to 9.0 where newer, for the driver of CUDA 13.0 on the GPU machine) and writes
# tests/hardware/warp/plan.tsv: one scripts/hardware/run_gpu.cpp launch per kernel, paths
# relative to the repository root (run_gpu and compare.py run from there). No input files: the
# kernels compute their inputs from the thread index.
#
#   scripts/hardware/warp/gen.sh        (PTXSIM_NVIDIA_ROOT: default <repo>/.nv)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
nv=${PTXSIM_NVIDIA_ROOT:-$repo/.nv}
nvcc=$nv/nvidia/cu13/bin/nvcc
[ -x "$nvcc" ] || nvcc=$(command -v nvcc) || { echo "gen.sh: no nvcc under $nv or on PATH" >&2; exit 1; }
data=$repo/tests/hardware/warp
mkdir -p "$data"
"$nvcc" -ptx -arch=sm_90 -O3 "$repo/scripts/hardware/warp/probe.cu" -o "$data/probe.ptx.tmp"
sed -E 's/^\.version[[:space:]]+9\.[1-9][0-9]*\b/.version 9.0/' "$data/probe.ptx.tmp" > "$data/probe.ptx"
rm -f "$data/probe.ptx.tmp"
grep -q '^\.version 9\.0$\|^\.version [1-8]\.' "$data/probe.ptx" || { echo "gen.sh: unexpected .version" >&2; exit 1; }

# KERNEL  GRID  BLOCK  ARGS  SAVED   (out is poisoned with 0xA5; g, where there is one, zeroed)
{
    echo "# Warp and atomic probes (scripts/hardware/warp/gen.sh). run_gpu plan, paths from the repository root:"
    echo "# MODULE ENTRY GRID BLOCK ARGS SAVED; the GPU file is the saved buffers concatenated in this order."
    while read -r kernel grid block args saved; do
        printf 'tests/hardware/warp/probe.ptx\t%s\t%s\t%s\t%s\t%s\n' \
            "$kernel" "$grid" "$block" "${args//,/ }" "${saved//,/ }"
    done <<'TABLE'
shfl_c 1 32 poison:6144 0
shfl_width 1 32 poison:1024 0
shfl_partial 1 32 poison:768 0
shfl_exited 1 32 poison:768 0
vote_div 1 48 poison:3456 0
syncwarp 1 32 poison:1024 0
match_redux 1 32 poison:2432 0
atom_warp 1 32 poison:1920,zeros:64 0,1
atom_f32_warp 1 32 poison:512,zeros:16 0,1
atom_grid 4 128 poison:6144,zeros:16 0,1
block_reduce 4 256 poison:144,zeros:8 0,1
TABLE
} > "$data/plan.tsv"
echo "wrote $data/probe.ptx and $data/plan.tsv ($(grep -vc '^#' "$data/plan.tsv") launches)"
