#!/usr/bin/env bash
# Full binade tables of ex2/rcp/rsqrt/sqrt/lg2 .approx.ftz.f32 on an sm_90 GPU (tables.cu), and the
# SASS ptxas makes of every f32/f64 approximate form (how the non-.ftz forms, div.full, sin/cos
# reach the MUFU unit). About 30 s on an H200. Needs nvcc, cuobjdump and a GPU.
#
#   scripts/hardware/approx/tables.sh OUTDIR
#
# Writes OUTDIR/<form>.delta.xz (tables_pack.py), OUTDIR/approx-sass.txt, OUTDIR/tables-log.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: tables.sh OUTDIR}
mkdir -p "$out"; out=$(cd "$out" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
exec > >(tee -a "$out/tables-log.txt") 2>&1
echo "device: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -n1)"
echo "nvcc: $(nvcc --version | tail -n1)"
nvcc -arch=sm_90 -O2 "$here/tables.cu" -o "$work/tables"
time "$work/tables" "$work"
# SASS of each approximate form, one kernel a form
{
    echo '.version 8.0'; echo '.target sm_90'; echo '.address_size 64'
    n=0
    for f in ex2.approx.f32 ex2.approx.ftz.f32 lg2.approx.f32 lg2.approx.ftz.f32 sin.approx.f32 \
        sin.approx.ftz.f32 cos.approx.f32 cos.approx.ftz.f32 rsqrt.approx.f32 rsqrt.approx.ftz.f32 \
        rcp.approx.f32 rcp.approx.ftz.f32 sqrt.approx.f32 sqrt.approx.ftz.f32 tanh.approx.f32; do
        echo ".visible .entry k$n(.param .u64 p) { .reg .b32 %r<3>; .reg .b64 %rd<2>;"
        echo "ld.param.u64 %rd0, [p]; ld.global.u32 %r0, [%rd0]; $f %r1, %r0; st.global.u32 [%rd0+4], %r1; ret; } // $f"
        n=$((n + 1))
    done
    for f in div.approx.f32 div.approx.ftz.f32 div.full.f32 div.full.ftz.f32; do
        echo ".visible .entry k$n(.param .u64 p) { .reg .b32 %r<3>; .reg .b64 %rd<2>;"
        echo "ld.param.u64 %rd0, [p]; ld.global.u32 %r0, [%rd0]; ld.global.u32 %r2, [%rd0+8]; $f %r1, %r0, %r2; st.global.u32 [%rd0+4], %r1; ret; } // $f"
        n=$((n + 1))
    done
    for f in rcp.approx.ftz.f64 rsqrt.approx.f64 rsqrt.approx.ftz.f64; do
        echo ".visible .entry k$n(.param .u64 p) { .reg .b64 %rd<4>;"
        echo "ld.param.u64 %rd0, [p]; ld.global.u64 %rd1, [%rd0]; $f %rd2, %rd1; st.global.u64 [%rd0+8], %rd2; ret; } // $f"
        n=$((n + 1))
    done
} > "$work/forms.ptx"
grep -o '// .*' "$work/forms.ptx" | nl -v0 > "$out/approx-sass.txt"
ptxas -arch=sm_90 "$work/forms.ptx" -o "$work/forms.cubin"
cuobjdump -sass "$work/forms.cubin" >> "$out/approx-sass.txt"
python3 "$here/tables_pack.py" "$work" "$out"
ls -l "$out"
