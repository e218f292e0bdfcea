"""Variants of the instructions ptxsim executes besides cvt, cvt.pack and mov, for gen.py.

Three files, made in order, each from ptxas's verdicts on the one before:

* ``ops-forms.tsv``: every opcode with every modifier subset of up to two (three for the
  floating-point arithmetic) from a pool of the modifiers that opcode's spec section names plus
  some that it does not, times every type, with the registers the spec names for the type;
* ``ops-operands.tsv``: for each form that ptxas accepted, each operand in turn replaced by a
  register of every other type, by each kind of literal, by the sink, plus one operand too few
  and one too many;
* ``ops-targets.tsv``: each accepted form on a list of older targets and versions.

Operands follow gen.py's convention: ``%<regtype>_<n>`` is declared ``.reg .<regtype>``.
"""
from __future__ import annotations

import itertools

TYPES = ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
         "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred", "u16x2", "s16x2"]
REG_TYPES = ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64",
             "s8", "s16", "s32", "s64", "f16", "f16x2", "f32", "f64", "pred"]
LITERALS = ["7", "-7", "1.5", "0f3F800000", "0d3FF0000000000000"]
BITS = {"b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
        "b32": 32, "u32": 32, "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32, "u16x2": 32,
        "s16x2": 32, "b64": 64, "u64": 64, "s64": 64, "f64": 64, "b128": 128, "pred": 1}

# (target, version) pairs for ops-targets.tsv; pairs ptxas rejects as a header are skipped.
TARGET_PAIRS = [("sm_50", "6.0"), ("sm_50", "9.1"), ("sm_60", "6.0"), ("sm_60", "9.1"),
                ("sm_70", "6.0"), ("sm_70", "6.3"), ("sm_70", "9.1"), ("sm_75", "6.3"),
                ("sm_75", "9.1"), ("sm_80", "6.5"), ("sm_80", "7.0"), ("sm_80", "9.1"),
                ("sm_86", "7.1"), ("sm_86", "7.2"), ("sm_86", "9.1"), ("sm_89", "7.8"),
                ("sm_89", "9.1"), ("sm_90", "7.8"), ("sm_90", "8.0"), ("sm_90", "8.2"),
                ("sm_90", "8.3"), ("sm_90", "9.1")]


def natural(t: str) -> str:
    """The register type the spec names for an instruction type."""
    return {"bf16": "b16", "bf16x2": "b32", "u16x2": "b32", "s16x2": "b32"}.get(t, t)


