#!/usr/bin/env bash
# Builds NVIDIA's cuda-samples for PTX only and runs them on ptxsim's libcuda.so, as unmodified
# CUDA programs: the CUDA runtime (static libcudart) sees ptxsim's driver library as libcuda.so.1.
#
#   scripts/cuda-samples/run.sh <cuda-samples checkout> [build dir, default /tmp/ptxsim-cuda-samples]
#
# Needs NVIDIA's tools from PyPI (scripts/install-nvidia-tools.sh: nvcc, headers, cudart, nvrtc)
# under $PTXSIM_NVIDIA_ROOT (default <repo>/.nv), cmake >= 3.20, g++ and a built
# target/release/libcuda.so and libptxsim_nvrtc.so (cargo build --release -p ptxsim-cuda -p ptxsim-nvrtc;
# PTXSIM_LIBCUDA names another libcuda.so).
# Environment knobs:
#   PTXSIM_LIBCUDA   the libcuda.so to test (copied into <build>/lib/libcuda.so.1 at the start)
#   PTXSIM_NVRTC     the NVRTC shim (default <repo>/target/release/libptxsim_nvrtc.so, from
#                    cargo build --release -p ptxsim-nvrtc), copied into <build>/lib and put in
#                    LD_PRELOAD for every sample: the *_nvrtc samples load NVRTC's cubin, which
#                    it turns into NVRTC's PTX (docs/cuda-programs.md, "NVRTC programs"); without
#                    the file they fail with CUDA_ERROR_INVALID_IMAGE
#   CATEGORIES       the cuda-samples folders in scope, separated by spaces (default
#                    "0_Introduction 2_Concepts_and_Techniques 3_CUDA_Features 6_Performance";
#                    1_Utilities and 5_Domain_Specific are also ready: skip.tsv lists what they
#                    need that ptxsim's driver cannot give. 4_CUDA_Libraries needs the vendor
#                    libraries, 7_libNVVM is a separate CMake project (docs/cuda-programs.md
#                    says how to build it by hand), and 8_Platform_Specific targets
#                    Tegra/Windows: run.sh builds none of the three)
#   SAMPLES          a regular expression: only the samples whose name matches (default: all)
#   SAMPLE_TIMEOUT   seconds each sample may run (default 300)
#   JOBS             make -j (default 2)
#   STEPS            which steps to do, any of "configure build run" (default all three)
#   RERUN_LOG=1      rerun the failures with PTXSIM_LOG=calls (logs every driver call; big)
#   NO_RDC=1         compile without -rdc=true, which nearly every sample's CMakeLists asks for
#                    (CUDA_SEPARABLE_COMPILATION ON); a sample whose build then fails (dynamic
#                    parallelism) is built again with it. See "Relocatable device code" below.
#
# What it does:
#  1. Makes a scratch toolkit <build>/toolkit that CMake recognises (bin/, include/, lib64/ and
#     nvvm/, all symbolic links into the NVIDIA folder, which is left untouched) whose lib64 holds
#     ptxsim's libcuda.so (CUDA::cuda_driver links against it) and whose bin/nvcc is a wrapper:
#     each sample's CMakeLists sets CMAKE_CUDA_ARCHITECTURES to "75 80 ... 120" and some build
#     fatbins with their own -gencode flags, so -DCMAKE_CUDA_ARCHITECTURES=90-virtual alone is
#     not enough; the wrapper drops every -gencode/-arch/-code flag and compiles for
#     -gencode=arch=compute_90,code=compute_90 only (PTX, no SASS; see <build>/nvcc.log).
#  2. Builds the samples of the CATEGORIES (by default 0_Introduction, 2_Concepts_and_Techniques,
#     3_CUDA_Features and 6_Performance) that skip.tsv (beside this script) does not exclude, with the checkout's
#     top-level CMakeLists (its settings verbatim, its add_subdirectory(Samples) replaced by one
#     add_subdirectory per sample in scope) and each sample's own CMakeLists; make -k, per sample.
#     skip.tsv excludes what needs a vendor math library (cuBLAS, cuRAND, ...), a graphics API
#     (OpenGL/GLUT/EGL, Vulkan, Direct3D), MPI, IPC between processes or a second GPU. Samples that work on one
#     GPU although they handle several (simpleMultiGPU, cudaOpenMP) are in scope.
#  3. Runs each built sample in its build directory (where CMake copies its data files), stdin
#     from /dev/null, with the checkout's test_args.json arguments, a timeout, and
#     LD_LIBRARY_PATH=<build>/lib:<NVIDIA lib>, so ptxsim's libcuda.so.1 comes first, and
#     LD_PRELOAD=<build>/lib/libptxsim_nvrtc.so (NVRTC's cubin becomes its PTX).
#     PASS: exit 0 and no failure message; WAIVED: exit 2 (EXIT_WAIVED) or "Waiving";
#     TIMEOUT; FAIL otherwise (reason: the last "ptxsim: CALL: CUDA_ERROR_..." line, else the
#     last line that reads like an error).
#  4. Writes <build>/report.tsv (sample, category, status, seconds, reason), the logs
#     <build>/logs/<sample>.{build,run}.log, <build>/missing-calls.tsv (each driver call that
#     failed, ranked by the number of samples that hit it) and prints a summary.
#
# Relocatable device code: all but the nvrtc samples set CUDA_SEPARABLE_COMPILATION ON, so
# nvcc compiles with -rdc=true and CMake device-links (nvcc -dlink). For compute_90 PTX only,
# the device-linked fatbin is empty (16-byte header, no entries): the PTX of each translation
# unit stays in its own relocatable fatbin (section __nv_relfatbin), and crt/link.stub registers
# `__fatDeviceText`, a version-2 fatbin wrapper {magic 0x466243b1, version 2, data = the empty
# linked fatbin, filename_or_fatbins = NULL-terminated array of the prelinked relocatable
# fatbins}. cudart hands that wrapper to cuLibraryLoadData; ptxsim reads the PTX of the
# prelinked fatbins and links several by name (crates/cuda/src/driver.rs, link_ptx). NO_RDC=1
# builds without -rdc=true (the state of the 2026-12-06 measurements' first runs, before ptxsim
# read version-2 wrappers).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
src=$(cd "${1:?usage: $0 <cuda-samples checkout> [build dir]}" && pwd)
build=${2:-/tmp/ptxsim-cuda-samples}
nvroot=${PTXSIM_NVIDIA_ROOT:-$repo/.nv}
cu=$nvroot/nvidia/cu13
libcuda=${PTXSIM_LIBCUDA:-$repo/target/release/libcuda.so}
nvrtc_shim=${PTXSIM_NVRTC:-$repo/target/release/libptxsim_nvrtc.so}
jobs=${JOBS:-2}
steps=${STEPS:-configure build run}
categories=${CATEGORIES:-0_Introduction 2_Concepts_and_Techniques 3_CUDA_Features 6_Performance}
for c in $categories; do
    case $c in
        0_Introduction|1_Utilities|2_Concepts_and_Techniques|3_CUDA_Features|5_Domain_Specific|6_Performance) ;;
        *) echo "CATEGORIES: $c is not supported (4_CUDA_Libraries needs vendor libraries, 7_libNVVM is a separate CMake project: see docs/cuda-programs.md, 8_Platform_Specific needs Tegra or Windows)" >&2; exit 1 ;;
    esac
