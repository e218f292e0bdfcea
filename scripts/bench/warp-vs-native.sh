#!/usr/bin/env bash
# Runs the nvcc kernel warp_sum_down (ptx-samples/nvcc/warp.sm_90.ptx: a __shfl_down_sync tree per
# warp) over 2^20 elements in ptxsim (release build) with 1 and with 2 host threads, and the same
# sums as a native C++ loop (scripts/bench/warp_native.cpp, g++ -O2), on the same input, in one
# run. Prints simulated instructions per second, the time ratios ptxsim / native for the whole
# ptxsim process and for the simulation alone (`run --stats`), and checks that the outputs are
# byte-identical.
#
# Usage: scripts/bench/warp-vs-native.sh [ELEMENTS]        (default 1048576, a multiple of 256)
# Needs g++ (no NVIDIA tools).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/bench/lib.sh
. "$repo/scripts/bench/lib.sh"
n=${1:-1048576}
if ! command -v "${CXX:-g++}" >/dev/null 2>&1; then
    echo "warp-vs-native: ${CXX:-g++} not found; skipping."
    exit 0
fi
bench_setup
"${CXX:-g++}" -O2 -std=c++17 -o "$work/native" "$repo/scripts/bench/warp_native.cpp"

# Input: finite floats of mixed magnitudes and signs (a fixed seed); NaNs are left out, since
# the host's NaN payloads are not the GPU's canonical NaN.
python3 - "$work/in.f32" "$n" <<'PY'
import random, struct, sys
random.seed(20261126)
n = int(sys.argv[2])
values = [random.choice((-1, 1)) * random.uniform(1, 2) * 2.0 ** random.randint(-20, 20)
          for _ in range(n)]
open(sys.argv[1], 'wb').write(struct.pack('<%df' % n, *values))
PY
native=$("$work/native" "$work/in.f32" "$work/native.out" 5)

echo "$n elements"
compare_with_native "$work" "$native" "the same shuffle tree" \
    "$repo/ptx-samples/nvcc/warp.sm_90.ptx" warp_sum_down -- --grid "$(( n / 256 ))" --block 256 \
    --arg "buf:$work/in.f32" --arg "zeros:$(( n / 8 ))" --arg "s32:$n"
