#!/usr/bin/env python3
"""The integer instructions ptxsim executes, on an sm_90 GPU and in ptxsim: a module with one
kernel per form and the inputs they read (stdlib only).

    ops_gen.py [--out DIR]        # writes DIR/ops.ptx, DIR/forms.tsv, DIR/in-x4.bin
                                  # (default tests/hardware/ops)

Thread i of kernel fK loads four 64-bit words from in-x4.bin row i (32 bytes), takes from each
the bits its operand needs (little-endian: the low 8/16/32 bits), runs the form and stores d to
out[i]. scripts/hardware/run-gpu.sh runs the module on the GPU (--ops) and writes
ops-gpu.bin.xz, the outputs in forms.tsv order; crates/exec/tests/suite/hardware.rs runs every kernel
through ptxsim and compares byte for byte.

Inputs: 8,192 rows; each word is, with equal chances, a SplitMix64 value (seed 0x6f7073), one
of the special values below (integer corners and the specials of f64, f32, f16 and bf16: zeros,
subnormals, infinities, quiet and signalling NaNs, extremes), a small value 0..70 (shift amounts,
bit positions, lengths), or a random value of moderate magnitude (exponents near 0) as an f64, as
an f32 in the low half, or as two f16 in the low half.

The floating-point forms (add, sub, mul, fma, div, sqrt, rcp .rn/.rz/.rm/.rp with .ftz/.sat,
min/max with .NaN, abs, neg on f64, f32, f16, f16x2, bf16, bf16x2) read the same words.
"""
from __future__ import annotations

import argparse
import struct
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "hardware" / "ops"
ROWS = 8192
BITS = {"b16": 16, "u16": 16, "s16": 16, "b32": 32, "u32": 32, "s32": 32, "f32": 32,
        "b64": 64, "u64": 64, "s64": 64, "f64": 64, "f16": 16, "f16x2": 32}
# The register a floating-point instruction type lives in.
REGISTER = {"bf16": "b16", "bf16x2": "b32", "u16x2": "b32", "s16x2": "b32"}
SPECIALS = [0, 1, 2, 3, 7, 0xff, 0x7f, 0x80, 0x7fff, 0x8000, 0xffff, 0x00ff_ffff, 0x0080_0000,
            0x007f_ffff, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x8000_0001, 0x3f80_0000,
            0xbf80_0000, 0x7f80_0000, 0x7fc0_0000, 0x0000_0001, 0x8000_0000_0000_0000,
            0x7fff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff, 0xffff_ffff_8000_0000, 31, 32, 33,
            63, 64, 65,
            # f32
            0x0000_0001, 0x007f_ffff, 0x8000_0001, 0xff80_0000, 0x7f7f_ffff, 0xffc0_0000,
            0x7fbf_ffff, 0x7fa0_0000, 0x3f80_0001, 0x4b00_0000, 0x3400_0000, 0x0080_0001,
            # f64
            0x7ff0_0000_0000_0000, 0x7ff8_0000_0000_0000, 0x7ff4_0000_0000_0000,
            0x000f_ffff_ffff_ffff, 0x0000_0000_0000_0001, 0x3ff0_0000_0000_0000,
            0x7fef_ffff_ffff_ffff, 0xfff0_0000_0000_0000, 0x3ff0_0000_0000_0001,
            # f16 / f16x2 and bf16 / bf16x2 (both halves)
            0x7c00, 0x7e00, 0x7d00, 0x03ff, 0x0001, 0x3c00, 0x7bff, 0xfc00, 0x7c00_3c00,
            0x7f80, 0x7fc0, 0x7fa0, 0x007f, 0x3f80, 0x7f7f, 0x7f80_3f80, 0x0001_8001]


