#!/usr/bin/env bash
# Runs the bf16 tensor-core GEMM bf16_gemm (scripts/bench/mma_gemm.cu: `mma.sync` m16n8k16
# bf16 -> f32 from shared memory, compiled here with `nvcc -ptx -arch=compute_90`) on N x N
# matrices in ptxsim (release build) with 1 and with 2 host threads, and the same product as a
# native C++ loop (scripts/bench/mma_gemm_native.cpp, g++ -O2 -march=native), on the same
# inputs, in one run. The inputs are integers in [-4, 4], so every sum is exact and the outputs
# must be byte-identical whatever the order of accumulation. Prints simulated instructions per
# second, the time ratios ptxsim / native for the whole ptxsim process and for the simulation
# alone (`run --stats`).
#
# Usage: scripts/bench/mma-gemm-vs-native.sh [N]        (default 1024, a multiple of 64)
# Needs nvcc under $PTXSIM_NVIDIA_ROOT (default <repo>/.nv) and g++; exits 0 with a message when
# they are absent.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/bench/lib.sh
. "$repo/scripts/bench/lib.sh"
n=${1:-1024}
if [ $(( n % 64 )) -ne 0 ] || [ "$n" -le 0 ]; then
    echo "mma-gemm-vs-native: N must be a positive multiple of 64" >&2
    exit 2
fi
need_nvcc mma-gemm-vs-native
bench_setup
"$nvcc" -ptx -arch=compute_90 -o "$work/mma.ptx" "$repo/scripts/bench/mma_gemm.cu"
"${CXX:-g++}" -O2 -march=native -std=c++17 -o "$work/native" "$repo/scripts/bench/mma_gemm_native.cpp"

# Inputs: bf16 integers in [-4, 4] (a fixed seed); A row major, B column major.
python3 - "$work/a.bf16" "$work/bt.bf16" "$n" <<'PY'
import random, struct, sys
random.seed(20261207)
n = int(sys.argv[3])
for path in sys.argv[1:3]:
    # bf16 is the high half of the f32 encoding; small integers are exact in it.
    words = [struct.unpack('<I', struct.pack('<f', float(random.randint(-4, 4))))[0] >> 16
             for _ in range(n * n)]
    open(path, 'wb').write(struct.pack('<%dH' % (n * n), *words))
PY
native=$("$work/native" "$work/a.bf16" "$work/bt.bf16" "$work/native.out" "$n" 3)

echo "$n x $n x $n bf16 GEMM on mma.sync ($(( n * n * n )) multiply-adds)"
OUT_ARG=2 compare_with_native "$work" "$native" "i-k-j f32 loop, -march=native" \
    "$work/mma.ptx" bf16_gemm -- --grid "$(( n / 64 )),$(( n / 64 ))" --block 128 \
    --arg "buf:$work/a.bf16" --arg "buf:$work/bt.bf16" --arg "zeros:$(( n * n * 4 ))" --arg "s32:$n"
