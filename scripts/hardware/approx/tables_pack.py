#!/usr/bin/env python3
"""Pack the full tables written by tables.cu / tables2.cu (with numpy where it is installed, as on
the GPU machine; plain Python otherwise).

    tables_pack.py WORK OUTDIR

Each WORK/<form>.u32 becomes OUTDIR/<form>.delta.xz: the u32 differences y[i] - y[i-1] mod 2^32
(y[-1] = 0), xz preset 9. `tanh.approx.f32.u32` (11 binades of 2^23 results, exponent fields
119..129) is first cut down: in each binade the largest k <= 8 such that every aligned group of
2^k consecutive operands has one result, and one result per group; it becomes
OUTDIR/tanh.approx.f32.sub.xz, xz of: one text line `k0 k1 ... k10\n`, then the u32 deltas of
the kept results, binade after binade (the differences run on across binades).
"""
import lzma
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

try:
    import numpy as np
except ImportError:  # pragma: no cover
    np = None


def deltas(raw):
    if np is not None:
        a = np.frombuffer(raw, dtype="<u4")
        return np.diff(a, prepend=np.uint32(0)).astype("<u4").tobytes()
    import array
    a = array.array("I")
    a.frombytes(raw)
    d = array.array("I", [0]) * len(a)
    prev = 0
    for i, y in enumerate(a):
        d[i] = (y - prev) & 0xFFFFFFFF
        prev = y
    return d.tobytes()


def tanh_sub(raw):
    a = np.frombuffer(raw, dtype="<u4").reshape(11, 1 << 23)
    ks, kept = [], []
    for b in range(11):
        row = a[b]
        k = 0
        while k < 8:
            g = row.reshape(-1, 1 << (k + 1))
            if not (g == g[:, :1]).all():
                break
            k += 1
        ks.append(k)
        kept.append(row[:: 1 << k])
    body = np.concatenate(kept)
    return (" ".join(map(str, ks)) + "\n").encode() + deltas(body.tobytes()), ks


def pack(src_dst):
    src, dst = src_dst
    raw = Path(src).read_bytes()
    note = ""
    if Path(src).name == "tanh.approx.f32.u32":
        data, ks = tanh_sub(raw)
        note = f" (k per binade {ks})"
    else:
        data = deltas(raw)
    Path(dst).write_bytes(lzma.compress(data, preset=9))
    return dst, len(raw) // 4, Path(dst).stat().st_size, note


def main():
    work, out = Path(sys.argv[1]), Path(sys.argv[2])
    jobs = []
    for p in sorted(work.glob("*.u32")):
        suffix = ".sub.xz" if p.name == "tanh.approx.f32.u32" else ".delta.xz"
        jobs.append((str(p), str(out / (p.name[:-4] + suffix))))
    with ProcessPoolExecutor() as ex:
        for dst, n, size, note in ex.map(pack, jobs):
            print(f"{dst}: {n} results, {size} bytes{note}")


if __name__ == "__main__":
    main()
