#!/usr/bin/env python3
"""Generate ptxas conformance data for ptxsim-isa (cvt, cvt.pack, mov).

Every generated instruction line is assembled by ptxas inside a module for one
(.target, .version) pair; lines that ptxas rejects are recorded with its message and removed,
and the module is re-assembled until the remaining lines assemble cleanly, so every line gets
an exact verdict of its own.

Operands follow a naming convention: a register called `%<regtype>_<n>` is declared with
`.reg .<regtype>`, so the instruction text alone determines the operand register types.
`_` is the sink symbol; `{...}` is a brace vector.

Usage: python3 scripts/conformance/gen.py            (writes tests/conformance/*.tsv{,.xz})
ptxas is found at $PTXSIM_NVIDIA_ROOT/nvidia/cu13/bin/ptxas (default <repo>/.nv); without it
the script prints a notice and exits 0 without touching the committed data.
"""
from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ops  # noqa: E402  (the variants of the other executed instructions)

REPO = Path(__file__).resolve().parents[2]
NV_ROOT = Path(os.environ.get("PTXSIM_NVIDIA_ROOT", REPO / ".nv"))
PTXAS = NV_ROOT / "nvidia" / "cu13" / "bin" / "ptxas"
OUT = REPO / "tests" / "conformance"

REG_TYPES = ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64",
             "s8", "s16", "s32", "s64", "f16", "f16x2", "f32", "f64", "pred"]
SCALAR = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "bf16", "f16", "f32", "f64"]
ROUNDINGS = ["", "rn", "rna", "rz", "rm", "rp", "rs", "rni", "rzi", "rmi", "rpi"]
PACKED_DST = ["f16x2", "bf16x2", "e4m3x2", "e5m2x2", "e2m1x2", "e2m3x2", "e3m2x2", "e4m3x4",
              "e5m2x4", "e2m1x4", "e2m3x4", "e3m2x4", "ue8m0x2", "s2f6x2", "tf32", "f16", "bf16"]
PACKED_SRC = ["f32", "f16x2", "bf16x2", "e4m3x2", "e5m2x2", "e2m1x2", "e2m3x2", "e3m2x2",
              "ue8m0x2", "s2f6x2", "e2m1x4", "e4m3x4", "tf32", "f16", "bf16"]
BITS = {"u8": 8, "s8": 8, "b8": 8, "u16": 16, "s16": 16, "b16": 16, "f16": 16, "bf16": 16,
        "u32": 32, "s32": 32, "b32": 32, "f32": 32, "tf32": 32, "f16x2": 32, "bf16x2": 32,
        "u64": 64, "s64": 64, "b64": 64, "f64": 64, "b128": 128, "pred": 1,
        "e4m3x2": 16, "e5m2x2": 16, "e2m3x2": 16, "e3m2x2": 16, "ue8m0x2": 16, "s2f6x2": 16,
        "e2m1x2": 8, "e2m1x4": 16, "e4m3x4": 32, "e5m2x4": 32, "e2m3x4": 32, "e3m2x4": 32}

# Targets ptxas 13.5 knows, with the -arch used to assemble a module for each (.target sm_XY
# may be compiled for any sm_MN with MN >= XY; sm_101* only exists as a .target).
ALL_TARGETS = ["sm_50", "sm_60", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_88",
               "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_101",
               "sm_101a", "sm_101f", "sm_103", "sm_103a", "sm_103f", "sm_107", "sm_107a",
               "sm_107f", "sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a", "sm_120f",
               "sm_121", "sm_121a", "sm_121f"]
ALL_VERSIONS = ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "2.0", "2.1", "2.2", "2.3", "3.0",
                "3.1", "3.2", "4.0", "4.1", "4.2", "4.3", "5.0", "5.1", "6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3", "7.4",
                "7.5", "7.6", "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6",
                "8.7", "8.8", "9.0", "9.1", "9.2", "9.3", "9.4", "9.5"]


def arch_for(target: str) -> str:
    num = int(re.match(r"sm_(\d+)", target).group(1))
    if num < 75:
        return "sm_75"
    if num == 101:
        return "sm_110a"
    return target


def vkey(v: str) -> tuple[int, int]:
    a, b = v.split(".")
    return int(a), int(b)


def regs_used(line: str) -> set[str]:
    return set(re.findall(r"%([a-z0-9]+)_\d+", line))


def module_text(target: str, version: str, lines: list[str]) -> str:
    used: set[str] = set()
    for l in lines:
        used |= regs_used(l)
    head = [f".version {version}", f".target {target}", ".address_size 64",
            ".visible .entry k() {"]
    for t in REG_TYPES:
        if t in used:
            head.append(f".reg .{t} %{t}_<10>;")
    tail = (["L0:"] if any("L0" in l for l in lines) else []) + ["ret;", "}", ""]
    return "\n".join(head + lines + tail), len(head)


# A message about the module's own lines: ptxas names the file. Messages about `<builtin>` (the
# library code ptxas adds for some instructions, which a bad line, such as a video instruction
# with a register plus an offset, can break) name a line of that code, not of the module.
LINE_RE = re.compile(r"^ptxas (?!<builtin>)[^,]+, line (\d+); (error|fatal)\s*: (.*)$")


def run_module(target: str, version: str, lines: list[str], virtual: bool = False) -> dict[str, str]:
    """Returns {line: message} for rejected lines; accepted lines are absent. `virtual`
    assembles for `compute_XX` (checks without generating code: ptxas 13.5's code generator
    crashes on some modules of the ops files)."""
    verdicts: dict[str, str] = {}
    pending = list(dict.fromkeys(lines))
    if vkey(version) < (8, 3):
        # .reg .b128 cannot be declared before PTX 8.3; such lines are not generated there.
        pending = [l for l in pending if "%b128_" not in l]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.ptx"
        for _ in range(200):
            if not pending:
                return verdicts
            text, nhead = module_text(target, version, pending)
            path.write_text(text)
            arch = arch_for(target)
            if virtual:
                arch = arch.replace("sm_", "compute_")
            p = subprocess.run([str(PTXAS), "-arch", arch, str(path), "-o",
                                os.devnull], capture_output=True, text=True)
            if p.returncode == 0:
                return verdicts
            bad: dict[int, str] = {}
            for msg in (p.stdout + p.stderr).splitlines():
                m = LINE_RE.match(msg)
                if m and int(m.group(1)) <= 4:
                    # The module header itself is rejected (.version/.target mismatch):
                    # every line shares that verdict.
                    for l in pending:
                        verdicts[l] = m.group(3).strip()
                    return verdicts
                if m:
                    n = int(m.group(1)) - nhead - 1
                    if 0 <= n < len(pending):
                        bad.setdefault(n, m.group(3).strip())
            if not bad:
                raise RuntimeError(f"{target} {version}: unattributed failure:\n{p.stderr}")
            for n, msg in bad.items():
                verdicts[pending[n]] = msg
            pending = [l for i, l in enumerate(pending) if i not in bad]
    raise RuntimeError("did not converge")


# ---------------------------------------------------------------------------------------
# Variant generation.

def reg(t: str, n: int = 0) -> str:
    return f"%{t}_{n}"


def natural_reg(t: str) -> str:
    """The register type the spec names for an instruction type."""
    if t in ("bf16",):
        return "b16"
    if t in ("bf16x2", "tf32"):
        return "b32"
    if t in REG_TYPES:
        return t
    return {8: "b8", 16: "b16", 32: "b32"}[BITS[t]]


def cvt(mods: list[str], dtype: str, atype: str, ops: list[str]) -> str:
    m = "".join("." + x for x in mods if x)
    return f"cvt{m}.{dtype}.{atype} {', '.join(ops)};"


def scalar_lines(full: bool) -> list[str]:
    out = []
    for d, a in itertools.product(SCALAR, SCALAR):
        ops = [reg(natural_reg(d)), reg(natural_reg(a), 1)]
        if full:
            for r, ftz, sat, relu, sf in itertools.product(ROUNDINGS, *[[0, 1]] * 4):
                # All 16 flag subsets where the source is f32 (the .relu/.satfinite forms);
                # elsewhere the .ftz/.sat subsets and the .relu/.satfinite subsets apart.
                if a != "f32" and (ftz or sat) and (relu or sf):
                    continue
                mods = [r, "ftz" if ftz else "", "sat" if sat else "", "relu" if relu else "",
                        "satfinite" if sf else ""]
                out.append(cvt(mods, d, a, ops))
        else:
            for r in ROUNDINGS:
                out.append(cvt([r], d, a, ops))
            for extra in ("ftz", "sat", "relu", "satfinite"):
                out.append(cvt([natural_rounding(d, a), extra], d, a, ops))
    return out


def packed_ops(d: str, a: str, rnd: str, scaled: bool) -> list[str]:
    """The operand list of the spec form for (dtype, atype), or a natural guess."""
    ops = [reg(natural_reg(d))]
    if a == "f32" and d.endswith("x4"):
        ops.append("{%f32_1, %f32_2, %f32_3, %f32_4}")
    elif a == "f32" and d.endswith("x2"):
        ops += [reg("f32", 1), reg("f32", 2)]
    else:
        ops.append(reg(natural_reg(a), 1))
    if rnd == "rs":
        ops.append(reg("b32", 5))
    if scaled:
        ops.append(reg("b16", 6))
    return ops


def packed_lines(full: bool) -> list[str]:
    out = []
    for d, a in itertools.product(PACKED_DST, PACKED_SRC):
        if d in ("f16", "bf16") and a in ("f16", "bf16"):
            continue  # covered by scalar_lines
        s2f6 = "s2f6x2" in (d, a)
        if not plausible(d, a):
            for relu, sf in itertools.product([0, 1], [0, 1]):
                out.append(cvt(["rn", "relu" if relu else "", "satfinite" if sf else ""], d, a,
                               packed_ops(d, a, "rn", False)))
            continue
        for r in ROUNDINGS if full else ["", "rn", "rz", "rp", "rna", "rs"]:
            for relu, sf, scaled in itertools.product([0, 1], [0, 1], [0, 1] if s2f6 else [0]):
                mods = [r, "relu" if relu else "", "satfinite" if sf else "",
                        "scaled::n2::ue8m0" if scaled else ""]
                out.append(cvt(mods, d, a, packed_ops(d, a, r, bool(scaled))))
            if full:
                for extra in ("ftz", "sat"):
                    out.append(cvt([r, "satfinite", extra], d, a, packed_ops(d, a, r, False)))
                    out.append(cvt([r, extra], d, a, packed_ops(d, a, r, False)))
    return out


