#!/usr/bin/env bash
# Builds the programs of CoffeeBeforeArch's CUDA tutorials for PTX only and runs them on ptxsim's libcuda.so.1,
# each judged by its own asserts against the host (cba.py).
#
#   scripts/coffeebeforearch/run.sh <cuda_programming checkout> [build dir, default /tmp/ptxsim-cba]
#
# Needs NVIDIA's tools (scripts/install-nvidia-tools.sh) under $PTXSIM_NVIDIA_ROOT (default
# <repo>/.nv) and a built target/release/libcuda.so (PTXSIM_LIBCUDA names another one).
# BENCHMARKS and TIMEOUT as in scripts/hecbench/run.sh.
set -euo pipefail
exec python3 "$(dirname "$0")/cba.py" "$@"
