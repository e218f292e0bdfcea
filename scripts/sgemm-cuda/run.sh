#!/usr/bin/env bash
# Builds siboehm/SGEMM_CUDA's kernels 1-12 for PTX only and runs them on ptxsim's libcuda.so.1,
# each checked against a host SGEMM (sgemm.py).
#
#   scripts/sgemm-cuda/run.sh <SGEMM_CUDA checkout> [build dir, default /tmp/ptxsim-sgemm-cuda]
#
# Needs NVIDIA's tools (scripts/install-nvidia-tools.sh) under $PTXSIM_NVIDIA_ROOT (default
# <repo>/.nv) and a built target/release/libcuda.so (PTXSIM_LIBCUDA names another one).
# BENCHMARKS and TIMEOUT as in scripts/hecbench/run.sh.
set -euo pipefail
exec python3 "$(dirname "$0")/sgemm.py" "$@"
