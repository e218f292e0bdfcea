#!/usr/bin/env python3
"""Generates tests/mma-sim/mma-sim.tsv.xz: `mma.sync` tiles with the D that MMA-Sim (Microsoft,
arXiv 2511.10909, https://github.com/microsoft/MMA-Sim) computes for each GPU generation it
models, for crates/exec/tests/suite/mma_sim.rs.

    python3 scripts/mma-sim/generate.py MMA_SIM_CHECKOUT [OUTPUT]

MMA_SIM_CHECKOUT is a checkout of MMA-Sim (the folder holding `mmasim/`); it needs PyTorch
(`pip install torch`; it runs on the CPU). OUTPUT defaults to tests/mma-sim/mma-sim.tsv.xz.
The inputs come from a fixed seed, so the file is reproducible for a given MMA-Sim commit.

Every `mma.sync` qualifier MMA-Sim models for Ampere (sm_80), Ada Lovelace (sm_89), Hopper
(sm_90), Blackwell (sm_100) and RTX Blackwell (sm_120) is run on the same inputs under each
generation that has it, in two classes of tiles chosen so that the generations differ:

* `spread`: every element a random normal number (random sign and fraction, the exponent
  spread over a wide range), so that products of very different magnitudes meet and the
  alignment width (24 or 25 fraction bits) and the split-k grouping show;
* `cancel`: A and B as above in a narrower range, and C the negated product A*B rounded to C's
  type, so that the sum cancels down to the bits each generation kept.

No element is zero, and the ranges keep the products and sums normal in D's type: MMA-Sim gives
a zero the exponent -126, where the H100/H200 measurements behind ptxsim's Hopper model do not
(crates/exec/src/alu/mma.rs, LOWEST_BIT), so the classes stay clear of that corner.

The FP8 forms are also written with sm_120a's `.kind::f8f6f4` (RTX Blackwell only).

Columns: qualifier (as after `mma.sync.aligned.`, with `.row.col`), class, A (m x k, row-major),
B (k x n, row-major), C and then D of each generation (m x n, row-major), every element as
fixed-width hex of its bits (`.tf32`: the whole 32-bit word; MMA-Sim ignores the low 13 bits as
the GPUs do), `-` where the generation has no such form.
"""

import lzma
import os
import random
import subprocess
import sys

ARCHS = [
    ("Ampere", "sm_80"),
    ("Ada Lovelace", "sm_89"),
    ("Hopper", "sm_90"),
    ("Blackwell", "sm_100"),
    ("RTX Blackwell", "sm_120"),
]

# (exponent bits, fraction bits, width) of the element types.
FORMATS = {
    "f16": (5, 10, 16),
    "bf16": (8, 7, 16),
    "tf32": (8, 10, 32),
    "f32": (8, 23, 32),
    "f64": (11, 52, 64),
    "e4m3": (4, 3, 8),
    "e5m2": (5, 2, 8),
}


def exponent_range(ty, d_type, klass):
    """The unbiased exponents elements of `ty` take: wide, but keeping products and sums
    normal (and finite) in D's type."""
    if d_type == "f16":
        return (-5, 3) if klass == "spread" else (-4, 2)
    return {
        "f16": (-12, 12) if klass == "spread" else (-6, 6),
        "bf16": (-40, 40) if klass == "spread" else (-12, 12),
        "tf32": (-40, 40) if klass == "spread" else (-12, 12),
        "f64": (-60, 60) if klass == "spread" else (-12, 12),
        "e4m3": (-6, 8) if klass == "spread" else (-4, 4),
        "e5m2": (-14, 15) if klass == "spread" else (-6, 6),
        "f32": (-40, 40),
    }[ty]