def moderate(rng, kind):
    """A random word whose value is of moderate magnitude as an f64, an f32 or two f16s."""
    word = next(rng)
    if kind == 0:  # f64 with an exponent within 2^-8..2^8
        return (word & 0x800F_FFFF_FFFF_FFFF) | ((1023 - 8 + (word >> 52) % 17) << 52)
    if kind == 1:  # f32 with an exponent within 2^-8..2^8, random high half
        low = (word & 0x807F_FFFF) | ((127 - 8 + (word >> 40) % 17) << 23)
        return (word & ~0xFFFF_FFFF) | low
    halves = []
    for shift in (0, 16):  # two f16 with exponents within 2^-4..2^4
        bits = (word >> shift) & 0xFFFF
        halves.append((bits & 0x83FF) | ((15 - 4 + (bits >> 10) % 9) << 10))
    return (word & ~0xFFFF_FFFF) | halves[0] | (halves[1] << 16)


def splitmix64(state):
    while True:
        state = (state + 0x9E3779B97F4A7C15) & (2**64 - 1)
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        yield z ^ (z >> 31)


def inputs():
    rng = splitmix64(0x6F7073)
    rows = []
    for _ in range(ROWS):
        row = []
        for _ in range(4):
            pick = next(rng)
            kind = pick % 4
            if kind == 0:
                row.append(next(rng))
            elif kind == 1:
                row.append(SPECIALS[(pick >> 8) % len(SPECIALS)])
            elif kind == 2:
                row.append((pick >> 8) % 71)
            else:
                row.append(moderate(rng, (pick >> 8) % 3))
        rows.append(row)
    return b"".join(struct.pack("<4Q", *row) for row in rows)


