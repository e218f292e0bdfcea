#!/usr/bin/env bash
# Shows how ptxas computes shared-memory addresses in a cluster (docs/clusters.md, "Addresses"):
# compiles ptx-samples/hand/cluster_shared_layout_sm90.ptx for sm_90a and sm_100a and prints
# the instructions that make a variable's address (SR_CgaCtaId, LEA ... 0x18), `mapa` (PRMT
# ... 0x654) and `getctarank` (SHF ... 0x8), and the generic window's high word (SR_SWINHI).
#
#   NVDISASM=/path/to/nvdisasm scripts/blackwell/shared-layout-sass.sh
#
# Tools: ptxas from $PTXSIM_NVIDIA_ROOT (default: <repo>/.nv)/nvidia/cu13/bin; nvdisasm from
# $NVDISASM (the `nvidia-cuda-nvdisasm` wheel has it in nvidia/cu13/bin).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
NVROOT=${PTXSIM_NVIDIA_ROOT:-$REPO/.nv}
PTXAS=$NVROOT/nvidia/cu13/bin/ptxas
: "${NVDISASM:?set NVDISASM to nvdisasm (pip wheel nvidia-cuda-nvdisasm)}"
if [ ! -x "$PTXAS" ]; then
    echo "shared-layout-sass.sh: ptxas not found at $PTXAS (set PTXSIM_NVIDIA_ROOT)" >&2
    exit 1
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for ARCH in sm_90a sm_100a; do
    sed -e "s/^\.target sm_90$/.target $ARCH/" -e "s/^\.version 8\.0$/.version 8.7/" \
        "$REPO/ptx-samples/hand/cluster_shared_layout_sm90.ptx" \
        >"$WORK/layout.ptx"
    "$PTXAS" -arch "$ARCH" "$WORK/layout.ptx" -o "$WORK/layout.cubin"
    echo "== $ARCH"
    "$NVDISASM" -c "$WORK/layout.cubin" |
        grep -E 'SR_CgaCtaId|SR_SWINHI|LEA .*0x18|PRMT .*0x654|SHF\.L\.U64\.HI .*0x8' |
        sed 's/^ *//'
done
