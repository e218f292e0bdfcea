#!/usr/bin/env bash
# Golden outputs of every mma.sync form of gen.py on an sm_90 GPU (README.md in this folder).
# Needs nvcc (CUDA 13.0 is enough), python3 and a GPU; without them it says so and exits 0.
#
#   scripts/hardware/mma/run.sh OUTDIR
#
# Writes OUTDIR/mma-golden.bin.xz (inputs and outputs of every tile of every form, format in
# README.md) and OUTDIR/mma-log.txt (this script's output: device, toolkit, ptxas verdicts,
# per-form status, run-to-run agreement, the SASS MMA instructions of each kernel). Each form
# runs twice with D poisoned (0xA5) first; the two runs must agree. About 30-40 s.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUTDIR}
# shellcheck source=scripts/hardware/lib.sh
source "$(dirname "$0")/../lib.sh"
gpu_session mma/run.sh "$out"
log=$out/mma-log.txt
: > "$log"

main() {
    local t0=$SECONDS
    echo "== mma golden run, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    local toolkit
    toolkit=$(nvcc --version | tail -n1)
    echo "device: $device"
    echo "toolkit: $toolkit"
    echo "repo commit: $(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)"
    if ! cmp -s <(python3 "$here/gen.py" cuda) "$here/mma.cu"; then
        echo "WARNING: mma.cu differs from 'gen.py cuda'; using the regenerated source"
    fi
    python3 "$here/gen.py" cuda > "$work/mma.cu"

    # 1. Which forms does this toolkit's ptxas accept? (PTX ISA version that nvcc emits)
    echo '__global__ void k() {}' > "$work/t.cu"
    nvcc -arch=sm_90 -ptx "$work/t.cu" -o "$work/t.ptx"
    local ver ptxas
    ver=$(awk '/^\.version/ {print $2; exit}' "$work/t.ptx")
    ptxas=$(dirname "$(command -v nvcc)")/ptxas
    echo "PTX ISA version of nvcc: $ver"
    python3 "$here/gen.py" ptx "$work/ptx" --version "$ver" > "$work/forms.tsv"
    local skipflags=() skipnames=() n name
    while IFS=$'\t' read -r n name; do
        if ! "$ptxas" -arch=sm_90 "$work/ptx/f$n.ptx" -o /dev/null 2> "$work/ptxas.err"; then
            echo "ptxas REJECTS form $n $name: $(head -c 300 "$work/ptxas.err" | tr '\n' ' ')"
            skipflags+=("-DMMA_SKIP_$n")
            skipnames+=("$name")
        fi
    done < "$work/forms.tsv"
    echo "ptxas accepts $(( $(wc -l < "$work/forms.tsv") - ${#skipnames[@]} )) of $(wc -l < "$work/forms.tsv") forms"

    # 2. Inputs (background) while the driver compiles.
    local skiparg=()
    if [ ${#skipnames[@]} -gt 0 ]; then skiparg=(--skip "$(IFS=,; echo "${skipnames[*]}")"); fi
    python3 "$here/gen.py" inputs "$work/in.bin" "${skiparg[@]}" 2> "$work/gen.err" &
    local genpid=$!
    if ! nvcc -arch=sm_90 -O2 "${skipflags[@]}" "$work/mma.cu" -o "$work/mma" 2> "$work/nvcc.err"; then
        echo "nvcc failed on the whole driver:"; head -n 20 "$work/nvcc.err"
        echo "compiling each form alone to find the culprits"
        local all=()
        while IFS=$'\t' read -r n name; do all+=("$n"); done < "$work/forms.tsv"
        for n in "${all[@]}"; do
            local others=()
            for m in "${all[@]}"; do [ "$m" = "$n" ] || others+=("-DMMA_SKIP_$m"); done
            ( nvcc -arch=sm_90 -O2 "${others[@]}" -c "$work/mma.cu" -o "$work/one$n.o" \
                  > /dev/null 2>&1 || echo "$n" > "$work/bad$n" ) &
            while [ "$(jobs -rp | wc -l)" -ge 12 ]; do sleep 0.2; done
        done
        wait $(jobs -rp | grep -v "^$genpid\$") 2>/dev/null || true
        for n in "${all[@]}"; do
            if [ -e "$work/bad$n" ]; then
                echo "form $n does not compile; skipped"
                skipflags+=("-DMMA_SKIP_$n")
            fi
        done
        nvcc -arch=sm_90 -O2 "${skipflags[@]}" "$work/mma.cu" -o "$work/mma"
    fi
    echo "driver compiled ($((SECONDS - t0)) s)"
    wait "$genpid" || { echo "gen.py inputs failed:"; cat "$work/gen.err"; return 1; }
    echo "inputs: $(stat -c %s "$work/in.bin") bytes ($((SECONDS - t0)) s)"

    # 3. SASS of the mma instructions, per kernel (best effort).
    if command -v cuobjdump >/dev/null; then
        echo "== SASS (MMA instructions per kernel; kN = form N of gen.py FORMS)"
        cuobjdump -sass "$work/mma" 2>/dev/null | awk '
            /Function :/ { fn = $NF }
            /MMA|IMMA|HMMA|DMMA|QMMA|F2FP|HADD2|I2F|F2F/ {
                line = $0; sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line); sub(/[ \t]*;.*$/, "", line)
                print "  " fn ": " line }' | head -n 400 || true
    fi

    # 4. Run: all forms in one process; any form left without output is retried on its own.
    mkdir -p "$work/d"
    echo "== GPU runs"
    local rc=0
    timeout 300 "$work/mma" "$work/in.bin" "$work/d" || rc=$?
    echo "driver exit status $rc ($((SECONDS - t0)) s)"
    if [ "$rc" -ne 0 ]; then
        local nin i
        nin=$(python3 -c 'import struct,sys; print(struct.unpack_from("<I", open(sys.argv[1],"rb").read(12), 8)[0])' "$work/in.bin")
        for ((i = 0; i < nin; i++)); do
            if [ ! -s "$work/d/d$i.run2" ]; then
                echo "retrying input form $i alone"
                timeout 60 "$work/mma" "$work/in.bin" "$work/d" "$i" || echo "  form $i failed again"
            fi
        done
    fi

    # 5. Pack inputs and outputs into the golden file.
    echo "== pack"
    python3 "$here/gen.py" pack "$work/in.bin" "$work/d" "$out/mma-golden.bin.xz" \
        --device "$device" --toolkit "$toolkit"
    echo "== done in $((SECONDS - t0)) s"
    ls -l "$out"
}

main 2>&1 | tee -a "$log"
