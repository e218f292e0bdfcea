#!/usr/bin/env bash
# Regenerates the fatbin samples in tests/fatbin/ (read by crates/cuda/tests/fatbin.rs) from
# add.cu and block_sum.cu there: NAME.fatbin from `nvcc -fatbin` with the options below, and
# the reference PTX NAME.ptx from `nvcc -ptx` with the same architecture and options. nvcc is
# looked up in $PTXSIM_NVIDIA_ROOT/nvidia/cu13/bin (default root: <repo>/.nv), then on PATH;
# without it the script says so and exits 0.
#
# The sources are compiled in a fixed directory (/tmp/ptxsim-fatbin-regen), because -G and
# -lineinfo write the source's absolute path into the PTX and the fatbin.
#
# Usage: scripts/fatbin/regen.sh
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$repo/tests/fatbin"
nvidia_root="${PTXSIM_NVIDIA_ROOT:-$repo/.nv}"
nvcc="$nvidia_root/nvidia/cu13/bin/nvcc"
if [[ ! -x "$nvcc" ]]; then
    nvcc="$(command -v nvcc || true)"
fi
if [[ -z "$nvcc" ]]; then
    echo "fatbin/regen: nvcc not found (set PTXSIM_NVIDIA_ROOT or PATH); skipping."
    exit 0
fi
export PATH="$(dirname "$nvcc"):$PATH"

work=/tmp/ptxsim-fatbin-regen
rm -rf "$work"
mkdir -p "$work"
cp "$out/add.cu" "$out/block_sum.cu" "$work/"
cd "$work"

gencode() { # compute_90 -> -gencode arch=compute_90,code=compute_90 (PTX); sm_90 -> SASS
    case "$1" in
        compute_*) echo "-gencode arch=$1,code=$1" ;;
        sm_*) echo "-gencode arch=compute_${1#sm_},code=$1" ;;
    esac
}

# fatbin NAME SOURCE "ARCHS" [NVCC OPTIONS...]
fatbin() {
    local name="$1" source="$2" archs="$3"
    shift 3
    local flags=()
    for arch in $archs; do
        # shellcheck disable=SC2207
        flags+=($(gencode "$arch"))
    done
    "$nvcc" -fatbin "${flags[@]}" "$@" "$source" -o "$out/$name.fatbin"
}

# ptx NAME SOURCE ARCH [NVCC OPTIONS...]: the reference text, with nvcc's own options
ptx() {
    local name="$1" source="$2" arch="$3"
    shift 3
    "$nvcc" -ptx -arch="$arch" "$@" "$source" -o "$out/$name.ptx"
}

fatbin add.none add.cu compute_90 -compress-mode=none
fatbin add.zstd add.cu compute_90
fatbin add.size add.cu compute_90 -compress-mode=size
fatbin add.lz4 add.cu compute_90 -compress-mode=speed
fatbin add.multi add.cu "compute_80 compute_90 sm_90"
fatbin add.sass add.cu sm_90
fatbin add.compress_all add.cu "sm_80 compute_90" -compress-mode=speed -Xfatbin=-compress-all
fatbin add.concat add.cu "compute_80 sm_80 compute_90" -concat -Xfatbin=-compress-all
fatbin add.concat_lineinfo add.cu "compute_80 compute_90" -concat -lineinfo
fatbin add.variants add.cu "compute_90a compute_100f compute_100a compute_100"
fatbin add.debug add.cu compute_90 -G
fatbin add.options add.cu compute_90 -Xptxas -O1
fatbin block_sum block_sum.cu "compute_75 compute_90"

for arch in compute_80 compute_90 compute_90a compute_100 compute_100a compute_100f; do
    ptx "add.$arch" add.cu "$arch"
done
ptx add.lineinfo.compute_80 add.cu compute_80 -lineinfo
ptx add.lineinfo.compute_90 add.cu compute_90 -lineinfo
ptx add.debug.compute_90 add.cu compute_90 -G
ptx block_sum.compute_75 block_sum.cu compute_75
ptx block_sum.compute_90 block_sum.cu compute_90

rm -rf "$work"
ls -l "$out"
