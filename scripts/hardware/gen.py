#!/usr/bin/env python3
"""Generate the sm_90 hardware-comparison module and its inputs (tests/hardware/).

Every cvt and cvt.pack form that ptxas accepts for `.target sm_90` (the `accept` lines of
tests/conformance/, i.e. ptxas's own verdicts) becomes one kernel of `sm90.ptx`:

    thread i loads its source operands from in[i], runs the one instruction, stores d to out[i]

so the same PTX file runs on an sm_90 GPU (scripts/hardware/run-gpu.sh) and in ptxsim
(scripts/hardware/compare.sh, crates/exec/tests/suite/hardware.rs). Inputs depend only on the
operands' widths (and, for f16x2/bf16x2 sources, on their lanes):

* 8-bit and 16-bit sources: every value (exhaustive);
* f16x2/bf16x2 sources: 65,536 words whose low lane takes every value and whose high lane takes
  every value too (a permutation), so each lane is exhaustive;
* 32-bit and 64-bit sources: a pool of specials, format boundaries +-1 ulp and their midpoints,
  integers and half-integers near every integer type's limits, small integers, and random
  values (random bits, and random values in the exponent range of the narrow formats);
* two to four 32-bit sources (f32 pairs, cvt.pack): independent draws from the 32-bit pool.

Usage: python3 scripts/hardware/gen.py [--pool N] [--out DIR]
(stdlib only; deterministic; by default rewrites tests/hardware/ with pools of 16,384 entries;
a larger --pool into another directory gives a bigger run for the GPU than the one committed)
"""
from __future__ import annotations

import argparse
import random
import re
import struct
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONFORMANCE = REPO / "tests" / "conformance"
OUT = REPO / "tests" / "hardware"
TARGET = "sm_90"
VERSION = "8.7"  # new enough for every sm_90 form; the driver of CUDA 12.8+ can JIT it
POOL = 1 << 14   # default entries of the 32- and 64-bit pools (and multi-operand layouts)

REG_BITS = {"b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16,
            "b32": 32, "u32": 32, "s32": 32, "f32": 32, "f16x2": 32,
            "b64": 64, "u64": 64, "s64": 64, "f64": 64}
FILES = ["cvt-scalar.tsv", "cvt-packed.tsv", "cvt-pack.tsv", "cvt-targets.tsv", "misc.tsv"]
OPERAND = re.compile(r"^%([a-z0-9]+)_\d+$")


def accepted_forms():
    """{opcode-with-modifiers: [register types of d, a, b, ...]}, one operand list per form.

    Among the accepted lines of a form, the one with all-register operands of the fewest total
    bits is taken (its natural register types; the operand-size variants are checked elsewhere).
    """
    best = {}
    for name in FILES:
        path = CONFORMANCE / name
        if not path.exists():  # the large tables are stored xz-compressed
            import lzma
            text = lzma.decompress((CONFORMANCE / (name + ".xz")).read_bytes()).decode()
        else:
            text = path.read_text()
        for line in text.splitlines():
            fields = line.split("\t")
            if len(fields) < 4 or fields[0] != TARGET or fields[3] != "accept":
                continue
            text = fields[2].rstrip(";")
            if not text.startswith("cvt") or "{" in text:
                continue
            opcode, _, rest = text.partition(" ")
            mods = opcode.split(".")[1:-2]  # the modifiers before the two type suffixes
            if len(set(mods)) != len(mods):
                continue  # a repeated modifier (`.sat.sat`) is no form of its own
            operands = [o.strip() for o in rest.split(",")]
            types = []
            for o in operands:
                m = OPERAND.match(o)
                if not m or m.group(1) not in REG_BITS:
                    types = None
                    break
                types.append(m.group(1))
            if not types:
                continue
            key = sum(REG_BITS[t] for t in types)
            if opcode not in best or key < best[opcode][0]:
                best[opcode] = (key, types)
    return {op: types for op, (_, types) in sorted(best.items())}


def source_type(opcode):
    """The last type modifier of a cvt opcode (the source type; .b32 after cvt.pack's types)."""
    mods = opcode.split(".")
    return mods[-1]


def layout(opcode, types):
    srcs = types[1:]
    bits = [REG_BITS[t] for t in srcs]
    if bits == [8]:
        return "b8"
    if bits == [16]:
        return "b16"
    if bits == [32] and source_type(opcode) in ("f16x2", "bf16x2"):
        return "h2"
    if bits == [32]:
        return "b32"
    if bits == [64]:
        return "b64"
    if all(b == 32 for b in bits):
        return f"b32x{len(bits)}"
    raise SystemExit(f"no input layout for {opcode} {types}")


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def near(bits, width, spread=2):
    """bits and its neighbours (+-spread ulps), masked to width."""
    mask = (1 << width) - 1
    return [(bits + d) & mask for d in range(-spread, spread + 1)]