done

[[ -x $cu/bin/nvcc ]] || { echo "no $cu/bin/nvcc: run scripts/install-nvidia-tools.sh" >&2; exit 1; }
[[ -f $libcuda ]] || { echo "no $libcuda: build crates/cuda (release) or set PTXSIM_LIBCUDA" >&2; exit 1; }
[[ -f $src/CMakeLists.txt && -d $src/Samples ]] || { echo "$src is not a cuda-samples checkout" >&2; exit 1; }
mkdir -p "$build"/logs "$build"/lib
build=$(cd "$build" && pwd)
start=$(date +%s)

# ptxsim's driver library, copied so that rebuilding it does not change a run under way.
cp -f "$libcuda" "$build/lib/libcuda.so.1"
ln -sf libcuda.so.1 "$build/lib/libcuda.so"
rm -f "$build/lib/libptxsim_nvrtc.so"
if [[ -f $nvrtc_shim ]]; then
    cp -f "$nvrtc_shim" "$build/lib/libptxsim_nvrtc.so"
else
    echo "note: no $nvrtc_shim (cargo build --release -p ptxsim-nvrtc): the *_nvrtc samples will fail" >&2
fi

# 1. The scratch toolkit.
tk=$build/toolkit
rm -rf "$tk"
mkdir -p "$tk/bin" "$tk/lib64/stubs"
for f in "$cu"/bin/*; do ln -s "$f" "$tk/bin/$(basename "$f")"; done
# nvcc finds nvcc.profile and its tools beside argv[0], so TOP (the toolkit root CMake reads
# from `nvcc -v`) becomes $tk.
mv "$tk/bin/nvcc" "$tk/bin/nvcc.real"
cat > "$tk/bin/nvcc" <<EOF
#!/usr/bin/env bash
# Compiles for compute_90 PTX only, whatever architectures the build asks for.
args=()
skip=0
for a in "\$@"; do
    if (( skip )); then skip=0; continue; fi
    case \$a in
        -gencode|--generate-code|-arch|--gpu-architecture|-code|--gpu-code) skip=1 ;;
        -gencode=*|--generate-code=*|-arch=*|--gpu-architecture=*|-code=*|--gpu-code=*) ;;
        -rdc=true|--relocatable-device-code=true)
            [[ \${PTXSIM_SAMPLES_NO_RDC:-0} == 1 ]] || args+=("\$a") ;;
        *) args+=("\$a") ;;
    esac
done
case " \$* " in
    *" --version "*|*" -V "*) ;;
    *) args+=("-gencode=arch=compute_90,code=compute_90") ;;
esac
echo "nvcc \${args[*]}" >> "$build/nvcc.log"
exec "$tk/bin/nvcc.real" "\${args[@]}"
EOF
chmod +x "$tk/bin/nvcc"
ln -s "$cu/include" "$tk/include"
ln -s "$cu/nvvm" "$tk/nvvm"
for f in "$cu"/lib/*; do ln -s "$f" "$tk/lib64/$(basename "$f")"; done
[[ -e $cu/lib/libcudart.so.13 ]] && ln -s libcudart.so.13 "$tk/lib64/libcudart.so"
[[ -e $cu/lib/libnvrtc.so.13 ]] && ln -s libnvrtc.so.13 "$tk/lib64/libnvrtc.so"
ln -s "$build/lib/libcuda.so.1" "$tk/lib64/libcuda.so"
ln -s "$build/lib/libcuda.so.1" "$tk/lib64/stubs/libcuda.so"
ln -s lib64 "$tk/lib"

# 2. The samples in scope, and a top-level CMakeLists that builds only them.
python3 "$here/samples.py" list "$src" "$here/skip.tsv" "$categories" > "$build/scope.tsv"
if [[ -n ${SAMPLES:-} ]]; then
    awk -F'\t' -v re="$SAMPLES" '$1 ~ re' "$build/scope.tsv" > "$build/scope.tmp"
    mv "$build/scope.tmp" "$build/scope.tsv"
fi
# nvrtc samples need libnvrtc (nvidia-cuda-nvrtc): without it CMake has no CUDA::nvrtc.
has_nvrtc=0; [[ -e $cu/lib/libnvrtc.so.13 ]] && has_nvrtc=1

top=$build/top
mkdir -p "$top"
{
    sed '/add_subdirectory(Samples)/,$d' "$src/CMakeLists.txt"
    echo 'set_property(GLOBAL PROPERTY USE_FOLDERS ON)'
    awk -F'\t' -v src="$src" -v nvrtc=$has_nvrtc '$3 == "in-scope" {
        if (!nvrtc && $1 ~ /_nvrtc$/) next
        printf "set(CMAKE_FOLDER \"%s\")\nadd_subdirectory(\"%s/Samples/%s/%s\" \"%s/%s\")\n", $2, src, $2, $1, $2, $1
    }' "$build/scope.tsv"
} > "$top/CMakeLists.txt"

cmake_dir=$build/cmake
if [[ " $steps " == *" configure "* ]]; then
    echo "== configure ($(wc -l < "$build/scope.tsv") samples listed)"
    rm -f "$build/nvcc.log"
    if ! cmake -S "$top" -B "$cmake_dir" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_COMPILER="$tk/bin/nvcc" -DCUDAToolkit_ROOT="$tk" \
        -DCMAKE_CUDA_ARCHITECTURES=90-virtual -DCMAKE_LIBRARY_PATH="$tk/lib64" \
        > "$build/logs/_configure.log" 2>&1; then
        tail -n 30 "$build/logs/_configure.log" >&2
        echo "cmake configure failed: $build/logs/_configure.log" >&2
        exit 1
    fi
fi

# 3. Build each sample on its own (make in its binary directory), recording failures.
if [[ " $steps " == *" build "* ]]; then
    : > "$build/build-status.tsv"
    while IFS=$'\t' read -r name category scope _; do
        [[ $scope == in-scope ]] || continue
        dir=$cmake_dir/$category/$name
        if [[ ! -f $dir/Makefile ]]; then
            reason="not configured (see logs/_configure.log)"
            [[ $name == *_nvrtc && $has_nvrtc == 0 ]] && reason="no libnvrtc (install nvidia-cuda-nvrtc)"
            printf '%s\tBUILD-FAIL\t%s\n' "$name" "$reason" >> "$build/build-status.tsv"
            continue
        fi
        t0=$(date +%s)
        how=""
        ok=0
        if [[ ${NO_RDC:-0} == 1 ]]; then
            if PTXSIM_SAMPLES_NO_RDC=1 make -k -C "$dir" -j"$jobs" > "$build/logs/$name.build.log" 2>&1; then
                ok=1; how="without -rdc"
            else  # dynamic parallelism and the like need relocatable device code
                mv "$build/logs/$name.build.log" "$build/logs/$name.build-nordc.log"
                make -C "$dir" clean > /dev/null 2>&1 || true
                how="with -rdc=true (the build without it failed)"
            fi
        fi
        if (( ok )) || make -k -C "$dir" -j"$jobs" > "$build/logs/$name.build.log" 2>&1; then
            printf '%s\tBUILT\t%s\n' "$name" "$(( $(date +%s) - t0 ))s $how" >> "$build/build-status.tsv"
            echo "built $name ($(( $(date +%s) - t0 ))s) $how"
        else
            err=$(grep -m1 -E 'error|Error' "$build/logs/$name.build.log" | cut -c1-200 || true)
            printf '%s\tBUILD-FAIL\t%s\n' "$name" "$err" >> "$build/build-status.tsv"
            echo "BUILD-FAIL $name: $err"
        fi
    done < "$build/scope.tsv"
fi

# 4. Run them and report.
if [[ " $steps " == *" run "* ]]; then
    python3 "$here/samples.py" run "$src" "$build" "$cu/lib"
fi
echo "total time: $(( $(date +%s) - start ))s"
