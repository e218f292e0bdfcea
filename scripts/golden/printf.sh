#!/usr/bin/env bash
# Regenerates tests/devrt/printf_cases.expected: the host C library's printf (glibc) running the
# printf calls of ptx-samples/cuda/printf_cases.h for threads 0..7, the expected output of the
# nvcc kernel `printf_formats` (ptx-samples/cuda/devrt.cu) launched with 8 threads
# (crates/exec/tests/suite/device_runtime.rs).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
cc -w -O0 -o "$OUT/printf_cases" "$REPO/tests/devrt/printf_cases.c"
"$OUT/printf_cases" 8 > "$REPO/tests/devrt/printf_cases.expected"
echo "printf.sh: wrote tests/devrt/printf_cases.expected ($(ldd --version 2>&1 | head -1))"
