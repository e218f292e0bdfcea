#!/usr/bin/env bash
# Offline (not CI): checks every f32 input (or [START, END) in hex) of every f32-source
# conversion the CUDA headers implement against crates/softfloat, and prints the mismatch count
# per conversion. The C++ reference streams its results into the Rust example through a pipe.
#
#   scripts/golden/exhaustive-f32.sh [START END]      e.g. 0 100000000 (all 2^32 inputs)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
root=${PTXSIM_NVIDIA_ROOT:-$repo/.nv}
inc=$root/nvidia/cu13/include
if [ ! -f "$inc/cuda_fp8.h" ]; then
    echo "exhaustive: NVIDIA CUDA headers not found under $inc (set PTXSIM_NVIDIA_ROOT); skipping."
    exit 0
fi
start=${1:-0}
end=${2:-100000000}
build=${TMPDIR:-/tmp}/ptxsim-golden
mkdir -p "$build"
"${CXX:-g++}" -O2 -std=c++17 -I "$inc" -I "$inc/cccl" -o "$build/exhaustive_ref" "$repo/scripts/golden/exhaustive_ref.cpp"
cd "$repo"
cargo build --release -p ptxsim-softfloat --example exhaustive_f32
target=${CARGO_TARGET_DIR:-$repo/target}
"$build/exhaustive_ref" "$start" "$end" | "$target/release/examples/exhaustive_f32" "$start" "$end"
