# Shared by the scripts/bench/*-vs-native.sh scripts (sourced, not run).

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