# The canonical spelling of each spec form, used to probe every target x version.
CANONICAL = [
    ("rn", "", "f16", "f32"), ("rn", "relu", "f16", "f32"), ("rn", "satfinite", "f16", "f32"),
    ("rn", "", "f16x2", "f32"), ("rn", "relu", "f16x2", "f32"), ("rn", "satfinite", "f16x2", "f32"),
    ("rs", "", "f16x2", "f32"), ("rs", "relu.satfinite", "bf16x2", "f32"),
    ("rn", "", "bf16", "f32"), ("rn", "", "bf16x2", "f32"), ("rz", "satfinite", "bf16", "f32"),
    ("rna", "", "tf32", "f32"), ("rna", "satfinite", "tf32", "f32"), ("rn", "", "tf32", "f32"),
    ("rz", "relu", "tf32", "f32"), ("rn", "satfinite", "tf32", "f32"),
    ("rn", "satfinite", "e4m3x2", "f32"), ("rn", "satfinite.relu", "e5m2x2", "f16x2"),
    ("rn", "satfinite", "e4m3x2", "bf16x2"), ("rn", "", "f16x2", "e4m3x2"),
    ("rn", "relu", "f16x2", "e5m2x2"), ("rs", "satfinite", "e4m3x4", "f32"),
    ("rs", "relu.satfinite", "e5m2x4", "f32"),
    ("rn", "satfinite", "e2m1x2", "f32"), ("rn", "satfinite", "e2m1x2", "f16x2"),
    ("rn", "satfinite.relu", "e2m1x2", "bf16x2"), ("rn", "", "f16x2", "e2m1x2"),
    ("rs", "satfinite", "e2m1x4", "f32"),
    ("rn", "satfinite", "e2m3x2", "f32"), ("rn", "satfinite", "e3m2x2", "f16x2"),
    ("rn", "satfinite", "e2m3x2", "bf16x2"), ("rn", "relu", "f16x2", "e3m2x2"),
    ("rs", "satfinite", "e2m3x4", "f32"), ("rs", "satfinite", "e3m2x4", "f32"),
    ("rz", "", "ue8m0x2", "f32"), ("rp", "satfinite", "ue8m0x2", "f32"),
    ("rz", "", "ue8m0x2", "bf16x2"), ("rp", "satfinite", "ue8m0x2", "bf16x2"),
    ("rn", "", "bf16x2", "ue8m0x2"),
    ("rn", "satfinite", "s2f6x2", "f32"), ("rn", "satfinite.relu", "s2f6x2", "bf16x2"),
    ("rn", "", "bf16x2", "s2f6x2"), ("rn", "satfinite.scaled::n2::ue8m0", "s2f6x2", "f32"),
    ("rn", "scaled::n2::ue8m0", "bf16x2", "s2f6x2"),
    ("", "", "f32", "bf16"), ("", "ftz", "f32", "bf16"), ("rn", "", "bf16", "f16"),
    ("rn", "", "bf16", "s32"), ("rni", "", "s32", "bf16"), ("", "", "f64", "bf16"),
    ("rn", "", "bf16", "f64"), ("rpi", "", "bf16", "bf16"), ("rn", "", "f16", "f64"),
    ("", "", "f64", "f32"), ("rn", "", "f32", "s32"), ("rzi", "", "s32", "f32"),
    ("", "", "s32", "s16"), ("", "sat", "u8", "s32"),
]


def canonical_lines() -> list[str]:
    out = []
    for r, extra, d, a in CANONICAL:
        mods = [r] + [m for m in extra.split(".") if m]
        if "scaled::n2::ue8m0" in extra:
            mods = [r] + [m for m in extra.replace("scaled::n2::ue8m0", "").split(".") if m]
            mods.append("scaled::n2::ue8m0")
        out.append(cvt(mods, d, a, packed_ops(d, a, r, "scaled" in extra) if d in PACKED_DST
                       or a in PACKED_SRC else [reg(natural_reg(d)), reg(natural_reg(a), 1)]))
    return out


def packed_operand_lines() -> list[str]:
    """Operand count and register-type variations of each spec form."""
    out = []
    forms = list(CANONICAL)
    for r, extra, d, a in forms:
        mods = [r] + [m for m in extra.split(".") if m]
        scaled = "scaled::n2::ue8m0" in mods
        ops = packed_ops(d, a, r, scaled)
        for i in range(len(ops)):
            if ops[i].startswith("{"):
                for rt in REG_TYPES:
                    v = list(ops)
                    v[i] = "{" + ", ".join(reg(rt, k) for k in range(1, 5)) + "}"
                    out.append(cvt(mods, d, a, v))
                # wrong vector lengths and a scalar in place of the vector
                for v_ops in (["{%f32_1, %f32_2}"], [reg("f32", 1), reg("f32", 2), reg("f32", 3), reg("f32", 4)]):
                    v = ops[:i] + v_ops + ops[i + 1:]
                    out.append(cvt(mods, d, a, v))
                continue
            for rt in REG_TYPES:
                v = list(ops)
                v[i] = reg(rt, 7)
                out.append(cvt(mods, d, a, v))
        # one operand too few / too many
        out.append(cvt(mods, d, a, ops[:-1]))
        out.append(cvt(mods, d, a, ops + [reg("b32", 7)]))
        out.append(cvt(mods, d, a, ops + [reg("b16", 7)]))
        # scale-factor without the qualifier, qualifier without the operand
        if "s2f6x2" in (d, a):
            if scaled:
                out.append(cvt(mods, d, a, ops[:-1]))
                out.append(cvt([m for m in mods if m != "scaled::n2::ue8m0"], d, a, ops))
            else:
                out.append(cvt(mods, d, a, ops + [reg("b16", 6)]))
                out.append(cvt(mods + ["scaled::n2::ue8m0"], d, a, ops))
                out.append(cvt(mods + ["scaled::n4::ue8m0"], d, a, ops + [reg("b16", 6)]))
    return out


def cvt_pack_lines() -> list[str]:
    out = []
    ctypes = ["u16", "s16", "u8", "s8", "u4", "s4", "u2", "s2", "u32", "s32", "b16", "b8"]
    for ct, ab, c, sat in itertools.product(ctypes, ["s32", "u32", "b32"], ["", "b32", "u32", "s32"], [1, 0]):
        m = "cvt.pack" + (".sat" if sat else "") + f".{ct}.{ab}" + (f".{c}" if c else "")
        out.append(f"{m} %b32_0, %b32_1, %b32_2;")
        out.append(f"{m} %b32_0, %b32_1, %b32_2, %b32_3;")
    for ct in ("u16", "s8", "u4"):
        c = ".b32" if ct != "u16" else ""
        n = 3 if ct == "u16" else 4
        for i in range(n):
            for rt in REG_TYPES:
                ops = ["%b32_0", "%b32_1", "%b32_2", "%b32_3"][:n]
                ops[i] = reg(rt, 5)
                out.append(f"cvt.pack.sat.{ct}.s32{c} {', '.join(ops)};")
        out.append(f"cvt.pack.sat.{ct}.s32{c} " + ", ".join(["%b32_0", "%b32_1", "%b32_2", "%b32_3", "%b32_4"][:n]) + ";")
    return out


def mov_lines() -> list[str]:
    out = []
    # scalar forms
    for t in ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16",
              "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred"]:
        for rt in REG_TYPES:
            nat = t if t in REG_TYPES else natural_reg(t)
            out.append(f"mov.{t} %{rt}_0, %{nat}_1;")
            if rt != nat:
                out.append(f"mov.{t} %{nat}_0, %{rt}_1;")
    # pack / unpack
    for t in ["b16", "b32", "b64", "b128", "u32", "f32", "f64", "u64", "s64", "b8"]:
        for et in ["b8", "b16", "b32", "b64", "u8", "u16", "u32", "s32", "f16", "f32", "f64", "pred", "b128"]:
            for n in (2, 4, 3, 8):
                vec = "{" + ", ".join(reg(et, k) for k in range(1, n + 1)) + "}"
                scal = reg(natural_reg(t) if t != "b8" else "b8")
                out.append(f"mov.{t} {scal}, {vec};")
                out.append(f"mov.{t} {vec}, {scal};")
        # scalar operand register type variations for a matching vector
    for t, et, n in (("b32", "b16", 2), ("b64", "b32", 2), ("b128", "b64", 2), ("b32", "b8", 4),
                     ("b64", "b16", 4), ("b128", "b32", 4), ("b16", "b8", 2)):
        vec = "{" + ", ".join(reg(et, k) for k in range(1, n + 1)) + "}"
        for rt in REG_TYPES:
            out.append(f"mov.{t} %{rt}_0, {vec};")
            out.append(f"mov.{t} {vec}, %{rt}_0;")
        # sinks
        for mask in itertools.product([0, 1], repeat=n):
            elems = ["_" if s else reg(et, k + 1) for k, s in enumerate(mask)]
            out.append(f"mov.{t} {{{', '.join(elems)}}}, {reg(t)};")
            if any(mask):
                out.append(f"mov.{t} {reg(t)}, {{{', '.join(elems)}}};")
    # mixed element types of one size, and immediates as elements or sources
    for t, size, n in (("b32", 16, 2), ("b64", 32, 2), ("b32", 8, 4), ("b64", 16, 4)):
        kinds = {8: ["b8", "u8", "s8"], 16: ["b16", "u16", "s16", "f16"], 32: ["b32", "u32", "s32", "f32", "f16x2"]}[size]
        for a_kind, b_kind in itertools.product(kinds, kinds):
            elems = [reg(a_kind, 1), reg(b_kind, 2)] + [reg(a_kind, k) for k in range(3, n + 1)]
            out.append(f"mov.{t} {reg(t)}, {{{', '.join(elems)}}};")
            out.append(f"mov.{t} {{{', '.join(elems)}}}, {reg(t)};")
        out.append(f"mov.{t} {reg(t)}, {{{', '.join(['1'] + [reg(kinds[0], k) for k in range(2, n + 1)])}}};")
    return list(dict.fromkeys(out))


def natural_rounding(d: str, a: str) -> str:
    """A rounding that makes a scalar pair legal, used to sample register types."""
    fl = ("f16", "bf16", "f32", "f64")
    if d in fl and a not in fl:
        return "rn"
    if d not in fl and a in fl:
        return "rni"
    if d in fl and a in fl and (BITS[d] < BITS[a] or {d, a} == {"f16", "bf16"}):
        return "rn"
    return ""


def scalar_regsize_lines() -> list[str]:
    """Operand-size rules (Tables 27/28) for cvt: vary each operand's register type."""
    out = []
    for d, a in itertools.product(SCALAR, SCALAR):
        r = natural_rounding(d, a)
        for rt in REG_TYPES:
            out.append(cvt([r], d, a, [reg(rt), reg(natural_reg(a), 1)]))
            out.append(cvt([r], d, a, [reg(natural_reg(d)), reg(rt, 1)]))
    return out


