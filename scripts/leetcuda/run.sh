#!/usr/bin/env bash
# Builds LeetCUDA's CUDA-core kernels for PTX only and runs them on ptxsim's libcuda.so.1,
# each binding checked against the host (leetcuda.py).
#
#   scripts/leetcuda/run.sh <LeetCUDA checkout> [build dir, default /tmp/ptxsim-leetcuda]
#
# Needs NVIDIA's tools (scripts/install-nvidia-tools.sh) under $PTXSIM_NVIDIA_ROOT (default
# <repo>/.nv) and a built target/release/libcuda.so (PTXSIM_LIBCUDA names another one).
# BENCHMARKS and TIMEOUT as in scripts/hecbench/run.sh.
set -euo pipefail
exec python3 "$(dirname "$0")/leetcuda.py" "$@"
