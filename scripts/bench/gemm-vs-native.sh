#!/usr/bin/env bash
# Runs the f32 tiled shared-memory GEMM sgemm_tiled (scripts/bench/sgemm.cu, compiled here with
# `nvcc -ptx -arch=compute_90`) on N x N matrices in ptxsim (release build) with 1 and with 2
# host threads, and the same products as a native C++ loop (scripts/bench/sgemm_native.cpp,
# g++ -O2 -march=native, fmaf in the kernel's order of summation), on the same inputs, in one
# run. Prints simulated instructions per second, the time ratios ptxsim / native for the whole
# ptxsim process and for the simulation alone (`run --stats`), and checks that the outputs are
# byte-identical.
#
# Usage: scripts/bench/gemm-vs-native.sh [N]        (default 256, a multiple of 16)
# Needs nvcc under $PTXSIM_NVIDIA_ROOT (default <repo>/.nv) and g++; exits 0 with a message when
# they are absent.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/bench/lib.sh
. "$repo/scripts/bench/lib.sh"
n=${1:-256}
if [ $(( n % 16 )) -ne 0 ] || [ "$n" -le 0 ]; then
    echo "gemm-vs-native: N must be a positive multiple of 16" >&2
    exit 2
fi
need_nvcc gemm-vs-native
bench_setup
"$nvcc" -ptx -arch=compute_90 -o "$work/sgemm.ptx" "$repo/scripts/bench/sgemm.cu"
# -march=native: the host's FMA instruction for fmaf, not a library call.
"${CXX:-g++}" -O2 -march=native -std=c++17 -o "$work/native" "$repo/scripts/bench/sgemm_native.cpp"

# Inputs: finite floats of mixed magnitudes and signs (a fixed seed).
python3 - "$work/a.f32" "$work/b.f32" "$n" <<'PY'
import random, struct, sys
random.seed(20261206)
n = int(sys.argv[3])
for path in sys.argv[1:3]:
    values = [random.choice((-1, 1)) * random.uniform(1, 2) * 2.0 ** random.randint(-8, 8)
              for _ in range(n * n)]
    open(path, 'wb').write(struct.pack('<%df' % (n * n), *values))
PY
native=$("$work/native" "$work/a.f32" "$work/b.f32" "$work/native.out" "$n" 3)

echo "$n x $n x $n f32 GEMM ($(( n * n * n )) fused multiply-adds)"
OUT_ARG=2 compare_with_native "$work" "$native" "fmaf in the kernel's order, -march=native" \
    "$work/sgemm.ptx" sgemm_tiled -- --grid "$(( n / 16 )),$(( n / 16 ))" --block 16,16 \
    --arg "buf:$work/a.f32" --arg "buf:$work/b.f32" --arg "zeros:$(( n * n * 4 ))" --arg "s32:$n"