def plausible(d: str, a: str) -> bool:
    """Pairs where one side is f32/f16x2/bf16x2 and the other a packed or half type."""
    return a in ("f32", "f16x2", "bf16x2") or d in ("f16x2", "bf16x2")


def packed_sample() -> list[str]:
    return [l for l in packed_lines(False)
            if plausible(*re.match(r"cvt\S*\.(\w+)\.(\w+) ", l).groups())]


def header_version_ok(t: str, v: str) -> bool:
    return (t, v) in ACCEPTED_PAIRS


def misc_lines() -> list[str]:
    """The spec's examples in the generator's register naming, modifier orders, malformed lines."""
    ex = [
        "cvt.f32.s32 %f32_0, %s32_1;",
        "cvt.s32.f64 %s32_0, %f64_1;",
        "cvt.rni.f32.f32 %f32_0, %f32_1;",
        "cvt.f32.f32 %f32_0, %f32_1;",
        "cvt.rn.relu.f16.f32 %f16_0, %f32_1;",
        "cvt.rz.f16x2.f32 %f16x2_0, %f32_1, %f32_2;",
        "cvt.rn.relu.satfinite.f16x2.f32 %f16x2_0, %f32_1, %f32_2;",
        "cvt.rn.bf16.f32 %b16_0, %f32_1;",
        "cvt.rz.relu.satfinite.bf16.f32 %b16_0, %f32_1;",
        "cvt.rz.satfinite.bf16x2.f32 %b32_0, %f32_1, %f32_2;",
        "cvt.rn.relu.bf16x2.f32 %b32_0, %f32_1, %f32_2;",
        "cvt.rna.satfinite.tf32.f32 %b32_0, %f32_1;",
        "cvt.rn.relu.tf32.f32 %b32_0, %f32_1;",
        "cvt.f64.bf16.rp %f64_0, %b16_1;",
        "cvt.bf16.f16.rz %b16_0, %f16_1;",
        "cvt.bf16.u64.rz %b16_0, %u64_1;",
        "cvt.s8.bf16.rpi %s8_0, %b16_1;",
        "cvt.bf16.bf16.rpi %b16_0, %b16_1;",
        "cvt.rn.satfinite.e4m3x2.f32 %b16_0, %f32_1, %f32_2;",
        "cvt.rn.relu.satfinite.e5m2x2.f16x2 %b16_0, %f16x2_1;",
        "cvt.rn.f16x2.e4m3x2 %f16x2_0, %b16_1;",
        "cvt.rn.satfinite.tf32.f32 %b32_0, %f32_1;",
        "cvt.rn.relu.f16x2.e2m1x2 %f16x2_0, %b8_1;",
        "cvt.rn.satfinite.e2m3x2.f32 %b16_0, %f32_1, %f32_2;",
        "cvt.rn.relu.f16x2.e3m2x2 %f16x2_0, %b16_1;",
        "cvt.rs.f16x2.f32 %f16x2_0, %f32_1, %f32_2, %b32_3;",
        "cvt.rs.satfinite.e2m1x4.f32 %b16_0, {%f32_1, %f32_2, %f32_3, %f32_4}, %b32_5;",
        "cvt.rn.satfinite.relu.e2m1x2.f16x2 %b8_0, %f16x2_1;",
        "cvt.rn.satfinite.e2m3x2.bf16x2 %b16_0, %b32_1;",
        "cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.f32 %b16_0, %f32_1, %f32_2, %b16_3;",
        "cvt.pack.sat.s16.s32 %b32_1, %b32_2, %b32_3;",
        "cvt.pack.sat.u8.s32.b32 %b32_4, %b32_5, %b32_6, 0;",
        "cvt.pack.sat.u8.s32.b32 %b32_7, %b32_8, %b32_9, %b32_4;",
        "cvt.pack.sat.u4.s32.b32 %b32_0, %b32_2, %b32_3, %b32_4;",
        "cvt.pack.sat.s2.s32.b32 %b32_5, %b32_6, %b32_7, %b32_8;",
        "mov.b32 %b32_1, {%u16_1, %u16_2};",
        "mov.b64 {%u32_1, %u32_2}, %f64_1;",
        "mov.b32 %b32_1, {%b8_1, %b8_2, %b8_3, %b8_4};",
        "mov.b32 {%u8_1, %u8_2, %u8_3, %u8_4}, %b32_1;",
        "mov.b64 {%b32_1, _}, %b64_1;",
        "mov.b128 {%b64_1, %b64_2}, %b128_1;",
        "mov.b128 %b128_1, {%b64_1, %b64_2};",
    ]
    orders = [
        "cvt.f32.s32.rn %f32_0, %s32_1;", "cvt.s32.rzi.f32 %s32_0, %f32_1;",
        "cvt.f32.f64.ftz.rn %f32_0, %f64_1;", "cvt.sat.rn.f16.f32 %f16_0, %f32_1;",
        "cvt.satfinite.rn.e4m3x2.f32 %b16_0, %f32_1, %f32_2;",
        "cvt.relu.rn.satfinite.e4m3x2.f32 %b16_0, %f32_1, %f32_2;",
        "cvt.e4m3x2.f32.rn.satfinite %b16_0, %f32_1, %f32_2;",
        "cvt.rn.scaled::n2::ue8m0.satfinite.s2f6x2.f32 %b16_0, %f32_1, %f32_2, %b16_3;",
        "cvt.pack.s32.sat.u16 %b32_0, %b32_1, %b32_2;", "cvt.sat.pack.u16.s32 %b32_0, %b32_1, %b32_2;",
        "cvt.pack.sat.u8.s32.b32 %b32_0, %b32_1, %b32_2, 7;",
    ]
    immediates = [
        "cvt.rn.satfinite.e4m3x2.f32 %b16_0, 1.0, %f32_2;", "cvt.rn.f16x2.f32 %f16x2_0, 0f3F800000, %f32_2;",
        "cvt.rs.satfinite.e4m3x4.f32 %b32_0, {%f32_1, 1.0, %f32_3, %f32_4}, %b32_5;",
        "cvt.rs.satfinite.e4m3x4.f32 %b32_0, {%f32_1, %f32_2, %f32_3, %f32_4}, 7;",
        "cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.f32 %b16_0, %f32_1, %f32_2, 0x7f7f;",
        "cvt.rn.f16x2.e4m3x2 %f16x2_0, 5;", "cvt.rzi.s32.f32 %s32_0, 1.5;", "cvt.u32.u16 %u32_0, 3;",
        "cvt.pack.sat.u16.s32 %b32_0, 1, %b32_2;",
    ]
    bad = [
        "cvt.rn.rz.f16.f32 %f16_0, %f32_1;", "cvt.rn.rn.f16.f32 %f16_0, %f32_1;",
        "cvt.ftz.ftz.f32.f16 %f32_0, %f16_1;", "cvt.f32 %f32_0, %f32_1;",
        "cvt.f32.f16.f16 %f32_0, %f16_1;", "cvt.rn.f16.f32.u32 %f16_0, %f32_1;",
        "cvt.rn.bogus.f16.f32 %f16_0, %f32_1;", "cvt.b32.u32 %b32_0, %u32_1;",
        "cvt.u32.b32 %u32_0, %b32_1;", "cvt.rn.f16.b32 %f16_0, %b32_1;",
        "cvt.rn.satfinite.scaled::n2::ue8m0.e4m3x2.f32 %b16_0, %f32_1, %f32_2, %b16_3;",
        "cvt.rn.satfinite.s2f6x2.f32 %b16_0, %f32_1, %f32_2, %b16_3;",
        "cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.f32 %b16_0, %f32_1, %f32_2;",
        "cvt.rn.f16.f32 %f16_0, %f32_1, %f32_2;", "cvt.rn.f16.f32 %f16_0;",
        "cvt.rn.f16.f32 _, %f32_1;", "cvt.rn.f16.f32 %f16_0, _;",
        "cvt.rn.f16x2.f32 %f16x2_0, {%f32_1, %f32_2};",
        "cvt.rs.satfinite.e4m3x4.f32 %b32_0, %f32_1, %f32_2, %f32_3, %f32_4, %b32_5;",
        "cvt.rs.satfinite.e4m3x4.f32 %b32_0, {%f32_1, _, %f32_3, %f32_4}, %b32_5;",
        "cvt.rs.satfinite.e4m3x4.f32 %b32_0, {%f32_1, %f32_2, %f32_3, %f32_4};",
        "cvt.rn.f16x2.f32 %f16x2_0, %f32_1, %f32_2, %b32_3;",
        "cvt.rn.f32.s32 %f32_0, 1;", "cvt.rn.f32.f64 %f32_0, 1.0;",
        "mov.b32 %b32_0;", "mov.b32 %b32_0, %b32_1, %b32_2;", "mov %b32_0, %b32_1;",
        "mov.b32.u32 %b32_0, %b32_1;", "mov.b32 {%b16_1, %b16_2}, {%b16_3, %b16_4};",
        "mov.b32 _, %b32_1;", "mov.b32 %b32_0, _;", "mov.b32 %b32_0, 5;",
        "mov.b64 {%b32_1, %b32_2}, 5;", "mov.b32 {%b16_1, %b16_2, %b16_3, %b16_4}, %b32_0;",
        "mov.b32 {%b16_1, %b32_2}, %b32_0;", "mov.pack.b32 %b32_0, %b32_1;",
        "cvt.pack.u16.s32 %b32_0, %b32_1, %b32_2;", "cvt.pack.sat.sat.u16.s32 %b32_0, %b32_1, %b32_2;",
        "cvt.pack.sat.u16 %b32_0, %b32_1, %b32_2;", "cvt.pack.sat.u8.s32.b32.b32 %b32_0, %b32_1, %b32_2, %b32_3;",
        "cvt.pack.rn.sat.u16.s32 %b32_0, %b32_1, %b32_2;",
    ]
    return ex + orders + immediates + bad


LITERALS = ["7", "0x7", "-7", "7U", "7.5", "-2.5", "1e3", "0f3F800000", "0d3FF0000000000000"]


