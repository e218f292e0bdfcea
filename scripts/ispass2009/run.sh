#!/usr/bin/env bash
# Builds GPGPU-Sim's ISPASS-2009 benchmarks for PTX only and runs them on ptxsim's libcuda.so.1,
# each judged by its own check or the runner's (ispass2009.py).
#
#   scripts/ispass2009/run.sh <ispass2009-benchmarks checkout> [build dir, default /tmp/ptxsim-ispass2009]
#
# Needs NVIDIA's tools (scripts/install-nvidia-tools.sh) under $PTXSIM_NVIDIA_ROOT (default
# <repo>/.nv) and a built target/release/libcuda.so (PTXSIM_LIBCUDA names another one).
# BENCHMARKS and TIMEOUT as in scripts/hecbench/run.sh.
set -euo pipefail
exec python3 "$(dirname "$0")/ispass2009.py" "$@"
