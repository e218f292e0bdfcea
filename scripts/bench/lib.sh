# Shared by the scripts/bench/*.sh scripts (sourced, not run).

# bench_setup: a scratch directory $work (removed on exit) and the release build of ptxsim in
# $ptxsim (built first; $repo must be set), or the binary PTXSIM_BIN names (not rebuilt: to
# compare builds, or to measure one build while the tree changes).
bench_setup() {
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    if [ -n "${PTXSIM_BIN:-}" ]; then
        ptxsim=$PTXSIM_BIN
        return
    fi
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
    cargo build --release --quiet -p ptxsim --manifest-path "$repo/Cargo.toml"
    ptxsim=$CARGO_TARGET_DIR/release/ptxsim
}

# need_nvcc NAME: $nvcc, NVIDIA's nvcc under $PTXSIM_NVIDIA_ROOT (default <repo>/.nv; $repo must
# be set); exits 0 with a message naming the script NAME when it or ${CXX:-g++} is missing.
need_nvcc() {
    local root=${PTXSIM_NVIDIA_ROOT:-$repo/.nv}
    nvcc=$root/nvidia/cu13/bin/nvcc
    if [ ! -x "$nvcc" ] || ! command -v "${CXX:-g++}" >/dev/null 2>&1; then
        echo "$1: nvcc ($nvcc) or ${CXX:-g++} not found (set PTXSIM_NVIDIA_ROOT); skipping."
        exit 0
    fi
}

# best_of_five OUT STATS -- COMMAND...: runs COMMAND five times with its stdout in OUT and its
# stderr in STATS (it must be a `ptxsim run --stats` command) and prints the best wall-clock
# seconds of the whole process and the best simulated seconds `--stats` reported.
best_of_five() {
    local out=$1 stats=$2 best="" sim="" start end s t
    shift 3
    for _ in 1 2 3 4 5; do
        start=$(date +%s.%N)
        "$@" > "$out" 2> "$stats"
        end=$(date +%s.%N)
        s=$(echo "$end - $start" | bc -l)
        t=$(sed -n 's/.*, \([0-9.]*\) s simulated.*/\1/p' "$stats")
        if [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; then best=$s; fi
        if [ -z "$sim" ] || [ "$(echo "$t < $sim" | bc -l)" = 1 ]; then sim=$t; fi
    done
    echo "$best $sim"
}

# compare_with_native WORK NATIVE_SECONDS LABEL PTX ENTRY -- RUN_ARGS...: runs
# `ptxsim run PTX --entry ENTRY RUN_ARGS... --out 1=WORK/ptxsim.out --format json --stats`
# (the output is argument $OUT_ARG, default 1)
# best of five with 1 and with 2 host threads (needs $ptxsim), prints the whole-run and
# simulation times against NATIVE_SECONDS (the native loop named LABEL) and fails unless
# WORK/ptxsim.out is byte-identical to WORK/native.out.
compare_with_native() {
    local work=$1 native=$2 label=$3 ptx=$4 entry=$5 jobs steps whole sim same
    shift 6
    local -A whole_of sim_of
    for jobs in 1 2; do
        read -r whole sim < <(best_of_five "$work/state.json" "$work/stats.txt" -- \
            "$ptxsim" run "$ptx" --entry "$entry" "$@" --out "${OUT_ARG:-1}=$work/ptxsim.out" \
            --jobs "$jobs" --format json --stats)
        whole_of[$jobs]=$whole
        sim_of[$jobs]=$sim
    done
    steps=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['total_steps'])" "$work/state.json")
    if cmp -s "$work/native.out" "$work/ptxsim.out"; then same="byte-identical"; else same="DIFFERENT"; fi
    echo "kernel $entry, $steps simulated instructions (best of 5 runs each)"
    printf "native loop (%s, g++ -O2): %.5f s\n" "$label" "$native"
    for jobs in 1 2; do
        whole=${whole_of[$jobs]}
        sim=${sim_of[$jobs]}
        printf "ptxsim --jobs %s: whole run %.4f s (%.1fx native); simulation %.4f s (%.1f M instructions/s, %.1fx native)\n" \
            "$jobs" "$whole" "$(echo "$whole / $native" | bc -l)" "$sim" \
            "$(echo "$steps / $sim / 1000000" | bc -l)" "$(echo "$sim / $native" | bc -l)"
    done
    printf "scaling 1 -> 2 host threads: whole run %.2fx, simulation %.2fx\n" \
        "$(echo "${whole_of[1]} / ${whole_of[2]}" | bc -l)" "$(echo "${sim_of[1]} / ${sim_of[2]}" | bc -l)"
    echo "outputs: $same"
    [ "$same" = "byte-identical" ]
}
