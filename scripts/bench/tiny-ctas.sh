#!/usr/bin/env bash
# Runs the nvcc kernel f32_to_e4m3 (ptx-samples/nvcc/fp8_convert.sm_90.ptx) in CTAs of 8 threads
# over 2^16 CTAs (programs such as HeCBench's shuffle launch millions of such CTAs, so the
# simulator's cost per CTA counts) in the interpreter and in the compiled tier, one host thread,
# best of 5 (simulation time from `run --stats`), and checks that both leave the same bytes.
# With valgrind installed it also counts the host instructions per simulated thread of the
# launch (callgrind, `grid::run_grid` inclusive) on 2^11 CTAs.
#
# Usage: scripts/bench/tiny-ctas.sh [CTAS] [BLOCK]        (default 65536 8)
# Needs python3; PTXSIM_BIN names a built binary (else the release build is made).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/bench/lib.sh
. "$repo/scripts/bench/lib.sh"
ctas=${1:-65536}
block=${2:-8}
bench_setup
ptx=$repo/ptx-samples/nvcc/fp8_convert.sm_90.ptx

# The input: the 12288 values of tests/kernels/common/f32.bin repeated to the thread count.
input() {
    python3 - "$repo/tests/kernels/common/f32.bin" "$2" "$1" <<'PY'
import sys
src = open(sys.argv[1], 'rb').read()
n = int(sys.argv[3])
open(sys.argv[2], 'wb').write((src * (n * 4 // len(src) + 1))[: n * 4])
PY
}

# launch ENGINE CTAS OUT [PREFIX...]: one run of the kernel over CTAS CTAs, its output in OUT.
launch() {
    local engine=$1 count=$2 out=$3 threads=$(( $2 * block ))
    shift 3
    "$@" "$ptxsim" run "$ptx" --entry f32_to_e4m3 --grid "$count" --block "$block" \
        --arg "buf:$work/in.$count" --arg "zeros:$threads" --arg "s32:$threads" \
        --out "1=$out" --engine "$engine" --jobs 1 --no-registers --stats
}

threads=$(( ctas * block ))
input "$threads" "$work/in.$ctas"
echo "f32_to_e4m3: $ctas CTAs of $block threads ($threads threads), --jobs 1, best of 5"
for engine in interp compiled; do
    read -r whole sim < <(best_of_five "$work/out.txt" "$work/stats.txt" -- \
        launch "$engine" "$ctas" "$work/$engine.out")
    printf "%-8s whole run %.4f s; simulation %.4f s (%.0f ns per CTA)\n" "$engine" "$whole" \
        "$sim" "$(echo "$sim * 1000000000 / $ctas" | bc -l)"
done
if cmp -s "$work/interp.out" "$work/compiled.out"; then
    echo "outputs: byte-identical"
else
    echo "outputs: DIFFERENT"
    exit 1
fi

if command -v valgrind >/dev/null 2>&1 && command -v callgrind_annotate >/dev/null 2>&1; then
    small=2048
    input $(( small * block )) "$work/in.$small"
    for engine in interp compiled; do
        launch "$engine" "$small" "$work/small.out" valgrind --tool=callgrind \
            --callgrind-out-file="$work/callgrind.$engine" > /dev/null 2>&1
        ir=$(callgrind_annotate --inclusive=yes "$work/callgrind.$engine" 2>/dev/null |
            awk '/grid::run_grid/ && !found { gsub(",", "", $1); print $1; found = 1 }')
        printf "%-8s host instructions per thread (callgrind, %s CTAs): %d\n" "$engine" "$small" \
            $(( ir / (small * block) ))
    done
fi