def literal_lines() -> list[str]:
    """Every kind of literal in every source slot that may take an immediate: scalar cvt (each
    type pair, natural rounding), every scalar mov type, the packed cvt sources, cvt.pack."""
    out = []
    for d, a in itertools.product(SCALAR, SCALAR):
        for lit in LITERALS:
            out.append(cvt([natural_rounding(d, a)], d, a, [reg(natural_reg(d)), lit]))
    for t in ["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64",
              "pred"]:
        for lit in LITERALS:
            out.append(f"mov.{t} %{t}_0, {lit};")
    packed = [
        ("cvt.rn.f16x2.f32 %f16x2_0, {}, %f32_2;", "cvt.rn.f16x2.f32 %f16x2_0, %f32_1, {};"),
        ("cvt.rn.satfinite.e4m3x2.f32 %b16_0, {}, %f32_2;",),
        ("cvt.rn.satfinite.e5m2x2.f16x2 %b16_0, {};",),
        ("cvt.rn.f16x2.e4m3x2 %f16x2_0, {};",),
        ("cvt.rna.satfinite.tf32.f32 %b32_0, {};", "cvt.rna.tf32.f32 %b32_0, {};",
         "cvt.rn.tf32.f32 %b32_0, {};", "cvt.rz.relu.tf32.f32 %b32_0, {};"),
        ("cvt.rn.relu.bf16x2.f32 %b32_0, {}, %f32_2;",),
        ("cvt.rs.f16x2.f32 %f16x2_0, {}, %f32_2, %b32_3;", "cvt.rs.f16x2.f32 %f16x2_0, %f32_1, %f32_2, {};"),
        ("cvt.rs.satfinite.e4m3x4.f32 %b32_0, {{{}, %f32_2, %f32_3, %f32_4}}, %b32_5;",),
        ("cvt.rn.satfinite.e2m1x2.f32 %b8_0, {}, %f32_2;",),
        ("cvt.pack.sat.s16.s32 %b32_0, {}, %b32_2;", "cvt.pack.sat.u8.s32.b32 %b32_0, %b32_1, %b32_2, {};"),
    ]
    for group in packed:
        for pattern in group:
            for lit in LITERALS:
                out.append(pattern.format(lit))
    return out


SREGS = ["%tid.x", "%ntid.y", "%ctaid.x", "%nctaid.z", "%laneid", "%warpid", "%nwarpid",
         "%smid", "%nsmid", "%gridid", "%clock", "%clock_hi", "%clock64", "%globaltimer",
         "%globaltimer_lo", "%lanemask_eq", "%lanemask_lt", "%envreg3", "%dynamic_smem_size",
         "%total_smem_size", "%pm0", "%pm0_64", "%cluster_ctarank", "%aggr_smem_size"]


def source_lines() -> list[str]:
    """Special registers as mov and cvt sources (and destinations)."""
    out = []
    for sreg in SREGS:
        for t in ["u16", "b16", "s16", "u32", "s32", "b32", "u64", "b64", "s64", "f32", "f64"]:
            out.append(f"mov.{t} %{t}_0, {sreg};")
        for d, a in [("u64", "u32"), ("u32", "u64"), ("u16", "u32"), ("u32", "u16"),
                     ("s64", "s32"), ("u32", "u32"), ("u64", "u64"), ("u8", "u32")]:
            out.append(cvt([], d, a, [reg(d), sreg]))
        for d, a in [("f32", "u32"), ("f64", "u64"), ("f32", "s32")]:
            out.append(cvt(["rn"], d, a, [reg(d), sreg]))
        out.append(f"cvt.pack.sat.s16.s32 %b32_0, {sreg}, %b32_2;")
        out.append(f"mov.u32 {sreg}, %u32_1;")
    return out


def mov_vector_lines() -> list[str]:
    """`mov.vN.T {..}, {..}`: each count and type, then wrong elements, immediates and sinks."""
    out = []
    for n in (2, 4, 8):
        for t in ["b16", "b32", "b64", "b128", "u16", "u32", "u64", "s16", "s32", "s64", "f32",
                  "f64", "pred"]:
            d = ", ".join(f"%{t}_{i}" for i in range(n))
            a = ", ".join(f"%{t}_{i + 1}" for i in range(n))
            out.append(f"mov.v{n}.{t} {{{d}}}, {{{a}}};")
            if n == 2:
                wide = {"b16": "b32", "b32": "b64", "b64": "b32", "u16": "u32", "u32": "u64",
                        "u64": "u32", "s16": "s32", "s32": "s64", "s64": "s32", "f32": "f64",
                        "f64": "f32"}.get(t)
                if wide:
                    out.append(f"mov.v2.{t} {{%{t}_0, %{t}_1}}, {{%{t}_2, %{wide}_3}};")
                    out.append(f"mov.v2.{t} {{%{wide}_0, %{t}_1}}, {{%{t}_2, %{t}_3}};")
                for lit in ("7", "1.5", "0f3F800000"):
                    out.append(f"mov.v2.{t} {{%{t}_0, %{t}_1}}, {{{lit}, %{t}_3}};")
                out.append(f"mov.v2.{t} {{%{t}_0, _}}, {{%{t}_2, %{t}_3}};")
                out.append(f"mov.v2.{t} {{_, _}}, {{%{t}_2, %{t}_3}};")
                out.append(f"mov.v2.{t} {{%{t}_0, %{t}_1}}, {{%{t}_2, _}};")
                out.append(f"mov.v2.{t} {{%{t}_0, %{t}_1}}, {{%{t}_2, %{t}_3, %{t}_4}};")
                out.append(f"mov.v2.{t} %{t}_0, {{%{t}_2, %{t}_3}};")
    out += ["mov.v2.v2.u32 {%u32_0, %u32_1}, {%u32_2, %u32_3};",
            "mov.u32.v2 {%u32_0, %u32_1}, {%u32_2, %u32_3};",
            "mov.v3.u32 {%u32_0, %u32_1, %u32_2}, {%u32_2, %u32_3, %u32_4};"]
    return out


def tcgen05_lines() -> list[str]:
    """tcgen05.ld/st/cp/shift/commit/wait/fence (9.7.16): each shape with its register count,
    the operand kinds, and one broken variant of each."""
    def regs(n: int, t: str = "b32") -> str:
        return "{" + ", ".join(f"%{t}_{i % 10}" for i in range(n)) + "}"
    out: list[str] = []
    per = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}
    for op in ("ld", "st"):
        pack = "pack::16b" if op == "ld" else "unpack::16b"
        for shape, k in per.items():
            # At most 8 distinct registers (the module declares ten of each type; a register
            # repeated in one vector is a ptxas code-generation error, not a syntax one).
            for num in [x for x in ("x1", "x2", "x4", "x8") if k * int(x[1:]) <= 8]:
                n = k * int(num[1:])
                for extra in ("", "." + pack):
                    mods = f"tcgen05.{op}.sync.aligned.{shape}.{num}{extra}.b32"
                    imm = ", 16" if shape == "16x32bx2" else ""
                    if op == "ld":
                        out.append(f"{mods} {regs(n)}, [%b32_9]{imm};")
                    else:
                        out.append(f"{mods} [%b32_9]{imm}, {regs(n)};")
            # a register too few, the split offset left off or added, no .aligned
            mods = f"tcgen05.{op}.sync.aligned.{shape}.x2.b32"
            n = 2 * k
            imm = ", 16" if shape == "16x32bx2" else ", 4"
            if op == "ld":
                out += [f"{mods} {regs(n - 1)}, [%b32_9]{imm if shape == '16x32bx2' else ''};",
                        f"{mods} {regs(n)}, [%b32_9]{'' if shape == '16x32bx2' else imm};",
                        f"tcgen05.{op}.sync.{shape}.x2.b32 {regs(n)}, [%b32_9]{imm if shape == '16x32bx2' else ''};"]
            else:
                out += [f"{mods} [%b32_9]{imm if shape == '16x32bx2' else ''}, {regs(n - 1)};",
                        f"{mods} [%b32_9]{'' if shape == '16x32bx2' else imm}, {regs(n)};",
                        f"tcgen05.{op}.aligned.{shape}.x2.b32 [%b32_9]{imm if shape == '16x32bx2' else ''}, {regs(n)};"]
        # register kinds and the type
        base = f"tcgen05.{op}.sync.aligned.32x32b.x1"
        for r, a in (("%f32_0", "[%b32_9]"), ("%u32_0", "[%u32_9]"), ("%b64_0", "[%b32_9]"),
                     ("%b32_0", "[%b64_9]"), ("%b16_0", "[%b32_9]"), ("%s32_0", "[%s32_9]"),
                     ("%b32_0", "%b32_9"), ("%b32_0", "[%b32_9+4]")):
            out.append(f"{base}.b32 {{{r}}}, {a};" if op == "ld" else f"{base}.b32 {a}, {{{r}}};")
        out.append(f"{base}.b32 %b32_0, [%b32_9];" if op == "ld" else f"{base}.b32 [%b32_9], %b32_0;")
        out.append(f"{base}.b64 {{%b32_0}}, [%b32_9];" if op == "ld" else f"{base}.b64 [%b32_9], {{%b32_0}};")
        out.append(f"tcgen05.{op}.sync.aligned.32x32b.x3.b32 {regs(3)}, [%b32_9];" if op == "ld"
                   else f"tcgen05.{op}.sync.aligned.32x32b.x3.b32 [%b32_9], {regs(3)};")
        out.append(f"tcgen05.{op}.sync.aligned.32x32b.x1.{'unpack::16b' if op == 'ld' else 'pack::16b'}.b32 "
                   + ("{%b32_0}, [%b32_9];" if op == "ld" else "[%b32_9], {%b32_0};"))
    for shape in ("128x256b", "4x256b", "128x128b", "64x128b", "32x128b"):
        for multicast in ("", ".warpx2::02_13", ".warpx2::01_23", ".warpx4"):
            out.append(f"tcgen05.cp.cta_group::1.{shape}{multicast} [%b32_0], %b64_1;")
    for fmt in (".b8x16.b6x16_p32", ".b8x16.b4x16_p64", ".b8x16", ".b6x16_p32"):
        out.append(f"tcgen05.cp.cta_group::1.128x256b{fmt} [%b32_0], %b64_1;")
    out += ["tcgen05.cp.cta_group::1.128x256b [%u32_0], %u64_1;",
            "tcgen05.cp.cta_group::1.128x256b [%b32_0], %b32_1;",
            "tcgen05.cp.cta_group::1.128x256b %b32_0, %b64_1;",
            "tcgen05.cp.128x256b [%b32_0], %b64_1;",
            "tcgen05.cp.cta_group::1 [%b32_0], %b64_1;",
            "tcgen05.cp.cta_group::1.128x256b [%b32_0], %b64_1, %b64_2;",
            "tcgen05.shift.cta_group::1.down [%b32_0];",
            "tcgen05.shift.cta_group::1 [%b32_0];",
            "tcgen05.shift.cta_group::1.down %b32_0;",
            "tcgen05.shift.down [%b32_0];",
            "tcgen05.shift.cta_group::1.down [%b64_0];",
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%b64_0];",
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%b64_0];",
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%b32_0];",
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%b64_0], %b16_1;",
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%b64_0];",
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%b64_0], %b16_1;",
            "tcgen05.commit.cta_group::1.b64 [%b64_0];",
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one [%b64_0];",
            "tcgen05.commit.mbarrier::arrive::one.b64 [%b64_0];",
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 %b64_0;",
            "tcgen05.wait::ld.sync.aligned;",
            "tcgen05.wait::st.sync.aligned;",
            "tcgen05.wait::ld;",
            "tcgen05.wait::st.sync.aligned %b32_0;",
            "tcgen05.fence::before_thread_sync;",
            "tcgen05.fence::after_thread_sync;",
            "tcgen05.fence::after_thread_sync.sync.aligned;",
            "tcgen05.fence::before_thread_sync %b32_0;"]
    return out


