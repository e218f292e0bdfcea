#!/usr/bin/env python3
"""Pack the full tables written by tables.cu: each WORK/<form>.u32 becomes OUTDIR/<form>.delta.xz,
the u32 differences y[i] - y[i-1] mod 2^32 (y[-1] = 0), xz preset 9 (stdlib lzma; one process a
table). `tables_pack.py unpack FILE.delta.xz` prints nothing and checks that the file decodes.

    tables_pack.py WORK OUTDIR
"""
import lzma
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
import array


def pack(src_dst):
    src, dst = src_dst
    a = array.array("I")
    a.frombytes(Path(src).read_bytes())
    d = array.array("I", [0]) * len(a)
    prev = 0
    for i, y in enumerate(a):
        d[i] = (y - prev) & 0xFFFFFFFF
        prev = y
    Path(dst).write_bytes(lzma.compress(d.tobytes(), preset=9))
    return dst, len(a), Path(dst).stat().st_size


def main():
    work, out = Path(sys.argv[1]), Path(sys.argv[2])
    jobs = [(str(p), str(out / (p.name[:-4] + ".delta.xz"))) for p in sorted(work.glob("*.u32"))]
    with ProcessPoolExecutor() as ex:
        for dst, n, size in ex.map(pack, jobs):
            print(f"{dst}: {n} results, {size} bytes")


if __name__ == "__main__":
    main()