def forms():
    """(instruction without operands, d type, source types)."""
    out = []
    for left in ("l", "r"):
        for mode in ("wrap", "clamp"):
            out.append((f"shf.{left}.{mode}.b32", "b32", ["b32", "b32", "u32"]))
    for ty in ("u32", "s32"):
        for half in ("lo", "hi"):
            out.append((f"mul24.{half}.{ty}", ty, [ty, ty]))
            out.append((f"mad24.{half}.{ty}", ty, [ty, ty, ty]))
    out.append(("mad24.hi.sat.s32", "s32", ["s32", "s32", "s32"]))
    for ty in ("u16", "s16", "u32", "s32", "u64", "s64"):
        out.append((f"sad.{ty}", ty, [ty, ty, ty]))
    for ty in ("b16", "b32", "b64", "s32"):
        out.append((f"slct.{ty}.s32", ty, [ty, ty, "s32"]))
        out.append((f"slct.{ty}.f32", ty, [ty, ty, "f32"]))
    out.append(("slct.ftz.b32.f32", "b32", ["b32", "b32", "f32"]))
    for ty in ("u32", "s32", "u64", "s64"):
        out.append((f"bfe.{ty}", ty, [ty, "u32", "u32"]))
    for ty in ("b32", "b64"):
        out.append((f"bfi.{ty}", ty, [ty, ty, "u32", "u32"]))
    for mode in ("", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"):
        out.append((f"prmt.b32{mode}", "b32", ["b32", "b32", "b32"]))
    for lut in ("0x96", "0xe8", "0x3c", "0x01", "0xfe"):
        out.append((f"lop3.b32@{lut}", "b32", ["b32", "b32", "b32"]))
    for ty in ("s32", "u32", "s64", "u64", "s16", "u16"):
        out.append((f"mul.hi.{ty}", ty, [ty, ty]))
        out.append((f"mad.hi.{ty}", ty, [ty, ty, ty]))
        out.append((f"div.{ty}", ty, [ty, ty]))
        out.append((f"rem.{ty}", ty, [ty, ty]))
        out.append((f"min.{ty}", ty, [ty, ty]))
        out.append((f"max.{ty}", ty, [ty, ty]))
    for ty, wide in (("s32", "s64"), ("u32", "u64"), ("s16", "s32"), ("u16", "u32")):
        out.append((f"mul.wide.{ty}", wide, [ty, ty]))
        out.append((f"mad.wide.{ty}", wide, [ty, ty, wide]))
    out += [("mad.hi.sat.s32", "s32", ["s32", "s32", "s32"]),
            ("add.sat.s32", "s32", ["s32", "s32"]), ("sub.sat.s32", "s32", ["s32", "s32"]),
            ("min.relu.s32", "s32", ["s32", "s32"]), ("max.relu.s32", "s32", ["s32", "s32"])]
    for ty in ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"):
        out.append((f"shl.{ty}" if ty.startswith("b") else f"shr.{ty}", ty, [ty, "u32"]))
    for ty in ("b16", "b32", "b64"):
        out.append((f"shr.{ty}", ty, [ty, "u32"]))
    for ty in ("b32", "b64"):
        out.append((f"popc.{ty}", "u32", [ty]))
        out.append((f"clz.{ty}", "u32", [ty]))
        out.append((f"brev.{ty}", ty, [ty]))
    for ty in ("s16", "s32", "s64"):
        out.append((f"abs.{ty}", ty, [ty]))
        out.append((f"neg.{ty}", ty, [ty]))
    return out + float_forms() + compare_forms() + atomic_forms()


def atomic_forms():
    """atom on a location of the thread's own (no two threads share one): the location starts
    at the first input, the operation takes the others, and the location's final value is the
    output (global: the output word itself; shared: read back and stored)."""
    out = []
    for space in ("global", "shared"):
        for ty in ("u32", "s32", "u64", "f32", "f64"):
            out.append((f"atom.{space}.add.{ty}", ty, [ty, ty]))
        for ty in ("f16", "f16x2", "bf16", "bf16x2"):
            out.append((f"atom.{space}.add.noftz.{ty}", ty, [ty, ty]))
    for op in ("min", "max"):
        for ty in ("u32", "s32", "u64", "s64"):
            out.append((f"atom.global.{op}.{ty}", ty, [ty, ty]))
    for op in ("inc", "dec"):
        out.append((f"atom.global.{op}.u32", "u32", ["u32", "u32"]))
    for op in ("and", "or", "xor"):
        for ty in ("b32", "b64"):
            out.append((f"atom.global.{op}.{ty}", ty, [ty, ty]))
    for ty in ("b32", "b64"):
        out.append((f"atom.global.exch.{ty}", ty, [ty, ty]))
        out.append((f"atom.global.cas.{ty}", ty, [ty, ty, ty]))
        # The compare operand equal to the location: the swap happens.
        out.append((f"atom.global.cas.{ty}@same", ty, [ty, ty]))
    for ty in ("u32", "f32", "f64"):
        out.append((f"red.global.add.{ty}", ty, [ty, ty]))
    # Generic addresses of global memory.
    for ty in ("f32", "f64", "u32"):
        out.append((f"atom.add.{ty}@generic", ty, [ty, ty]))
    return out


def compare_forms():
    """setp on every comparison and type it has (the predicate stored as 0/1), with .and/.or/.xor
    combining a predicate made from the fourth input (`!= 0`), and selp."""
    out = []
    signed = ["eq", "ne", "lt", "le", "gt", "ge"]
    for ty in ("s16", "s32", "s64"):
        out += [(f"setp.{c}.{ty}", "pred", [ty, ty]) for c in signed]
    for ty in ("u16", "u32", "u64"):
        out += [(f"setp.{c}.{ty}", "pred", [ty, ty]) for c in signed + ["lo", "ls", "hi", "hs"]]
    for ty in ("b16", "b32", "b64"):
        out += [(f"setp.{c}.{ty}", "pred", [ty, ty]) for c in ("eq", "ne")]
    floats = signed + ["equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]
    for ty, ftz in (("f32", True), ("f64", False), ("f16", True), ("bf16", False)):
        out += [(f"setp.{c}.{ty}", "pred", [ty, ty]) for c in floats]
        if ftz:
            out += [(f"setp.{c}.ftz.{ty}", "pred", [ty, ty]) for c in ("lt", "equ", "num")]
    for combine, ty in (("and", "s32"), ("or", "f32"), ("xor", "u64")):
        out.append((f"setp.lt.{combine}.{ty}", "pred", [ty, ty, "pred"]))
    for ty in ("b16", "b32", "b64", "s32", "f32", "f64"):
        out.append((f"selp.{ty}", ty, [ty, ty, "pred"]))
    return out


def float_forms():
    out = []
    for rnd in ("rn", "rz", "rm", "rp"):
        for flags in ("", ".ftz", ".sat", ".ftz.sat"):
            for op in ("add", "sub", "mul"):
                out.append((f"{op}.{rnd}{flags}.f32", "f32", ["f32", "f32"]))
            out.append((f"fma.{rnd}{flags}.f32", "f32", ["f32", "f32", "f32"]))
        for flags in ("", ".ftz"):
            out.append((f"div.{rnd}{flags}.f32", "f32", ["f32", "f32"]))
            out.append((f"sqrt.{rnd}{flags}.f32", "f32", ["f32"]))
            out.append((f"rcp.{rnd}{flags}.f32", "f32", ["f32"]))
        for op in ("add", "sub", "mul", "div"):
            out.append((f"{op}.{rnd}.f64", "f64", ["f64", "f64"]))
        out.append((f"fma.{rnd}.f64", "f64", ["f64", "f64", "f64"]))
        out.append((f"sqrt.{rnd}.f64", "f64", ["f64"]))
        out.append((f"rcp.{rnd}.f64", "f64", ["f64"]))
    for op in ("min", "max"):
        for flags in ("", ".ftz", ".NaN", ".ftz.NaN"):
            out.append((f"{op}{flags}.f32", "f32", ["f32", "f32"]))
        out.append((f"{op}.f64", "f64", ["f64", "f64"]))
    for op in ("abs", "neg"):
        for flags in ("", ".ftz"):
            out.append((f"{op}{flags}.f32", "f32", ["f32"]))
        out.append((f"{op}.f64", "f64", ["f64"]))
    for ty in ("f16", "f16x2"):
        for flags in ("", ".ftz", ".sat", ".ftz.sat"):
            for op in ("add", "sub", "mul"):
                out.append((f"{op}.rn{flags}.{ty}", ty, [ty, ty]))
            out.append((f"fma.rn{flags}.{ty}", ty, [ty, ty, ty]))
        out.append((f"fma.rn.relu.{ty}", ty, [ty, ty, ty]))
        for op in ("min", "max"):
            for flags in ("", ".ftz", ".NaN"):
                out.append((f"{op}{flags}.{ty}", ty, [ty, ty]))
        for op in ("abs", "neg"):
            out.append((f"{op}.{ty}", ty, [ty]))
    for ty in ("bf16", "bf16x2"):
        for op in ("add", "sub", "mul"):
            out.append((f"{op}.rn.{ty}", ty, [ty, ty]))
        out.append((f"fma.rn.{ty}", ty, [ty, ty, ty]))
        out.append((f"fma.rn.relu.{ty}", ty, [ty, ty, ty]))
        for op in ("min", "max"):
            for flags in ("", ".NaN"):
                out.append((f"{op}{flags}.{ty}", ty, [ty, ty]))
        for op in ("abs", "neg"):
            out.append((f"{op}.{ty}", ty, [ty]))
    return out


def scalar_forms():
    """The rest of the scalar ISA (the module `--set scalar`): the carry chain, bfind, fns,
    bmsk, szext, dp4a, dp2a, copysign, testp and set.

    A carry form `NAME@carry` runs `add.cc.u32 %x, a2-or-a3, a3` first (the carry flag is the
    carry out of that addition), then the form on a0, a1 (and a2 for mad/madc); `@flag` stores
    the carry flag the form wrote (`addc.u32 %d, 0, 0`) instead of d."""
    out = []
    for ty in ("u32", "s32", "u64", "s64"):
        for op in ("add.cc", "sub.cc", "addc", "addc.cc", "subc", "subc.cc"):
            out.append((f"{op}.{ty}@carry", ty, [ty, ty, "u32", "u32"]))
            if op.endswith(".cc"):
                out.append((f"{op}.{ty}@flag", "u32", [ty, ty, "u32", "u32"]))
        for op in ("mad.lo.cc", "mad.hi.cc", "madc.lo", "madc.hi", "madc.lo.cc", "madc.hi.cc"):
            out.append((f"{op}.{ty}@carry", ty, [ty, ty, ty, "u32"]))
            if op.endswith(".cc"):
                out.append((f"{op}.{ty}@flag", "u32", [ty, ty, ty, "u32"]))
    for ty in ("u32", "s32", "u64", "s64"):
        out.append((f"bfind.{ty}", "u32", [ty]))
        out.append((f"bfind.shiftamt.{ty}", "u32", [ty]))
    out.append(("fns.b32@base", "b32", ["b32", "u32", "s32"]))
    for mode in ("clamp", "wrap"):
        out.append((f"bmsk.{mode}.b32", "b32", ["u32", "u32"]))
        for ty in ("u32", "s32"):
            out.append((f"szext.{mode}.{ty}", ty, [ty, "u32"]))
    for a in ("u32", "s32"):
        for b in ("u32", "s32"):
            c = "u32" if (a, b) == ("u32", "u32") else "s32"
            out.append((f"dp4a.{a}.{b}", c, [a, b, c]))
            for mode in ("lo", "hi"):
                out.append((f"dp2a.{mode}.{a}.{b}", c, [a, b, c]))
    for ty in ("f32", "f64"):
        out.append((f"copysign.{ty}", ty, [ty, ty]))
        for op in ("finite", "infinite", "number", "notanumber", "normal", "subnormal"):
            out.append((f"testp.{op}.{ty}", "pred", [ty]))
    for name, d, s in (("set.lt.u32.s32", "u32", "s32"), ("set.eq.f32.f32", "f32", "f32"),
                       ("set.gtu.s32.f32", "s32", "f32"), ("set.lt.ftz.u32.f32", "u32", "f32"),
                       ("set.ne.f32.f64", "f32", "f64"), ("set.lo.s32.u16", "s32", "u16"),
                       ("set.nan.u32.f64", "u32", "f64"), ("set.eq.f16.f16", "f16", "f16"),
                       ("set.lt.u32.f16", "u32", "f16"), ("set.le.ftz.s16.f16", "s16", "f16"),
                       ("set.ltu.f16x2.f16x2", "f16x2", "f16x2"),
                       ("set.gt.u32.f16x2", "u32", "f16x2"), ("set.ge.bf16.bf16", "bf16", "bf16"),
                       ("set.le.bf16x2.bf16x2", "bf16x2", "bf16x2"),
                       ("set.eq.s32.bf16x2", "s32", "bf16x2"), ("set.eq.f16.f32", "f16", "f32"),
                       ("set.lt.bf16.s32", "bf16", "s32"), ("set.geu.u16.bf16", "u16", "bf16")):
        out.append((name, d, [s, s]))
    for name, d, s in (("set.lt.and.f32.s32", "f32", "s32"), ("set.gt.or.u32.f32", "u32", "f32"),
                       ("set.ne.xor.f16x2.f16x2", "f16x2", "f16x2")):
        out.append((name, d, [s, s, "pred"]))
    return out


def packed_forms():
    """The module `--set packed`: `.u16x2`/`.s16x2` add/min/max (`.relu`), `min`/`max`
    `.xorsign.abs` (with `.NaN`, `.ftz`) on f32 and the half types."""
    out = []
    for ty in ("u16x2", "s16x2"):
        for op in ("add", "min", "max"):
            out.append((f"{op}.{ty}", ty, [ty, ty]))
    out += [("min.relu.s16x2", "s16x2", ["s16x2", "s16x2"]),
            ("max.relu.s16x2", "s16x2", ["s16x2", "s16x2"])]
    for ty in ("f32", "f16", "f16x2", "bf16", "bf16x2"):
        for op in ("min", "max"):
            out.append((f"{op}.xorsign.abs.{ty}", ty, [ty, ty]))
            out.append((f"{op}.NaN.xorsign.abs.{ty}", ty, [ty, ty]))
    out += [("min.ftz.xorsign.abs.f32", "f32", ["f32", "f32"]),
            ("max.ftz.NaN.xorsign.abs.f16", "f16", ["f16", "f16"])]
    # fma.oob is left out: on an H200 it returned 0 where one operand was 0xfff7 and every other
    # NaN operand gave NaN (the "out-of-bounds" NaN of tensor loads?); not modelled yet.
    return out


def bits(ty):
    return {"bf16": 16, "bf16x2": 32, "u16x2": 32, "s16x2": 32}.get(ty, BITS.get(ty, 0))


def kernel(index, name, d, srcs):
    """A predicate destination is stored as a `.b32` 0 or 1 (`selp`); a predicate source is
    `!= 0` of its 32-bit input word."""
    opcode, _, imm = name.partition("@")
    if opcode.startswith(("atom.", "red.")):
        return atomic_kernel(index, opcode, imm, d, srcs)
    if imm in ("carry", "flag", "base"):
        return special_kernel(index, opcode, imm, d, srcs)
    stored = "b32" if d == "pred" else d
    lines = [f".visible .entry f{index}(.param .u64 pin, .param .u64 pout)", "{",
             "\t.reg .u32 %t<4>;", "\t.reg .u64 %p<6>;",
             f"\t.reg .{REGISTER.get(stored, stored)} %d;", "\t.reg .pred %q;", "\t.reg .b32 %w;"]
    lines += [f"\t.reg .{REGISTER.get(t, t)} %a{i};" for i, t in enumerate(srcs)]
    lines += ["\tmov.u32 %t1, %ctaid.x;", "\tmov.u32 %t2, %ntid.x;", "\tmov.u32 %t3, %tid.x;",
              "\tmad.lo.u32 %t0, %t1, %t2, %t3;",
              "\tld.param.u64 %p0, [pin];", "\tld.param.u64 %p1, [pout];",
              "\tcvta.to.global.u64 %p0, %p0;", "\tcvta.to.global.u64 %p1, %p1;",
              "\tmul.wide.u32 %p2, %t0, 32;", "\tadd.u64 %p2, %p0, %p2;"]
    for i, t in enumerate(srcs):
        if t == "pred":
            lines += [f"\tld.global.b32 %w, [%p2+{8 * i}];", f"\tsetp.ne.b32 %a{i}, %w, 0;"]
        else:
            lines.append(f"\tld.global.b{bits(t)} %a{i}, [%p2+{8 * i}];")
    result = "%q" if d == "pred" else "%d"
    operands = ", ".join([result] + [f"%a{i}" for i in range(len(srcs))] + ([imm] if imm else []))
    out_bytes = bits(stored) // 8
    lines.append(f"\t{opcode} {operands};")
    if d == "pred":
        lines.append("\tselp.b32 %d, 1, 0, %q;")
    lines += [f"\tmul.wide.u32 %p3, %t0, {out_bytes};", "\tadd.u64 %p3, %p1, %p3;",
              f"\tst.global.b{bits(stored)} [%p3], %d;", "\tret;", "}", ""]
    return "\n".join(lines), out_bytes


def special_kernel(index, opcode, variant, d, srcs):
    """The carry forms (`@carry`: store d; `@flag`: store the carry flag the form wrote) and
    fns with its base taken modulo 32 and its offset in -32..31 (`@base`)."""
    ty = opcode.rsplit(".", 1)[1]
    lines = [f".visible .entry f{index}(.param .u64 pin, .param .u64 pout)", "{",
             "\t.reg .u32 %t<4>;", "\t.reg .u64 %p<6>;", f"\t.reg .{d} %d;",
             f"\t.reg .{ty} %r;", "\t.reg .u32 %x;"]
    lines += [f"\t.reg .{t} %a{i};" for i, t in enumerate(srcs)]
    lines += ["\tmov.u32 %t1, %ctaid.x;", "\tmov.u32 %t2, %ntid.x;", "\tmov.u32 %t3, %tid.x;",
              "\tmad.lo.u32 %t0, %t1, %t2, %t3;",
              "\tld.param.u64 %p0, [pin];", "\tld.param.u64 %p1, [pout];",
              "\tcvta.to.global.u64 %p0, %p0;", "\tcvta.to.global.u64 %p1, %p1;",
              "\tmul.wide.u32 %p2, %t0, 32;", "\tadd.u64 %p2, %p0, %p2;"]
    for i, t in enumerate(srcs):
        lines.append(f"\tld.global.b{bits(t)} %a{i}, [%p2+{8 * i}];")
    if variant == "base":
        lines += ["\tand.b32 %a1, %a1, 31;", "\tand.b32 %a2, %a2, 63;",
                  "\tsub.s32 %a2, %a2, 32;", f"\t{opcode} %d, %a0, %a1, %a2;"]
    else:
        mad = opcode.startswith("mad")
        lines.append(f"\tadd.cc.u32 %x, {'%a3' if mad else '%a2'}, %a3;")
        operands = ["%r", "%a0", "%a1"] + (["%a2"] if mad else [])
        lines.append(f"\t{opcode} {', '.join(operands)};")
        if variant == "flag":
            lines.append("\taddc.u32 %d, 0, 0;")
        else:
            lines.append(f"\tmov.b{bits(ty)} %d, %r;")
    out_bytes = bits(d) // 8
    lines += [f"\tmul.wide.u32 %p3, %t0, {out_bytes};", "\tadd.u64 %p3, %p1, %p3;",
              f"\tst.global.b{bits(d)} [%p3], %d;", "\tret;", "}", ""]
    return "\n".join(lines), out_bytes


def atomic_kernel(index, opcode, variant, d, srcs):
    width = bits(d)
    shared = ".shared." in opcode
    lines = [f".visible .entry f{index}(.param .u64 pin, .param .u64 pout)", "{",
             "\t.reg .u32 %t<4>;", "\t.reg .u64 %p<6>;", f"\t.reg .b{width} %d;"]
    lines += [f"\t.reg .b{bits(t)} %a{i};" for i, t in enumerate(srcs)]
    if shared:
        lines.append("\t.shared .align 8 .b8 slots[2048];")
    lines += ["\tmov.u32 %t1, %ctaid.x;", "\tmov.u32 %t2, %ntid.x;", "\tmov.u32 %t3, %tid.x;",
              "\tmad.lo.u32 %t0, %t1, %t2, %t3;",
              "\tld.param.u64 %p0, [pin];", "\tld.param.u64 %p1, [pout];",
              "\tcvta.to.global.u64 %p0, %p0;", "\tcvta.to.global.u64 %p1, %p1;",
              "\tmul.wide.u32 %p2, %t0, 32;", "\tadd.u64 %p2, %p0, %p2;",
              f"\tmul.wide.u32 %p3, %t0, {width // 8};", "\tadd.u64 %p3, %p1, %p3;"]
    for i, t in enumerate(srcs):
        lines.append(f"\tld.global.b{bits(t)} %a{i}, [%p2+{8 * i}];")
    if shared:
        lines += ["\tmul.wide.u32 %p4, %t3, 8;", "\tmov.u64 %p5, slots;", "\tadd.u64 %p4, %p4, %p5;"]
        place = "[%p4]"
        lines.append(f"\tst.shared.b{width} {place}, %a0;")
    elif variant == "generic":
        lines += ["\tld.param.u64 %p4, [pout];", f"\tmul.wide.u32 %p5, %t0, {width // 8};",
                  "\tadd.u64 %p4, %p4, %p5;"]
        place = "[%p4]"
        lines.append(f"\tst.b{width} {place}, %a0;")
    else:
        place = "[%p3]"
        lines.append(f"\tst.global.b{width} {place}, %a0;")
    sources = [f"%a{i}" for i in range(1, len(srcs))]
    if variant == "same":
        sources = ["%a0", "%a1"]
    result = [] if opcode.startswith("red.") else ["%d"]
    lines.append(f"\t{opcode} {', '.join(result + [place] + sources)};")
    if shared:
        lines += [f"\tld.shared.b{width} %d, {place};", f"\tst.global.b{width} [%p3], %d;"]
    lines += ["\tret;", "}", ""]
    return "\n".join(lines), width // 8


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--set", choices=["ops", "scalar", "packed"], default="ops",
                    help="ops: the arithmetic module (tests/hardware/ops); scalar: the carry "
                         "chain, bfind, fns, bmsk, szext, dp4a/dp2a, copysign, testp, set "
                         "(tests/hardware/scalar); packed: .u16x2/.s16x2, .xorsign.abs "
                         "(tests/hardware/packed)")
    args = ap.parse_args()
    if args.out is None:
        args.out = OUT if args.set == "ops" else OUT.parent / args.set
    module = f"{args.set}.ptx"
    chosen = {"ops": forms, "scalar": scalar_forms, "packed": packed_forms}[args.set]()
    args.out.mkdir(parents=True, exist_ok=True)
    header = ["// generated by scripts/hardware/ops_gen.py; do not edit",
              "// One kernel per arithmetic or comparison form: thread i loads its operands from row i of",
              "// in-x4.bin (four 64-bit words), runs the form, and stores d to out[i].",
              f".version {'8.1' if args.set == 'packed' else '8.0'}", ".target sm_90",
              ".address_size 64", ""]
    body = []
    table = ["# generated by scripts/hardware/ops_gen.py; do not edit",
             "# kernel\tinstruction\tinput layout (in-LAYOUT.bin)\tcount\tout bytes"]
    for index, (name, d, srcs) in enumerate(chosen):
        text, out_bytes = kernel(index, name, d, srcs)
        body.append(text)
        opcode, _, imm = name.partition("@")
        if opcode.startswith(("atom.", "red.")):
            # The location starts at a0; the output is its final value.
            sources = ["%a0", "%a1"] if imm == "same" else [f"%a{i}" for i in range(1, len(srcs))]
            location = "[generic a0]" if imm == "generic" else "[a0]"
            regs = ", ".join([location] + sources)
        elif imm in ("carry", "flag", "base"):
            regs = f"%d, ... ({imm}: scripts/hardware/ops_gen.py special_kernel)"
        else:
            regs = ", ".join(["%d"] + [f"%a{i}" for i in range(len(srcs))] + ([imm] if imm else []))
        table.append(f"f{index}\t{opcode} {regs}\tx4\t{ROWS}\t{out_bytes}")
    (args.out / module).write_text("\n".join(header + body))
    (args.out / "forms.tsv").write_text("\n".join(table) + "\n")
    # The other sets read the ops set's inputs (tests/hardware/ops/in-x4.bin): one copy.
    if args.set == "ops":
        (args.out / "in-x4.bin").write_bytes(inputs())
    print(f"{len(table) - 2} forms -> {args.out}")


if __name__ == "__main__":
    main()
