#!/usr/bin/env bash
# Installs NVIDIA's CUDA compiler tools and headers from PyPI into <repo>/.nv (git-ignored), for the
# optional scripts that regenerate golden data, samples and conformance verdicts, and for the CUDA
# runtime test (crates/cuda/tests/cuda_runtime.rs: nvcc, the CUDA 13 runtime, and the CUDA 12
# runtime in nvidia/cuda_runtime) and the NVRTC test (crates/nvrtc/tests/nvrtc_program.rs: NVRTC
# and its headers). Nothing installed here is committed: NVIDIA's licence forbids redistributing
# it. Those tests are the only ones that need it.
#
#   scripts/install-nvidia-tools.sh            # into <repo>/.nv
#   PTXSIM_NVIDIA_ROOT=/opt/nv scripts/...     # elsewhere; every script reads the same variable
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
root=${PTXSIM_NVIDIA_ROOT:-$repo/.nv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --no-deps -d "$tmp" \
    nvidia-cuda-nvcc nvidia-nvvm nvidia-cuda-runtime nvidia-cuda-crt nvidia-cuda-cccl \
    nvidia-cuda-nvrtc nvidia-cuda-profiler-api \
    nvidia-cuda-runtime-cu12
mkdir -p "$root"
for wheel in "$tmp"/*.whl; do
    python3 -m zipfile -e "$wheel" "$root"
done
chmod +x "$root"/nvidia/cu13/bin/* "$root"/nvidia/cu13/nvvm/bin/* 2>/dev/null || true
"$root/nvidia/cu13/bin/ptxas" --version | tail -n 2
echo "installed under $root (tools in nvidia/cu13/bin, headers in nvidia/cu13/include)"
