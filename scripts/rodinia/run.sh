#!/usr/bin/env bash
# Builds the Rodinia benchmark suite's CUDA programs (cuda/*) for PTX only and runs them on
# ptxsim's libcuda.so, unmodified (the runtime as their Makefiles link it), checking their
# results against the suite's OpenMP programs, their own checks, or references computed here.
#
#   scripts/rodinia/run.sh <Rodinia checkout (gpu-rodinia)> [build dir, default /tmp/ptxsim-rodinia]
#
# Needs NVIDIA's tools (scripts/install-nvidia-tools.sh) under $PTXSIM_NVIDIA_ROOT (default
# <repo>/.nv), make, gcc/g++, python3, and a built target/release/libcuda.so
# (CARGO_PROFILE_RELEASE_LTO=false cargo build --release -p ptxsim-cuda; PTXSIM_LIBCUDA names
# another one). cfd includes cuda-samples' helper_cuda.h: CUDA_SAMPLES=<cuda-samples checkout>
# (without it cfd is a BUILD-FAIL).
# Environment knobs:
#   BENCHMARKS   a regular expression: only the programs whose name matches
#   TIMEOUT      seconds each program may run (default 120)
#
# What it does:
#  1. A scratch toolkit <build>/toolkit (CUDA_DIR for the Makefiles, which hard-code
#     /usr/local/cuda): its bin/nvcc drops every -arch/-gencode/-code flag, compiles for
#     -gencode arch=compute_90,code=compute_90 (PTX, no SASS) and force-includes compat.h
#     (cudaThreadSynchronize and cudaThreadExit, which CUDA 13 removed); its bin/gcc adds
#     -lstdc++ when it links (nvcc's objects need it); lib64/libcuda.so is ptxsim's.
#  2. rodinia.py: copies cuda/, openmp/ and common/ into <build>/src, generates the inputs into
#     <build>/src/data (the suite's data/ is a separate download), builds and runs each
#     program with a timeout, LD_LIBRARY_PATH=<build>/lib (ptxsim's libcuda.so.1 and NVIDIA's
#     libcudart.so.13), and judges it (see rodinia.py's docstring); writes <build>/results.tsv
#     (name, result, seconds, reason) and <build>/logs/NAME.{build,run,ref}.log.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
src=$(cd "${1:?usage: $0 <Rodinia checkout> [build dir]}" && pwd)
build=${2:-/tmp/ptxsim-rodinia}
nvroot=${PTXSIM_NVIDIA_ROOT:-$repo/.nv}
cu=$nvroot/nvidia/cu13
libcuda=${PTXSIM_LIBCUDA:-$repo/target/release/libcuda.so}

[[ -x $cu/bin/nvcc ]] || { echo "no $cu/bin/nvcc: run scripts/install-nvidia-tools.sh" >&2; exit 1; }
[[ -f $libcuda ]] || { echo "no $libcuda: build crates/cuda (release) or set PTXSIM_LIBCUDA" >&2; exit 1; }
[[ -d $src/cuda && -d $src/openmp && -f $src/common/make.config ]] || { echo "$src is not a Rodinia checkout" >&2; exit 1; }
mkdir -p "$build/lib"
build=$(cd "$build" && pwd)

# ptxsim's driver library, copied so that rebuilding it does not change a run under way.
cp -f "$libcuda" "$build/lib/libcuda.so.1.new"
mv -f "$build/lib/libcuda.so.1.new" "$build/lib/libcuda.so.1"
ln -sf "$cu/lib/libcudart.so.13" "$build/lib/libcudart.so.13"
gcc -shared -fPIC -O2 -o "$build/lib/fixed_time.so" "$here/fixed_time.c"

# 1. The scratch toolkit.
tk=$build/toolkit
rm -rf "$tk"
mkdir -p "$tk/bin" "$tk/lib64" "$build/include/GL" "$build/home" "$build/sdk/common"
for f in "$cu"/bin/*; do ln -s "$f" "$tk/bin/$(basename "$f")"; done
mv "$tk/bin/nvcc" "$tk/bin/nvcc.real"
cat > "$build/compat.h" <<'EOF'
/* CUDA 13 removed these runtime calls (deprecated since CUDA 4.0); the CUDA Runtime API
   reference of earlier versions names cudaDeviceSynchronize and cudaDeviceReset as their
   replacements. */
#pragma once
#ifdef __cplusplus
#include <cuda_runtime_api.h>
static inline cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }
static inline cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }
#endif
EOF
cat > "$tk/bin/nvcc" <<EOF
#!/usr/bin/env bash
# Compiles for compute_90 PTX only, whatever architectures the Makefile asks for (HeCBench's
# wrapper drops them), with compat.h and the program's extra flags (RODINIA_NVCC_FLAGS).
exec python3 "$repo/scripts/hecbench/hecbench.py" nvcc "$tk/bin/nvcc.real" -include "$build/compat.h" \${RODINIA_NVCC_FLAGS:-} "\$@"
EOF
cat > "$tk/bin/gcc" <<'EOF'
#!/usr/bin/env bash
# Links C programs with objects nvcc compiled, which are C++ (the runtime's registration code).
for a in "$@"; do case $a in -c|-E|-S|-M|-MM) exec /usr/bin/gcc "$@" ;; esac; done
exec /usr/bin/gcc "$@" -lstdc++
EOF
chmod +x "$tk/bin/nvcc" "$tk/bin/gcc"
ln -s "$cu/include" "$tk/include"
ln -s "$cu/nvvm" "$tk/nvvm"
for f in "$cu"/lib/*; do ln -s "$f" "$tk/lib64/$(basename "$f")"; done
ln -s libcudart.so.13 "$tk/lib64/libcudart.so"
ln -s "$build/lib/libcuda.so.1" "$tk/lib64/libcuda.so"
ln -s lib64 "$tk/lib"
# hybridsort includes GL/glew.h and uses nothing from it.
: > "$build/include/GL/glew.h"
# hotspot3D's Makefile includes ~/rodinia_3.0/common/make.config.
ln -sfn "$build/src" "$build/home/rodinia_3.0"
# cfd includes helper_cuda.h and helper_timer.h from the CUDA SDK's common/inc.
rm -f "$build/sdk/common/inc"
[[ -n ${CUDA_SAMPLES:-} && -d $CUDA_SAMPLES/Common ]] && ln -s "$(cd "$CUDA_SAMPLES/Common" && pwd)" "$build/sdk/common/inc"

export PATH="$tk/bin:$PATH" LIBRARY_PATH="$tk/lib64" CPATH="$tk/include:$build/include" HOME="$build/home"
export MAKEVARS="CUDA_DIR=$tk SDK_DIR=$build/sdk CUDA_LIB_DIR=$tk/lib64"
start=$(date +%s)
python3 "$here/rodinia.py" run "$src" "$build" "$here"
echo "total time: $(( $(date +%s) - start ))s"