def random_bits(rng, ty, low, high):
    """A random normal element of `ty` with an exponent in [low, high] (random sign and
    fraction; `.tf32` with random low 13 bits too; never the e4m3 NaN)."""
    ebits, mbits, width = FORMATS[ty]
    if ty == "tf32":
        width = 19  # then 13 low bits below
    bias = (1 << (ebits - 1)) - 1
    while True:
        exponent = rng.randint(low, high)
        fraction = rng.getrandbits(mbits)
        bits = (rng.getrandbits(1) << (width - 1)) | ((exponent + bias) << mbits) | fraction
        if ty == "tf32":
            bits = (bits << 13) | rng.getrandbits(13)
        if ty == "e4m3" and bits & 0x7F == 0x7F:
            continue
        return bits


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    checkout = os.path.abspath(sys.argv[1])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    output = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "tests/mma-sim/mma-sim.tsv.xz")
    sys.path.insert(0, checkout)
    import torch
    from mmasim.isa.nv_ptx.nv_mma import arch_mma_qualifiers
    from mmasim.simulator.nv_ptx import mma

    commit = subprocess.run(
        ["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip() or "unknown"

    storage = {8: torch.uint8, 16: torch.int16, 32: torch.int32, 64: torch.int64}
    dtypes = {
        "f16": torch.float16,
        "bf16": torch.bfloat16,
        "tf32": torch.float32,
        "f32": torch.float32,
        "f64": torch.float64,
        "e4m3": torch.float8_e4m3fn,
        "e5m2": torch.float8_e5m2,
    }

    def tensor(rows, ty):
        width = FORMATS[ty][2]
        signed = [
            [v - (1 << width) if width > 8 and v >> (width - 1) else v for v in row] for row in rows
        ]
        return torch.tensor(signed, dtype=storage[width]).view(dtypes[ty])

    def hexes(rows, ty):
        width = FORMATS[ty][2]
        return "".join(f"{v & ((1 << width) - 1):0{width // 4}x}" for row in rows for v in row)

    qualifiers = []
    for arch, _ in ARCHS:
        for q in arch_mma_qualifiers[arch]:
            types = q.split(".")[1:]
            # Volta's quad-pair m8n8k4 .f16 has no tensor-core instruction from sm_80 on (ptxas
            # emulates it); FP4 (`e2m1`) is sm_120a's `.kind::f8f6f4`, not modelled here.
            if q.startswith("m8n8k4.") and types[1] == "f16" or "e2m1" in types:
                continue
            if q not in qualifiers:
                qualifiers.append(q)

    # sm_120a's `.kind::f8f6f4` spelling of the FP8 forms (MMA-Sim's RTX Blackwell list has
    # them; its FP4 `e2m1` operands do not run in MMA-Sim's `mma`, only with block scaling).
    kinds = [q for q in arch_mma_qualifiers["RTX Blackwell"] if q.startswith("m16n8k32.") and "e2m1" not in q]

    rng = random.Random(34)
    lines = [
        "# mma.sync tiles and MMA-Sim's D per generation: scripts/mma-sim/generate.py, "
        f"MMA-Sim commit {commit}, torch {torch.__version__}",
        "qualifier\tclass\ta\tb\tc\t" + "\t".join(sm for _, sm in ARCHS),
    ]
    for q, kind in [(q, "") for q in qualifiers] + [(q, ".kind::f8f6f4") for q in kinds]:
        shape, d_type, a_type, b_type, c_type = q.split(".")
        m, rest = shape[1:].split("n")
        n, k = rest.split("k")
        m, n, k = int(m), int(n), int(k)
        for klass in ["spread", "cancel"]:
            a = [[random_bits(rng, a_type, *exponent_range(a_type, d_type, klass)) for _ in range(k)] for _ in range(m)]
            b = [[random_bits(rng, b_type, *exponent_range(b_type, d_type, klass)) for _ in range(n)] for _ in range(k)]
            if klass == "spread":
                # C spread over the range of the products.
                low, high = exponent_range(a_type, d_type, klass)
                if c_type == "f16":
                    low, high = exponent_range(c_type, d_type, klass)
                c = [[random_bits(rng, c_type, 2 * low, 2 * high) for _ in range(n)] for _ in range(m)]
            else:
                # C = -(A*B) in f64, rounded to C's type (the products of these ranges are exact
                # in f64).
                av = tensor(a, a_type).double()
                bv = tensor(b, b_type).double()
                if a_type == "tf32":
                    av = tensor([[x >> 13 << 13 for x in row] for row in a], "f32").double()
                    bv = tensor([[x >> 13 << 13 for x in row] for row in b], "f32").double()
                exact = -(av @ bv)
                if c_type == "f16":
                    # f64 -> f32 -> f16 could round twice; go through exact f32 only when it is.
                    cv = exact.to(torch.float32).to(torch.float16)
                else:
                    cv = exact.to(dtypes[c_type])
                width = FORMATS[c_type][2]
                c = [[int(x) & ((1 << width) - 1) for x in row] for row in cv.view(storage[width]).tolist()]
                if any(v & ((1 << (width - 1)) - 1) == 0 for row in c for v in row):
                    c = [[v if v & ((1 << (width - 1)) - 1) else random_bits(rng, c_type, -2, 2) for v in row] for row in c]
            row = [f"{shape}.row.col{kind}.{d_type}.{a_type}.{b_type}.{c_type}", klass, hexes(a, a_type), hexes(b, b_type), hexes(c, c_type)]
            for arch, _ in ARCHS:
                if q not in arch_mma_qualifiers[arch] or kind and arch != "RTX Blackwell":
                    row.append("-")
                    continue
                d = mma(arch, q)(tensor(a, a_type), tensor(b, b_type), tensor(c, c_type))
                width = FORMATS[d_type][2]
                bits = [[int(x) for x in r] for r in d.view(storage[width]).tolist()]
                row.append(hexes(bits, d_type))
            lines.append("\t".join(row))
            print(q, klass, file=sys.stderr)
    os.makedirs(os.path.dirname(output), exist_ok=True)
    with lzma.open(output, "wt", preset=9 | lzma.PRESET_EXTREME) as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
