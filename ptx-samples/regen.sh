#!/usr/bin/env bash
# Regenerates ptx-samples/nvcc/*.ptx (and ptx-samples/triton/*.ptx when Triton is
# importable) from the sources, and verifies every generated file and every
# hand-written file under hand/ with ptxas.
#   ./regen.sh          regenerate nvcc/ (+ triton/), verify everything
#   ./regen.sh --hand   also rebuild the ptxas-oracle listings hand/cvt_scalar_matrix.ptx
#                       and hand/cvt_packed_*.ptx
#
# Tools: $PTXSIM_NVIDIA_ROOT (default: <repo>/.nv), with nvcc/ptxas in
# $PTXSIM_NVIDIA_ROOT/nvidia/cu13/bin. If they are absent the script prints a
# message and exits 0.
# Triton: $PTXSIM_TRITON_PYTHON (default: python3) must be able to `import triton`;
# otherwise the Triton step is skipped (the committed triton/*.ptx stay as they are).
#
# Determinism: nvcc embeds the source path in internal symbol names
# (_ZN..._INTERNAL_<hash>_...) and, for -lineinfo/-G, the source and header
# paths in .file directives and .debug_info. To make the output independent of
# where the checkout lives, the sources are compiled from a fixed staging
# directory ($STAGE below) and nvcc is invoked through a fixed symlink to the
# toolkit. Do not run two copies of this script at the same time.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
NVROOT=${PTXSIM_NVIDIA_ROOT:-$REPO/.nv}
CU=$NVROOT/nvidia/cu13
if [ ! -x "$CU/bin/nvcc" ] || [ ! -x "$CU/bin/ptxas" ]; then
    echo "regen.sh: NVIDIA tools not found at $CU/bin (set PTXSIM_NVIDIA_ROOT); skipping."
    exit 0
fi
CU=$(cd "$CU" && pwd)

STAGE=/tmp/ptxsim-ptx-samples-stage
rm -rf "$STAGE"
mkdir -p "$STAGE/src" "$STAGE/out"
ln -s "$CU" "$STAGE/nv"
NVCC="$STAGE/nv/bin/nvcc"
PTXAS="$STAGE/nv/bin/ptxas"
cp "$HERE"/cuda/*.cu "$STAGE/src/"
cp "$HERE"/cuda/*.h "$STAGE/src/"   # headers the sources include (printf_cases.h)

echo "regen.sh: $("$NVCC" --version | grep -i release)"

# Targets for each source. Default: sm_80 sm_90 sm_100a.
archs_for() {
    case "$1" in
        asm_fp8_sm89)      echo "sm_90 sm_100a" ;;   # cvt.*.e4m3x2/e5m2x2 need sm_89+
        asm_sm100a_narrow) echo "sm_100a" ;;         # e2m1/e2m3/e3m2/ue8m0/s2f6/.rs need sm_100a
        coop)              echo "sm_80 sm_90" ;;         # grid.sync() is the same code on sm_100a
        texture)           echo "sm_90" ;;           # texture and surface objects
        tma)               echo "sm_90a" ;;          # cp.async.bulk.tensor (cuda::ptx)
        cdp)               echo "" ;;                # relocatable: compiled below
        *)                 echo "sm_80 sm_90 sm_100a" ;;
    esac
}

compile() { # name arch outfile [extra nvcc flags...]
    local name=$1 arch=$2 out=$3
    shift 3
    (cd "$STAGE/src" && "$NVCC" -ptx -arch "$arch" "$@" "$name.cu" -o "$STAGE/out/$out")
    "$PTXAS" -arch "$arch" "$STAGE/out/$out" -o /dev/null
    echo "  nvcc/$out"
}

echo "regen.sh: compiling cuda/*.cu"
for src in "$STAGE"/src/*.cu; do
    name=$(basename "$src" .cu)
    for arch in $(archs_for "$name"); do
        compile "$name" "$arch" "$name.$arch.ptx"
    done
done
# Dynamic parallelism: relocatable device code (-rdc=true), which calls the device runtime's
# extern functions, so ptxas checks it as a relocatable object (-c).
(cd "$STAGE/src" && "$NVCC" -ptx -arch sm_90 -rdc=true cdp.cu -o "$STAGE/out/cdp.sm_90.ptx")
"$PTXAS" -c -arch sm_90 "$STAGE/out/cdp.sm_90.ptx" -o /dev/null
echo "  nvcc/cdp.sm_90.ptx"
# Debug-info variants (.file/.loc, .section .debug_*)
compile grid_stride_bf16 sm_90 grid_stride_bf16.sm_90.lineinfo.ptx -lineinfo
compile mx_block_quant   sm_90 mx_block_quant.sm_90.G.ptx -G
compile fp8_convert      sm_100a fp8_convert.sm_100a.lineinfo.ptx -lineinfo

mkdir -p "$HERE/nvcc"
rm -f "$HERE"/nvcc/*.ptx
cp "$STAGE"/out/*.ptx "$HERE/nvcc/"

# Triton (optional)
PY=${PTXSIM_TRITON_PYTHON:-python3}
# (run the probe from / so that the triton/ folder here is not mistaken for the package)
if (cd / && "$PY" -c "import triton; triton.compile") >/dev/null 2>&1; then
    echo "regen.sh: generating triton/*.ptx with $PY"
    "$PY" "$HERE/triton/gen.py" "$HERE/triton"
else
    echo "regen.sh: Triton not importable with $PY; keeping committed triton/*.ptx"
fi
for f in "$HERE"/triton/*.ptx; do
    [ -e "$f" ] || continue
    arch=$(sed -n 's/^\.target[[:space:]]*\(sm_[0-9a-z]*\).*/\1/p' "$f" | head -1)
    "$PTXAS" -arch "$arch" "$f" -o /dev/null
    echo "  verified triton/$(basename "$f") ($arch)"
done

# The two ptxas-oracle cvt listings under hand/ are rebuilt only on request
# (`./regen.sh --hand`), since they are checked-in reference files.
if [ "${1:-}" = "--hand" ]; then
    echo "regen.sh: rebuilding hand/cvt_scalar_matrix.ptx and hand/cvt_packed_*.ptx"
    python3 "$HERE/hand/cvt_matrix.py" "$PTXAS" sm_90 > "$STAGE/cvt_scalar_matrix.ptx"
    mv "$STAGE/cvt_scalar_matrix.ptx" "$HERE/hand/cvt_scalar_matrix.ptx"
    rm -f "$HERE"/hand/cvt_packed_*.ptx
    python3 "$HERE/hand/cvt_packed.py" "$PTXAS" "$HERE/hand"
fi

# Hand-written PTX: each file names the ptxas commands that accept it on lines
# of the form "// ptxas: -arch sm_XX".
for f in "$HERE"/hand/*.ptx; do
    [ -e "$f" ] || continue
    n=0
    while IFS= read -r args; do
        # shellcheck disable=SC2086
        "$PTXAS" $args "$f" -o /dev/null
        n=$((n + 1))
    done < <(sed -n 's|^// ptxas: ||p' "$f")
    if [ "$n" -eq 0 ]; then
        echo "regen.sh: $f has no '// ptxas:' line" >&2
        exit 1
    fi
    echo "  verified hand/$(basename "$f") ($n ptxas run(s))"
done

rm -rf "$STAGE"
echo "regen.sh: done"
