#!/usr/bin/env bash
# Builds the self-checking CUDA programs of tests/cuda/programs with NVIDIA's nvcc the usual way
# (runtime API, PTX-only fatbin for compute_90, static cudart unless a program says otherwise)
# and runs each on ptxsim's libcuda.so.1; prints a table of program, result, seconds and the
# line that explains a failure.
#
#   scripts/cuda/programs.sh <NVIDIA root> <ptxsim libcuda dir> [program-name regex]
#
# <NVIDIA root>: the folder holding bin/nvcc, include/ and lib/ (e.g. .nv/nvidia/cu13, from
# scripts/install-nvidia-tools.sh). <ptxsim libcuda dir>: a folder with ptxsim's libcuda.so.1
# (or libcuda.so, which is linked as libcuda.so.1 into the work folder), e.g. target/release.
# Environment knobs:
#   WORK          build and log folder (default /tmp/ptxsim-programs)
#   TIMEOUT       seconds each program may run (default 300)
#   CURAND_INCLUDE  a folder with curand_kernel.h (nvidia-curand's include/; default: the NVIDIA
#                 root's include/ if it has it); without it curand_device is skipped
#   STEPS         "build run" (default both)
#   NVCC_FLAGS    more nvcc flags for every program
#
# Each program is a .cu file (or a folder of .cu files, compiled together) in tests/cuda/programs.
# A line "// nvcc: FLAGS" in the file (any file of the folder) adds flags for that program;
# "// variant: NAME FLAGS" builds a second program NAME with those flags as well (e.g. the
# shared cudart). The programs print "NAME: PASS" and exit 0 when their results match the CPU
# reference each computes.
set -uo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,25p' "$0"
  exit 2
fi
NV=$(cd "$1" && pwd)
LIBDIR=$(cd "$2" && pwd)
FILTER=${3:-.}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
SRC=$REPO/tests/cuda/programs
WORK=${WORK:-/tmp/ptxsim-programs}
TIMEOUT=${TIMEOUT:-300}
STEPS=${STEPS:-build run}
mkdir -p "$WORK/bin" "$WORK/logs" "$WORK/lib"
if [ -e "$LIBDIR/libcuda.so.1" ]; then
  ln -sf "$LIBDIR/libcuda.so.1" "$WORK/lib/libcuda.so.1"
else
  ln -sf "$LIBDIR/libcuda.so" "$WORK/lib/libcuda.so.1"
fi
# -cudart shared links libcudart.so, which NVIDIA's wheel has only as libcudart.so.13
[ -e "$NV/lib/libcudart.so.13" ] && ln -sf "$NV/lib/libcudart.so.13" "$WORK/lib/libcudart.so"
CURAND_INCLUDE=${CURAND_INCLUDE:-}
if [ -z "$CURAND_INCLUDE" ] && [ -f "$NV/include/curand_kernel.h" ]; then CURAND_INCLUDE=$NV/include; fi
export PATH=$NV/bin:$PATH

# name, sources and flags of every program (and variant)
declare -a NAMES=() SOURCES=() FLAGS=()
for entry in "$SRC"/*.cu "$SRC"/*/; do
  [ -e "$entry" ] || continue
  if [ -d "$entry" ]; then
    name=$(basename "$entry")
    srcs=$(ls "$entry"*.cu 2>/dev/null | tr '\n' ' ')
    [ -n "$srcs" ] || continue
  else
    name=$(basename "$entry" .cu)
    srcs=$entry
  fi
  [[ $name =~ $FILTER ]] || continue
  # shellcheck disable=SC2086
  flags=$(sed -n 's|^// nvcc: ||p' $srcs | tr '\n' ' ')
  NAMES+=("$name"); SOURCES+=("$srcs"); FLAGS+=("$flags")
  while read -r variant vflags; do
    [ -n "$variant" ] || continue
    NAMES+=("$variant"); SOURCES+=("$srcs"); FLAGS+=("$flags $vflags")
  done < <(sed -n 's|^// variant: ||p' $srcs)
done

BASE_FLAGS="-gencode arch=compute_90,code=compute_90 -std=c++17 --extended-lambda -O2 -I$SRC -L$WORK/lib ${NVCC_FLAGS:-}"
REPORT=$WORK/report.tsv
printf 'program\tresult\tseconds\tbuild_s\tdetail\n' >"$REPORT"
for i in "${!NAMES[@]}"; do
  name=${NAMES[$i]} srcs=${SOURCES[$i]} flags=${FLAGS[$i]}
  build_s=0 result= detail=
  if [[ $flags == *curand* ]] || grep -q curand_kernel.h $srcs; then
    if [ -z "$CURAND_INCLUDE" ]; then
      printf '%s\tSKIP\t0\t0\tno curand_kernel.h (set CURAND_INCLUDE)\n' "$name" >>"$REPORT"
      continue
    fi
    flags="$flags -I$CURAND_INCLUDE"
  fi
  if [[ " $STEPS " == *" build "* ]]; then
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    if ! nvcc $BASE_FLAGS $flags $srcs -o "$WORK/bin/$name" >"$WORK/logs/$name.build.log" 2>&1; then
      build_s=$(echo "$(date +%s.%N) - $t0" | bc)
      printf '%s\tBUILD-FAIL\t0\t%.0f\t%s\n' "$name" "$build_s" \
        "$(grep -m1 -i error "$WORK/logs/$name.build.log" | cut -c1-200)" >>"$REPORT"
      continue
    fi
    build_s=$(echo "$(date +%s.%N) - $t0" | bc)
  fi
  if [[ " $STEPS " == *" run "* ]]; then
    t0=$(date +%s.%N)
    (cd "$WORK" && LD_LIBRARY_PATH="$WORK/lib:$NV/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      timeout -s KILL "$TIMEOUT" "$WORK/bin/$name" </dev/null >"$WORK/logs/$name.run.log" 2>&1)
    rc=$?
    secs=$(echo "$(date +%s.%N) - $t0" | bc)
    if [ $rc -eq 137 ]; then
      result=TIMEOUT detail="killed after ${TIMEOUT}s"
    elif [ $rc -eq 0 ] && grep -qE "^[A-Za-z0-9_]+: PASS" "$WORK/logs/$name.run.log"; then
      result=PASS detail=$(grep -m1 -E "^[A-Za-z0-9_]+: PASS" "$WORK/logs/$name.run.log")
    else
      result=FAIL
      detail=$(grep -m1 -E '^ptxsim: |check failed|error|FAIL' "$WORK/logs/$name.run.log" | cut -c1-200)
      [ -n "$detail" ] || detail="exit $rc: $(tail -n1 "$WORK/logs/$name.run.log" | cut -c1-200)"
    fi
    printf '%s\t%s\t%.1f\t%.0f\t%s\n' "$name" "$result" "$secs" "$build_s" "$detail" >>"$REPORT"
  else
    printf '%s\tBUILT\t0\t%.0f\t\n' "$name" "$build_s" >>"$REPORT"
  fi
done
column -t -s $'\t' "$REPORT"
pass=$(awk -F'\t' 'NR > 1 && $2 == "PASS"' "$REPORT" | wc -l)
total=$(($(wc -l <"$REPORT") - 1))
echo "$pass of $total passed (logs in $WORK/logs)"
[ "$pass" -eq "$total" ]
