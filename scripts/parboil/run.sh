#!/usr/bin/env bash
# Builds Parboil's CUDA benchmarks for PTX only (no Parboil driver), runs them on ptxsim's
# libcuda.so.1 on small generated inputs and compares their outputs with Parboil's CPU versions'
# (parboil.py).
#
#   scripts/parboil/run.sh <Parboil checkout> [build dir, default /tmp/ptxsim-parboil]
#
# Needs NVIDIA's tools (scripts/install-nvidia-tools.sh) under $PTXSIM_NVIDIA_ROOT (default
# <repo>/.nv) and a built target/release/libcuda.so (PTXSIM_LIBCUDA names another one).
# BENCHMARKS and TIMEOUT as in scripts/hecbench/run.sh.
set -euo pipefail
exec python3 "$(dirname "$0")/parboil.py" "$@"