def plan() -> dict[str, list[tuple[str, str, list[str]]]]:
    """Files -> list of (target, version, lines)."""
    files: dict[str, list[tuple[str, str, list[str]]]] = {}
    files["cvt-scalar.tsv"] = [("sm_100a", "9.1", scalar_lines(True))] + [
        (t, v, scalar_lines(False)) for t, v in [("sm_80", "7.0"), ("sm_90", "7.8")]] + [
        (t, v, [cvt([r], d, a, [reg(natural_reg(d)), reg(natural_reg(a), 1)])
                for d, a in itertools.product(SCALAR, SCALAR) for r in ROUNDINGS])
        for t, v in [("sm_75", "7.0"), ("sm_80", "7.8"), ("sm_89", "8.1"), ("sm_90", "8.1")]]
    files["cvt-operand-size.tsv"] = [("sm_100a", "9.1", scalar_regsize_lines())]
    files["cvt-packed.tsv"] = [("sm_100a", "9.1", packed_lines(True))] + [
        (t, "9.1", packed_sample()) for t in ("sm_90", "sm_120f", "sm_103a", "sm_110a")]
    files["cvt-operands.tsv"] = [(t, "9.1", packed_operand_lines()) for t in ("sm_100a", "sm_120a")]
    gate = []
    for t in ALL_TARGETS[2:]:
        for v in ["6.5", "7.0", "7.1", "7.7", "7.8", "8.0", "8.1", "8.5", "8.6", "8.7",
                  "8.8", "9.0", "9.1"]:
            lines = canonical_lines()
            if not header_version_ok(t, v):
                lines = lines[:1]
            gate.append((t, v, lines))
    # sm_107 exists from PTX 9.4 only; probe its family membership there.
    for t in ("sm_107", "sm_107a", "sm_107f", "sm_103f", "sm_121f"):
        gate.append((t, "9.4", canonical_lines()))
    files["cvt-targets.tsv"] = gate
    files["misc.tsv"] = [(t, v, misc_lines()) for t, v in (("sm_100a", "9.1"), ("sm_120f", "9.1"), ("sm_90", "8.3"))]
    pk = [("sm_90", "9.1", cvt_pack_lines())]
    valid_pack = [l for l in cvt_pack_lines() if ".sat." in l and ".s32" in l][:60]
    for t, v in (("sm_70", "6.5"), ("sm_72", "6.4"), ("sm_72", "6.5"), ("sm_75", "6.4"),
                 ("sm_75", "6.5")):
        pk.append((t, v, valid_pack))
    files["cvt-pack.tsv"] = pk
    mv = [("sm_90", "9.1", mov_lines())]
    b128 = [l for l in mov_lines() if "b128" in l][:80]
    for t, v in (("sm_60", "8.3"), ("sm_70", "8.3"), ("sm_70", "8.2")):
        mv.append((t, v, b128))
    files["mov.tsv"] = mv
    files["sources.tsv"] = [("sm_90", "8.6", source_lines())]
    files["tcgen05.tsv"] = [("sm_100a", "8.7", tcgen05_lines())]
    files["bulk-spaces.tsv"] = [("sm_100a", "8.7", bulk_space_lines())]
    files["values.tsv"] = [(t, v, value_lines()) for t, v in (("sm_90", "8.6"), ("sm_100a", "8.7"))]
    files["clusterlaunchcontrol.tsv"] = [(t, v, clc_lines()) for t, v in (
        ("sm_100a", "8.7"), ("sm_100", "8.7"), ("sm_120a", "8.7"), ("sm_90a", "8.7"), ("sm_100a", "8.5"))]
    files["async-stores.tsv"] = [(t, v, async_store_lines()) for t, v in (
        ("sm_100a", "9.0"), ("sm_100", "8.7"), ("sm_90", "8.6"), ("sm_100a", "8.6"),
        ("sm_90", "8.0"), ("sm_89", "8.1"))]
    files["texture-forms.tsv"] = [(t, v, texture_form_lines()) for t, v in (
        ("sm_90", "8.6"), ("sm_75", "7.0"), ("sm_75", "7.1"))]
    files["unified.tsv"] = [("sm_90", "8.6", unified_lines())]
    files["min-max3.tsv"] = [(t, v, min_max_3_lines()) for t, v in (
        ("sm_100a", "8.8"), ("sm_100a", "8.7"), ("sm_90a", "8.8"), ("sm_120", "9.0"))]
    files["st-sinks.tsv"] = [(t, v, store_sink_lines()) for t, v in (
        ("sm_100a", "8.8"), ("sm_90a", "8.8"))]
    files["f32x2.tsv"] = [(t, v, f32x2_lines()) for t, v in (
        ("sm_100a", "9.0"), ("sm_100", "8.6"), ("sm_120a", "9.0"), ("sm_100a", "8.5"),
        ("sm_90a", "8.6"))]
    files["mov-vector.tsv"] = [("sm_90", "8.6", mov_vector_lines())]
    files["literals.tsv"] = [("sm_100a", "9.1", literal_lines()), ("sm_90", "8.6", [
        l for l in literal_lines() if not re.search(r"\.(rs|e2m1x2)\b", l)])]
    return files


def bulk_space_lines() -> list[str]:
    """cp.async.bulk's state-space words, known and misspelled (ptxas: "Unknown modifier")."""
    done = "mbarrier::complete_tx::bytes"
    out = []
    for dst, src in (("shared::cta", "global"), ("shared::cluster", "global"),
                     ("shared::ctas", "global"), ("shared::cta", "globals"), ("shared", "global"),
                     ("local", "global"), ("shared::clusters", "shared::cta")):
        out.append(f"cp.async.bulk.{dst}.{src}.{done} [%b32_1], [%b64_1], 16, [%b32_2];")
    out += ["cp.async.bulk.global.shared::cta.bulk_group [%b64_1], [%b32_1], 16;",
            "cp.async.bulk.globall.shared::cta.bulk_group [%b64_1], [%b32_1], 16;"]
    return out


def value_lines() -> list[str]:
    """Immediates whose value ptxas checks (the checker's E0330 rules): bfe/bfi's position and
    length (0..255), mbarrier's phase parity (0 or 1) and arrival count (at least 1 without
    .expect_tx), cp.async's src-size (0 to cp-size), in every literal spelling."""
    out = []
    for b, c in ((0, 8), (-1, 8), (8, -1), (255, 255), (256, 1), (1, 256), (4294967295, 1),
                 ("0x100", 1), ("0xff", "0377"), ("-0x1", 1), ("0b11111111", 1), ("256U", 1)):
        out += [f"bfe.u32 %b32_0, %b32_1, {b}, {c};", f"bfe.s64 %b64_0, %b64_1, {b}, {c};",
                f"bfi.b32 %b32_0, %b32_1, %b32_2, {b}, {c};",
                f"bfi.b64 %b64_0, %b64_1, %b64_2, {b}, {c};"]
    for v in (0, 1, 2, -1, "0x1", "1U", "0x2"):
        out += [f"mbarrier.test_wait.parity.shared::cta.b64 %pred_0, [%b32_1], {v};",
                f"mbarrier.try_wait.parity.shared::cta.b64 %pred_0, [%b32_1], {v}, 1000;"]
    for v in (1, 0, -1, 1048576, "0x0"):
        out += [f"mbarrier.arrive.noComplete.shared::cta.b64 %b64_0, [%b32_1], {v};",
                f"mbarrier.arrive.shared::cta.b64 %b64_0, [%b32_1], {v};",
                f"mbarrier.arrive_drop.shared::cta.b64 %b64_0, [%b32_1], {v};",
                f"mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%b32_1], {v};",
                f"mbarrier.arrive.expect_tx.shared::cta.b64 %b64_0, [%b32_1], {v};"]
    for cp in (4, 8, 16):
        for v in (0, 4, 16, 17, -1, 8, 3, "0x10", "0x11"):
            out += [f"cp.async.ca.shared.global [%b32_1], [%b64_1], {cp}, {v};",
                    f"cp.async.ca.shared.global.L2::cache_hint [%b32_1], [%b64_1], {cp}, {v}, %b64_2;"]
    return out


def min_max_3_lines() -> list[str]:
    """min/max with three inputs (PTX ISA 8.8, sm_100): every modifier of the two-input forms,
    every register width and constant, and one operand too few or too many."""
    out = []
    for op in ("min", "max"):
        for mods in ("", "ftz.", "NaN.", "abs.", "ftz.NaN.abs.", "xorsign.abs.", "xorsign.",
                     "relu.", "abs.abs.", "NaN.ftz."):
            for ty, reg in (("f32", "f32"), ("f64", "f64"), ("f16", "f16"), ("bf16", "b16"),
                            ("f16x2", "f16x2"), ("s32", "s32")):
                out.append(f"{op}.{mods}{ty} %{reg}_0, %{reg}_1, %{reg}_2, %{reg}_3;")
        for c in ("%b32_3", "%u32_3", "%b64_3", "%f64_3", "1.0", "0f3F800000", "1", "_"):
            out.append(f"{op}.f32 %f32_0, %f32_1, %f32_2, {c};")
        out.append(f"{op}.f32 %f32_0, %f32_1, %f32_2, %f32_3, %f32_4;")
        out.append(f"{op}.abs.f32 %f32_0, %f32_1, %f32_2;")
    return out


