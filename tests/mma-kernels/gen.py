#!/usr/bin/env python3
"""Inputs and launch plan of the tensor-core sample kernels (tests/mma-kernels/README.md).

    python3 gen.py inputs            # writes data/*.bin (fixed seeds; numpy)
    python3 gen.py plan WORKDIR      # run_gpu plan (scripts/hardware/run_gpu.cpp) for every case;
                                     # the PTX files are copied to WORKDIR

The cases themselves are in cases.json: kernel, PTX files, grid, block, arguments
(`buf:FILE` in data/, `out:BYTES` an output buffer the kernel overwrites, `s32:V`, `b64:V`),
dynamic shared memory and which arguments are outputs.
"""
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"


def bf16_bits(x):
    """float32 -> bf16 bit patterns, rounded to nearest even (finite inputs)."""
    import numpy as np

    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def wide(rng, n, spread):
    """Normal values times 2^e, e uniform in [-spread, spread]: products of very different size."""
    import numpy as np

    return rng.standard_normal(n) * np.exp2(rng.integers(-spread, spread + 1, n))


def inputs():
    import numpy as np

    DATA.mkdir(exist_ok=True)
    rng = np.random.default_rng(20261126)
    # bf16 GEMM, 64x64x64 and 256x256x256: wide exponent spread, so the accumulator's alignment
    # and truncation show; row 0 of A and column 0 of B cancel exactly (x, -x pairs) except for
    # one small term.
    for n in (64, 256):
        a = wide(rng, n * n, 8).reshape(n, n)
        b = wide(rng, n * n, 8).reshape(n, n)
        a[0, 1::2] = -a[0, 0::2]
        b[0::2, 0] = b[1::2, 0]
        a[0, 5] = 2.0 ** -20
        bf16_bits(a).tofile(DATA / f"bf16_a{n}.bin")
        bf16_bits(b).tofile(DATA / f"bf16_b{n}.bin")
    # FP8 GEMM 64x64x128: e4m3 codes with exponent fields 3..10 (2^-4 .. 2^3), both signs, every
    # mantissa; a few subnormals and the largest finite value (0x7e = 448).
    m, n, k = 64, 64, 128
    sign = rng.integers(0, 2, (m + n) * k) << 7
    exp = rng.integers(3, 11, (m + n) * k) << 3
    man = rng.integers(0, 8, (m + n) * k)
    codes = (sign | exp | man).astype(np.uint8)
    codes[rng.integers(0, codes.size, 64)] = rng.integers(1, 8, 64)  # subnormals
    codes[rng.integers(0, codes.size, 16)] = 0x7E
    codes[: m * k].tofile(DATA / "e4m3_a.bin")
    codes[m * k:].tofile(DATA / "e4m3_bt.bin")
    np.array([0.17], dtype=np.float32).tofile(DATA / "scale.bin")
    # Triton matmul 128x128x80 (K not a multiple of BLOCK_K = 32: the last step is masked).
    m, n, k = 128, 128, 80
    (rng.standard_normal(m * k) * 2).astype(np.float16).tofile(DATA / "f16_a.bin")
    (rng.standard_normal(k * n) * 2).astype(np.float16).tofile(DATA / "f16_b.bin")


def plan(workdir):
    cases = json.loads((HERE / "cases.json").read_text())["cases"]
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    for case in cases:
        args, saved = [], []
        for i, spec in enumerate(case["args"]):
            kind, value = spec.split(":", 1)
            if kind == "buf":
                args.append(f"buf:{DATA / value}")
            elif kind == "out":
                args.append(f"poison:{value}")
                saved.append(str(i))
            elif kind == "s32":
                args.append(f"b32:{int(value) & 0xFFFFFFFF:x}")
            elif kind == "b64":
                args.append(f"b64:{int(value):x}")
            else:
                raise SystemExit(f"unknown argument {spec}")
        for ptx in case["ptx"]:
            # The driver of CUDA 13.0 JIT-compiles PTX ISA 9.0 at most; nvcc 13.5 writes 9.5
            # (the instructions are unchanged).
            copy = workdir / ptx
            text = (HERE / ptx).read_text()
            copy.write_text(re.sub(r"^\.version\s+9\.[1-9]\b", ".version 9.0", text, flags=re.M))
            dims = lambda d: ",".join(map(str, d))  # noqa: E731
            print("\t".join([str(copy), case["entry"], dims(case["grid"]), dims(case["block"]),
                             " ".join(args), " ".join(saved), str(case.get("dynamic_shared", 0))]))


if __name__ == "__main__":
    if sys.argv[1:2] == ["inputs"]:
        inputs()
    elif sys.argv[1:2] == ["plan"] and len(sys.argv) == 3:
        plan(sys.argv[2])
    else:
        raise SystemExit(__doc__)
