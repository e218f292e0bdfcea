#!/usr/bin/env bash
# Builds the examples of "Professional CUDA C Programming" for PTX only and runs them on ptxsim's libcuda.so.1,
# each judged by its own check against the host (pcuda.py).
#
#   scripts/professional-cuda-c/run.sh <professional-cuda-c-programming checkout> [build dir, default /tmp/ptxsim-pcuda]
#
# Needs NVIDIA's tools (scripts/install-nvidia-tools.sh) under $PTXSIM_NVIDIA_ROOT (default
# <repo>/.nv) and a built target/release/libcuda.so (PTXSIM_LIBCUDA names another one).
# BENCHMARKS and TIMEOUT as in scripts/hecbench/run.sh.
set -euo pipefail
exec python3 "$(dirname "$0")/pcuda.py" "$@"