def wide(t: str) -> str:
    """The register of twice the width (mul.wide / mad.wide destinations)."""
    return {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64"}.get(t, natural(t))


def r(t: str, n: int) -> str:
    return f"%{natural(t)}_{n}"


FLOAT = ["rn", "rz", "rm", "rp", "ftz", "sat"]

# opcode -> (modifier pool, subset size, operand builder(mods, type) -> operand list or None).
# A builder returning None means "the shape does not exist for these modifiers"; the line is
# still written with the plainest shape so that ptxas judges the modifiers.


def binary(mods, t):
    return [r(t, 0), r(t, 1), r(t, 2)]


def shift(mods, t):
    return [r(t, 0), r(t, 1), "%u32_2"]


def mul_ops(mods, t):
    d = wide(t) if "wide" in mods else t
    return [f"%{natural(d)}_0", r(t, 1), r(t, 2)]


def mad_ops(mods, t):
    d = wide(t) if "wide" in mods else t
    return [f"%{natural(d)}_0", r(t, 1), r(t, 2), f"%{natural(d)}_3"]


def unary(mods, t):
    return [r(t, 0), r(t, 1)]


def count_ops(mods, t):
    return ["%u32_0", r(t, 1)]


def ternary(mods, t):
    return [r(t, 0), r(t, 1), r(t, 2), r(t, 3)]


def setp_ops(mods, t):
    ops = ["%pred_0", r(t, 1), r(t, 2)]
    if any(m in ("and", "or", "xor") for m in mods):
        ops.append("%pred_3")
    return ops


def selp_ops(mods, t):
    return [r(t, 0), r(t, 1), r(t, 2), "%pred_3"]


def prmt_ops(mods, t):
    return [r(t, 0), r(t, 1), r(t, 2), r(t, 3)]


def lop3_ops(mods, t):
    return [r(t, 0), r(t, 1), r(t, 2), r(t, 3), "0x96"]


def bfe_ops(mods, t):
    return [r(t, 0), r(t, 1), "%u32_2", "%u32_3"]


def bfi_ops(mods, t):
    return [r(t, 0), r(t, 1), r(t, 2), "%u32_3", "%u32_4"]


def vec(t: str, n: int, start: int = 0) -> str:
    return "{" + ", ".join(r(t, start + i) for i in range(n)) + "}"


def vector_size(mods) -> int:
    for m in mods:
        if m in ("v2", "v4", "v8"):
            return int(m[1])
    return 1


def ld_ops(mods, t):
    n = vector_size(mods)
    d = r(t, 0) if n == 1 else vec(t, n)
    return [d, "[%u64_9]"]


def st_ops(mods, t):
    n = vector_size(mods)
    s = r(t, 1) if n == 1 else vec(t, n, 1)
    return ["[%u64_9]", s]


def cvta_ops(mods, t):
    return [r(t, 0), r(t, 1)]


def atom_ops(mods, t):
    if "cas" in mods:
        return [r(t, 0), "[%u64_9]", r(t, 1), r(t, 2)]
    return [r(t, 0), "[%u64_9]", r(t, 1)]


def red_ops(mods, t):
    return ["[%u64_9]", r(t, 1)]


def shf_ops(mods, t):
    return [r(t, 0), r(t, 1), r(t, 2), "%u32_3"]


def sad_ops(mods, t):
    return [r(t, 0), r(t, 1), r(t, 2), r(t, 3)]


ARITH_TYPES = ["u16", "u32", "u64", "s16", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2",
               "f32", "f64", "b16", "b32", "u16x2", "s16x2", "u8", "s8", "pred"]

OPCODES = {
    # opcode: (pool, max subset, builder, types)
    "add": (FLOAT + ["cc", "relu", "x"], 2, binary, ARITH_TYPES),
    "sub": (FLOAT + ["cc", "relu"], 2, binary, ARITH_TYPES),
    "mul": (["lo", "hi", "wide"] + FLOAT, 2, mul_ops, ARITH_TYPES),
    "mad": (["lo", "hi", "wide", "sat", "rn", "rz", "ftz", "cc"], 2, mad_ops, ARITH_TYPES),
    "div": (["approx", "full", "ftz", "rn", "rz", "sat"], 2, binary, ARITH_TYPES),
    "rem": (["lo"], 1, binary, ARITH_TYPES),
    "min": (["ftz", "NaN", "relu", "xorsign", "abs"], 2, binary, ARITH_TYPES),
    "max": (["ftz", "NaN", "relu", "xorsign", "abs"], 2, binary, ARITH_TYPES),
    "abs": (["ftz", "sat"], 1, unary, ARITH_TYPES),
    "neg": (["ftz", "rn"], 1, unary, ARITH_TYPES),
    "fma": (["rn", "rz", "ftz", "sat", "relu", "oob"], 2, ternary, ARITH_TYPES),
    "rcp": (["approx", "ftz", "rn", "rz", "rm"], 2, unary, ARITH_TYPES),
    "sqrt": (["approx", "ftz", "rn", "rp"], 2, unary, ARITH_TYPES),
    "and": (["x"], 1, binary, TYPES),
    "or": (["x"], 1, binary, TYPES),
    "xor": (["x"], 1, binary, TYPES),
    "not": (["x"], 1, unary, TYPES),
    "cnot": (["x"], 1, unary, TYPES),
    "shl": (["x"], 1, shift, TYPES),
    "shr": (["x"], 1, shift, TYPES),
    "popc": (["x"], 1, count_ops, TYPES),
    "clz": (["x"], 1, count_ops, TYPES),
    "brev": (["x"], 1, unary, TYPES),
    "bfe": (["x"], 1, bfe_ops, TYPES),
    "bfi": (["x"], 1, bfi_ops, TYPES),
    "selp": (["x"], 1, selp_ops, TYPES),
    "prmt": (["f4e", "b4e", "rc8", "ecl", "ecr", "rc16", "x"], 1, prmt_ops, TYPES),
    "lop3": (["x"], 1, lop3_ops, TYPES),
    "setp": (["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu",
              "leu", "gtu", "geu", "num", "nan", "and", "ftz"], 2, setp_ops, ARITH_TYPES),
}


def subsets(pool, k):
    out = [[]]
    for n in range(1, k + 1):
        out += [list(c) for c in itertools.combinations(pool, n)]
    return out


def line(opcode, mods, t, ops):
    mnemonic = ".".join([opcode] + mods + [t])
    return f"{mnemonic} {', '.join(ops)};"


def memory_lines():
    out = []
    spaces = ["", "global", "shared", "local", "const", "param"]
    for opcode, builder in (("ld", ld_ops), ("st", st_ops)):
        for space, t in itertools.product(spaces, TYPES):
            mods = [space] if space else []
            out.append(line(opcode, mods, t, builder(mods, t)))
        for space, v, t in itertools.product(["", "global", "shared"], ["v2", "v4", "v8"],
                                             ["b16", "b32", "b64", "u8", "f32", "f64", "b128",
                                              "f16", "f16x2", "pred"]):
            mods = ([space] if space else []) + [v]
            out.append(line(opcode, mods, t, builder(mods, t)))
        quals = ["weak", "volatile", "relaxed", "acquire", "release", "cta", "gpu", "sys",
                 "cluster", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "L1::evict_last",
                 "L2::64B", "L1::no_allocate", "mmio", "x"]
        for q in quals:
            for space in ("", "global"):
                mods = ([space] if space else []) + [q]
                out.append(line(opcode, mods, "u32", builder(mods, "u32")))
        for sem, scope in itertools.product(["relaxed", "acquire", "release", "volatile", "weak"],
                                            ["cta", "gpu", "sys", "cluster"]):
            mods = [sem, scope, "global"]
            out.append(line(opcode, mods, "u32", builder(mods, "u32")))
    for space, t in itertools.product(["", "global"], ["u32", "f32", "b64", "v4", "u8"]):
        mods = ([space] if space else [])
        if t == "v4":
            out.append(line("ldu", mods + ["v4"], "f32", ld_ops(["v4"], "f32")))
        else:
            out.append(line("ldu", mods, t, ld_ops(mods, t)))
    for to, space, t in itertools.product(["", "to"], ["global", "shared", "local", "const",
                                                        "param", "x"], ["u64", "b64", "s64"]):
        mods = ([to] if to else []) + [space]
        out.append(line("cvta", mods, t, cvta_ops(mods, t)))
    ops = ["add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas"]
    atom_types = ["b16", "b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64", "f16",
                  "f16x2", "bf16", "bf16x2", "u16", "b128"]
    for opcode in ("atom", "red"):
        builder = atom_ops if opcode == "atom" else red_ops
        for space, op, t in itertools.product(["", "global", "shared"], ops, atom_types):
            mods = ([space] if space else []) + [op]
            if t in ("f16", "f16x2", "bf16", "bf16x2") and op == "add":
                out.append(line(opcode, mods + ["noftz"], t, builder(mods, t)))
            out.append(line(opcode, mods, t, builder(mods, t)))
        for sem, scope in itertools.product(["relaxed", "acquire", "release", "acq_rel",
                                             "weak", "volatile"], ["", "cta", "gpu", "sys"]):
            mods = [sem] + ([scope] if scope else []) + ["global", "add"]
            out.append(line(opcode, mods, "u32", builder(mods, "u32")))
        for q in ("L2::cache_hint", "noftz", "x"):
            mods = ["global", "add", q]
            out.append(line(opcode, mods, "u32", builder(mods, "u32")))
    # The sm_90 vector forms: `d` and `b` brace vectors.
    for opcode in ("atom", "red"):
        for space, v, op, t in itertools.product(["global", "", "shared"], ["v2", "v4", "v8"],
                                                 ["add", "min", "max"],
                                                 ["f32", "f16", "bf16", "f16x2", "u32"]):
            mods = ([space] if space else []) + [v, op] + (["noftz"] if t not in ("f32", "u32") else [])
            n = int(v[1:])
            reg = {"f32": "f32", "u32": "u32", "f16": "b16", "bf16": "b16"}.get(t, "b32")
            d = "{" + ", ".join(f"%{reg}_{i}" for i in range(n)) + "}"
            b = "{" + ", ".join(f"%{reg}_{(i + 1) % n}" for i in range(n)) + "}"
            ops = ([d] if opcode == "atom" else []) + ["[%u64_9]", b]
            out.append(line(opcode, mods, t, ops))
    out += ["atom.global.v2.f32.add %f32_0, [%u64_9], {%f32_1, %f32_2};",
            "atom.global.v2.f32.add {%f32_0, %f32_1, %f32_2}, [%u64_9], {%f32_1, %f32_2};",
            "atom.global.v2.f32.add {%f32_0, %f32_1}, [%u64_9], %f32_2;",
            "atom.global.v2.f32.add {%f32_0, _}, [%u64_9], {%f32_1, %f32_2};",
            "atom.global.v2.f32.add {%b32_0, %b32_1}, [%u64_9], {%b32_2, %b32_3};",
            "atom.global.v2.f32.add {%f16x2_0, %f32_1}, [%u64_9], {%f32_1, %f32_2};",
            "atom.global.v2.f32.exch {%f32_0, %f32_1}, [%u64_9], {%f32_1, %f32_2};",
            "atom.global.v2.f64.add {%f64_0, %f64_1}, [%u64_9], {%f64_2, %f64_3};",
            "atom.global.v2.min.noftz.f16 {%b16_0, %b16_1}, [%u64_9], {1, 2};",
            "atom.global.min.noftz.f16 %b16_0, [%u64_9], %b16_1;",
            "atom.global.v2.f32.add.noftz {%f32_0, %f32_1}, [%u64_9], {%f32_1, %f32_2};"]
    return out


def control_lines():
    return [
        "bar.sync 0;", "bar.sync 1, 64;", "bar.cta.sync 0;", "bar.sync.aligned 0;",
        "bar.cta.sync.aligned 0;", "bar.sync %u32_0;", "bar.x 0;", "bar 0;",
        "barrier.sync 0;", "barrier.sync.aligned 0;", "bar.arrive 0, 64;",
        "bar.sync %u32_0, %u32_1;", "bar.sync 0, 64, 1;", "bar.sync %f32_0;", "bar.sync;",
        "bar.arrive 1;", "bar.arrive %u32_0, %b32_1;", "bar.cta.arrive 1, 64;",
        "barrier.arrive 1, 64;", "barrier.arrive.aligned 1, 64;", "bar.arrive.aligned 1, 64;",
        "barrier.cta.arrive.aligned 1, 64;", "bar.sync.arrive 0;",
        "bar.red.popc.u32 %u32_0, 0, %pred_1;", "bar.red.popc.u32 %u32_0, 0, 64, !%pred_1;",
        "bar.red.and.pred %pred_0, 0, %pred_1;", "bar.red.or.pred %pred_0, 1, 64, %pred_1;",
        "barrier.red.popc.aligned.u32 %u32_0, 0, %pred_1;",
        "barrier.red.and.aligned.pred %pred_0, 0, %pred_1;",
        "barrier.cta.red.or.pred %pred_0, 0, %pred_1;", "bar.cta.red.popc.u32 %u32_0, 0, %pred_1;",
        "bar.red.popc.b32 %u32_0, 0, %pred_1;", "bar.red.and.u32 %u32_0, 0, %pred_1;",
        "bar.red.popc.pred %pred_0, 0, %pred_1;", "bar.red.popc.aligned.u32 %u32_0, 0, %pred_1;",
        "bar.red.popc.u32 %u32_0, %pred_1;", "bar.red.u32 %u32_0, 0, %pred_1;",
        "bar.red.popc.u32 %f32_0, 0, %pred_1;", "bar.red.popc.u32 %u32_0, 0, %u32_1;",
        "bar.red.and.pred %u32_0, 0, %pred_1;", "bar.red.popc.u32 %s32_0, 0, 32, %pred_1;",
        "bar.red.popc.and.u32 %u32_0, 0, %pred_1;", "bar.popc.u32 %u32_0, 0, %pred_1;",
        "membar.cta;", "membar.gl;", "membar.sys;", "membar.x;", "membar;",
        "fence.sc.cta;", "fence.acq_rel.gpu;", "fence.sc.sys;", "fence.x;", "fence;",
        "fence.proxy.alias;", "exit;", "trap;", "exit.x;", "trap.x;", "ret.uni;", "ret.x;",
        "bra.uni L0;", "bra L0;", "bra.x L0;", "bra L0, L0;",
    ]


def new_opcode_lines():
    """shf, slct, mul24, mad24, sad: named in the table, decoded in this round."""
    out = []
    for mode, clamp, t in itertools.product(["l", "r", "x", ""], ["wrap", "clamp", ""],
                                            ["b32", "u32", "s32", "b64"]):
        mods = [m for m in (mode, clamp) if m]
        out.append(line("shf", mods, t, shf_ops(mods, t)))
    for ftz, d in itertools.product(["", "ftz"], ["b16", "b32", "b64", "u16", "u32", "u64",
                                                   "s16", "s32", "s64", "f32", "f64", "pred"]):
        for c in ("s32", "f32", "u32"):
            mods = ([ftz] if ftz else [])
            out.append(f"slct.{'.'.join(mods + [d, c])} {r(d, 0)}, {r(d, 1)}, {r(d, 2)}, "
                       f"%{c}_3;")
    for opcode in ("mul24", "mad24"):
        for mode, sat, t in itertools.product(["lo", "hi", "wide", ""], ["", "sat"],
                                              ["u32", "s32", "u16", "u64", "b32"]):
            mods = [m for m in (mode, sat) if m]
            ops = [r(t, 0), r(t, 1), r(t, 2)] + ([r(t, 3)] if opcode == "mad24" else [])
            out.append(line(opcode, mods, t, ops))
    for t in ["u16", "u32", "u64", "s16", "s32", "s64", "b32", "f32"]:
        out.append(line("sad", [], t, sad_ops([], t)))
    # shfl.sync.mode.b32 d{|p}, a, b, c, membermask; the deprecated shfl.mode.b32 d, a, b, c.
    for sync, mode, t in itertools.product(["sync", ""], ["up", "down", "bfly", "idx", "x", ""],
                                           ["b32", "u32", "f32", "b64"]):
        mods = [m for m in (sync, mode) if m]
        ops = [r(t, 0), r(t, 1), "%u32_2", "%u32_3"] + (["%u32_4"] if sync else [])
        out.append(line("shfl", mods, t, ops))
    out += ["shfl.sync.down.b32 %b32_0|%pred_5, %b32_1, 1, 31, 0xffffffff;",
            "shfl.sync.idx.b32 %b32_0, %b32_1, %b32_2, 0x1f, -1;",
            "shfl.sync.bfly.b32 %b32_0, %b32_1, 16, 31;",
            "shfl.sync.up.b32 %b32_0, %b32_1, 1, 0, %b32_3, %b32_4;"]
    return out


def warp_lines():
    """vote, activemask, redux, match, elect, bar.warp.sync (the warp-synchronous instructions
    besides shfl)."""
    out = []
    for sync, mode, t in itertools.product(["sync", ""], ["all", "any", "uni", "ballot", "x", ""],
                                           ["pred", "b32", "u32", "b64"]):
        mods = [m for m in (sync, mode) if m]
        ops = [r(t, 0), "%pred_1"] + (["%u32_2"] if sync else [])
        out.append(line("vote", mods, t, ops))
    out += ["vote.sync.any.pred %pred_0, !%pred_1, 0xffffffff;",
            "vote.sync.ballot.b32 %b32_0, !%pred_1, %b32_2;",
            "vote.sync.all.pred %pred_0, %pred_1;",
            "vote.sync.uni.pred %pred_0, %pred_1, 1, 2;"]
    for t in ["b32", "u32", "b64", "s32", ""]:
        out.append(f"activemask{'.' + t if t else ''} {r(t or 'b32', 0)};")
    out.append("activemask.sync.b32 %b32_0;")
    for mods, t in itertools.product(
            [["sync", op] for op in ["add", "min", "max", "and", "or", "xor", "x"]]
            + [["sync", "min", "abs"], ["sync", "max", "NaN"], ["sync", "max", "abs", "NaN"],
               ["add"], ["sync"], ["sync", "add", "NaN"]],
            ["u32", "s32", "b32", "f32", "u64", "b64"]):
        out.append(line("redux", mods, t, [r(t, 0), r(t, 1), "%u32_2"]))
    for mode, sync, t in itertools.product(["any", "all", "x", ""], ["sync", ""],
                                           ["b32", "b64", "u32", "u64", "f32"]):
        mods = [m for m in (mode, sync) if m]
        out.append(line("match", mods, t, ["%b32_0", r(t, 1), "%u32_2"]))
    out += ["match.all.sync.b32 %b32_0|%pred_3, %b32_1, 0xffffffff;",
            "match.any.sync.b32 %b32_0|%pred_3, %b32_1, 0xffffffff;",
            "match.any.sync.b64 %b32_0, %b64_1, 0xffffffff;",
            "match.any.sync.b32 %b32_0, %b32_1;"]
    out += ["elect.sync %b32_0|%pred_1, 0xffffffff;", "elect.sync _|%pred_1, %u32_2;",
            "elect.sync %b32_0, 0xffffffff;", "elect %b32_0|%pred_1, 0xffffffff;",
            "elect.sync.b32 %b32_0|%pred_1, 0xffffffff;", "elect.sync %u32_0|%pred_1, -1;",
            "elect.sync.x %b32_0|%pred_1, 0xffffffff;"]
    out += ["cp.async.ca.shared.global [%u32_0], [%u64_1], 4;",
            "cp.async.ca.shared.global [%u32_0], [%u64_1], 16, 8;",
            "cp.async.ca.shared.global [%u32_0], [%u64_1], 16, %u32_2;",
            "cp.async.cg.shared.global [%u32_0], [%u64_1], 16;",
            "cp.async.cg.shared.global [%u32_0], [%u64_1], 8;",
            "cp.async.ca.shared.global [%u32_0], [%u64_1], 4, %pred_2;",
            "cp.async.ca.shared.global [%u32_0], [%u64_1], 4, !%pred_2;",
            "cp.async.ca.shared::cta.global [%u32_0], [%u64_1], 4;",
            "cp.async.ca.shared.global.L2::128B [%u64_0], [%u64_1], 16, %u32_2;",
            "cp.async.ca.shared.global.L2::cache_hint [%u32_0], [%u64_1], 16, %b64_3;",
            "cp.async.ca.shared.global.L2::cache_hint [%u32_0], [%u64_1], 16, 8, %b64_3;",
            "cp.async.ca.shared.global [%u32_0], [%u64_1], 16, 8, %b64_3;",
            "cp.async.ca.shared.global [%u32_0], [%u64_1], 12;",
            "cp.async.ca.shared.global [%u32_0], [%u64_1], %u32_2;",
            "cp.async.ca.shared.global [%u32_0], [%u64_1];",
            "cp.async.ca.global.shared [%u64_0], [%u32_1], 4;",
            "cp.async.ca.shared.global [%u32_0+16], [%u64_1+32], 16;",
            "cp.async.ca.shared.global %u32_0, [%u64_1], 16;",
            "cp.async.ca.shared.global [%u32_0], [%u64_1], 16, %f32_2;",
            "cp.async.ca.shared.global.L2::cache_hint [%u32_0], [%u64_1], 16, %u32_3;",
            "cp.async.x.shared.global [%u32_0], [%u64_1], 16;",
            "cp.async.ca.shared.global.x [%u32_0], [%u64_1], 16;",
            "cp.async.commit_group;", "cp.async.wait_group 0;", "cp.async.wait_group %u32_0;",
            "cp.async.wait_all;", "cp.async.wait_all 1;", "cp.async.commit_group.x;",
            "cp.async.wait_group;"]
    out += ["bar.warp.sync 0xffffffff;", "bar.warp.sync %u32_0;", "bar.warp.sync %b64_0;",
            "bar.warp 0xffffffff;", "bar.warp.sync.aligned 0xffffffff;",
            "bar.warp.sync 1, 2;", "bar.warp.sync;", "bar.warp.sync.sync -1;"]
    return out


def scalar_lines():
    """The rest of the scalar ISA: the carry chain, bfind, fns, bmsk, szext, dp4a/dp2a,
    copysign, testp, set, nanosleep and the approximate functions."""
    out = []
    int4 = ["u32", "s32", "u64", "s64", "b32", "u16", "f32"]
    for opcode, mods in (("add", ["cc"]), ("sub", ["cc"]), ("addc", []), ("addc", ["cc"]),
                         ("subc", []), ("subc", ["cc"]), ("addc", ["sat"]),
                         ("addc", ["cc", "x"])):
        for t in int4:
            out.append(line(opcode, mods, t, binary(mods, t)))
    for opcode, mods in itertools.product(["mad", "madc"],
                                          [["lo", "cc"], ["hi", "cc"], ["wide", "cc"], ["cc"],
                                           ["lo"], ["hi"], [], ["cc", "lo"], ["hi", "cc", "sat"]]):
        for t in int4:
            out.append(line(opcode, mods, t, [r(t, 0), r(t, 1), r(t, 2), r(t, 3)]))
    for mods, t in itertools.product([[], ["shiftamt"], ["x"]],
                                     ["u32", "s32", "u64", "s64", "b32", "u16", "f32"]):
        out.append(line("bfind", mods, t, ["%u32_0", r(t, 1)]))
    for t in ["b32", "u32", "s32", "b64"]:
        out.append(line("fns", [], t, [r(t, 0), r(t, 1), "%u32_2", "%s32_3"]))
    out += ["fns.b32 %b32_0, 0xaaaaaaaa, 3, -1;", "fns.b32 %b32_0, %b32_1, %s32_2, %s32_3;",
            "fns.b32 %b32_0, %b32_1, %b32_2, %u32_3;", "fns.b32 %b32_0, %b32_1, %b32_2;"]
    for mode, t in itertools.product(["clamp", "wrap", "x", ""], ["b32", "u32", "s32", "b64"]):
        out.append(line("bmsk", [mode] if mode else [], t, [r(t, 0), "%u32_1", "%u32_2"]))
    for mode, t in itertools.product(["clamp", "wrap", "x", ""], ["u32", "s32", "b32", "s64"]):
        out.append(line("szext", [mode] if mode else [], t, [r(t, 0), r(t, 1), "%u32_2"]))
    for a, b in itertools.product(["u32", "s32", "b32", "u64"], ["u32", "s32", "b32"]):
        c = "u32" if (a, b) == ("u32", "u32") else "s32"
        out.append(f"dp4a.{a}.{b} %{c}_0, %{a}_1, %{b}_2, %{c}_3;")
        for mode in ("lo", "hi", "x", ""):
            mods = ".".join(([mode] if mode else []) + [a, b])
            out.append(f"dp2a.{mods} %{c}_0, %{a}_1, %{b}_2, %{c}_3;")
    out += ["dp4a.u32 %u32_0, %u32_1, %u32_2, %u32_3;",
            "dp4a.u32.u32 %u32_0, %u32_1, %u32_2, %s32_3;",
            "dp4a.s32.s32 %u32_0, %u32_1, %u32_2, %u32_3;",
            "dp4a.u32.s32.lo %s32_0, %u32_1, %s32_2, %s32_3;"]
    for t in ["f32", "f64", "f16", "bf16", "b32"]:
        out.append(line("copysign", [], t, binary([], t)))
        out.append(line("copysign", ["ftz"], t, binary([], t)))
    for op, t in itertools.product(["finite", "infinite", "number", "notanumber", "normal",
                                    "subnormal", "x", ""], ["f32", "f64", "f16", "b32"]):
        out.append(line("testp", [op] if op else [], t, ["%pred_0", r(t, 1)]))
    out.append("testp.finite.ftz.f32 %pred_0, %f32_1;")
    for cmp, d, s in itertools.product(["eq", "lt", "lo", "equ", "nan"], ["u32", "s32", "f32",
                                                                      "b32", "f16"],
                                       ["b16", "u32", "s64", "f32", "f64", "f16", "u8"]):
        out.append(f"set.{cmp}.{d}.{s} {r(d, 0)}, {r(s, 1)}, {r(s, 2)};")
    for cmp, d, s in itertools.product(["eq", "gtu"], ["u16", "s16", "u32", "s32", "f32", "f16",
                                                       "bf16", "f16x2", "bf16x2", "u64"],
                                       ["b16", "u16", "s16", "u32", "b64", "f32", "f64", "f16",
                                        "bf16", "f16x2", "bf16x2"]):
        out.append(f"set.{cmp}.{d}.{s} {r(d, 0)}, {r(s, 1)}, {r(s, 2)};")
        out.append(f"set.{cmp}.ftz.{d}.{s} {r(d, 0)}, {r(s, 1)}, {r(s, 2)};")
    out += ["set.lt.and.f16x2.f16x2 %f16x2_0, %f16x2_1, %f16x2_2, %pred_3;",
            "set.lt.xor.ftz.u32.f16 %u32_0, %f16_1, %f16_2, !%pred_3;",
            "set.lt.or.bf16.bf16 %b16_0, %b16_1, %b16_2, %pred_3;"]
    out += ["set.lt.and.f32.s32 %f32_0, %s32_1, %s32_2, %pred_3;",
            "set.lt.or.ftz.u32.f32 %u32_0, %f32_1, %f32_2, !%pred_3;",
            "set.gt.ftz.s32.f32 %s32_0, %f32_1, %f32_2;",
            "set.gt.ftz.s32.f64 %s32_0, %f64_1, %f64_2;",
            "set.gt.ftz.s32.s32 %s32_0, %s32_1, %s32_2;",
            "set.eq.u32 %u32_0, %u32_1, %u32_2;", "set.u32.u32 %u32_0, %u32_1, %u32_2;",
            "set.eq.xor.u32.u32 %u32_0, %u32_1, %u32_2;",
            "set.eq.u32.u32 %pred_0, %u32_1, %u32_2;"]
    out += ["nanosleep.u32 %u32_0;", "nanosleep.u32 42;", "nanosleep %u32_0;",
            "nanosleep.b32 %b32_0;", "nanosleep.u64 %u64_0;", "nanosleep.u32 %u32_0, 1;",
            "nanosleep.s32 %s32_0;", "nanosleep.u32 %u64_0;"]
    for opcode in ("ex2", "lg2", "sin", "cos", "tanh", "rsqrt"):
        for mods, t in itertools.product([["approx"], ["approx", "ftz"], ["ftz"], [], ["rn"],
                                          ["approx", "rn"], ["approx", "ftz", "x"]],
                                         ["f32", "f64", "f16", "bf16", "f16x2", "bf16x2",
                                          "b32"]):
            out.append(line(opcode, mods, t, unary(mods, t)))
    return out


def mbarrier_lines():
    """mbarrier (init, inval, arrive{.expect_tx}, arrive_drop, expect_tx, complete_tx,
    test_wait/try_wait{.parity}, pending_count) and cp.async.mbarrier.arrive."""
    out = []
    spaces = [["shared"], ["shared::cta"], [], ["shared::cluster"], ["global"]]
    for sp in spaces:
        a = "[%u64_9]" if not sp or sp == ["global"] else "[%u32_9]"
        out.append(line("mbarrier", ["init"] + sp, "b64", [a, "%u32_1"]))
        out.append(line("mbarrier", ["inval"] + sp, "b64", [a]))
        for op in (["arrive"], ["arrive", "noComplete"], ["arrive_drop"],
                   ["arrive", "expect_tx"], ["arrive_drop", "expect_tx"]):
            out.append(line("mbarrier", op + sp, "b64", ["%b64_0", a]))
            out.append(line("mbarrier", op + sp, "b64", ["%b64_0", a, "%u32_1"]))
        for op in (["expect_tx"], ["complete_tx"]):
            out.append(line("mbarrier", op + ["relaxed", "cta"] + sp, "b64", [a, "%u32_1"]))
            out.append(line("mbarrier", op + sp, "b64", [a, "%u32_1"]))
        for op in (["test_wait"], ["try_wait"]):
            out.append(line("mbarrier", op + sp, "b64", ["%pred_0", a, "%b64_1"]))
            out.append(line("mbarrier", op + ["parity"] + sp, "b64", ["%pred_0", a, "%u32_1"]))
            out.append(line("mbarrier", op + ["acquire", "cta"] + sp, "b64",
                            ["%pred_0", a, "%b64_1"]))
        out.append(line("mbarrier", ["try_wait"] + sp, "b64", ["%pred_0", a, "%b64_1", "%u32_2"]))
        out.append(line("mbarrier", ["try_wait", "parity"] + sp, "b64",
                        ["%pred_0", a, "%u32_1", "%u32_2"]))
        out.append(line("cp", ["async", "mbarrier", "arrive"] + sp, "b64", [a]))
        out.append(line("cp", ["async", "mbarrier", "arrive", "noinc"] + sp, "b64", [a]))
    out += ["mbarrier.pending_count.b64 %u32_0, %b64_1;",
            "mbarrier.pending_count.b32 %u32_0, %b64_1;",
            "mbarrier.arrive.release.cta.shared::cta.b64 %b64_0, [%u32_9];",
            "mbarrier.arrive.relaxed.cta.shared::cta.b64 %b64_0, [%u32_9];",
            "mbarrier.arrive.release.cluster.shared::cta.b64 %b64_0, [%u32_9];",
            "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%u32_9], 128;",
            "mbarrier.arrive.shared.b64 _, [%u32_9];",
            "mbarrier.arrive.shared.b32 %b64_0, [%u32_9];",
            "mbarrier.init.shared.b64 [%u32_9], 12;",
            "mbarrier.init.shared.b64 [%u32_9];",
            "mbarrier.test_wait.shared.b64 %u32_0, [%u32_9], %b64_1;",
            "mbarrier.test_wait.shared.b64 %pred_0, [%u32_9], %u32_1;",
            "mbarrier.x.shared.b64 [%u32_9];", "mbarrier.shared.b64 [%u32_9];",
            "mbarrier.try_wait.relaxed.cta.shared::cta.b64 %pred_0, [%u32_9], %b64_1;",
            "mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 %pred_0, [%u32_9], 0;"]
    return out


def mma_lines():
    """mma.sync.aligned: the forms of the H200 golden data (tests/hardware/mma), their operand
    vectors, and wrong ones (missing .sync/.aligned, wrong vector sizes, register types,
    mixed f16/f32 accumulators, unsupported shapes)."""
    def vec(prefix, n, start=0):
        return "{" + ", ".join(f"%{prefix}_{start + i}" for i in range(n)) + "}"
    words = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8}
    regs = {"f32": "f32", "f16": "b32", "s32": "s32", "f64": "f64"}
    out = []

    def form(shape, d, a, b, c, sat=False, volta=False):
        m, rest = shape[1:].split("n")
        n, k = (int(x) for x in rest.split("k"))
        m = int(m)
        groups = 4 if volta else 1
        if a == "f64":
            na, nb, nc, nd = m * k // 32, k * n // 32, m * n // 32, m * n // 32
        else:
            na = m * k * groups * words[a] // 1024
            nb = k * n * groups * words[b] // 1024
            nc = m * n * groups * (16 if c == "f16" else 32) // 1024
            nd = m * n * groups * (16 if d == "f16" else 32) // 1024
        ra = "f64" if a == "f64" else "b32"
        mods = ".".join(["mma.sync.aligned", shape, "row.col"] + (["satfinite"] if sat else [])
                        + [d, a, b, c])
        # gen.py declares ten registers of each type: the vectors overlap (as d and c do in
        # an accumulating loop).
        return f"{mods} {vec(regs[d], nd)}, {vec(ra, na)}, {vec(ra, nb, 1)}, {vec(regs[c], nc, 2)};"
    for k in (16, 8):
        for d, a, c in (("f32", "f16", "f32"), ("f16", "f16", "f16"), ("f32", "bf16", "f32")):
            out.append(form(f"m16n8k{k}", d, a, a, c))
    out += [form("m16n8k4", "f32", "tf32", "tf32", "f32"),
            form("m16n8k8", "f32", "tf32", "tf32", "f32")]
    for k in (32, 16):
        for acc in ("f32", "f16"):
            for a, b in (("e4m3", "e4m3"), ("e5m2", "e5m2"), ("e4m3", "e5m2"), ("e5m2", "e4m3")):
                out.append(form(f"m16n8k{k}", acc, a, b, acc))
    for k in (16, 32):
        for a, b in (("s8", "s8"), ("u8", "u8"), ("s8", "u8"), ("u8", "s8")):
            for sat in (False, True):
                out.append(form(f"m16n8k{k}", "s32", a, b, "s32", sat))
    out += [form("m8n8k16", "s32", "s8", "s8", "s32"),
            form("m8n8k16", "s32", "u8", "s8", "s32", True)]
    for s in ("m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"):
        out.append(form(s, "f64", "f64", "f64", "f64"))
    out += [form("m8n8k4", "f32", "f16", "f16", "f32", volta=True),
            form("m8n8k4", "f16", "f16", "f16", "f16", volta=True)]
    good = form("m16n8k16", "f32", "f16", "f16", "f32")
    body = good.split(" ", 1)[1]
    out += [
        # wrong: mixed accumulators, missing qualifiers, bad types and shapes
        form("m16n8k16", "f32", "f16", "f16", "f16"),
        form("m16n8k16", "f16", "f16", "f16", "f32"),
        "mma.sync.m16n8k16.row.col.f32.f16.f16.f32 " + body,
        "mma.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + body,
        "mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 " + body,
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32.x " + body,
        "mma.sync.aligned.m16n8k12.row.col.f32.f16.f16.f32 " + body,
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32 " + body,
        "mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 " + body,
        "mma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 " + body,
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 " + body,
        form("m16n8k16", "f32", "bf16", "bf16", "f32").replace("{%f32_0, %f32_1, %f32_2, %f32_3}",
                                                              "{%f32_0, %f32_1, %f32_2}"),
        form("m16n8k16", "f32", "f16", "f16", "f32").replace("{%b32_0, %b32_1, %b32_2, %b32_3}",
                                                            "{%f32_0, %f32_1, %f32_2, %f32_3}"),
        form("m16n8k16", "f32", "f16", "f16", "f32").replace("{%f32_0,", "{%b32_0,", 1),
        form("m16n8k16", "f32", "f16", "f16", "f32").replace("{%f32_2,", "{%b64_2,"),
        form("m16n8k8", "f32", "f64", "f64", "f32"),
        form("m16n8k16", "s32", "s8", "s8", "s32").replace("{%s32_0,", "{%b32_0,"),
        form("m16n8k16", "s32", "s8", "s8", "s32").replace("{%s32_0,", "{%f32_0,"),
        form("m8n8k4", "f64", "f64", "f64", "f64").replace("{%f64_1}", "{%b64_1}"),
        form("m8n8k4", "f64", "f64", "f64", "f64").replace("{%f64_1}", "%f64_1"),
        "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32 "
        + form("m8n8k4", "f32", "f16", "f16", "f32", volta=True).split(" ", 1)[1],
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f32_0, %f32_1, %f32_2, %f32_3}, "
        "{%f16x2_0, %f16x2_1, %f16x2_2, %f16x2_3}, {%b32_4, %b32_5}, {%f32_4, %f32_5, %f32_6, 1.0};",
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%u32_0, %u32_1, %u32_2, %u32_3}, "
        "{%s32_0, %s32_1, %s32_2, %s32_3}, {%b32_4, %b32_5}, {%f32_4, %f32_5, %f32_6, %f32_7};",
    ]
    return out