def unified_lines() -> list[str]:
    """`[a].unified` (9.7.9.8, ld: `d, [a]{.unified}{, cache-policy}`) on ld in every space,
    and on the other instructions that take an address."""
    out = []
    for space in ("", "global.", "shared.", "local.", "const.", "param.", "global.nc."):
        out += [f"ld.{space}f32 %f32_0, [%b64_8].unified;",
                f"ld.{space}f32 %f32_0, [%b64_8+16].unified;",
                f"ld.{space}v2.f32 {{%f32_0, %f32_1}}, [%b64_8].unified;"]
    out += [
        "ld.global.L2::cache_hint.f32 %f32_0, [%b64_8].unified, %b64_2;",
        "ld.global.f32 %f32_0, [%b64_8].uniform;",
        "ld.global.f32 %f32_0, [%b64_8].unified.unified;",
        "ld.global.f32 %f32_0, [%b64_8] .unified;",
        "ldu.global.f32 %f32_0, [%b64_8].unified;",
        "ldu.f32 %f32_0, [%b64_8].unified;",
        "st.global.f32 [%b64_8].unified, %f32_0;",
        "st.f32 [%b64_8].unified, %f32_0;",
        "atom.global.add.u32 %u32_0, [%b64_8].unified, 1;",
        "atom.add.u32 %u32_0, [%b64_8].unified, 1;",
        "atom.shared.add.u32 %u32_0, [%b64_8].unified, 1;",
        "red.global.add.u32 [%b64_8].unified, 1;",
        "prefetch.global.L2 [%b64_8].unified;",
        "cp.async.ca.shared.global [%b64_8], [%b64_9].unified, 4;",
        "mbarrier.init.b64 [%b64_8].unified, 1;",
        "multimem.ld_reduce.relaxed.sys.global.add.u32 %u32_0, [%b64_8].unified;",
        "ld.global.f32 %f32_0, [%b64_8+4].unified;",
    ]
    return out


def texture_form_lines() -> list[str]:
    """tex/tld4's optional operands and forms ptxsim checks but does not run (9.7.10.3-4):
    `d|p`, the offsets `e` and the depth compare `f`, `.2dms`/`.a2dms`, `.f16` and `.v2.f16x2`
    results; and sust.p (9.7.11.2). The handle is a .b64 register (unified mode)."""
    out = []
    d4f = "{%f32_0, %f32_1, %f32_2, %f32_3}"
    d4r = "{%b32_0, %b32_1, %b32_2, %b32_3}"
    coords = {"1d": "{%f32_4}", "2d": "{%f32_4, %f32_5}", "3d": "{%f32_4, %f32_5, %f32_6, %f32_7}",
              "a1d": "{%s32_4, %f32_5}", "a2d": "{%s32_4, %f32_5, %f32_6, %f32_7}",
              "cube": "{%f32_4, %f32_5, %f32_6, %f32_7}", "acube": "{%s32_4, %f32_5, %f32_6, %f32_7}"}
    offsets = {1: "{%s32_8}", 2: "{%s32_8, %s32_9}", 3: "{%s32_8, %s32_9, %s32_8}",
               4: "{%s32_8, %s32_9, %s32_8, %s32_9}"}
    for geom, c in coords.items():
        base = f"tex.{geom}.v4.f32.f32"
        out.append(f"{base} {d4f}|%pred_0, [%b64_8, {c}];")
        out.append(f"{base} {d4f}|%b32_9, [%b64_8, {c}];")
        out.append(f"{base} {d4f}|_, [%b64_8, {c}];")
        for n, e in offsets.items():
            out.append(f"{base} {d4f}, [%b64_8, {c}], {e};")
            out.append(f"{base} {d4f}, [%b64_8, {c}], {e}, %f32_9;")
        out += [
            f"{base} {d4f}, [%b64_8, {c}], %f32_9;",
            f"{base} {d4f}, [%b64_8, {c}], %b32_9;",
            f"{base} {d4f}, [%b64_8, {c}], %f32_9, {offsets[2]};",
            f"{base} {d4f}, [%b64_8, {c}], {{%f32_8, %f32_9}};",
            f"{base} {d4f}|%pred_0, [%b64_8, {c}], {offsets[2]}, %f32_9;",
            f"tex.level.{geom}.v4.f32.f32 {d4f}, [%b64_8, {c}], %f32_9, {offsets[2]}, %f32_9;",
            f"tex.{geom}.v4.f16.f32 {{%b16_0, %b16_1, %b16_2, %b16_3}}, [%b64_8, {c}];",
            f"tex.{geom}.v4.f16.f32 {{%f16_0, %f16_1, %f16_2, %f16_3}}, [%b64_8, {c}];",
            f"tex.{geom}.v4.f16.f32 {d4r}, [%b64_8, {c}];",
            f"tex.{geom}.v2.f16x2.f32 {{%b32_0, %b32_1}}, [%b64_8, {c}];",
            f"tex.{geom}.v2.f16x2.f32 {{%f16x2_0, %f16x2_1}}|%pred_0, [%b64_8, {c}];",
            f"tex.{geom}.v2.f32.f32 {{%f32_0, %f32_1}}, [%b64_8, {c}];",
            f"tex.{geom}.v4.f16x2.f32 {d4r}, [%b64_8, {c}];",
        ]
    for geom in ("2dms", "a2dms"):
        for ctype in ("s32", "f32"):
            c = "{%s32_4, %s32_5, %s32_6, %s32_7}"
            out.append(f"tex.{geom}.v4.s32.{ctype} {d4r}, [%b64_8, {c}];")
            out.append(f"tex.{geom}.v4.f32.{ctype} {d4f}, [%b64_8, {c}];")
            out.append(f"tex.{geom}.v4.s32.{ctype} {d4r}, [%b64_8, {{%s32_4, %s32_5}}];")
    for comp in ("r", "a"):
        c = "{%f32_4, %f32_5}"
        base = f"tld4.{comp}.2d.v4.f32.f32"
        out += [
            f"{base} {d4f}|%pred_0, [%b64_8, {c}];",
            f"{base} {d4f}, [%b64_8, {c}], {offsets[2]};",
            f"{base} {d4f}, [%b64_8, {c}], %f32_9;",
            f"{base} {d4f}, [%b64_8, {c}], {offsets[2]}, %f32_9;",
            f"{base} {d4f}, [%b64_8, {c}], {offsets[1]};",
        ]
    out += [
        "setp.eq.s32 {%pred_0}|%pred_1, %s32_4, %s32_5;",
        "mov.b32 {%b16_0, %b16_1}|%pred_0, %b32_4;",
        "sust.p.1d.v4.b32.trap [%b64_8, {%b32_4}], {%f32_0, %f32_1, %f32_2, %f32_3};",
        "sust.p.2d.v4.b32.trap [%b64_8, {%b32_4, %b32_5}], {%b32_0, %b32_1, %b32_2, %b32_3};",
        # Found beside them: `.shared::cta` on cvta needs PTX ISA 7.8.
        "cvta.shared::cta.u64 %b64_0, %b64_1;",
        "cvta.to.shared::cta.u64 %b64_0, %b64_1;",
    ]
    return out


def store_sink_lines() -> list[str]:
    """st with the sink `_` in its source vector (PTX ISA 9.0, st: allowed in 256-bit stores
    only), for every width and vector length, every state space and one, some or all sinks."""
    out = []
    regs = {"b16": "%b16_1", "b32": "%b32_1", "f32": "%f32_1", "b64": "%b64_1", "f64": "%f64_1",
            "u32": "%u32_1", "s64": "%s64_1"}
    for space in ("global.", "", "shared.", "local."):
        for ty, reg in regs.items():
            for n in (2, 4, 8):
                for sinks in ((1,), (0, n - 1), tuple(range(n))):
                    elements = ["_" if i in sinks else reg for i in range(n)]
                    out.append(f"st.{space}v{n}.{ty} [%b64_8], {{{', '.join(elements)}}};")
    out += [
        "st.global.L2::evict_last.v8.f32 [%b64_8], {%f32_1, _, %f32_1, %f32_1, %f32_1, %f32_1, %f32_1, %f32_1};",
        "st.global.v8.f32 [%b64_8], {1.0, _, %f32_1, %f32_1, %f32_1, %f32_1, %f32_1, %f32_1};",
        "st.global.v4.b64 [%b64_8], {_, 7, %b64_1, %b64_1};",
    ]
    return out


def f32x2_lines() -> list[str]:
    """add/sub/mul/fma .f32x2 (9.7.3.3-6, PTX ISA 8.6, sm_100): every rounding and .ftz, the
    modifiers the .f32 forms have and these do not, and every register width and constant."""
    out = []
    for op, n in (("add", 3), ("sub", 3), ("mul", 3), ("fma", 4), ("mad", 4), ("div", 3),
                  ("min", 3), ("max", 3)):
        for rnd in ("", "rn.", "rz.", "rm.", "rp.", "rna.", "approx.", "rn.sat.", "sat.",
                    "rn.relu.", "rn.oob.", "ftz.", "rn.ftz.", "rz.ftz.", "ftz.rn.", "rn.rn.",
                    "ftz.ftz."):
            out.append(f"{op}.{rnd}f32x2 " + ", ".join(f"%b64_{i}" for i in range(n)) + ";")
        for reg in ("u64", "s64", "f64", "b32", "f32", "b128"):
            out.append(f"{op}.rn.f32x2 %b64_0, %{reg}_1" + ", %b64_2" * (n - 2) + ";")
            out.append(f"{op}.rn.f32x2 %{reg}_0" + ", %b64_1" * (n - 1) + ";")
        for const in ("0", "1.0", "0d3FF0000000000000", "0f3F800000"):
            out.append(f"{op}.rn.f32x2 %b64_0, %b64_1, {const}" + ", %b64_2" * (n - 3) + ";")
        out += [
            f"{op}.rn.f32x2 %b64_0, {{%f32_1, %f32_2}}" + ", %b64_2" * (n - 2) + ";",
            f"{op}.rn.f32x2.f32x2 " + ", ".join(f"%b64_{i}" for i in range(n)) + ";",
            f"{op}.rn.f32x2.f32 " + ", ".join(f"%b64_{i}" for i in range(n)) + ";",
            f"{op}.rn.f32x2 " + ", ".join(f"%b64_{i}" for i in range(n - 1)) + ";",
            f"{op}.rn.f32x2 " + ", ".join(f"%b64_{i}" for i in range(n + 1)) + ";",
            f"{op}.rn.f32x2 _" + ", %b64_1" * (n - 1) + ";",
        ]
    return out


