#!/usr/bin/env bash
# Builds SHOC's CUDA benchmarks for PTX only (no autotools) and runs them on ptxsim's
# libcuda.so.1 at problem size 1, each judged by its own check (shoc.py).
#
#   scripts/shoc/run.sh <SHOC checkout> [build dir, default /tmp/ptxsim-shoc]
#
# Needs NVIDIA's tools (scripts/install-nvidia-tools.sh) under $PTXSIM_NVIDIA_ROOT (default
# <repo>/.nv) and a built target/release/libcuda.so (PTXSIM_LIBCUDA names another one).
# BENCHMARKS and TIMEOUT as in scripts/hecbench/run.sh.
set -euo pipefail
exec python3 "$(dirname "$0")/shoc.py" "$@"
