#!/usr/bin/env bash
# Runs a module of scripts/hardware/ops_gen.py (DATA_DIR tests/hardware/ops, the default, or
# tests/hardware/scalar) on an sm_90 GPU and writes OUTDIR/<name>-gpu.bin.xz (<name> is the
# folder's name: ops, scalar), the outputs of every kernel in forms.tsv order (what
# crates/exec/tests/suite/hardware.rs compares ptxsim with). Needs nvcc and a GPU; without them it
# says so and exits 0.
#
#   scripts/hardware/run-ops.sh OUTDIR [DATA_DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run-ops.sh OUTDIR [DATA_DIR]}
data=${2:-tests/hardware/ops}
name=$(basename "$data")
# shellcheck source=scripts/hardware/lib.sh
source "$(dirname "$0")/lib.sh"
gpu_session run-ops.sh "$out"
cd "$repo"
echo "device: $device; $(nvcc --version | tail -n1)"
nvcc -O2 -std=c++17 scripts/hardware/run_gpu.cpp -o "$work/run_gpu" -lcuda
# One launch per form: 256-thread CTAs over the 4,096 input rows, output poisoned and saved.
# The input rows: the set's own, or (scalar, packed) the ops set's.
inputs=$data
[ -f "$data/in-x4.bin" ] || inputs=tests/hardware/ops
awk -F'\t' -v dir="$data" -v inputs="$inputs" -v name="$name" '!/^#/ && NF == 5 {
    printf "%s/%s.ptx\t%s\t%d\t256\tbuf:%s/in-%s.bin poison:%d\t1\n", dir, name, $1, $4 / 256, inputs, $3, $4 * $5
}' "$data/forms.tsv" > "$work/ops.plan"
"$work/run_gpu" "$work/ops.plan" "$work/ops.bin"
# The same module through ptxas instead of the driver's JIT: the two must agree.
ptxas -arch=sm_90 "$data/$name.ptx" -o "$work/ops.cubin"
sed "s#^$data/$name.ptx#$work/ops.cubin#" "$work/ops.plan" > "$work/cubin.plan"
"$work/run_gpu" "$work/cubin.plan" "$work/cubin.bin"
cmp "$work/ops.bin" "$work/cubin.bin"
echo "driver JIT and ptxas agree ($(stat -c %s "$work/ops.bin") bytes)"
python3 -c 'import lzma, sys; open(sys.argv[2], "wb").write(lzma.compress(open(sys.argv[1], "rb").read(), preset=9))' \
    "$work/ops.bin" "$out/$name-gpu.bin.xz"
ls -la "$out"
