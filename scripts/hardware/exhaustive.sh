#!/usr/bin/env bash
# Every f32 input (2^32) of each form of scripts/hardware/exhaustive-forms.tsv, on an sm_90 GPU
# and through crates/softfloat, compared chunk by chunk (scripts/hardware/exhaustive.py). Needs
# nvcc and a GPU; without them it says so and exits 0. The softfloat side takes about a minute on
# 16 cores.
#
#   scripts/hardware/exhaustive.sh OUTDIR [HW_EXHAUSTIVE_BINARY]
#
# HW_EXHAUSTIVE_BINARY defaults to target/release/examples/hw_exhaustive
# (cargo build --release -p ptxsim-softfloat --example hw_exhaustive). Writes OUTDIR/gpu.tsv,
# OUTDIR/sim.tsv and OUTDIR/exhaustive.md.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: exhaustive.sh OUTDIR [HW_EXHAUSTIVE_BINARY]}
sim=${2:-$repo/target/release/examples/hw_exhaustive}
forms=$repo/scripts/hardware/exhaustive-forms.tsv
# shellcheck source=scripts/hardware/lib.sh
source "$(dirname "$0")/lib.sh"
gpu_session exhaustive.sh "$out"
python3 "$repo/scripts/hardware/exhaustive.py" cuda "$forms" > "$work/ex.cu"
nvcc -arch=sm_90 -O2 "$work/ex.cu" -o "$work/ex"
time "$work/ex" > "$out/gpu.tsv"
time "$sim" "$forms" > "$out/sim.tsv"
python3 "$repo/scripts/hardware/exhaustive.py" compare "$forms" "$out/gpu.tsv" "$out/sim.tsv" \
    --report "$out/exhaustive.md" --device "$device"
