#!/usr/bin/env python3
"""A second, independent line generator: every modifier combination of the ISA's Syntax blocks.

fuzz.py draws one random choice per optional modifier; this generator is written apart from it
(its own reading of the Syntax blocks, no code or lists shared with fuzz.py, syntax.rs or
syntax-examples.txt) and enumerates instead: for each template of each Syntax block in
/work/shared/spec/isa/*.md (or $PTXSIM_SPEC/isa) it lists every combination of its optional
groups (`{.ftz}`, `{.ss}`) and alternatives (`.type`, `.ss = { .global, .shared{::cta} }`) when
there are at most --per-template of them, and otherwise a sample in which every single choice of
every slot still occurs at least once. Operands get registers by their role in the template
(`d`, `a`, `b`, `c` of the instruction's last type, `p`/`q` predicates, `[a]` a 64-bit
address, `.vN` data operands brace vectors, `{, cache-policy}` a .b64 ...).

Then mutations of those lines, one or two each: a modifier dropped, repeated, moved, replaced by
an unknown word or by a value of another slot; the type swapped; a register of another width or
kind in one slot; an immediate, a symbol, the sink `_`, an address or a vector in one slot; one
operand too few or too many; the state space of the address's symbol.

Each line goes to one of five (.target, .version) pairs that fuzz.py does not use as a set
(7.0/sm_70, 7.8/sm_80, 8.0/sm_90a, 8.7/sm_100a, 9.0/sm_120a). The output is a lines file
(`TARGET VERSION INSTRUCTION` per line) for `fuzz.py --file`, which asks ptxas and ptxsim:

  python3 scripts/conformance/specgen.py --seed 5 --lines 20000 > /tmp/spec5.txt
  python3 scripts/conformance/fuzz.py --ptxsim target/release/ptxsim --file /tmp/spec5.txt --show 30

Register names follow gen.py's convention (`%<regtype>_<n>` is `.reg .<regtype>`; `sym_<space>`
a .b8 array in that space). Standard library only.
"""
from __future__ import annotations

import argparse
import itertools
import os
import random
import re
import sys
from pathlib import Path

SPEC = Path(os.environ.get("PTXSIM_SPEC", "/work/shared/spec")) / "isa"
PAIRS = [("sm_70", "7.0"), ("sm_80", "7.8"), ("sm_90a", "8.0"), ("sm_100a", "8.7"),
         ("sm_120a", "9.0")]
REGS = ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
        "f16", "f16x2", "f32", "f64", "pred"]
WIDTH = {"8": "b16", "16": "b16", "32": "b32", "64": "b64", "128": "b128"}
SPACE_WORDS = ["global", "shared", "shared::cta", "shared::cluster", "local", "const", "param",
               "param::entry", "param::func"]
SYMBOLS = ["sym_global", "sym_shared", "sym_const", "sym_local", "sym_param"]
IMMS = ["0", "1", "-1", "7", "15", "16", "31", "32", "255", "0xffff", "0x10000", "0xffffffff",
        "0x100000000", "2.5", "0f3F800000", "0d3FF0000000000000"]


# --- reading the Syntax blocks -----------------------------------------------------------

