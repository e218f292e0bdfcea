#!/usr/bin/env bash
# Times `ptxsim check` (release build) against `ptxas -arch compute_100a` on the same large
# generated module (renamed copies of the functions in tests/parse/ and ptx-samples/), best of
# several runs, and prints the speed ratio.
#
# Usage: scripts/bench-vs-ptxas.sh [SIZE_MIB] [RUNS]     (defaults: 8 MiB, 5 runs)
# ptxas is looked up in $PTXSIM_NVIDIA_ROOT/nvidia/cu13/bin (default root: <repo>/.nv); when it
# is absent the script says so and exits 0.
set -euo pipefail

if [[ -z "${EPOCHREALTIME:-}" ]]; then
    echo "bench-vs-ptxas: needs bash 5 or later (EPOCHREALTIME)" >&2
    exit 1
fi

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
size_mib="${1:-8}"
runs="${2:-5}"
nvidia_root="${PTXSIM_NVIDIA_ROOT:-$repo/.nv}"
ptxas="$nvidia_root/nvidia/cu13/bin/ptxas"

if [[ ! -x "$ptxas" ]]; then
    echo "bench-vs-ptxas: ptxas not found at $ptxas; skipping (set PTXSIM_NVIDIA_ROOT)."
    exit 0
fi

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
cargo build --release --quiet -p ptxsim --manifest-path "$repo/Cargo.toml"
ptxsim="$CARGO_TARGET_DIR/release/ptxsim"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
big="$work/big.ptx"
mapfile -t seeds < <(find "$repo/tests/parse" "$repo/ptx-samples" -name '*.ptx' 2>/dev/null | sort)
"$ptxsim" generate-bench-module --size-mib "$size_mib" --output "$big" "${seeds[@]}"
bytes=$(wc -c < "$big")

# Best wall-clock seconds of `$runs` runs of the given command. The clock is bash's
# EPOCHREALTIME (bash 5), read without starting a process: `$(date +%s.%N)` after the command
# would add the start-up of `date` (about a millisecond) to every measurement.
best_of() {
    local best="" start end elapsed
    for _ in $(seq "$runs"); do
        start=$EPOCHREALTIME
        "$@" > /dev/null 2>&1 || { echo "bench-vs-ptxas: command failed: $*" >&2; "$@" 2>&1 | head -5 >&2; exit 1; }
        end=$EPOCHREALTIME
        elapsed=$(echo "$end - $start" | bc -l)
        if [[ -z "$best" ]] || (( $(echo "$elapsed < $best" | bc -l) )); then best=$elapsed; fi
    done
    echo "$best"
}

ptxsim_s=$(best_of "$ptxsim" check "$big")
ptxas_s=$(best_of "$ptxas" -arch compute_100a "$big" -o /dev/null)
mb=$(echo "$bytes / 1000000" | bc -l)
printf 'module:        %.2f MB (%d bytes)\n' "$mb" "$bytes"
printf 'ptxsim check:  %.3f s  (%.1f MB/s)\n' "$ptxsim_s" "$(echo "$mb / $ptxsim_s" | bc -l)"
printf 'ptxas:         %.3f s  (%.1f MB/s)\n' "$ptxas_s" "$(echo "$mb / $ptxas_s" | bc -l)"
printf 'ratio:         ptxsim is %.1fx faster than ptxas (best of %d runs)\n' "$(echo "$ptxas_s / $ptxsim_s" | bc -l)" "$runs"
