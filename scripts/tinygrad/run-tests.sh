#!/usr/bin/env bash
# Runs tinygrad's own tests against ptxsim's gpuocelot drop-in (libptxsim_ocelot.so), the way
# tinygrad's CI runs them against gpuocelot: its mock CUDA device (DEV=MOCK+CUDA:PTX) sends
# every kernel's PTX to `ptx_run`, found through OCELOT_PATH.
#
#   scripts/tinygrad/run-tests.sh TINYGRAD_CHECKOUT [PYTEST ARGS...]
#
# Without PYTEST ARGS it runs test/test_tiny.py. Python with tinygrad's test dependencies
# (numpy and pytest are enough for test_tiny.py and most of test/backend) comes from $PYTHON
# (default: python3). The library is built with cargo's dev profile unless
# PTXSIM_PROFILE=release. Other useful settings: TINYGRAD_ARCH=sm_XX (the architecture tinygrad
# renders for: DEV=MOCK+CUDA:PTX:sm_XX; without it the mock says sm_35, which has no half
# precision and no tensor cores), PTXSIM_TARGET=sm_XX (check every module for that
# architecture), PTXSIM_MAX_STEPS=N, DEBUG=5 (tinygrad prints each kernel's PTX).
# OCELOT_LIBRARY=PATH runs the tests against another library with gpuocelot's `ptx_run` instead
# of ptxsim's (gpuocelot's own libgpuocelot.so, for a comparison; ptxsim is then not built).
# Nothing of tinygrad is committed here.
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

if [ -n "${OCELOT_LIBRARY:-}" ]; then
    library=$OCELOT_LIBRARY
else
    cargo build --manifest-path "$root/Cargo.toml" -p ptxsim-ocelot --profile "$profile" >&2
    target_dir=${CARGO_TARGET_DIR:-$root/target}
    directory=$([ "$profile" = dev ] && echo debug || echo "$profile")
    library="$target_dir/$directory/libptxsim_ocelot.so"
fi
if [ ! -f "$library" ]; then
    echo "error: $library was not built" >&2
    exit 1
fi

export OCELOT_PATH="$library"
export DEV="MOCK+CUDA:PTX${TINYGRAD_ARCH:+:$TINYGRAD_ARCH}"
export FORWARD_ONLY="${FORWARD_ONLY:-1}"
export PYTHONPATH="$tinygrad${PYTHONPATH:+:$PYTHONPATH}"
cd "$tinygrad"
if [ $# -eq 0 ]; then
    set -- test/test_tiny.py
fi
echo "OCELOT_PATH=$OCELOT_PATH DEV=$DEV $python -m pytest $*" >&2
exec "$python" -m pytest "$@"
