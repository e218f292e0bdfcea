#!/usr/bin/env bash
# Builds CUTLASS's own examples, unmodified, with nvcc for PTX only, runs each on ptxsim's
# libcuda.so.1 with its own verification (host or device reference GEMM, "Passed"), and prints a
# table: example, architecture, arguments, verdict, seconds, instructions issued.
#
#   scripts/cutlass/examples.sh CUTLASS_CHECKOUT [BUILD_DIR] [NAME...]
#
# CUTLASS_CHECKOUT: a checkout of NVIDIA/cutlass (include/, tools/util/include/, examples/); the
# table in docs/tensor-cores.md was made from commit 7107b05535f8977f5ecb9d01ee203205b1fd9bc4.
# BUILD_DIR (default /tmp/ptxsim-cutlass-examples): binaries, logs (NAME.build.log, NAME.log)
# and results.tsv. An example already built there is not built again (delete its binary).
# NAME: the examples of scripts/cutlass/examples.tsv to run (default: all of them).
# Tools: $PTXSIM_NVIDIA_ROOT (default <repo>/.nv, scripts/install-nvidia-tools.sh) with nvcc in
# nvidia/cu13/bin; CUTLASS's device reference fills need curand_kernel.h, which this script
# takes from the nvidia-curand wheel (pip download, headers only) when nvidia/cu13/include has
# none. Each nvcc takes minutes and about 3 GB of memory.
# Environment: TIMEOUT (seconds per run, default 600); PTXSIM_LIB, a libcuda.so to use instead of
# building crates/cuda (release, without LTO).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
NVROOT=${PTXSIM_NVIDIA_ROOT:-$REPO/.nv}
CU=$NVROOT/nvidia/cu13
if [ $# -lt 1 ]; then
    echo "usage: scripts/cutlass/examples.sh CUTLASS_CHECKOUT [BUILD_DIR] [NAME...]" >&2
    exit 2
fi
CUTLASS=$(cd "$1" && pwd)
BUILD=${2:-/tmp/ptxsim-cutlass-examples}
shift $(($# >= 2 ? 2 : 1))
ONLY=("$@")
TIMEOUT=${TIMEOUT:-600}
if [ ! -x "$CU/bin/nvcc" ]; then
    echo "examples.sh: nvcc not found at $CU/bin (set PTXSIM_NVIDIA_ROOT)" >&2
    exit 1
fi
if [ ! -d "$CUTLASS/include/cutlass" ] || [ ! -d "$CUTLASS/examples" ]; then
    echo "examples.sh: $CUTLASS is not a CUTLASS checkout (include/cutlass, examples/)" >&2
    exit 1
fi
mkdir -p "$BUILD/lib"
BUILD=$(cd "$BUILD" && pwd)

# curand_kernel.h, for CUTLASS's device-side tensor fills.
CURAND_INC=$CU/include
if [ ! -f "$CURAND_INC/curand_kernel.h" ]; then
    CURAND_INC=$BUILD/curand/nvidia/cu13/include
    if [ ! -f "$CURAND_INC/curand_kernel.h" ]; then
        tmp=$(mktemp -d)
        python3 -m pip download --no-deps -d "$tmp" nvidia-curand >&2
        python3 - "$tmp"/*.whl "$BUILD/curand" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in wheel.namelist():
        if "/include/" in name:
            wheel.extract(name, sys.argv[2])
EOF
        rm -rf "$tmp"
    fi
fi

# The driver library.
if [ -n "${PTXSIM_LIB:-}" ]; then
    LIB=$PTXSIM_LIB
else
    (cd "$REPO" && CARGO_PROFILE_RELEASE_LTO=false cargo build --release -p ptxsim-cuda >&2)
    LIB=${CARGO_TARGET_DIR:-$REPO/target}/release/libcuda.so
fi
# Examples that call the driver API themselves link against it (as CUTLASS's CMake links
# libcuda); the soname is libcuda.so.1, so they load whichever is first on LD_LIBRARY_PATH.
ln -sf "$LIB" "$BUILD/lib/libcuda.so.1"
ln -sf "$LIB" "$BUILD/lib/libcuda.so"

RESULTS=$BUILD/results.tsv
printf 'example\tarch\targuments\tverdict\tseconds\tinstructions\n' >"$RESULTS"
while IFS=$'\t' read -r NAME SRC ARCH ARGS; do
    case $NAME in '#'* | '') continue ;; esac
    if [ ${#ONLY[@]} -gt 0 ] && [[ ! " ${ONLY[*]} " == *" $NAME "* ]]; then
        continue
    fi
    BIN=$BUILD/ex$NAME
    LOG=$BUILD/$NAME.log
    if [ ! -x "$BIN" ]; then
        echo "building $NAME ($SRC, compute_$ARCH)" >&2
        if ! "$CU/bin/nvcc" -std=c++17 -O2 --expt-relaxed-constexpr \
            -I"$CUTLASS/include" -I"$CUTLASS/tools/util/include" -I"$CUTLASS/examples/common" \
            -I"$CUTLASS/examples/$(dirname "$SRC")" -I"$CURAND_INC" \
            -gencode "arch=compute_$ARCH,code=compute_$ARCH" \
            "$CUTLASS/examples/$SRC" -o "$BIN" -L"$BUILD/lib" -lcuda -ldl >"$BUILD/$NAME.build.log" 2>&1; then
            printf '%s\tsm_%s\t%s\tbuild failed\t-\t-\n' "$NAME" "$ARCH" "$ARGS" >>"$RESULTS"
            continue
        fi
    fi
    echo "running $NAME $ARGS" >&2
    start=$(date +%s.%N)
    rc=0
    # shellcheck disable=SC2086 # ARGS is a list of arguments
    LD_LIBRARY_PATH=$BUILD/lib PTXSIM_TARGET=sm_$ARCH PTXSIM_LOG=launches \
        timeout "$TIMEOUT" "$BIN" $ARGS >"$LOG" 2>&1 </dev/null || rc=$?
    seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    # The examples print "Passed" (most as "Disposition: Passed"; 77: "[OK]") for each kernel
    # they verify, and "Failed" (77: "[FAIL]"), or exit non-zero, when one differs from the
    # reference.
    passed=$(grep -cE 'Passed|\[OK\]' "$LOG" || true)
    failed=$(grep -cE 'Failed|failed|FAIL' "$LOG" || true)
    if [ "$rc" = 124 ]; then
        verdict="timed out (${TIMEOUT} s)"
    elif [ "$rc" = 0 ] && [ "$passed" -gt 0 ] && [ "$failed" = 0 ]; then
        verdict="passed ($passed)"
    else
        verdict="failed (exit $rc)"
    fi
    instructions=$(sed -n 's/.*: \([0-9]*\) instructions in .*/\1/p' "$LOG" |
        awk '{ n += $1 } END { printf "%.0f", n }')
    printf '%s\tsm_%s\t%s\t%s\t%.1f\t%s\n' "$NAME" "$ARCH" "$ARGS" "$verdict" "$seconds" \
        "${instructions:-0}" >>"$RESULTS"
done <"$HERE/examples.tsv"
column -t -s $'\t' "$RESULTS"
