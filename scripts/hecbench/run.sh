#!/usr/bin/env bash
# Builds a deterministic subset of HeCBench's CUDA benchmarks (src/*-cuda) for PTX only and runs
# them on ptxsim's libcuda.so, as unmodified CUDA programs (static libcudart, nvcc's default).
#
#   scripts/hecbench/run.sh <HeCBench checkout> [build dir, default /tmp/ptxsim-hecbench]
#
# Needs NVIDIA's tools (scripts/install-nvidia-tools.sh) under $PTXSIM_NVIDIA_ROOT (default
# <repo>/.nv), make, g++, and a built target/release/libcuda.so (CARGO_PROFILE_RELEASE_LTO=false
# cargo build --release -p ptxsim-cuda; PTXSIM_LIBCUDA names another one).
# Environment knobs:
#   STRIDE       every STRIDE-th benchmark that is not skipped is in scope (default 4; see
#                hecbench.py's docstring for the selection rule); ALL=1 takes all of them
#   OFFSET       which of the STRIDE disjoint subsets: the candidates whose index modulo STRIDE is
#                OFFSET (default 0; 0..STRIDE-1). The feature benchmarks join OFFSET=0's only
#   BENCHMARKS   a regular expression: only the benchmarks in scope whose name matches
#   TIMEOUT      seconds each benchmark may run (default 60)
#   STEPS        "build run" (default) or one of the two
#   SMALL=1      run with the arguments of small-args.tsv (beside this script) where it has a row:
#                the smallest sizes each program's main accepts (docs/cuda-programs.md, "The
#                timed-out programs at sizes that finish"); args.tsv's otherwise
#   RAN=1        a program that exits 0 without printing a verdict is RAN, not PASS
#   RESULTS      the results file's name in the build dir (default results.tsv)
#
# What it does:
#  1. <build>/bin/nvcc runs NVIDIA's nvcc (through hecbench.py nvcc) without any -arch/-gencode/-code
#     flag and compiles for -gencode arch=compute_90,code=compute_90 (PTX, no SASS); it comes
#     first on PATH, so the Makefiles' `CC = nvcc` is it.
#  2. For each benchmark in scope: copies src/NAME-cuda into <build>/src (where every other entry
#     of the checkout's src/ is a link, for the Makefiles that read ../data or ../NAME-sycl) and
#     runs make; then the Makefile's `run` recipe (make -n run), or `./PROGRAM ARGS` where
#     args.tsv (beside this script) gives smaller arguments, with a timeout and
#     LD_LIBRARY_PATH=<build>/lib, which holds ptxsim's libcuda.so.1.
#  3. Classifies: PASS (exit 0, no failure printed, no ptxsim diagnostic), FAIL (the program's
#     own check failed, or it exited non-zero without an error message), ERROR (a ptxsim
#     diagnostic, a CUDA error, a signal), TIMEOUT, SKIP (a vendor library, MPI, OpenMP in the
#     Makefile, or skip.tsv), BUILD-FAIL; writes <build>/results.tsv (name, result, seconds,
#     reason) and <build>/logs/NAME.{build,run}.log.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
src=$(cd "${1:?usage: $0 <HeCBench checkout> [build dir]}" && pwd)
build=${2:-/tmp/ptxsim-hecbench}
nvroot=${PTXSIM_NVIDIA_ROOT:-$repo/.nv}
cu=$nvroot/nvidia/cu13
libcuda=${PTXSIM_LIBCUDA:-$repo/target/release/libcuda.so}

[[ -x $cu/bin/nvcc ]] || { echo "no $cu/bin/nvcc: run scripts/install-nvidia-tools.sh" >&2; exit 1; }
[[ -f $libcuda ]] || { echo "no $libcuda: build crates/cuda (release) or set PTXSIM_LIBCUDA" >&2; exit 1; }
[[ -d $src/src ]] && compgen -G "$src/src/*-cuda" > /dev/null || { echo "$src is not a HeCBench checkout" >&2; exit 1; }
mkdir -p "$build/lib" "$build/bin"
build=$(cd "$build" && pwd)

# ptxsim's driver library, copied so that rebuilding it does not change a run under way (and
# renamed into place, so that a program still running from an earlier copy keeps its file).
cp -f "$libcuda" "$build/lib/libcuda.so.1.new"
mv -f "$build/lib/libcuda.so.1.new" "$build/lib/libcuda.so.1"

cat > "$build/bin/nvcc" <<WRAPPER
#!/usr/bin/env bash
# Compiles for compute_90 PTX only, whatever architectures the Makefile asks for.
exec python3 "$here/hecbench.py" nvcc "$cu/bin/nvcc" "\$@"
WRAPPER
chmod +x "$build/bin/nvcc"

start=$(date +%s)
python3 "$here/hecbench.py" run "$src" "$build" "$here"
echo "total time: $(( $(date +%s) - start ))s"
