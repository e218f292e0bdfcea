#!/usr/bin/env python3
"""A third line generator: every kind of operand in every slot, and modifier slips.

fuzz.py and specgen.py build lines from the Syntax blocks and mutate them with the operand
kinds their authors thought of; realmut.py mutates real PTX the same way. This generator keeps
its own list of operand kinds (OPERAND_KINDS: registers of every width and type, predicates,
immediates in every spelling PTX has -- decimal, hex, octal, binary, `U` suffixes, `0f`/`0F`/
`0d`/`0D` floats, decimal floats, negative and out-of-range values --, brace vectors of every
size with and without sinks, addresses with positive and negative offsets, symbols of every
state space, labels, special registers, negated operands, the sink) and its own modifier slips
(a modifier of another opcode, a misspelled, upper-case or duplicated modifier, a type on an
instruction whose form has none, an operand dropped or added), and applies one or two of them to
lines ptxas accepts (the accepted rows of the conformance tables, or of `--base` tables).

Lines go to five (.target, .version) pairs that no other generator uses as a set (sm_75/7.7,
sm_86/8.1, sm_90/8.4, sm_100f/8.8, sm_120f/9.1), or, with probability 1/4, to the pair the
base line was accepted on. Output: `TARGET VERSION INSTRUCTION` per line, for `fuzz.py --file`:

  python3 scripts/conformance/opgen.py --seed 3 --lines 10000 > /tmp/op3.txt
  python3 scripts/conformance/fuzz.py --ptxsim target/debug/examples/check_json --file /tmp/op3.txt

Register names follow gen.py's convention (`%<regtype>_<n>` is `.reg .<regtype>`; `sym_<space>`
a .b8 array in that space; `L0` a label). Standard library only.
"""
from __future__ import annotations

import argparse
import lzma
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASE_TABLES = ["ops-forms.tsv.xz", "ops-operands.tsv.xz", "fuzz-forms.tsv.xz", "tcgen05.tsv",
               "mov.tsv", "mov-vector.tsv", "cvt-scalar.tsv.xz", "cvt-packed.tsv.xz", "misc.tsv",
               "sources.tsv", "literals.tsv"]
PAIRS = [("sm_75", "7.7"), ("sm_86", "8.1"), ("sm_90", "8.4"), ("sm_100f", "8.8"),
         ("sm_120f", "9.1")]

# Registers: every declared type, each width.
REGISTERS = [f"%{t}_{n}" for t in ("b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64",
                                   "s8", "s16", "s32", "s64", "f16", "f16x2", "f32", "f64",
                                   "pred") for n in (6,)]
# Immediates: every spelling of PTX's integer and floating-point constants (PTX ISA 4.5
# "Constants": hex `0x`, octal `0`, binary `0b`, a `U` suffix, `0f`/`0d` hex floats, decimal
# floats), at and beyond the 8/16/32/64-bit ranges, negative.
IMMEDIATES = ["0", "1", "-1", "7", "-8", "0x1F", "0X1f", "017", "-017", "0b101", "0B11",
              "1U", "0xffU", "255", "256", "-129", "32767", "65535", "65536", "-32769",
              "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295",
              "4294967296", "0x7fffffffffffffff", "0x8000000000000000", "18446744073709551615",
              "18446744073709551616", "0x10000000000000000", "0f3F800000", "0F3f800000",
              "0fFF800000", "0f7FC00000", "0d3FF0000000000000", "0D7FF8000000000000", "1.0",
              "-2.5", "1e3", "1.5e-3", "0.0", "-0.0"]
VECTORS = ["{%b32_6}", "{%b32_6, %b32_7}", "{%b32_6, %b32_7, %b32_8}",
           "{%b32_6, %b32_7, %b32_8, %b32_9}", "{%u16_6, %u16_7}", "{%f32_6, %f32_7}",
           "{%b64_6, %b64_7}", "{%b32_6, _}", "{_, _}", "{%b32_6, 1}", "{}",
           "{%b32_1, %b32_2, %b32_3, %b32_4, %b32_5, %b32_6, %b32_7, %b32_8}",
           "{%b16_6, %b16_7, %b16_8, %b16_9}", "{%pred_6, %pred_7}"]
ADDRESSES = ["[%u64_6]", "[%u64_6+4]", "[%u64_6+-4]", "[%u64_6-4]", "[%u64_6+0x10]",
             "[%u32_6]", "[%b64_6+65536]", "[%s64_6]", "[sym_global]", "[sym_global+8]",
             "[sym_shared+4]", "[sym_const]", "[sym_local]", "[sym_param]", "[sym_param+8]",
             "[0x100]", "[64]", "[%f32_6]", "[%pred_6]", "[%u64_6+%u64_7]", "[L0]", "[_]"]
SYMBOLS = ["sym_global", "sym_shared", "sym_const", "sym_local", "sym_param", "sym_global+4",
           "L0", "brx_tab"]
