#!/usr/bin/env bash
# How ptxas lowers mma.sync per architecture: which forms have a tensor-core instruction
# (HMMA, QMMA, DMMA) and which are emulated, for crates/exec/src/alu/tensor_cores.rs.
#
#   PTXAS=path/to/ptxas NVDISASM=path/to/nvdisasm scripts/mma-sim/sass.sh > tests/mma-sim/sass.txt
#
# nvdisasm comes with the CUDA toolkit (or the nvidia-cuda-nvdisasm wheel).
set -euo pipefail
PTXAS=${PTXAS:-ptxas}
NVDISASM=${NVDISASM:-nvdisasm}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
form() { # name, regs a b c d (32-bit), register type of c/d, qualifier
  local name=$1 ra=$2 rb=$3 rc=$4 rd=$5 ty=$6 q=$7 i list
  list() { local p=$1 n=$2 s=""; for ((i = 0; i < n; i++)); do s+="${s:+, }%$p$i"; done; echo "$s"; }
  echo ".visible .entry $name(.param .u64 p)"
  echo "{ .reg .b32 %a<$ra>, %b<$rb>; .reg .$ty %c<$rc>, %d<$rd>; .reg .u64 %q; ld.param.u64 %q, [p];"
  for ((i = 0; i < ra; i++)); do echo "ld.global.b32 %a$i, [%q+$((4 * i))];"; done
  for ((i = 0; i < rb; i++)); do echo "ld.global.b32 %b$i, [%q+$((64 + 4 * i))];"; done
  for ((i = 0; i < rc; i++)); do echo "ld.global.$ty %c$i, [%q+$((128 + 8 * i))];"; done
  echo "mma.sync.aligned.$q {$(list d "$rd")}, {$(list a "$ra")}, {$(list b "$rb")}, {$(list c "$rc")};"
  for ((i = 0; i < rd; i++)); do echo "st.global.$ty [%q+$((256 + 8 * i))], %d$i;"; done
  echo "ret; }"
}
for arch in sm_80 sm_86 sm_89 sm_90 sm_100a sm_120a; do
  {
    echo ".version 8.7"; echo ".target $arch"; echo ".address_size 64"
    form f16_k16 4 2 4 4 f32 m16n8k16.row.col.f32.f16.f16.f32
    form bf16_k16 4 2 4 4 f32 m16n8k16.row.col.f32.bf16.bf16.f32
    form tf32_k8 4 2 4 4 f32 m16n8k8.row.col.f32.tf32.tf32.f32
    form quad_pair 2 2 8 8 f32 m8n8k4.row.col.f32.f16.f16.f32
    if [[ $arch != sm_80 && $arch != sm_86 ]]; then
      form e4m3_k32 4 2 4 4 f32 m16n8k32.row.col.f32.e4m3.e4m3.f32
      form e4m3_k16_f16 2 1 2 2 b32 m16n8k16.row.col.f16.e4m3.e5m2.f16
    fi
  } > "$work/$arch.ptx"
  "$PTXAS" -arch "$arch" "$work/$arch.ptx" -o "$work/$arch.cubin"
  echo "== $arch"
  "$NVDISASM" -c "$work/$arch.cubin" |
    sed -E 's@/\*[0-9a-f]+\*/@@; s/^\s+//' |
    awk '/^\.text\./ { if (f) print f ": " s; f = $1; sub(/^\.text\./, "", f); sub(/:$/, "", f); s = ""; next }
         /MMA|UNPACK|FFMA|FADD|HADD2 / { op = $1; if (op ~ /^@/) op = $2; s = s (s ? " " : "") op }
         END { if (f) print f ": " s }'
done
