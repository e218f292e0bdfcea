#!/usr/bin/env bash
# The SASS ptxas makes of mma.sync forms for sm_90 (how the tensor core is used), on a machine
# with ptxas and cuobjdump. Writes OUTDIR/fp8-sass.txt (the FP8 forms and a bf16 reference) or,
# with `more`, OUTDIR/more-sass.txt (tf32 m16n8k8 and the quad-pair m8n8k4 f16 forms).
#   scripts/hardware/mma/fp8-sass.sh OUTDIR [more]
set -euo pipefail
out=${1:?usage: fp8-sass.sh OUTDIR [more]}
mkdir -p "$out"
work=$(mktemp -d)
{
    echo '.version 8.7'; echo '.target sm_90'; echo '.address_size 64'
    n=0
    forms="m16n8k32.row.col.f32.e4m3.e4m3.f32 m16n8k32.row.col.f16.e4m3.e4m3.f16 m16n8k16.row.col.f32.e4m3.e4m3.f32 m16n8k16.row.col.f32.bf16.bf16.f32"
    [ "${2:-}" = more ] && forms="m16n8k8.row.col.f32.tf32.tf32.f32 m16n8k4.row.col.f32.tf32.tf32.f32 m8n8k4.row.col.f32.f16.f16.f32 m8n8k4.row.col.f16.f16.f16.f16"
    for f in $forms; do
        case $f in
        m16n8k8.*tf32*) a=4 b=2 c=4 d=4 ;;
        m16n8k4.*tf32*) a=2 b=1 c=4 d=4 ;;
        m8n8k4.*f32.f16.f16.f32) a=2 b=2 c=8 d=8 ;;
        m8n8k4.*f16.f16.f16.f16) a=2 b=2 c=4 d=4 ;;
        *k32.*f32.e4m3*) a=4 b=2 c=4 d=4 ;;
        *k32.*f16.e4m3*) a=4 b=2 c=2 d=2 ;;
        *k16.*e4m3*) a=2 b=1 c=4 d=4 ;;
        *) a=4 b=2 c=4 d=4 ;;
        esac
        regs() { local p=$1 k=$2 s=""; for ((i = 0; i < k; i++)); do s="$s${s:+, }%$p$i"; done; echo "{$s}"; }
        echo ".visible .entry k$n(.param .u64 p) { .reg .b32 %a<8>; .reg .b32 %b<8>; .reg .b32 %c<8>; .reg .b32 %d<8>; .reg .b64 %rd<2>;"
        echo "ld.param.u64 %rd0, [p];"
        for ((i = 0; i < a; i++)); do echo "ld.global.u32 %a$i, [%rd0+$((4 * i))];"; done
        for ((i = 0; i < b; i++)); do echo "ld.global.u32 %b$i, [%rd0+$((32 + 4 * i))];"; done
        for ((i = 0; i < c; i++)); do echo "ld.global.u32 %c$i, [%rd0+$((64 + 4 * i))];"; done
        echo "mma.sync.aligned.$f $(regs d $d), $(regs a $a), $(regs b $b), $(regs c $c);"
        for ((i = 0; i < d; i++)); do echo "st.global.u32 [%rd0+$((96 + 4 * i))], %d$i;"; done
        echo "ret; } // $f"
        n=$((n + 1))
    done
} > "$work/fp8.ptx"
name=$([ "${2:-}" = more ] && echo more-sass.txt || echo fp8-sass.txt)
grep -o '// .*' "$work/fp8.ptx" | nl -v0 > "$out/$name"
ptxas -arch=sm_90 "$work/fp8.ptx" -o "$work/fp8.cubin"
cuobjdump -sass "$work/fp8.cubin" | grep -v '^\s*/\* [0-9a-fx]* \*/\s*$' | sed 's/;\s*\/\*.*$/;/' >> "$out/$name"