def pool32(rng, size):
    vals = []
    # Specials and the f32 boundaries.
    for b in [0, 0x00000001, 0x007fffff, 0x00800000, 0x7f7fffff, 0x7f800000, 0x7f800001,
              0x7fbfffff, 0x7fc00000, 0x7fffffff, 0x3f800000, 0x3f000000, 0x3fc00000]:
        vals += near(b, 32) + near(b | 0x80000000, 32)
    # Narrow formats' max normal, min normal, min subnormal, and their half-ulp midpoints: f16
    # (max 65504, min 2^-14, sub 2^-24), bf16/tf32 share f32's range, e4m3 (448, 2^-6, 2^-9),
    # e5m2 (57344, 2^-14, 2^-16), and the overflow thresholds.
    for x in [65504.0, 65520.0, 2.0 ** -14, 2.0 ** -24, 2.0 ** -25, 448.0, 464.0, 480.0,
              2.0 ** -6, 2.0 ** -9, 2.0 ** -10, 57344.0, 61440.0, 2.0 ** -16, 2.0 ** -17,
              3.3895313892515355e38, 1.0, 0.5, 1.5, 2.5, -0.5]:
        b = f32_bits(x)
        vals += near(b, 32, 3) + near(b | 0x80000000, 32, 3)
    # Integer limits of every integer type, as integers and as floats (+-1 ulp), and the
    # half-integers around them.
    for k in [7, 8, 15, 16, 24, 31, 32, 63, 64]:
        for v in [2 ** k - 1, 2 ** k, 2 ** k + 1, -(2 ** k), -(2 ** k) - 1, -(2 ** k) + 1]:
            vals.append(v & 0xffffffff)
            vals += near(f32_bits(float(v)), 32, 1)
    for v in range(-300, 301):
        vals.append(v & 0xffffffff)
        vals.append(f32_bits(v + 0.5))
        vals.append(f32_bits(float(v)))
    vals = list(dict.fromkeys(vals))
    while len(vals) < size:
        r = rng.random()
        if r < 0.3:
            vals.append(rng.getrandbits(32))
        elif r < 0.8:
            # A value in the narrow formats' exponent range, with a mantissa that often ends in
            # a tie or near-tie at f16 / bf16 / tf32 / fp8 precision.
            e = rng.randint(127 - 30, 127 + 20)
            m = rng.getrandbits(23)
            if rng.random() < 0.4:
                cut = rng.choice([13, 16, 13, 20, 21])  # f16/tf32, bf16, e4m3, e5m2 low bits
                m = (m >> cut << cut) | (1 << (cut - 1)) | (rng.getrandbits(1) if rng.random() < 0.3 else 0)
            vals.append((rng.getrandbits(1) << 31) | (e << 23) | (m & 0x7fffff))
        else:
            # An integer-ish float or a small integer.
            v = rng.randint(-(2 ** 20), 2 ** 20) / rng.choice([1, 2, 4, 8])
            vals.append(f32_bits(v) if rng.random() < 0.5 else int(v) & 0xffffffff)
    return vals[:size]


def pool64(rng, size):
    vals = []
    for b in [0, 1, 0x000fffffffffffff, 0x0010000000000000, 0x7fefffffffffffff,
              0x7ff0000000000000, 0x7ff0000000000001, 0x7ff7ffffffffffff, 0x7ff8000000000000,
              0x7fffffffffffffff, 0x3ff0000000000000]:
        vals += near(b, 64) + near(b | (1 << 63), 64)
    # f32's boundaries and midpoints seen from f64.
    for x in [3.4028234663852886e38, 3.4028235677973366e38, 2.0 ** -126, 2.0 ** -149,
              2.0 ** -150, 65504.0, 65520.0, 2.0 ** -24, 1.0, 1.5, 2.5, 0.5]:
        b = f64_bits(x)
        vals += near(b, 64, 2) + near(b | (1 << 63), 64, 2)
    for k in [7, 8, 15, 16, 31, 32, 53, 63, 64]:
        for v in [2 ** k - 1, 2 ** k, 2 ** k + 1, -(2 ** k), -(2 ** k) - 1, -(2 ** k) + 1]:
            vals.append(v & 0xffffffffffffffff)
            vals += near(f64_bits(float(v)), 64, 1)
    for v in range(-150, 151):
        vals.append(v & 0xffffffffffffffff)
        vals.append(f64_bits(v + 0.5))
    vals = list(dict.fromkeys(vals))
    while len(vals) < size:
        r = rng.random()
        if r < 0.3:
            vals.append(rng.getrandbits(64))
        elif r < 0.8:
            e = rng.randint(1023 - 160, 1023 + 140)
            m = rng.getrandbits(52)
            if rng.random() < 0.4:
                cut = 29  # f32 precision
                m = (m >> cut << cut) | (1 << (cut - 1)) | (rng.getrandbits(1) if rng.random() < 0.3 else 0)
            vals.append((rng.getrandbits(1) << 63) | (e << 52) | (m & ((1 << 52) - 1)))
        else:
            v = rng.randint(-(2 ** 62), 2 ** 62) >> rng.randint(0, 60)
            vals.append(f64_bits(float(v)) if rng.random() < 0.5 else v & 0xffffffffffffffff)
    return vals[:size]