SPECIALS = ["%tid.x", "%ntid.y", "%laneid", "%warpid", "%clock", "%clock64", "%smid",
            "%globaltimer", "%lanemask_lt", "%ctaid.z", "%nctaid.x", "%gridid", "%pm0",
            "%envreg3", "%dynamic_smem_size", "%cluster_ctarank", "%clusterid.x"]
OTHER = ["_", "!%pred_6", "!%b32_6", "-%b32_6", "-%f32_6", "%b32_6|%pred_6", "%pred_6|_",
         "%b32_6.x", "%b32_6.h0", "%b32_6.b1"]
OPERAND_KINDS = REGISTERS + IMMEDIATES + VECTORS + ADDRESSES + SYMBOLS + SPECIALS + OTHER

TYPE_WORDS = [".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8",
              ".s16", ".s32", ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64",
              ".tf32", ".pred", ".e4m3", ".e5m2", ".e4m3x2", ".u16x2", ".s16x2", ".texref",
              ".surfref", ".samplerref"]


def accepted_bases(tables: list[Path]) -> list[tuple[str, str, str]]:
    out = []
    seen = set()
    for path in tables:
        text = (lzma.open(path, "rt") if path.name.endswith(".xz") else open(path)).read()
        for row in text.splitlines():
            f = row.split("\t")
            if row.startswith("#") or len(f) < 4 or f[3] != "accept" or f[2] in seen:
                continue
            seen.add(f[2])
            out.append((f[0], f[1], f[2]))
    return out


def split_operands(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parts(line: str) -> tuple[str, list[str]] | None:
    m = re.match(r"^([a-z][\w.:]*)\s*(.*?);\s*$", line)
    if not m or "(" in line:
        return None
    return m.group(1), split_operands(m.group(2))


def join(mnemonic: str, operands: list[str]) -> str:
    return f"{mnemonic} {', '.join(operands)};" if operands else f"{mnemonic};"


def misspell(word: str, rng: random.Random) -> str:
    body = word[1:]
    if len(body) < 2:
        return word + word[-1]
    i = rng.randrange(len(body) - 1)
    choice = rng.randrange(4)
    if choice == 0:
        body = body[:i] + body[i + 1:]                       # a letter dropped
    elif choice == 1:
        body = body[:i] + body[i + 1] + body[i] + body[i + 2:]  # two letters swapped
    elif choice == 2:
        body = body.upper()                                  # upper case
    else:
        body = body + "s"                                    # a plural
    return "." + body


def mutate(line: str, pool: list[str], rng: random.Random) -> str | None:
    p = parts(line)
    if p is None:
        return None
    mnemonic, operands = p
    words = mnemonic.split(".")
    head, mods = words[0], ["." + w for w in words[1:]]
    kind = rng.randrange(10)
    if kind <= 3 and operands:
        # One operand slot gets an operand of another kind.
        i = rng.randrange(len(operands))
        operands[i] = rng.choice(OPERAND_KINDS)
    elif kind == 4:
        # A modifier of another opcode, at a random place.
        mods.insert(rng.randrange(len(mods) + 1), rng.choice(pool))
    elif kind == 5 and mods:
        i = rng.randrange(len(mods))
        mods[i] = misspell(mods[i], rng)
    elif kind == 6 and mods:
        # One modifier written twice (next to itself or elsewhere).
        i = rng.randrange(len(mods))
        mods.insert(rng.randrange(len(mods) + 1), mods[i])
    elif kind == 7:
        # A type word added (instructions without a type, or a second / third type).
        mods.insert(rng.randrange(len(mods) + 1), rng.choice(TYPE_WORDS))
    elif kind == 8 and operands:
        # One operand too few.
        del operands[rng.randrange(len(operands))]
    else:
        # One operand too many, of any kind.
        operands.insert(rng.randrange(len(operands) + 1), rng.choice(OPERAND_KINDS))
    return join(head + "".join(mods), operands)


def generate(seed: int, count: int, tables: list[Path]) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    bases = accepted_bases(tables)
    pool = sorted({"." + w for _, _, l in bases
                   for w in l.split(" ")[0].rstrip(";").split(".")[1:]})
    out, seen = [], set()
    tries = 0
    while len(out) < count and tries < count * 10:
        tries += 1
        target, version, line = rng.choice(bases)
        new = mutate(line, pool, rng)
        if new is None:
            continue
        if rng.random() < 0.25:
            new = mutate(new, pool, rng) or new
        if rng.random() >= 0.25:
            target, version = rng.choice(PAIRS)
        if "%b128_" in new and tuple(map(int, version.split("."))) < (8, 3):
            continue
        key = (target, version, new)
        if key in seen:
            continue
        seen.add(key)
        out.append(key)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lines", type=int, default=10000)
    ap.add_argument("--base", nargs="*", default=[],
                    help="conformance tables whose accepted lines are mutated (default: "
                         "tests/conformance's)")
    args = ap.parse_args()
    tables = [Path(b) for b in args.base] or [ROOT / "tests/conformance" / t
                                              for t in BASE_TABLES]
    for t, v, l in generate(args.seed, args.lines, tables):
        print(f"{t} {v} {l}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
