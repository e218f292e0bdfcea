#!/usr/bin/env bash
# Builds PolyBench/ACC's CUDA programs for PTX only and runs them on ptxsim's libcuda.so.1,
# each checked against the CPU computation the program does itself (polybench.py).
#
#   scripts/polybench-acc/run.sh <PolyBench-ACC checkout> [build dir, default /tmp/ptxsim-polybench-acc]
#
# Needs NVIDIA's tools (scripts/install-nvidia-tools.sh) under $PTXSIM_NVIDIA_ROOT (default
# <repo>/.nv) and a built target/release/libcuda.so (CARGO_PROFILE_RELEASE_LTO=false cargo build
# --release -p ptxsim-cuda; PTXSIM_LIBCUDA names another one). BENCHMARKS and TIMEOUT as in
# scripts/hecbench/run.sh.
set -euo pipefail
exec python3 "$(dirname "$0")/polybench.py" "$@"
