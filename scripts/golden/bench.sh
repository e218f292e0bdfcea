#!/usr/bin/env bash
# Builds the NVIDIA host reference loop (scripts/golden/bench_ref.cpp) and the same loop over
# crates/softfloat (example bench_compare), runs both on the same inputs and prints the time
# per conversion and the ratio reference/ptxsim (> 1 means ptxsim is faster). The checksums
# of both sides must agree (they are the same conversions on the same inputs).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
root=${PTXSIM_NVIDIA_ROOT:-$repo/.nv}
inc=$root/nvidia/cu13/include
if [ ! -f "$inc/cuda_fp8.h" ]; then
    echo "bench: NVIDIA CUDA headers not found under $inc (set PTXSIM_NVIDIA_ROOT); skipping."
    exit 0
fi
build=${TMPDIR:-/tmp}/ptxsim-golden
mkdir -p "$build"
"${CXX:-g++}" -O2 -std=c++17 -I "$inc" -I "$inc/cccl" -o "$build/bench_ref" "$repo/scripts/golden/bench_ref.cpp"
cd "$repo"
cargo build --release -p ptxsim-softfloat --example bench_compare 2>/dev/null
target=${CARGO_TARGET_DIR:-$repo/target}
"$build/bench_ref" > "$build/bench_ref.out"
"$target/release/examples/bench_compare" > "$build/bench_rs.out"
printf "%-18s %12s %12s %10s %s\n" conversion "nvidia ns" "ptxsim ns" ratio checksums
# Both programs print the conversions in the same order: name ns checksum.
paste -d' ' "$build/bench_ref.out" "$build/bench_rs.out" |
    awk '{ if ($1 != $4) { print "bench: order differs: " $1 " vs " $4; exit 1 }
           printf "%-18s %12.3f %12.3f %10.2f %s\n", $1, $2, $5, $2/$5, ($3==$6 ? "agree" : "DIFFER") }'
