#!/usr/bin/env bash
# Times `ptxsim check` (release build) on deeply nested input: N copies of `.entry k() {`, one
# per line and all on one line, for N = 1,000 to 16,000 levels (every `.entry` after the first is
# a syntax error, so there are N diagnostics). Prints the median of 3 runs per size and form, and
# the ratio to the size before (linear growth: about 2; the goal is at most 2.5).
#
# Usage: scripts/bench/nesting.sh [json|text]   (default json: `--format json`; `text` renders
#        the rustc-style excerpts: long lines are cut to windows around the labels and at most
#        1,000 diagnostics are printed, see docs/checker.md "Deeply nested input")
# Each run is cut off after $NESTING_TIMEOUT seconds (default 60), printed as `>60`.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/bench/lib.sh
. "$repo/scripts/bench/lib.sh"
format=${1:-json}
limit=${NESTING_TIMEOUT:-60}
bench_setup
flags=()
[ "$format" = json ] && flags=(--format json)

# Seconds (3 decimals) of one run, or `>LIMIT`.
one_run() {
    local start end
    start=$(date +%s.%N)
    if timeout "$limit" "$ptxsim" check "${flags[@]}" "$1" >/dev/null 2>&1 || [ $? -eq 1 ]; then
        end=$(date +%s.%N)
        echo "$start $end" | awk '{ printf "%.3f", $2 - $1 }'
    else
        echo ">$limit"
    fi
}

printf '%-9s %7s %10s %8s\n' form levels seconds ratio
for form in lines one-line; do
    previous=""
    for levels in 1000 2000 4000 8000 16000; do
        file=$work/$form-$levels.ptx
        separator=$'\n'
        [ "$form" = one-line ] && separator=""
        for ((i = 0; i < levels; i++)); do printf '.entry k() {%s' "$separator"; done >"$file"
        times=()
        for _ in 1 2 3; do times+=("$(one_run "$file")"); done
        median=$(printf '%s\n' "${times[@]}" | sort -g | sed -n 2p)
        ratio=-
        if [[ -n $previous && $previous != ">"* && $median != ">"* ]]; then
            ratio=$(echo "$median $previous" | awk '{ printf "%.2f", $1 / $2 }')
        fi
        printf '%-9s %7d %10s %8s\n' "$form" "$levels" "$median" "$ratio"
        previous=$median
        # Past the limit, larger sizes would only take longer.
        [[ $median == ">"* ]] && break
    done
done
