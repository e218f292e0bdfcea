#!/usr/bin/env bash
# Regenerates ptx-samples/cutlass-sm100/: the PTX of CUTLASS's sm_100a GEMMs
# (scripts/blackwell/cutlass_sm100.cu: a 1SM and a 2SM tcgen05 kernel, and a block-scaled MXFP8
# one of each) and their launches (grid, block, cluster, shared memory, the Params block with
# placeholder pointers and the tensor maps' encoding arguments), which
# crates/exec/tests/suite/cutlass.rs runs. Checks the PTX with ptxas, and with --run runs
# each program itself (CUTLASS's device adapter, host reference) on ptxsim's libcuda.so.1.
#
#   CUTLASS_DIR=/path/to/cutlass scripts/blackwell/cutlass-sm100.sh [--run] [VARIANT...]
#
# VARIANT: gemm_1sm, gemm_2sm, gemm_mxfp8, gemm_mxfp8_2sm (the default: all four, committed).
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
    echo "cutlass-sm100.sh: nvcc not found at $CU/bin (set PTXSIM_NVIDIA_ROOT)" >&2
    exit 1
fi
RUN=
if [ "${1:-}" = --run ]; then
    RUN=1
    shift
fi
VARIANTS=("$@")
[ ${#VARIANTS[@]} -gt 0 ] || VARIANTS=(gemm_1sm gemm_2sm gemm_mxfp8 gemm_mxfp8_2sm)

STAGE=/tmp/ptxsim-cutlass-sm100-stage
mkdir -p "$STAGE"
cp "$HERE/cutlass_sm100.cu" "$HERE/launch_dump.h" "$STAGE/"
ln -sfn "$(cd "$CUTLASS_DIR" && pwd)" "$STAGE/cutlass"
OUT=$REPO/ptx-samples/cutlass-sm100
mkdir -p "$OUT"
if [ -n "$RUN" ]; then
    (cd "$REPO" && CARGO_PROFILE_RELEASE_LTO=false cargo build --release -p ptxsim-cuda)
    mkdir -p "$STAGE/lib"
    ln -sf "$REPO/target/release/libcuda.so" "$STAGE/lib/libcuda.so.1"
fi
cd "$STAGE"
for NAME in "${VARIANTS[@]}"; do
    case $NAME in
        gemm_1sm) FLAG= ;;
        gemm_2sm) FLAG=-DTWO_SM ;;
        gemm_mxfp8) FLAG=-DMXFP8 ;;
        gemm_mxfp8_2sm) FLAG="-DMXFP8 -DTWO_SM" ;;
        *) echo "cutlass-sm100.sh: unknown variant $NAME" >&2; exit 2 ;;
    esac
    rm -rf "keep-$NAME"
    mkdir -p "keep-$NAME"
    "$CU/bin/nvcc" -std=c++17 -O2 -Icutlass/include -Icutlass/tools/util/include \
        --expt-relaxed-constexpr -DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL=1 $FLAG \
        -gencode arch=compute_100a,code=compute_100a --keep --keep-dir "keep-$NAME" \
        cutlass_sm100.cu -o "$NAME" -ldl
    "$CU/bin/ptxas" -arch sm_100a "keep-$NAME/cutlass_sm100.ptx" -o /dev/null
    cp "keep-$NAME/cutlass_sm100.ptx" "$OUT/$NAME.sm_100a.ptx"
    "./$NAME" params "$OUT/$NAME.params.json"
    echo "wrote $OUT/$NAME.sm_100a.ptx and $NAME.params.json"
    if [ -n "$RUN" ]; then
        LD_LIBRARY_PATH="$STAGE/lib" PTXSIM_TARGET=sm_100a "./$NAME"
    fi
done