def matrix_lines():
    """ldmatrix, stmatrix, movmatrix (9.7.14.5.15-17): the .m8n8 .b16 forms with every .num,
    with and without .trans, each state space spelling and generic addressing, modifier
    orders, register types, and wrong ones (missing qualifiers, .b8, other spaces, wrong
    vector sizes, the sm_100a shapes)."""
    def vec(prefix, n):
        return "{" + ", ".join(f"%{prefix}_{i}" for i in range(n)) + "}"
    out = []
    for n in (1, 2, 4):
        for trans in ("", ".trans"):
            for ss in ("", ".shared", ".shared::cta"):
                out.append(f"ldmatrix.sync.aligned.m8n8.x{n}{trans}{ss}.b16 {vec('b32', n)}, [%u64_0];")
                out.append(f"stmatrix.sync.aligned.m8n8.x{n}{trans}{ss}.b16 [%u64_0], {vec('b32', n)};")
    out += [
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%b32_0}, [%u32_0];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%u32_0}, [%u64_0+16];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%f32_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%s32_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%f16x2_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%b64_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%b16_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 %b32_0, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {7}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%b32_0}, %u64_0;",
        "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%b32_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%b32_0, _}, [%u64_0];",
        "ldmatrix.sync.aligned.x4.m8n8.shared.trans.b16 {%b32_0, %b32_1, %b32_2, %b32_3}, [%u64_0];",
        "ldmatrix.aligned.sync.m8n8.x1.b16 {%b32_0}, [%u64_0];",
        "ldmatrix.sync.m8n8.x1.b16 {%b32_0}, [%u64_0];",
        "ldmatrix.aligned.m8n8.x1.b16 {%b32_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.b16 {%b32_0}, [%u64_0];",
        "ldmatrix.sync.aligned.x1.b16 {%b32_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1 {%b32_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1.b32 {%b32_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1.b8 {%b32_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1.global.b16 {%b32_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1.shared::cluster.b16 {%b32_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1.x2.b16 {%b32_0}, [%u64_0];",
        "ldmatrix.sync.aligned.m8n8.x1.trans.trans.b16 {%b32_0}, [%u64_0];",
        "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%u64_0], %b32_0;",
        "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%u64_0], {%b64_0};",
        "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%u64_0], {%u32_0};",
        "stmatrix.sync.aligned.m8n8.x1.shared.b16 %u64_0, {%b32_0};",
        "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%u64_0], {%b32_0, 7};",
        "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%u64_0], {%b32_0, 1.5};",
        "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%u64_0], {%f32_0, 0f3F800000};",
        "stmatrix.sync.aligned.m8n8.x1.global.b16 [%u64_0], {%b32_0};",
        "stmatrix.sync.m8n8.x1.b16 [%u64_0], {%b32_0};",
        "stmatrix.sync.aligned.m8n8.x1.b8 [%u64_0], {%b32_0};",
        "movmatrix.sync.aligned.m8n8.trans.b16 %b32_0, %b32_1;",
        "movmatrix.sync.aligned.trans.m8n8.b16 %u32_0, %f32_1;",
        # Not here: the sm_100a shapes (.m16n16, .m8n16, .m16n8), known by name only (a
        # named "not supported" error when run); `movmatrix ... _, %b32_1` (ptxas 13.5
        # accepts it for sm_90 and crashes with SIGSEGV for compute_90, which these files
        # assemble for).
        "movmatrix.sync.aligned.m8n8.b16 %b32_0, %b32_1;",
        "movmatrix.aligned.m8n8.trans.b16 %b32_0, %b32_1;",
        "movmatrix.sync.aligned.m8n8.trans.b16 {%b32_0}, {%b32_1};",
        "movmatrix.sync.aligned.m8n8.trans.b16 %b64_0, %b32_1;",
        "movmatrix.sync.aligned.m8n8.trans.shared.b16 %b32_0, %b32_1;",
        "movmatrix.sync.aligned.m8n8.trans.b8 %b32_0, %b32_1;",
        "movmatrix.sync.aligned.m8n8.x1.trans.b16 %b32_0, %b32_1;",
    ]
    return out


