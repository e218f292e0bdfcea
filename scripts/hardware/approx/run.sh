#!/usr/bin/env bash
# What an sm_90 GPU gives for the approximate PTX instructions (scripts/hardware/approx/README.md):
# ex2/lg2/sin/cos/rsqrt/rcp/sqrt/tanh .approx f32 on all 2^32 inputs (chunk hashes) plus raw
# outputs of a modelling subset, the f16/bf16 ex2/tanh tables, rcp/rsqrt .approx f64,
# div.approx/div.full f32 on SplitMix64 pairs, and integer div/rem corner cases. Needs nvcc and
# a GPU; without them it says so and exits 0. About a minute on an H100.
#
#   scripts/hardware/approx/run.sh OUTDIR
#
# Writes OUTDIR/approx-hashes.tsv (as it goes), OUTDIR/approx-raw.bin (at the end) and
# OUTDIR/approx-log.txt (everything printed, as it goes). Nothing else.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUTDIR}
# shellcheck source=scripts/hardware/lib.sh
source "$(dirname "$0")/../lib.sh"
gpu_session approx/run.sh "$out"
log=$out/approx-log.txt
hashes=$out/approx-hashes.tsv
: > "$log"
exec > >(tee -a "$log") 2>&1
t0=$(date +%s.%N)
stamp() { echo "[$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s] $*"; }
stamp "approx/run.sh $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "device: $device"
echo "nvcc: $(nvcc --version | tail -n1)"
echo "repo: $(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)"
python3 "$here/approx.py" cuda > "$work/approx.cu"
nvcc -arch=sm_90 -O2 "$work/approx.cu" -o "$work/approx"
stamp "compiled"
printf '# form\tvariant\tthen 256 wrapping sums of mix64(result ^ index * 0x9E3779B97F4A7C15), hex (README.md)\n' > "$hashes"
rc=0
timeout 240 "$work/approx" "$work" "$hashes" || rc=$?
njobs=$("$work/approx" list | wc -l)
failed=" "
missing() { for ((j = 0; j < njobs; j++)); do [ -e "$work/done-$j" ] || [[ $failed == *" $j "* ]] || echo "$j"; done; }
# after a failure: the first unfinished job alone (given up if it fails), then the rest together
for ((round = 0; round < 8; round++)); do
    todo=($(missing))
    [ "${#todo[@]}" = 0 ] && break
    stamp "unfinished jobs: ${todo[*]}; job ${todo[0]} alone, then the rest together"
    timeout 60 "$work/approx" "$work" "$hashes" "${todo[0]}" || stamp "job ${todo[0]} failed ($?)"
    [ -e "$work/done-${todo[0]}" ] || failed="$failed${todo[0]} "
    [ "${#todo[@]}" -gt 1 ] || continue
    timeout 180 "$work/approx" "$work" "$hashes" "${todo[@]:1}" || stamp "jobs ${todo[*]:1}: exit $?"
done
# a retried job may have written a hash line twice: keep the first of each (form, variant)
awk -F'\t' '!seen[$1 FS $2]++' "$hashes" > "$work/h.tsv" && cat "$work/h.tsv" > "$hashes"
for ((j = 0; j < njobs; j++)); do
    [ -e "$work/done-$j" ] || echo "MISSING job $j: $("$work/approx" list | awk -F'\t' -v j="$j" '$1 == j { print $2 }')"
done
stamp "GPU jobs finished; packing raw sections"
if ! python3 "$here/approx.py" pack "$work" "$out"; then
    stamp "pack failed; falling back to a tar of the uncompressed sections (approx-raw.tar.xz)"
    rm -f "$out/approx-raw.bin" "$out/approx-raw.bin.tmp"
    (cd "$work" && ls *.tsv *.table.bin *.common.bin *.pairs.bin *.specials.bin 2>/dev/null \
        | tar -cf - -T - | xz -6 -T0 > "$out/approx-raw.tar.xz") || true
fi
stamp "done"
ls -l "$out"
