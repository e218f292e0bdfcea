#!/usr/bin/env bash
# Runs the nvcc kernel f32_to_e4m3 (ptx-samples/nvcc/fp8_convert.sm_90.ptx) over 2^20 threads
# in ptxsim (release build) with 1 and with 2 host threads, and the same conversions as a native
# C++ loop over NVIDIA's host function __nv_cvt_float_to_fp8 (cuda_fp8.h), on the same input,
# in one run. Prints simulated instructions per second, the time ratios ptxsim / native (target:
# at most 20) for the whole ptxsim process and for the simulation alone (`run --stats`; the
# native figure is its loop alone), the 1-core vs 2-core scaling, and checks that the outputs
# are byte-identical.
#
# Usage: scripts/bench/kernel-vs-native.sh [THREADS]        (default 1048576)
# Needs the NVIDIA headers under $PTXSIM_NVIDIA_ROOT (default <repo>/.nv) and g++; exits 0 with
# a message when they are absent.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/bench/lib.sh
. "$repo/scripts/bench/lib.sh"
threads=${1:-1048576}
root=${PTXSIM_NVIDIA_ROOT:-$repo/.nv}
inc=$root/nvidia/cu13/include
if [ ! -f "$inc/cuda_fp8.h" ]; then
    echo "kernel-vs-native: NVIDIA headers not found under $inc (set PTXSIM_NVIDIA_ROOT); skipping."
    exit 0
fi
bench_setup
"${CXX:-g++}" -O2 -std=c++17 -I "$inc" -I "$inc/cccl" -o "$work/native" "$repo/scripts/bench/kernel_native.cpp"

# Input: the 12288 values of tests/kernels/common/f32.bin (specials, boundaries, random),
# repeated to the thread count.
python3 - "$repo/tests/kernels/common/f32.bin" "$work/in.f32" "$threads" <<'PY'
import sys
src = open(sys.argv[1], 'rb').read()
n = int(sys.argv[3])
data = (src * (n * 4 // len(src) + 1))[: n * 4]
open(sys.argv[2], 'wb').write(data)
PY
native=$("$work/native" "$work/in.f32" "$work/native.out" 5)

echo "$threads threads"
# Best of 5 runs: the whole process (parse, read the input, simulate, write the output) and
# the simulation alone (`--stats`: the launch, as the native loop's time is the loop alone).
compare_with_native "$work" "$native" "__nv_cvt_float_to_fp8" \
    "$repo/ptx-samples/nvcc/fp8_convert.sm_90.ptx" f32_to_e4m3 -- --grid "$(( (threads + 255) / 256 ))" \
    --block 256 --arg "buf:$work/in.f32" --arg "zeros:$threads" --arg "s32:$threads"
