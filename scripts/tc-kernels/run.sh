#!/usr/bin/env bash
# Builds hand-written tensor-core kernels of public projects for PTX only and runs them,
# unmodified, on ptxsim's libcuda.so.1; runners in this directory give each a small problem and
# check it against an exact host reference (check.h). See docs/tensor-cores.md, "Kernels from
# public projects".
#
#   scripts/tc-kernels/run.sh [--leetcuda DIR] [--cuda-hgemm DIR] [--fast-cu DIR]
#                             [--learn-cuda DIR] [--build DIR] [--only NAME]
#
# Each DIR is a local checkout: xlite-dev/LeetCUDA, Bruce-Lee-LY/cuda_hgemm, pranjalssh/fast.cu,
# gau-nernst/learn-cuda. Sets whose checkout is not given are skipped. --only runs one set
# (leetcuda-hgemm, cuda_hgemm, fastcu, learn-cuda-sm80, learn-cuda-sm100, learn-cuda-attn).
# Needs NVIDIA's tools (scripts/install-nvidia-tools.sh) under $PTXSIM_NVIDIA_ROOT (default
# <repo>/.nv) and a built libcuda.so: $PTXSIM_LIBCUDA, else target/release/libcuda.so
# (cargo build --release -p ptxsim-cuda). TIMEOUT (seconds, default 900) bounds each program.
# Prints the runners' `RESULT name inputs PASS|FAIL ...` lines; exits non-zero if any failed.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
NVROOT=${PTXSIM_NVIDIA_ROOT:-$REPO/.nv}
NVCC=$NVROOT/nvidia/cu13/bin/nvcc
LIBCUDA=${PTXSIM_LIBCUDA:-$REPO/target/release/libcuda.so}
TIMEOUT=${TIMEOUT:-900}
BUILD=/tmp/ptxsim-tc-kernels
LEETCUDA= HGEMM= FASTCU= LEARN= ONLY=
while [ $# -gt 0 ]; do
    case $1 in
        --leetcuda) LEETCUDA=$(cd "$2" && pwd); shift 2 ;;
        --cuda-hgemm) HGEMM=$(cd "$2" && pwd); shift 2 ;;
        --fast-cu) FASTCU=$(cd "$2" && pwd); shift 2 ;;
        --learn-cuda) LEARN=$(cd "$2" && pwd); shift 2 ;;
        --build) BUILD=$2; shift 2 ;;
        --only) ONLY=$2; shift 2 ;;
        *) echo "run.sh: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
    esac
done
if [ ! -x "$NVCC" ]; then
    echo "run.sh: nvcc not found at $NVCC (scripts/install-nvidia-tools.sh, or set PTXSIM_NVIDIA_ROOT)" >&2
    exit 2
fi
if [ ! -f "$LIBCUDA" ]; then
    echo "run.sh: $LIBCUDA not found (cargo build --release -p ptxsim-cuda, or set PTXSIM_LIBCUDA)" >&2
    exit 2
fi
mkdir -p "$BUILD/lib"
ln -sf "$(cd "$(dirname "$LIBCUDA")" && pwd)/$(basename "$LIBCUDA")" "$BUILD/lib/libcuda.so.1"
ln -sf libcuda.so.1 "$BUILD/lib/libcuda.so"

FAILED=0
# The flags PyTorch's extension builder and the projects' makefiles give nvcc, with PTX for one
# virtual architecture instead of SASS.
COMMON=(-std=c++17 -O3 --expt-relaxed-constexpr --expt-extended-lambda -w -I"$HERE" -I"$HERE/shim"
        -L"$BUILD/lib" -lcuda)

want() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }

# build NAME ARCH SOURCES... -- compiles one program (logs in $BUILD/NAME.build.log).
build() {
    local name=$1 arch=$2
    shift 2
    if ! "$NVCC" -gencode "arch=compute_$arch,code=compute_$arch" "${COMMON[@]}" "$@" \
            -o "$BUILD/$name" >"$BUILD/$name.build.log" 2>&1; then
        echo "RESULT $name build FAIL (see $BUILD/$name.build.log)"
        FAILED=1
        return 1
    fi
}

# run NAME -- runs one program on ptxsim, its output in $BUILD/NAME.log.
run() {
    local name=$1 start end
    start=$(date +%s.%N)
    LD_LIBRARY_PATH="$BUILD/lib" timeout "$TIMEOUT" "$BUILD/$name" >"$BUILD/$name.log" 2>&1
    local rc=$?
    end=$(date +%s.%N)
    grep '^RESULT' "$BUILD/$name.log"
    if [ $rc -ne 0 ]; then
        FAILED=1
        [ $rc -eq 124 ] && echo "RESULT $name run FAIL timed out after ${TIMEOUT}s"
        grep -v '^RESULT' "$BUILD/$name.log" | tail -n 5
    fi
    printf 'TIME %s %.1f s\n' "$name" "$(echo "$end - $start" | bc)"
}

if [ -n "$LEETCUDA" ] && want leetcuda-hgemm; then
    H=$LEETCUDA/kernels/hgemm
    for src in mma/basic/hgemm_mma.cu mma/basic/hgemm_mma_stage.cu mma/basic/hgemm_mma_stage_tn.cu \
               mma/swizzle/hgemm_mma_stage_swizzle.cu mma/swizzle/hgemm_mma_stage_tn_swizzle.cu \
               mma/swizzle/hgemm_mma_stage_tn_swizzle_x4.cu wmma/hgemm_wmma.cu \
               wmma/hgemm_wmma_stage.cu; do
        name=leetcuda-$(basename "$src" .cu)
        build "$name" 80 -DNO_MMA_HGEMM_BIN -I"$H/utils" "$H/$src" "$HERE/leetcuda_hgemm.cu" &&
            run "$name"
    done
fi
if [ -n "$HGEMM" ] && want cuda_hgemm; then
    S=$HGEMM/src
    build cuda_hgemm 80 -I"$S/common" "$S"/mma/*.cu "$S"/wmma/*.cu "$HERE/cuda_hgemm.cu" &&
        run cuda_hgemm
fi
if [ -n "$FASTCU" ] && want fastcu; then
    build fastcu 90a -DNDEBUG -I"$FASTCU" "$HERE/fastcu_matmul.cu" && run fastcu
fi
if [ -n "$LEARN" ] && want learn-cuda-sm80; then
    D=$LEARN/02b_matmul_sm80
    build learn-cuda-sm80 80 -I"$D" "$D"/matmul_v*.cu "$HERE/learn_cuda.cu" && run learn-cuda-sm80
fi
if [ -n "$LEARN" ] && want learn-cuda-sm100; then
    D=$LEARN/02e_matmul_sm100
    build learn-cuda-sm100 100a -I"$D" "$D"/matmul_v*.cu "$HERE/learn_cuda.cu" &&
        PTXSIM_TARGET=sm_100a run learn-cuda-sm100
fi
if [ -n "$LEARN" ] && want learn-cuda-attn; then
    D=$LEARN/07_attention
    build learn-cuda-attn 80 -I"$D" "$D"/attention_v*.cu "$HERE/learn_cuda.cu" && run learn-cuda-attn
fi
exit $FAILED
