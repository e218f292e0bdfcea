#!/usr/bin/env bash
# Builds the OLCF CUDA Training Series' exercise solutions for PTX only and runs them
# on ptxsim's libcuda.so.1, each judged by its own check (olcf.py).
#
#   scripts/olcf-training/run.sh <cuda-training-series checkout> [build dir, default /tmp/ptxsim-olcf-training]
#
# Needs NVIDIA's tools (scripts/install-nvidia-tools.sh) under $PTXSIM_NVIDIA_ROOT (default
# <repo>/.nv) and a built target/release/libcuda.so (CARGO_PROFILE_RELEASE_LTO=false cargo build
# --release -p ptxsim-cuda; PTXSIM_LIBCUDA names another one). BENCHMARKS and TIMEOUT as in
# scripts/hecbench/run.sh.
set -euo pipefail
exec python3 "$(dirname "$0")/olcf.py" "$@"