def inputs(size):
    """{layout: (count, bytes)}."""
    rng = random.Random(0x5eed90)
    p32 = pool32(rng, size)
    p64 = pool64(rng, size)
    out = {
        "b8": (256, bytes(range(256))),
        "b16": (65536, b"".join(struct.pack("<H", i) for i in range(65536))),
        # Low lane i, high lane 40503*i mod 2^16 (odd multiplier: a permutation).
        "h2": (65536, b"".join(struct.pack("<HH", i, (40503 * i) & 0xffff) for i in range(65536))),
        "b32": (size, b"".join(struct.pack("<I", v) for v in p32)),
        "b64": (size, b"".join(struct.pack("<Q", v) for v in p64)),
    }
    for n in (2, 3, 4):
        cols = [p32] + [rng.sample(p32, len(p32)) for _ in range(n - 1)]
        out[f"b32x{n}"] = (size, b"".join(struct.pack(f"<{n}I", *row) for row in zip(*cols)))
    return out


def kernel(index, opcode, types, lay):
    d, *srcs = types
    widths = [REG_BITS[t] // 8 for t in srcs]
    in_bytes = sum(widths)
    out_bytes = REG_BITS[d] // 8
    lines = [f".visible .entry f{index}(.param .u64 pin, .param .u64 pout)", "{",
             "\t.reg .u32 %t<4>;", "\t.reg .u64 %p<6>;", f"\t.reg .{d} %d;"]
    lines += [f"\t.reg .{t} %a{i};" for i, t in enumerate(srcs)]
    lines += ["\tmov.u32 %t1, %ctaid.x;", "\tmov.u32 %t2, %ntid.x;", "\tmov.u32 %t3, %tid.x;",
              "\tmad.lo.u32 %t0, %t1, %t2, %t3;",
              "\tld.param.u64 %p0, [pin];", "\tld.param.u64 %p1, [pout];",
              "\tcvta.to.global.u64 %p0, %p0;", "\tcvta.to.global.u64 %p1, %p1;",
              f"\tmul.wide.u32 %p2, %t0, {in_bytes};", "\tadd.u64 %p2, %p0, %p2;"]
    offset = 0
    for i, w in enumerate(widths):
        lines.append(f"\tld.global.b{8 * w} %a{i}, [%p2+{offset}];")
        offset += w
    operands = ", ".join(["%d"] + [f"%a{i}" for i in range(len(srcs))])
    lines += [f"\t{opcode} {operands};",
              f"\tmul.wide.u32 %p3, %t0, {out_bytes};", "\tadd.u64 %p3, %p1, %p3;",
              f"\tst.global.b{8 * out_bytes} [%p3], %d;", "\tret;", "}", ""]
    return "\n".join(lines), out_bytes


def main():
    ap = argparse.ArgumentParser(description="sm_90 hardware-comparison module and inputs")
    ap.add_argument("--pool", type=int, default=POOL, help="entries of the 32/64-bit pools")
    ap.add_argument("--out", type=Path, default=OUT, help="directory to write")
    args = ap.parse_args()
    if args.pool % 256 or args.pool < 4096:
        sys.exit("error: --pool must be a multiple of 256, at least 4096")
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    forms = accepted_forms()
    ins = inputs(args.pool)
    header = [
        "// generated by scripts/hardware/gen.py; do not edit",
        "// One kernel per cvt / cvt.pack form that ptxas accepts for sm_90 (tests/conformance/):",
        "// thread i loads its operands from in[i], runs the form, and stores d to out[i].",
        f".version {VERSION}", f".target {TARGET}", ".address_size 64", ""]
    body = []
    table = ["# generated by scripts/hardware/gen.py; do not edit",
             "# kernel\tinstruction\tinput layout (tests/hardware/in-LAYOUT.bin)\tcount\tout bytes"]
    for index, (opcode, types) in enumerate(forms.items()):
        lay = layout(opcode, types)
        text, out_bytes = kernel(index, opcode, types, lay)
        body.append(text)
        regs = ", ".join(["%d"] + [f"%a{i}" for i in range(len(types) - 1)])
        table.append(f"f{index}\t{opcode} {regs}\t{lay}\t{ins[lay][0]}\t{out_bytes}")
    (out / "sm90.ptx").write_text("\n".join(header + body))
    (out / "forms.tsv").write_text("\n".join(table) + "\n")
    used = {layout(opcode, types) for opcode, types in forms.items()}
    for lay, (_, data) in ins.items():
        if lay in used:
            (out / f"in-{lay}.bin").write_bytes(data)
    print(f"{len(forms)} forms, {len(used)} input layouts -> {out}")


if __name__ == "__main__":
    main()
