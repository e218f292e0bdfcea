#!/usr/bin/env bash
# Regenerates ptx-samples/cutlass/: the PTX of two CUTLASS 3 sm_90a GEMMs (scripts/hopper/
# cutlass_gemm.cu, a cooperative and a pingpong warp-specialized kernel) and its launch (grid, block, cluster, shared memory, the Params block with
# placeholder pointers and the tensor maps' encoding arguments), which
# crates/exec/tests/suite/cutlass.rs runs. Also checks the PTX with ptxas, and with --run runs
# the program itself (CUTLASS's device adapter, host reference) on ptxsim's libcuda.so.1.
#
#   CUTLASS_DIR=/path/to/cutlass scripts/hopper/cutlass-gemm.sh [--run]
#
# CUTLASS_DIR: a checkout of NVIDIA/cutlass (include/, tools/util/include/); the committed
# files were made from commit 7107b05535f8977f5ecb9d01ee203205b1fd9bc4 (v4.x, 2026-08-20).
# Tools: $PTXSIM_NVIDIA_ROOT (default: <repo>/.nv) with nvcc and ptxas in nvidia/cu13/bin
# (CUDA 13.5). nvcc takes minutes and about 3 GB of memory for each kernel.
# The output does not depend on where the checkout lives: the source is compiled from a fixed
# staging directory.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
NVROOT=${PTXSIM_NVIDIA_ROOT:-$REPO/.nv}
CU=$NVROOT/nvidia/cu13
: "${CUTLASS_DIR:?set CUTLASS_DIR to a checkout of NVIDIA/cutlass}"
if [ ! -x "$CU/bin/nvcc" ]; then
    echo "cutlass-gemm.sh: nvcc not found at $CU/bin (set PTXSIM_NVIDIA_ROOT)" >&2
    exit 1
fi

STAGE=/tmp/ptxsim-cutlass-stage
rm -rf "$STAGE"
mkdir -p "$STAGE"
cp "$HERE/cutlass_gemm.cu" "$HERE/../blackwell/launch_dump.h" "$STAGE/"
ln -s "$(cd "$CUTLASS_DIR" && pwd)" "$STAGE/cutlass"
OUT=$REPO/ptx-samples/cutlass
mkdir -p "$OUT"
if [ "${1:-}" = --run ]; then
    (cd "$REPO" && cargo build --release -p ptxsim-cuda)
    mkdir -p "$STAGE/lib"
    ln -sf "$REPO/target/release/libcuda.so" "$STAGE/lib/libcuda.so.1"
fi
cd "$STAGE"
# name, and the nvcc flag that picks its schedule in cutlass_gemm.cu
for variant in gemm_tma_ws_cooperative: gemm_tma_ws_pingpong:-DPINGPONG; do
    NAME=${variant%%:*}
    FLAG=${variant#*:}
    mkdir -p "keep-$NAME"
    "$CU/bin/nvcc" -std=c++17 -O2 -Icutlass/include -Icutlass/tools/util/include \
        --expt-relaxed-constexpr -DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL=1 $FLAG \
        -gencode arch=compute_90a,code=compute_90a --keep --keep-dir "keep-$NAME" \
        cutlass_gemm.cu -o "$NAME" -ldl
    "$CU/bin/ptxas" -arch sm_90a "keep-$NAME/cutlass_gemm.ptx" -o /dev/null
    cp "keep-$NAME/cutlass_gemm.ptx" "$OUT/$NAME.sm_90a.ptx"
    "./$NAME" params "$OUT/$NAME.params.json"
    echo "wrote $OUT/$NAME.sm_90a.ptx and $NAME.params.json"
    if [ "${1:-}" = --run ]; then
        LD_LIBRARY_PATH="$STAGE/lib" "./$NAME"
    fi
done