def form_lines():
    out = []
    for opcode, (pool, k, builder, types) in OPCODES.items():
        for mods, t in itertools.product(subsets(pool, k), types):
            out.append(line(opcode, list(mods), t, builder(mods, t)))
        if opcode in ("add", "sub", "mul", "fma"):
            for rnd in ("rn", "rz"):
                for t in types:
                    mods = [rnd, "ftz", "sat"]
                    out.append(line(opcode, mods, t, builder(mods, t)))
    return (out + memory_lines() + control_lines() + new_opcode_lines() + warp_lines()
            + scalar_lines() + mbarrier_lines() + mma_lines() + matrix_lines())


def split(text):
    """`op.mods a, {b, c}, [d];` -> (mnemonic, operand strings)."""
    body = text.rstrip(";")
    mnemonic, _, rest = body.partition(" ")
    ops, depth, cur = [], 0, ""
    for ch in rest:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        ops.append(cur.strip())
    return mnemonic, ops


def operand_lines(accepted):
    """Operand variants of the first accepted form of each opcode, type and vector size
    (register operands only are varied). The sink is left out: ptxas stops at the first one it
    rejects ("fatal"), so each would need an assembly of its own."""
    out = []
    seen = set()
    for text in accepted:
        mnemonic, ops = split(text)
        words = mnemonic.split(".")
        key = (words[0], words[-1], vector_size(words), "wide" in words, "cas" in words)
        if key in seen:
            continue
        seen.add(key)
        if mnemonic.split(".")[0] in ("bar", "barrier", "membar", "fence", "bra", "exit",
                                     "trap", "ret", "cp") or not ops:
            continue
        out.append(f"{mnemonic} {', '.join(ops[:-1])};")
        out.append(f"{mnemonic} {', '.join(ops + [ops[-1]])};")
        for i, op in enumerate(ops):
            if not op.startswith("%"):
                continue
            for t in REG_TYPES:
                if f"%{t}_" in op:
                    continue
                new = ops[:i] + [f"%{t}_{i}"] + ops[i + 1:]
                out.append(f"{mnemonic} {', '.join(new)};")
            for lit in LITERALS:
                new = ops[:i] + [lit] + ops[i + 1:]
                out.append(f"{mnemonic} {', '.join(new)};")
    return out