def async_store_lines() -> list[str]:
    """st.async (9.7.9.12), red.async (9.7.13.7) and st.bulk (9.7.9.13): the Syntax blocks'
    forms, each modifier left out, doubled, misplaced or replaced, and each operand with
    registers of other widths and kinds."""
    done = "mbarrier::complete_tx::bytes"
    reg = {"b32": "%b32_1", "u32": "%u32_1", "s32": "%s32_1", "f32": "%f32_1",
           "b64": "%b64_1", "u64": "%u64_1", "s64": "%s64_1", "f64": "%f64_1",
           "b128": "%b128_1", "b16": "%b16_1", "u16": "%u16_1", "s16": "%s16_1",
           "b8": "%b16_1", "u8": "%u16_1", "s8": "%s16_1", "f16": "%f16_1"}
    out = []
    st_types = ["b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64", "b128", "b16", "u8",
                "f16", "pred"]
    for prefix in ("", "weak.", "cluster.", "shared::cluster.", "weak.shared::cluster.",
                   "cluster.shared::cluster.", "shared::cta.", "global.", "release.cluster.",
                   "relaxed.cluster.", "weak.cluster."):
        for ty in st_types:
            b = reg.get(ty, "%pred_1")
            out.append(f"st.async.{prefix}{done}.{ty} [%b64_8], {b}, [%b64_9];")
    for vec, n in (("v2", 2), ("v4", 4), ("v8", 8)):
        for ty in ("b32", "u32", "f32", "b64", "s64", "f64", "b128"):
            b = "{" + ", ".join([reg[ty]] * n) + "}"
            out.append(f"st.async.shared::cluster.{done}.{vec}.{ty} [%b64_8], {b}, [%b64_9];")
    out += [
        f"st.async.shared::cluster.{done}.u32 [%b64_8], %b32_1, [%b64_9];",
        f"st.async.shared::cluster.{done}.u32 [%b64_8], %f32_1, [%b64_9];",
        f"st.async.shared::cluster.{done}.u32 [%b64_8], %b64_1, [%b64_9];",
        f"st.async.shared::cluster.{done}.u32 [%b64_8], %b16_1, [%b64_9];",
        f"st.async.shared::cluster.{done}.u32 [%b64_8], 7, [%b64_9];",
        f"st.async.shared::cluster.{done}.f32 [%b64_8], 0f3F800000, [%b64_9];",
        f"st.async.shared::cluster.{done}.u32 [%b64_8], _, [%b64_9];",
        f"st.async.shared::cluster.{done}.u32 [%b32_8], %u32_1, [%b32_9];",
        f"st.async.shared::cluster.{done}.u32 [%b64_8+8], %u32_1, [%b64_9+16];",
        f"st.async.shared::cluster.{done}.u32 [%b64_8], %u32_1, %b64_9;",
        f"st.async.shared::cluster.{done}.u32 %b64_8, %u32_1, [%b64_9];",
        f"st.async.shared::cluster.{done}.u32 [%b64_8], %u32_1;",
        f"st.async.shared::cluster.{done}.u32 [%b64_8], %u32_1, [%b64_9], %b64_2;",
        f"st.async.shared::cluster.{done}.v2.u32 [%b64_8], {{%u32_1, _}}, [%b64_9];",
        f"st.async.shared::cluster.{done}.v2.u32 [%b64_8], {{%u32_1, %u32_2, %u32_3}}, [%b64_9];",
        f"st.async.shared::cluster.{done}.v4.u32 [%b64_8], {{%u32_1, %u32_2}}, [%b64_9];",
        f"st.async.shared::cluster.{done}.v2.u32 [%b64_8], %b64_1, [%b64_9];",
        f"st.async.{done}.shared::cluster.u32 [%b64_8], %u32_1, [%b64_9];",
        f"st.async.shared::cluster.{done}.weak.u32 [%b64_8], %u32_1, [%b64_9];",
        f"st.async.shared::cluster.{done}.{done}.u32 [%b64_8], %u32_1, [%b64_9];",
        f"st.async.shared::cluster.shared::cluster.{done}.u32 [%b64_8], %u32_1, [%b64_9];",
        f"st.async.shared::cluster.{done}.u32.u32 [%b64_8], %u32_1, [%b64_9];",
        f"st.async.shared::cluster.{done}.u32 [%b64_8], %u32_1, [%b64_9];",
        f"st.async.shared::cluster.u32 [%b64_8], %u32_1, [%b64_9];",
        f"st.async.u32 [%b64_8], %u32_1, [%b64_9];",
        f"st.async.shared::cluster.{done}.L2::cache_hint.u32 [%b64_8], %u32_1, [%b64_9], %b64_2;",
        f"st.async.shared::cluster.mbarrier::complete_tx.u32 [%b64_8], %u32_1, [%b64_9];",
        f"st.async.shared::cluster.{done}.v2.u32 [%b64_8], {{%u32_1, %u32_2}}, [%b64_9];",
        f"st.async.v2.shared::cluster.{done}.u32 [%b64_8], {{%u32_1, %u32_2}}, [%b64_9];",
        f"st.weak.async.shared::cluster.{done}.u32 [%b64_8], %u32_1, [%b64_9];",
        f"st.shared::cluster.async.{done}.u32 [%b64_8], %u32_1, [%b64_9];",
        "st.async [%b64_8], %u32_1, [%b64_9];",
    ]
    # The release form (PTX ISA 8.7, sm_100).
    g_types = ["b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
               "f32", "f64", "f16", "b128"]
    for prefix in ("release.gpu.global.", "release.sys.global.", "release.gpu.", "mmio.release.sys.global.",
                   "mmio.release.gpu.global.", "mmio.sys.global.", "release.cluster.global.",
                   "release.cta.global.", "release.global.", "gpu.global.", "sys.", "global.",
                   "weak.global.", "", "relaxed.gpu.global.", "release.gpu.shared::cta.",
                   "release.gpu.shared::cluster."):
        for ty in g_types:
            out.append(f"st.async.{prefix}{ty} [%b64_8], {reg.get(ty, '%b32_1')};")
    out += [
        "st.async.release.gpu.global.u8 [%b64_8], %b32_1;",
        "st.async.release.gpu.global.u8 [%b64_8], %u8_1;",
        "st.async.release.gpu.global.u32 [%b64_8], 7;",
        "st.async.release.gpu.global.u32 [%b64_8], %u32_1, [%b64_9];",
        "st.async.release.gpu.global.v2.u32 [%b64_8], {%u32_1, %u32_2};",
        f"st.async.release.gpu.global.{done}.u32 [%b64_8], %u32_1, [%b64_9];",
        "st.async.release.gpu.global.u32 [%b32_8], %u32_1;",
        "st.async.release.gpu.global.u32 [%b64_8+4], %u32_1;",
    ]
    # red.async, the mbarrier forms.
    red_types = ["u32", "s32", "u64", "s64", "b32", "b64", "f32", "f16"]
    for sem in ("relaxed.cluster.", "relaxed.", "cluster.", "", "release.cluster.", "relaxed.gpu.",
                "relaxed.cta.", "weak."):
        for ss in ("shared::cluster.", "", "shared::cta.", "global."):
            for op in ("add", "inc", "dec", "min", "max", "and", "or", "xor", "exch", "cas"):
                for ty in red_types:
                    if sem != "relaxed.cluster." and ss != "shared::cluster." and op != "add":
                        continue
                    if sem != "relaxed.cluster." and ty not in ("u32", "b32"):
                        continue
                    b = reg.get(ty, "%b32_1")
                    out.append(f"red.async.{sem}{ss}{done}.{op}.{ty} [%b64_8], {b}, [%b64_9];")
    rc = f"red.async.relaxed.cluster.shared::cluster.{done}"
    out += [
        f"red.async.relaxed.cluster.shared::cluster.add.u32 [%b64_8], %u32_1, [%b64_9];",
        f"red.async.relaxed.cluster.add.u32 [%b64_8], %u32_1, [%b64_9];",
        f"{rc}.add.u32 [%b64_8], %b32_1, [%b64_9];",
        f"{rc}.add.u32 [%b64_8], %f32_1, [%b64_9];",
        f"{rc}.add.u32 [%b64_8], %b64_1, [%b64_9];",
        f"{rc}.add.u32 [%b64_8], 1, [%b64_9];",
        f"{rc}.add.u32 [%b64_8], %u32_1;",
        f"{rc}.add.u32 [%b64_8], %u32_1, %b64_9;",
        f"{rc}.add.u32 [%b32_8], %u32_1, [%b32_9];",
        f"{rc}.add.u32 %b32_0, [%b64_8], %u32_1, [%b64_9];",
        f"{rc}.v2.add.u32 [%b64_8], {{%u32_1, %u32_2}}, [%b64_9];",
        f"{rc}.add.v2.u32 [%b64_8], {{%u32_1, %u32_2}}, [%b64_9];",
        f"{rc}.add.L2::cache_hint.u32 [%b64_8], %u32_1, [%b64_9], %b64_2;",
        f"{rc}.add.noftz.f16 [%b64_8], %f16_1, [%b64_9];",
        f"{rc}.add.add.u32 [%b64_8], %u32_1, [%b64_9];",
        f"{rc}.add.min.u32 [%b64_8], %u32_1, [%b64_9];",
        f"{rc}.u32 [%b64_8], %u32_1, [%b64_9];",
        f"red.relaxed.cluster.async.shared::cluster.{done}.add.u32 [%b64_8], %u32_1, [%b64_9];",
    ]
    # red.async, the release form (PTX ISA 8.7, sm_100).
    for prefix in ("release.gpu.global.", "release.cluster.global.", "release.sys.global.",
                   "mmio.release.sys.global.", "mmio.release.gpu.global.", "release.gpu.",
                   "relaxed.gpu.global.", "release.global.", "global.", "", "release.cta.global."):
        for op in ("add", "min", "inc", "and"):
            for ty in ("u32", "s32", "u64", "s64", "b32", "f32"):
                if prefix != "release.gpu.global." and (op != "add" or ty not in ("u32", "s64")):
                    continue
                out.append(f"red.async.{prefix}{op}.{ty} [%b64_8], {reg[ty]};")
    out += [
        "red.async.release.gpu.global.add.u32 [%b64_8], 5;",
        "red.async.release.gpu.global.add.u32 [%b64_8], %u32_1, [%b64_9];",
        "red.async.release.gpu.global.add.L2::cache_hint.u32 [%b64_8], %u32_1, %b64_2;",
    ]
    # st.bulk (PTX ISA 8.6, sm_100; a 32-bit size from 9.0).
    for prefix in ("", "weak.", "shared::cta.", "weak.shared::cta.", "shared::cta.weak.",
                   "shared::cluster.", "global.", "relaxed.cta.", "shared.", "weak.weak."):
        for size in ("%b64_1", "%u64_1", "%s64_1", "%b32_1", "%u32_1", "%f64_1", "%b16_1", "4096",
                     "4095"):
            out.append(f"st.bulk.{prefix.rstrip('.')} [%b64_8], {size}, 0;".replace("st.bulk. ", "st.bulk "))
    out += [
        "st.bulk [%b64_8], %b64_1, 1;",
        "st.bulk [%b64_8], %b64_1, %b32_2;",
        "st.bulk [%b64_8], %b64_1;",
        "st.bulk [%b64_8], %b64_1, 0, 0;",
        "st.bulk [%b32_8], %b64_1, 0;",
        "st.bulk %b64_8, %b64_1, 0;",
        "st.bulk [%b64_8+8], 64, 0;",
        "st.bulk.u64 [%b64_8], %b64_1, 0;",
        "st.bulk [%b64_8], 16777216, 0;",
        "st.bulk [%b64_8], 16777224, 0;",
        "st.bulk [%b64_8], 0, 0;",
        "st.bulk [%b64_8], -8, 0;",
        "st.bulk [%b64_8], %b64_1, 0x0;",
        "st.bulk [%b64_8], %b64_1, 0f00000000;",
    ]
    return out


