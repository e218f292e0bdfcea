#!/usr/bin/env bash
# Runs tinygrad's own tests against ptxsim's CUDA driver library (crates/cuda, libcuda.so.1):
# tinygrad's real CUDA device (not the mock) with its PTX renderer (DEV=CUDA:PTX) makes driver
# API calls (runtime/ops_cuda.py) on the library named by CUDA_PATH. See docs/driver-api.md.
#
#   scripts/tinygrad/run-tests-driver.sh TINYGRAD_CHECKOUT [PYTEST ARGS...]
#
# Without PYTEST ARGS it runs test/test_tiny.py (with `python -m unittest` where pytest is not
# installed: test_tiny.py needs nothing but tinygrad). Python comes from $PYTHON (default:
# python3). The library is built with cargo's dev profile unless PTXSIM_PROFILE=release. Other
# settings: PTXSIM_TARGET=sm_XX (the simulated architecture, default sm_90), PTXSIM_MAX_STEPS=N,
# DEBUG=5 (tinygrad prints each kernel's PTX). Nothing of tinygrad is committed here.
set -euo pipefail

if [ $# -lt 1 ] || [ ! -d "$1/tinygrad" ]; then
    echo "usage: $0 TINYGRAD_CHECKOUT [PYTEST ARGS...]" >&2
    exit 2
fi
tinygrad=$(cd "$1" && pwd)
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
profile=${PTXSIM_PROFILE:-dev}
python=${PYTHON:-python3}

cargo build --manifest-path "$root/Cargo.toml" -p ptxsim-cuda --profile "$profile" >&2
target_dir=${CARGO_TARGET_DIR:-$root/target}
directory=$([ "$profile" = dev ] && echo debug || echo "$profile")
library="$target_dir/$directory/libcuda.so"
if [ ! -f "$library" ]; then
    echo "error: $library was not built" >&2
    exit 1
fi

export CUDA_PATH="$library"
export DEV="CUDA:PTX"
export PYTHONPATH="$tinygrad${PYTHONPATH:+:$PYTHONPATH}"
cd "$tinygrad"
if [ $# -eq 0 ] && ! "$python" -c "import pytest" 2>/dev/null; then
    echo "CUDA_PATH=$CUDA_PATH DEV=$DEV $python -m unittest test.test_tiny" >&2
    exec "$python" -m unittest test.test_tiny
fi
if [ $# -eq 0 ]; then
    set -- test/test_tiny.py
fi
echo "CUDA_PATH=$CUDA_PATH DEV=$DEV $python -m pytest $*" >&2
exec "$python" -m pytest "$@"
