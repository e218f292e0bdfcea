#!/usr/bin/env python3
"""Regenerate crates/exec/src/alu/approx/*.rle, the silicon tables of the four 16-bit approximate
forms (ex2.approx.f16, ex2.approx.ftz.bf16, tanh.approx.f16, tanh.approx.bf16), and
mufu_rcp64h.delta.xz / mufu_rsq64h.delta.xz (MUFU.RCP64H on the high words of [1, 2), MUFU.RSQ64H
on those of [1, 4): the high words of the rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64 dense
sections, in the format of tables_pack.py) from the H200 measurements in
tests/hardware/approx/approx-raw.bin. (The f32 unit tables come from tables.sh directly.)

    scripts/hardware/approx/extract_tables.py [approx-raw.bin [OUTDIR]]

Format of each .rle file (read by crates/exec/src/alu/approx.rs): the 65,536 outputs y[i]
(input bit pattern i) as the differences d[i] = y[i] - y[i-1] mod 2^16 (y[-1] = 0), run-length
coded: little-endian u16 pairs (d, n), meaning n (1..=65535) consecutive differences equal to d.
"""
from __future__ import annotations

import lzma
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import approx  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
FORMS = {
    "ex2.approx.f16.table": "ex2_f16.rle",
    "ex2.approx.ftz.bf16.table": "ex2_ftz_bf16.rle",
    "tanh.approx.f16.table": "tanh_f16.rle",
    "tanh.approx.bf16.table": "tanh_bf16.rle",
}


def rle(ys):
    out, prev, run_d, run_n = bytearray(), 0, None, 0
    for y in ys:
        d = (y - prev) & 0xFFFF
        prev = y
        if d == run_d and run_n < 0xFFFF:
            run_n += 1
            continue
        if run_d is not None:
            out += struct.pack("<HH", run_d, run_n)
        run_d, run_n = d, 1
    out += struct.pack("<HH", run_d, run_n)
    return bytes(out)


def main():
    raw = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests/hardware/approx/approx-raw.bin"
    outdir = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "crates/exec/src/alu/approx"
    outdir.mkdir(parents=True, exist_ok=True)
    _, sections = approx.decode(raw)
    for name, file in FORMS.items():
        ys = sections[name]
        assert len(ys) == 65536, name
        data = rle(ys)
        (outdir / file).write_bytes(data)
        print(f"{name}: {len(data)} bytes -> {outdir / file}")
    for name, count, file in [("rcp.approx.ftz.f64.dense", 1 << 20, "mufu_rcp64h.delta.xz"),
                              ("rsqrt.approx.ftz.f64.dense", 1 << 21, "mufu_rsq64h.delta.xz")]:
        his = [y >> 32 for y in sections[name][:count]]
        deltas, prev = bytearray(), 0
        for y in his:
            deltas += struct.pack("<I", (y - prev) & 0xFFFFFFFF)
            prev = y
        data = lzma.compress(bytes(deltas), format=lzma.FORMAT_XZ, preset=9)
        (outdir / file).write_bytes(data)
        print(f"{name}: {count} high words, {len(data)} bytes -> {outdir / file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