def clc_lines() -> list[str]:
    """clusterlaunchcontrol (9.7.13.17): try_cancel with and without .shared::cta and
    .multicast::cluster::all, query_cancel's three forms, and one broken variant of each."""
    try_cancel = "clusterlaunchcontrol.try_cancel.async"
    done = "mbarrier::complete_tx::bytes"
    out = []
    for space, reg in (("shared::cta.", "b32"), ("shared::cta.", "b64"), ("", "b64"), ("", "b32")):
        for multicast in ("", "multicast::cluster::all."):
            out.append(f"{try_cancel}.{space}{done}.{multicast}b128 [%{reg}_8], [%{reg}_9];")
    out += [
        f"clusterlaunchcontrol.try_cancel.shared::cta.{done}.b128 [%b32_8], [%b32_9];",
        f"{try_cancel}.shared::cta.b128 [%b32_8], [%b32_9];",
        f"{try_cancel}.shared::cta.{done}.b64 [%b32_8], [%b32_9];",
        f"{try_cancel}.shared::cta.{done} [%b32_8], [%b32_9];",
        f"{try_cancel}.shared::cluster.{done}.b128 [%b32_8], [%b32_9];",
        f"{try_cancel}.shared::cta.{done}.b128 [%b32_8];",
        f"{try_cancel}.shared::cta.{done}.b128 %b128_1, [%b32_9];",
        f"{try_cancel}.shared::cta.{done}.multicast::cluster.b128 [%b32_8], [%b32_9];",
    ]
    q = "clusterlaunchcontrol.query_cancel"
    out += [
        f"{q}.is_canceled.pred.b128 %pred_0, %b128_1;",
        f"{q}.is_canceled.pred.b128 %b32_0, %b128_1;",
        f"{q}.is_canceled.pred.b128 %pred_0, %b64_1;",
        f"{q}.is_canceled.b128 %pred_0, %b128_1;",
        f"{q}.is_canceled.pred %pred_0, %b128_1;",
        f"{q}.is_canceled.pred.b64 %pred_0, %b128_1;",
        f"{q}.pred.b128 %pred_0, %b128_1;",
        f"{q}.get_first_ctaid.v4.b32.b128 {{%b32_0, %b32_1, %b32_2, _}}, %b128_1;",
        f"{q}.get_first_ctaid.v4.b32.b128 {{%b32_0, %b32_1, %b32_2, %b32_3}}, %b128_1;",
        f"{q}.get_first_ctaid.v4.b32.b128 {{%b32_0, _, _, _}}, %b128_1;",
        f"{q}.get_first_ctaid.v4.b32.b128 {{%b32_0, %b32_1, %b32_2}}, %b128_1;",
        f"{q}.get_first_ctaid.v2.b32.b128 {{%b32_0, %b32_1}}, %b128_1;",
        f"{q}.get_first_ctaid.b32.b128 {{%b32_0, %b32_1, %b32_2, _}}, %b128_1;",
        f"{q}.get_first_ctaid.v4.u32.b128 {{%b32_0, %b32_1, %b32_2, _}}, %b128_1;",
        f"{q}.get_first_ctaid.v4.b32.b128 {{%b64_0, %b64_1, %b64_2, _}}, %b128_1;",
        f"{q}.get_first_ctaid.v4.b32.b128 {{%u32_0, %s32_1, %f32_2, _}}, %b128_1;",
        f"{q}.get_first_ctaid.v4.b32.b128 {{%b32_0, %b32_1, %b32_2, _}}, %b64_1;",
        f"{q}.is_canceled.get_first_ctaid.v4.b32.b128 {{%b32_0, %b32_1, %b32_2, _}}, %b128_1;",
        f"{q}.get_first_ctaid.b32.b128 %b32_0, %b128_1;",
        f"{q}.get_first_ctaid::w.b32.b128 %b32_0, %b128_1;",
        f"{q}.b32.b128 %b32_0, %b128_1;",
    ]
    for axis in "xyz":
        out += [
            f"{q}.get_first_ctaid::{axis}.b32.b128 %b32_0, %b128_1;",
            f"{q}.get_first_ctaid::{axis}.b32.b128 %u32_0, %b128_1;",
            f"{q}.get_first_ctaid::{axis}.b32.b128 %b64_0, %b128_1;",
            f"{q}.get_first_ctaid::{axis}.u32.b128 %b32_0, %b128_1;",
            f"{q}.get_first_ctaid::{axis}.b32.b128 %b32_0, %b32_1;",
            f"{q}.get_first_ctaid::{axis}.v4.b32.b128 {{%b32_0, %b32_1, %b32_2, _}}, %b128_1;",
        ]
    out += [
        f"{q}.bogus.b128 %pred_0, %b128_1;",
        f"{q}.is_canceled.pred.b128 _, %b128_1;",
        "clusterlaunchcontrol.bogus.b128 %pred_0, %b128_1;",
    ]
    return out


def target_version_table() -> list[tuple[str, str, str]]:
    rows = []
    def probe(tv):
        t, v = tv
        with tempfile.TemporaryDirectory() as tmp:
            p = Path(tmp) / "v.ptx"
            p.write_text(f".version {v}\n.target {t}\n.address_size 64\n.visible .entry k() {{ ret; }}\n")
            r = subprocess.run([str(PTXAS), "-arch", arch_for(t), str(p), "-o", os.devnull],
                               capture_output=True, text=True)
            msg = ""
            for l in (r.stdout + r.stderr).splitlines():
                m = LINE_RE.match(l)
                if m:
                    msg = m.group(3).strip()
                    break
            if r.returncode != 0 and not msg:
                msg = (r.stdout + r.stderr).strip().splitlines()[0]
            return (t, v, "accept" if r.returncode == 0 else "reject", msg)
    with ThreadPoolExecutor(4) as ex:
        rows = list(ex.map(probe, itertools.product(ALL_TARGETS, ALL_VERSIONS)))
    return rows


ACCEPTED_PAIRS: set[tuple[str, str]] = set()


def load_accepted_pairs() -> None:
    path = OUT / "targets.tsv"
    for line in path.read_text().splitlines():
        f = line.split("\t")
        if len(f) >= 3 and f[2] == "accept":
            ACCEPTED_PAIRS.add((f[0], f[1]))


def main() -> int:
    if not PTXAS.exists():
        print(f"gen.py: ptxas not found at {PTXAS}; set PTXSIM_NVIDIA_ROOT. Skipping.")
        return 0
    ver = subprocess.run([str(PTXAS), "--version"], capture_output=True, text=True).stdout
    ver = [l for l in ver.splitlines() if "release" in l][0].strip()
    header = [f"# generated by scripts/conformance/gen.py; do not edit",
              f"# ptxas: {ver}",
              "# command: ptxas -arch <target, or sm_75 for .target below sm_75, or sm_110a for sm_101*> m.ptx -o /dev/null",
              "# registers: %<regtype>_<n> is declared .reg .<regtype>; _ is the sink"]
    OUT.mkdir(parents=True, exist_ok=True)
    only = set(sys.argv[1:])
    if not only or "targets" in only:
        rows = target_version_table()
        with open(OUT / "targets.tsv", "w") as f:
            f.write("\n".join(header[:3]) + "\n")
            f.write("target\tversion\tverdict\tmessage\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
        print("targets.tsv", len(rows))
    load_accepted_pairs()
    for name, modules in plan().items():
        if only and name not in only:
            continue
        # ptxas 13.5's code generator crashes on some st.async modules ("Internal compiler
        # error"): those are checked without generating code.
        virtual = name in VIRTUAL
        with ThreadPoolExecutor(2) as ex:
            results = list(ex.map(lambda m: run_module(*m, virtual=virtual), modules))
        write_verdicts(header, name, modules, results)
    ops_files = ("ops-forms.tsv", "ops-operands.tsv", "ops-targets.tsv")
    if not only or only & set(ops_files):
        write_ops(header)
    compress_large()
    return 0


# The tables assembled for `compute_XX` (see `run_module`).
VIRTUAL = ("async-stores.tsv", "f32x2.tsv", "st-sinks.tsv", "texture-forms.tsv",
           "unified.tsv", "min-max3.tsv")

# The tables stored xz-compressed (the tests read `NAME.xz`): the repository must stay small.
LARGE = ("cvt-packed.tsv", "cvt-scalar.tsv", "cvt-targets.tsv", "cvt-operands.tsv",
         "cvt-operand-size.tsv", "ops-forms.tsv", "ops-operands.tsv", "ops-targets.tsv",
         "async-stores.tsv")


def compress_large() -> None:
    import lzma
    for name in LARGE:
        path = OUT / name
        if path.exists():
            (OUT / (name + ".xz")).write_bytes(lzma.compress(path.read_bytes(), preset=9))
            path.unlink()


def write_verdicts(header, name, modules, results):
    n = 0
    accepted = []
    with open(OUT / name, "w") as f:
        f.write("\n".join(header) + "\n")
        f.write("target\tversion\tinstruction\tverdict\tmessage\n")
        for (t, v, lines), rej in zip(modules, results):
            for l in dict.fromkeys(lines):
                if vkey(v) < (8, 3) and "%b128_" in l:
                    continue  # not assembled: .reg .b128 needs PTX 8.3
                msg = rej.get(l)
                f.write(f"{t}\t{v}\t{l}\t{'reject' if msg is not None else 'accept'}\t{msg or ''}\n")
                if msg is None:
                    accepted.append(l)
                n += 1
    print(name, n)
    return accepted


def run_all(modules):
    with ThreadPoolExecutor(2) as ex:
        return list(ex.map(lambda m: run_module(*m, virtual=True), modules))


def write_ops(header):
    """ops-forms.tsv, then ops-operands.tsv and ops-targets.tsv from the accepted forms."""
    forms = [("sm_90", "9.1", ops.form_lines())]
    accepted = write_verdicts(header, "ops-forms.tsv", forms, run_all(forms))
    operands = [("sm_90", "9.1", ops.operand_lines(accepted))]
    write_verdicts(header, "ops-operands.tsv", operands, run_all(operands))
    pairs = [(t, v) for t, v in ops.TARGET_PAIRS if (t, v) in ACCEPTED_PAIRS]
    targets = [(t, v, accepted) for t, v in pairs]
    write_verdicts(header, "ops-targets.tsv", targets, run_all(targets))


if __name__ == "__main__":
    sys.exit(main())
