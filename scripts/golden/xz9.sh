#!/usr/bin/env bash
# Compresses stdin to stdout the way the committed tests/golden/*.txt.xz are compressed: xz
# preset 9, single-threaded, CRC64 check. The output is a function of the input and these
# settings only (no timestamps or names are stored; the multi-threaded encoder, which splits
# blocks, is never used), so regenerating an unchanged table gives identical bytes.
# `xz -9 -T1` and Python's `lzma.compress(data, preset=9)` (the fallback when xz is absent)
# are the same liblzma encoder and write the same bytes.
set -euo pipefail
if command -v xz >/dev/null 2>&1; then
    exec xz -9 -T1 --check=crc64 --stdout
elif command -v python3 >/dev/null 2>&1; then
    exec python3 -c 'import lzma, sys; sys.stdout.buffer.write(lzma.compress(sys.stdin.buffer.read(), preset=9))'
else
    echo "xz9.sh: needs xz (XZ Utils) or python3 to compress the golden tables" >&2
    exit 1
fi