def code_blocks(md: str) -> list[str]:
    """The fenced blocks after a `### Syntax` heading, up to the next heading."""
    out = []
    for section in re.split(r"^### ", md, flags=re.M):
        if not section.startswith("Syntax"):
            continue
        out += re.findall(r"```[a-z]*\n(.*?)```", section, flags=re.S)
    return out


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def balanced_end(text: str, start: int) -> int:
    """Index after the brace group that opens at `start`."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def parse_block(block: str) -> tuple[list[str], dict[str, list[str]]]:
    """(templates, definitions). A definition is `.name = { v, v, ... }` (values may carry their
    own braces: `.shared{::cta, ::cluster}`); a template starts with a lower-case opcode."""
    text = strip_comments(block)
    defs: dict[str, list[str]] = {}
    templates: list[str] = []
    i = 0
    while i < len(text):
        # `.dtype = .atype = .btype = { .u32, .s32 }`, `vop = { vadd, vsub }`.
        m = re.compile(r"\s*((?:\.?[A-Za-z][\w:\-.]*\s*=\s*)+)\{").match(text, i)
        if m:
            end = balanced_end(text, m.end() - 1)
            body = text[m.end():end - 1]
            values = []
            for v in split_commas(body):
                values += expand_value(v.strip())
            for name in re.findall(r"(\.?[A-Za-z][\w:\-.]*)\s*=", m.group(1)):
                name = name if name.startswith(".") else "." + name
                defs.setdefault(name, [v for v in values if v])
            i = end
            while i < len(text) and text[i] in " \t;":
                i += 1
            continue
        nl = text.find("\n", i)
        line = text[i:] if nl < 0 else text[i:nl]
        s = line.strip()
        if re.match(r"^[a-z][a-z0-9_]*(\.|\{|\s)", s):
            stmt = s
            j = nl
            while ";" not in stmt and j >= 0 and j < len(text):
                nxt = text.find("\n", j + 1)
                more = text[j + 1:] if nxt < 0 else text[j + 1:nxt]
                if re.match(r"^\s*(\.?[A-Za-z][\w:\-.]*)\s*=", more) or not more.strip():
                    break
                stmt += " " + more.strip()
                j = nxt
            templates.append(stmt.split(";")[0].strip())
            i = j + 1 if j >= 0 else len(text)
            continue
        i = nl + 1 if nl >= 0 else len(text)
    return templates, defs


def split_commas(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def expand_value(v: str) -> list[str]:
    """`.shared{::cta, ::cluster}` -> `.shared`, `.shared::cta`, `.shared::cluster`;
    `.param{::entry}` likewise; `.x` alone -> itself."""
    m = re.match(r"^([^{]*)\{([^}]*)\}(.*)$", v)
    if not m:
        return [v] if re.match(r"^\.?[A-Za-z0-9_:]+$", v) else []
    head, opts, tail = m.groups()
    return [head + tail] + [head + o.strip() + tail for o in opts.split(",")]


# --- the mnemonic as slots -----------------------------------------------------------------

def mnemonic_slots(mn: str, defs: dict[str, list[str]]) -> list[list[str]]:
    """The mnemonic as a list of slots, each a list of choices (strings to concatenate)."""
    slots: list[list[str]] = []
    i = 0
    while i < len(mn):
        if mn[i] == "{":
            end = balanced_end(mn, i)
            inner = mn[i + 1:end - 1]
            choices = [""]
            for alt in [inner] if "," not in inner else split_commas(inner):
                choices += [c for c in flat(alt.strip(), defs)]
            slots.append(list(dict.fromkeys(choices)))
            i = end
            continue
        m = re.compile(r"\.[A-Za-z0-9_:\-]+").match(mn, i)
        if m:
            word = m.group(0)
            # `.level::cache_hint` is both a definition name and text; a definition wins.
            slots.append(defs.get(word, [word]))
            i = m.end()
            continue
        m = re.compile(r"[a-z][a-z0-9_]*").match(mn, i)
        if m:
            # An opcode placeholder (`vop = { vadd, vsub }`) is a definition too.
            slots.append(defs.get("." + m.group(0), [m.group(0)]) if i == 0 else [m.group(0)])
            i = m.end()
            continue
        i += 1
    return slots


def flat(text: str, defs) -> list[str]:
    """Every string a piece of a mnemonic can stand for."""
    out = [""]
    for slot in mnemonic_slots(text, defs):
        out = [a + b for a in out for b in slot][:64]
    return out


def combinations(slots: list[list[str]], limit: int, rng: random.Random) -> list[str]:
    total = 1
    for s in slots:
        total *= len(s)
    if total <= limit:
        return ["".join(c) for c in itertools.product(*slots)]
    out = set()
    # Every choice of every slot at least once, the other slots random.
    for k, s in enumerate(slots):
        for choice in s:
            out.add("".join(choice if j == k else rng.choice(t) for j, t in enumerate(slots)))
    while len(out) < limit:
        out.add("".join(rng.choice(t) for t in slots))
    return sorted(out)


# --- operands ------------------------------------------------------------------------------

def reg(t: str, rng: random.Random) -> str:
    return f"%{t}_{rng.randrange(1, 9)}"


def reg_for_type(t: str) -> str:
    if t in REGS:
        return t
    m = re.search(r"(\d+)", t)
    if t in ("bf16", "e4m3x2", "e5m2x2") or t.endswith("x2") and m and int(m.group(1)) <= 8:
        return "b16"
    if t in ("bf16x2", "tf32", "u16x2", "s16x2"):
        return "b32"
    if m and m.group(1) in WIDTH:
        return WIDTH[m.group(1)]
    return "b32"


def types_in(mn: str) -> list[str]:
    known = set(REGS) | {"bf16", "bf16x2", "tf32", "u16x2", "s16x2", "e4m3", "e5m2",
                         "e4m3x2", "e5m2x2", "e2m1x2", "e3m2x2", "e2m3x2", "ue8m0x2"}
    return [w for w in mn.split(".")[1:] if w in known]


def operand(name: str, mn: str, rng: random.Random, first: bool = False) -> str:
    """A register, address or vector for an operand named `name` in the template: the first
    operand (the destination) of the first type in the mnemonic, the others of the last."""
    types = types_in(mn)
    t = reg_for_type(types[0 if first else -1]) if types else "b32"
    if "[|p]" in name:
        name = name.replace("[|p]", "|p" if rng.random() < 0.5 else "")
    vec = re.search(r"\.v(\d)(\.|$)", mn)
    raw = name.strip()
    if raw.startswith("["):
        inner = raw.strip("[]")
        if rng.random() < 0.3:
            return f"[{rng.choice(SYMBOLS)}]"
        if "+" in inner or "imm" in inner or "offset" in inner:
            return f"[{reg('b64', rng)}+8]"
        return f"[{reg('b64', rng)}]"
    base = re.sub(r"[{}]", "", raw)
    base = re.sub(r"\.\w+$", "", base)
    if "|" in base:
        a, b = base.split("|", 1)
        return f"{operand(a, mn, rng, first)}|{reg('pred', rng)}"
    low = base.lower()
    if low in ("p", "q", "pred", "pa", "pb", "pd") or low.startswith("p") and len(low) <= 2:
        return reg("pred", rng)
    if "policy" in low or "addr" in low or "ptr" in low:
        return reg("b64", rng)
    if low.startswith("imm") or low in ("n", "count", "b_count", "size"):
        return str(rng.choice([0, 1, 4, 16, 32]))
    if low.startswith("mask") or low in ("membermask", "lane", "c_mask", "bound"):
        return reg("b32", rng)
    if low.startswith("l") and low[1:].isdigit():
        return "L0"
    if vec and low in ("d", "a", "b"):
        n = int(vec.group(1))
        return "{" + ", ".join(reg(t, rng) for _ in range(n)) + "}"
    return reg(t, rng)


def instantiate(template: str, defs, limit: int, rng: random.Random) -> list[str]:
    m = re.match(r"^(\S+)\s*(.*)$", template)
    if not m:
        return []
    mn_text, ops_text = m.groups()
    # Optional operand groups: `{, cache-policy}`, `[a]{.unified}`.
    ops_text = ops_text.replace("{.unified}", "")
    optional = re.findall(r"\{\s*,\s*([^{}]*)\}", ops_text)
    required = re.sub(r"\{\s*,\s*[^{}]*\}", "", ops_text)
    out = []
    for mn in combinations(mnemonic_slots(mn_text, defs), limit, rng):
        if not mn or "{" in mn:
            continue
        ops = [o for o in split_commas(required) if o.strip()]
        if optional and rng.random() < 0.5:
            ops += [o for grp in optional for o in split_commas(grp)]
        text = ", ".join(operand(o, mn, rng, k == 0) for k, o in enumerate(ops))
        out.append(f"{mn} {text};" if text else f"{mn};")
    return out


# --- mutations -----------------------------------------------------------------------------

def split(line: str) -> tuple[str, list[str]]:
    body = line.rstrip(";").strip()
    mn, _, rest = body.partition(" ")
    return mn, [o.strip() for o in split_commas(rest) if o.strip()]


def join(mn: str, ops: list[str]) -> str:
    return f"{mn} {', '.join(ops)};" if ops else f"{mn};"


def mutate(line: str, all_words: list[str], rng: random.Random) -> str:
    mn, ops = split(line)
    words = mn.split(".")
    kind = rng.randrange(12)
    if kind == 0 and len(words) > 1:                       # drop a modifier
        del words[rng.randrange(1, len(words))]
    elif kind == 1 and len(words) > 1:                     # repeat a modifier
        i = rng.randrange(1, len(words))
        words.insert(i, words[i])
    elif kind == 2 and len(words) > 2:                     # move a modifier
        w = words.pop(rng.randrange(1, len(words)))
        words.insert(rng.randrange(1, len(words) + 1), w)
    elif kind == 3:                                        # a word of another instruction
        words.insert(rng.randrange(1, len(words) + 1), rng.choice(all_words))
    elif kind == 4 and len(words) > 1:                     # another type
        ts = [i for i, w in enumerate(words) if w in REGS or w in ("bf16", "bf16x2", "tf32")]
        if ts:
            words[rng.choice(ts)] = rng.choice(REGS + ["bf16", "bf16x2", "tf32"])
    elif kind == 5 and len(words) > 1:                     # another state space
        sp = [i for i, w in enumerate(words) if w.split("::")[0] in ("global", "shared", "local",
                                                                     "const", "param")]
        if sp:
            words[rng.choice(sp)] = rng.choice(SPACE_WORDS)
        else:
            words.insert(1, rng.choice(SPACE_WORDS))
    elif ops:
        i = rng.randrange(len(ops))
        k = rng.randrange(7) if kind >= 6 else 0
        if k == 0:
            ops[i] = re.sub(r"%(\w+?)_(\d)", lambda m: f"%{rng.choice(REGS)}_{m.group(2)}", ops[i], 1)
        elif k == 1:
            ops[i] = rng.choice(IMMS)
        elif k == 2:
            ops[i] = rng.choice(SYMBOLS)
        elif k == 3:
            ops[i] = "_"
        elif k == 4:
            ops[i] = rng.choice([f"[{rng.choice(SYMBOLS)}]", f"[%b64_{rng.randrange(1, 9)}]",
                                 f"[%b32_{rng.randrange(1, 9)}]"])
        elif k == 5:
            n = rng.choice([2, 4])
            t = re.match(r"%(\w+?)_\d", ops[i])
            t = t.group(1) if t else "b32"
            ops[i] = "{" + ", ".join(f"%{t}_{j + 1}" for j in range(n)) + "}"
        else:
            if rng.random() < 0.5 and len(ops) > 1:
                ops.pop(rng.randrange(len(ops)))
            else:
                ops.append(ops[-1] if rng.random() < 0.5 else f"%b32_{rng.randrange(1, 9)}")
    return join(".".join(words), ops)


# --- driver --------------------------------------------------------------------------------

def all_templates(limit: int, rng: random.Random) -> dict[str, list[str]]:
    per_op: dict[str, list[str]] = {}
    for path in sorted(SPEC.glob("*.md")):
        for block in code_blocks(path.read_text()):
            templates, defs = parse_block(block)
            for t in templates:
                lines = instantiate(t, defs, limit, rng)
                if lines:
                    per_op.setdefault(path.stem, []).extend(lines)
    return per_op


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lines", type=int, default=20000)
    ap.add_argument("--per-template", type=int, default=48,
                    help="enumerate a template's combinations fully up to this many")
    ap.add_argument("--mutated", type=float, default=0.5, help="share of mutated lines")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    per_op = all_templates(args.per_template, rng)
    words = sorted({w for ls in per_op.values() for l in ls for w in l.split(" ")[0].split(".")[1:]})
    ops = sorted(per_op)
    out: list[tuple[str, str, str]] = []
    seen = set()
    n_plain = int(args.lines * (1 - args.mutated))
    # Plain lines: round-robin over opcodes, so that a large family (mma) does not crowd out
    # the small ones.
    pools = {op: rng.sample(ls, len(ls)) for op, ls in per_op.items()}
    while len(out) < n_plain and any(pools.values()):
        for op in ops:
            if pools[op] and len(out) < n_plain:
                line = pools[op].pop()
                key = (*rng.choice(PAIRS), line)
                if key not in seen and not ("%b128_" in line and key[1] < "8.3"):
                    seen.add(key)
                    out.append(key)
    plain = [l for _, _, l in out]
    tries = 0
    while len(out) < args.lines and tries < args.lines * 10:
        tries += 1
        line = mutate(rng.choice(plain), words, rng)
        if rng.random() < 0.25:
            line = mutate(line, words, rng)
        key = (*rng.choice(PAIRS), line)
        if key in seen or "%b128_" in line and key[1] < "8.3":
            continue
        seen.add(key)
        out.append(key)
    rng.shuffle(out)
    for t, v, l in out:
        print(f"{t} {v} {l}")
    print(f"specgen: {len(per_op)} opcodes, {sum(len(v) for v in per_op.values())} expansions, "
          f"{len(out)} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
