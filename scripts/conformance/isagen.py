#!/usr/bin/env python3
"""A third line generator, written apart from the others: forms of the ISA's Syntax blocks with
typed operands, mutations across opcodes, and a balanced report (issue 32, thirteenth round).

Nothing here comes from ops.py, gen.py, fuzz.py's, specgen.py's or opgen.py's lists (fuzz.py
lends a bracket-aware comma split, and its harness judges the lines): the forms, the modifier
values and the operand names are read from the Syntax blocks of
/work/shared/spec/isa/*.md (or $PTXSIM_SPEC/isa) by this file's own reader:

* a Syntax block is cut into statements at `;` (a definition `.name = { ... }` may lack it);
  statements that start with the opcode of the file are templates, `.name = {...}` lines are
  definitions, in groups: the definitions after a run of templates belong to that run (mma's
  blocks define `.kind` three times, once per template), and a name a group lacks is taken from
  the last definition of it anywhere in the file;
* a template's mnemonic is read word by word: `{.x}` is optional (nested braces too), `.name`
  with a definition is one of its values (each value may carry its own optional `{::cta}`),
  anything else is literal;
* operands are split at top-level commas; `{, x}` is an optional trailing operand, `[a]` an
  address, `{a, b}` a brace vector, `a|b` a predicate pair, and each name gets an operand of
  the kind its role suggests, with a register type taken from the types of the mnemonic (the
  first type for a destination, the last for sources; bit and sibling types of the same width
  now and then, since ptxas takes many).

Mutations (about half of the lines): a modifier dropped, doubled, moved, or replaced by a
modifier of another opcode's Syntax block; the type replaced by another type word; a register
of a wrong width or kind in one slot; an operand of another kind (immediate in and out of
range, address, vector, label, predicate, sink, special register); one operand too many or too
few; the line moved to an older (.target, .version) pair or one version lower.

Lines are spread over seven (.target, .version) pairs from 6.5/sm_70 to 9.0/sm_120a. Register
names follow the judging harness's frame (`%<regtype>_<n>` is `.reg .<regtype>`, `sym_<space>`
a `.b8` array in that space, `L0` a label, `brx_tab` a `.branchtargets` list).

  python3 scripts/conformance/isagen.py --seed 13 --lines 34000 > /tmp/isa13.txt
  python3 scripts/conformance/isagen.py --judge /tmp/isa13.txt --ptxsim BIN [--out DIS.txt]

`--judge` asks ptxas and `ptxsim check` about every line with fuzz.py's harness (one module per
batch, ptxas's rejected lines removed until the rest assembles) and prints the agreement, the
agreement on a sample balanced between ptxas's accepted and rejected lines (the outside
measurement's shape), and the disagreements per opcode; `--tsv` writes the conformance-table
rows (`--agreeing`: only the lines ptxsim agrees on). Standard library only.
"""
from __future__ import annotations

import argparse
import collections
import os
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz import split_top  # noqa: E402  (a comma split that skips brackets; no lists)

SPEC = Path(os.environ.get("PTXSIM_SPEC", "/work/shared/spec")) / "isa"

# (.target, .version) pairs, old to new; each header is one ptxas 13.5 takes.
PAIRS = [("sm_70", "6.5"), ("sm_75", "7.0"), ("sm_80", "7.8"), ("sm_90", "8.0"),
         ("sm_90a", "8.6"), ("sm_100a", "8.8"), ("sm_120a", "9.0")]
# The lowest version each target's header needs (PTX ISA release notes), for "one below".
TARGET_MIN = {"sm_70": "6.0", "sm_75": "6.3", "sm_80": "7.0", "sm_86": "7.1", "sm_89": "7.8",
              "sm_90": "7.8", "sm_90a": "8.0", "sm_100a": "8.6", "sm_120a": "8.7"}
VERSIONS = ["6.0", "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6", "7.7",
            "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0"]

# Register kinds the frame declares, by width.
REGS_BY_WIDTH = {8: ["b8", "u8", "s8"], 16: ["b16", "u16", "s16", "f16"],
                 32: ["b32", "u32", "s32", "f32", "f16x2"], 64: ["b64", "u64", "s64", "f64"],
                 128: ["b128"]}
ALL_REGS = [r for rs in REGS_BY_WIDTH.values() for r in rs] + ["pred"]
SPECIAL = ["%tid.x", "%ntid.y", "%laneid", "%clock64", "%globaltimer", "%smid", "%warpid"]
SPACES = ["global", "shared", "const", "local", "param"]


# --- reading the Syntax blocks -----------------------------------------------------------

def syntax_code(md: str) -> list[str]:
    """The code fences of the `### Syntax` section."""
    m = re.search(r"^### Syntax\s*$(.*?)(?=^### |\Z)", md, flags=re.M | re.S)
    return re.findall(r"```[^\n]*\n(.*?)```", m.group(1), flags=re.S) if m else []


def statements(code: str) -> list[str]:
    """Statements of a code fence: `;`-terminated, definitions also end at their closing brace."""
    code = re.sub(r"/\*.*?\*/", " ", code, flags=re.S)
    code = re.sub(r"//[^\n]*", " ", code)
    out, cur, depth = [], "", 0
    for ch in code:
        if ch == ";" and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        cur += ch
        if depth == 0 and ch == "}" and re.match(r"\s*\.[\w:]+\s*=", cur):
            out.append(cur.strip())
            cur = ""
    if cur.strip():
        out.append(cur.strip())
    return [" ".join(s.split()) for s in out if s.strip()]


def set_values(body: str) -> list[str]:
    """`{ .a, .b{::x, ::y}, .c }` -> ['.a', '.b{::x, ::y}', '.c'] (top-level commas)."""
    body = body.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    return [v.strip() for v in split_top(body, ",") if v.strip()]


class Form:
    def __init__(self, opcode: str, text: str, defs: dict[str, list[str]]):
        self.opcode, self.text, self.defs = opcode, text, defs


def read_forms(spec: Path) -> list[Form]:
    forms: list[Form] = []
    stems = {md.stem for md in spec.glob("*.md")}
    for md in sorted(spec.glob("*.md")):
        opcode = md.stem
        groups: list[tuple[list[str], dict[str, list[str]]]] = []
        file_defs: dict[str, list[str]] = {}
        for code in syntax_code(md.read_text()):
            temps: list[str] = []
            defs: dict[str, list[str]] = {}
            for st in statements(code):
                d = re.match(r"^((?:\.?[\w:]+\s*=\s*)+)(\{.*\})$", st)
                if d:  # `.atype = .btype = { ... }` defines both; `vop = { vadd, ... }` too
                    # Values are words (`none` is the empty choice); prose is left out.
                    vals = ["" if v == "none" else v for v in set_values(d.group(2))
                            if re.match(r"^\.?[\w:]+(\{[^{}]*\})?$", v)]
                    for name in re.findall(r"\.?[\w:]+", d.group(1)) if vals else []:
                        defs[name] = vals
                        file_defs[name] = vals
                    continue
                word = re.match(r"^[a-z]\w*", st)
                if not word or (word.group(0) not in stems and word.group(0) not in file_defs
                                and not re.search(r"\b%s\s*=" % word.group(0), code)):
                    continue  # prose in the block ("defaults ..."), not a template
                if temps and defs:  # a template after definitions starts the next group
                    groups.append((temps, defs))
                    temps, defs = [], {}
                temps.append(st)
            if temps:
                groups.append((temps, defs))
        for temps, defs in groups:
            merged = dict(file_defs)
            merged.update(defs)
            for t in temps:
                forms.append(Form(re.match(r"[a-z]\w*", t).group(0), t, merged))
    return forms


# --- expanding a form --------------------------------------------------------------------

def split_mnemonic(text: str) -> tuple[str, str]:
    """The mnemonic (up to the first blank outside braces) and the operand text."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == " " and depth == 0:
            return text[:i], text[i + 1:].strip()
    return text, ""


def pieces(mn: str) -> list[str]:
    """`ld{.weak}{.ss}.type` -> ['ld', '{.weak}', '{.ss}', '.type'] (braces kept whole)."""
    out, cur, depth = [], "", 0
    for ch in mn:
        if ch == "{" and depth == 0 and cur:
            out.append(cur)
            cur = ""
        if ch == "." and depth == 0 and cur and not cur.endswith(":"):
            out.append(cur)
            cur = ""
        cur += ch
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                out.append(cur)
                cur = ""
    if cur:
        out.append(cur)
    return out


def expand_word(word: str, defs, rng: random.Random, depth: int = 0) -> str:
    """One piece of a mnemonic made concrete."""
    if depth > 6:
        return ""
    if word.startswith("{") and word.endswith("}"):
        inner = word[1:-1]
        if "," in inner and not inner.lstrip().startswith("."):
            return rng.choice(split_top(inner, ",")).strip()  # `.{1d,2d,3d}`: one of them
        if rng.random() < 0.5:
            return ""
        return "".join(expand_word(p, defs, rng, depth + 1) for p in pieces(inner))
    if word in defs:
        return expand_value(rng.choice(defs[word]), defs, rng, depth + 1)
    # `.type` written `.btype` etc. with no definition stays literal (ptxas decides).
    return word


def expand_value(value: str, defs, rng, depth: int) -> str:
    """A set value: `.shared{::cta, ::cluster}` -> `.shared`, `.shared::cta` or ...`"""
    m = re.match(r"^([^{]*)\{(.*)\}(.*)$", value)
    if m and "," in m.group(2) or (m and m.group(2).startswith("::")):
        choices = [c.strip() for c in m.group(2).split(",")]
        pick = rng.choice([""] + choices)
        return m.group(1) + pick + m.group(3)
    if "{" in value:
        return "".join(expand_word(p, defs, rng, depth + 1) for p in pieces(value))
    if value in defs and depth < 6:
        return expand_value(rng.choice(defs[value]), defs, rng, depth + 1)
    return value


TYPE_RE = re.compile(r"^\.(?:[bsu](?:8|16|32|64|128)|f(?:16|32|64)|bf16|tf32|f16x2|bf16x2|"
                     r"[su]16x2|e[0-9]m[0-9](?:x[24])?|ue8m0(?:x2)?|ue4m3|[su][24]|b1|pred)$")


def type_width(t: str) -> int:
    t = t.lstrip(".")
    if t in ("pred",):
        return 1
    m = re.search(r"(\d+)x(\d+)$", t)
    if m:
        return int(m.group(1)) * int(m.group(2))
    if re.match(r"^e\dm\dx([24])$", t):
        return 8 * int(t[-1])
    if t.startswith(("e", "ue")) or t in ("s4", "u4", "s2", "u2", "b1"):
        return 8 if t.startswith(("e", "ue")) else 32
    m = re.search(r"(\d+)$", t)
    return int(m.group(1)) if m else 32


def reg_for_type(t: str, rng: random.Random, exact: float = 0.75) -> str:
    """A register kind for a value of PTX type `t`: its own kind where one exists, else
    a kind of its width."""
    name = t.lstrip(".")
    if name == "pred":
        return "pred"
    w = type_width(t)
    w = 16 if w == 8 and rng.random() < 0.5 else w
    w = min([x for x in REGS_BY_WIDTH if x >= w] or [128])
    if name in ALL_REGS and rng.random() < exact:
        return name
    if rng.random() < exact:
        return "b%d" % w if w > 1 else "pred"
    return rng.choice(REGS_BY_WIDTH[w])


class Operands:
    def __init__(self, rng: random.Random, defs: dict[str, list[str]] | None = None):
        self.rng = rng
        self.defs = defs or {}
        self.n = collections.Counter()

    def reg(self, kind: str) -> str:
        i = self.n[kind] % 10
        self.n[kind] += 1
        return f"%{kind}_{i}"

    def address(self) -> str:
        r = self.rng.random()
        if r < 0.45:
            base = self.reg("b64" if self.rng.random() < 0.7 else self.rng.choice(["u64", "s64"]))
        elif r < 0.8:
            base = "sym_" + self.rng.choice(SPACES)
        elif r < 0.9:
            base = self.reg(self.rng.choice(["b32", "u32"]))
        else:
            base = str(self.rng.choice([0, 16, 256, 4096]))
        if self.rng.random() < 0.35 and not base[0].isdigit():
            base += self.rng.choice(["+8", "+16", "+4", "+-4", "+0x10", "+1024"])
        return f"[{base}]"

    def imm(self, t: str | None = None) -> str:
        if t and t.lstrip(".").startswith(("f", "bf")) and self.rng.random() < 0.5:
            return self.rng.choice(["0f3F800000", "0fBF000000", "0d3FF0000000000000", "1.0",
                                    "0f7F800000"])
        return self.rng.choice(["0", "1", "2", "3", "4", "7", "8", "16", "31", "32", "63", "64",
                                "255", "-1", "-128", "0x7fffffff", "0xffffffff", "4294967296",
                                "0x8000000000000000", "65536"])


def operand_types(mn: str) -> list[str]:
    return [w for w in re.findall(r"\.[a-z0-9_]+", mn) if TYPE_RE.match(w)]


PRED_NAMES = {"p", "q", "pred", "pa", "pb", "pd", "pi", "waitComplete", "p1", "p2"}
CACHE_NAMES = {"cache-policy", "cache_policy", "policy", "createpolicy"}
LABEL_NAMES = {"tgt", "target", "label", "L", "tgt-label", "Label"}


def one_operand(name: str, mn: str, pos: int, ops: Operands) -> str:
    """An operand for the template operand `name` at position `pos`."""
    rng = ops.rng
    name = name.strip()
    if name.startswith("[") and name.endswith("]"):
        inner = name[1:-1]
        if "," in inner:  # tex [a, b] / [a, b, c]: a handle then coordinates
            parts = [p.strip() for p in inner.split(",")]
            out = ["%b64_" + str(rng.randrange(10)) if rng.random() < 0.5 else "sym_global"]
            for p in parts[1:]:
                out.append(one_operand(p, mn, pos, ops))
            return "[" + ", ".join(out) + "]"
        return ops.address()
    if name.startswith("{") and name.endswith("}"):
        inner = [p for p in split_top(name[1:-1], ",") if p.strip()]
        if not inner:
            return "{}"
        return "{" + ", ".join(one_operand(p, mn, pos, ops) for p in inner) + "}"
    if "|" in name:
        a, b = name.split("|", 1)
        return one_operand(a, mn, pos, ops) + "|" + ops.reg("pred")
    suffix = re.match(r"^([\w-]+)(\{\.[\w:]+\}|\.[\w:]+)$", name)
    if suffix:  # `a{.asel}`, `d.dsel`: the operand with a component selector
        text = one_operand(suffix.group(1), mn, pos, ops)
        sel = suffix.group(2).strip("{}")
        values = ops.defs.get(sel, [""] if sel[1:] in ("asel", "bsel", "mask", "dsel")
                              else [sel])
        if suffix.group(2).startswith("{") and rng.random() < 0.5:
            return text
        return text + rng.choice(values)
    types = operand_types(mn)
    base = re.sub(r"[^\w-]", "", name)
    if base in PRED_NAMES or base.startswith("pred"):
        return ops.reg("pred")
    if base in CACHE_NAMES or "policy" in base:
        return ops.reg("b64")
    if base in LABEL_NAMES or "label" in base.lower():
        return "L0"
    if base in ("imm", "n", "N", "count", "i", "imm-offset", "offset") or base.startswith("imm"):
        return ops.imm()
    vec = re.search(r"\.(v|x)(\d+)\b", mn)
    t = (types[0] if pos == 0 else types[-1]) if types else ".b32"
    if vec and pos == 0 and rng.random() < 0.8:
        n = int(vec.group(2))
        kind = reg_for_type(t, rng)
        return "{" + ", ".join(ops.reg(kind) for _ in range(min(n, 32))) + "}"
    if pos > 0 and rng.random() < 0.12:
        return ops.imm(t)
    return ops.reg(reg_for_type(t, rng))


def instantiate(form: Form, rng: random.Random) -> str | None:
    mn_text, op_text = split_mnemonic(form.text)
    mn = "".join(expand_word(p, form.defs, rng) for p in pieces(mn_text))
    if not re.match(r"^[a-z][\w.:]*$", mn) or "{" in mn:
        return None
    ops = Operands(rng, form.defs)
    parts = [p.strip() for p in split_top(op_text, ",") if p.strip()]
    out = []
    pos = 0
    for p in parts:
        opt = re.match(r"^\{\s*,?\s*(.*)\}$", p)
        if opt and "," not in opt.group(1) and not re.match(r"^[\w.%-]+\s*,", opt.group(1)) \
                and pos > 0 and p.startswith("{") and rng.random() < 0.6 and \
                not re.match(r"^\{\s*[\w-]+\s*\}$", p):
            continue  # an optional trailing operand, left out
        if opt and p.startswith("{,"):
            p = opt.group(1).strip()
        # `[a]{.unified}` and the like: a suffix on an address.
        m = re.match(r"^(\[.*\])\{(\.\w+)\}$", p)
        if m:
            text = one_operand(m.group(1), mn, pos, ops)
            out.append(text + (m.group(2) if rng.random() < 0.5 else ""))
        else:
            out.append(one_operand(p, mn, pos, ops))
        pos += 1
    line = mn + (" " + ", ".join(out) if out else "") + ";"
    if rng.random() < 0.05:
        line = rng.choice(["@%pred_9 ", "@!%pred_8 "]) + line
    return line


# --- mutations ---------------------------------------------------------------------------

def split_line(line: str) -> tuple[str, str, list[str]]:
    guard = ""
    if line.startswith("@"):
        guard, line = line.split(" ", 1)
        guard += " "
    body = line.rstrip(";").strip()
    mn, _, rest = body.partition(" ")
    return guard, mn, [o.strip() for o in split_top(rest, ",") if o.strip()]


def join(guard: str, mn: str, ops: list[str]) -> str:
    return guard + mn + (" " + ", ".join(ops) if ops else "") + ";"


def mutate(line: str, rng: random.Random, pool: list[str], types: list[str]) -> str:
    guard, mn, ops = split_line(line)
    words = mn.split(".")
    head, mods = words[0], ["." + w for w in words[1:]]
    o = Operands(rng)
    k = rng.randrange(12)
    if k == 0 and mods:  # drop a modifier
        mods.pop(rng.randrange(len(mods)))
    elif k == 1 and mods:  # double one
        i = rng.randrange(len(mods))
        mods.insert(i, mods[i])
    elif k == 2 and len(mods) > 1:  # move one
        m = mods.pop(rng.randrange(len(mods)))
        mods.insert(rng.randrange(len(mods) + 1), m)
    elif k == 3:  # a modifier of another opcode, replacing or added
        w = rng.choice(pool)
        if mods and rng.random() < 0.5:
            mods[rng.randrange(len(mods))] = w
        else:
            mods.insert(rng.randrange(len(mods) + 1), w)
    elif k == 4:  # another type word
        idx = [i for i, m in enumerate(mods) if TYPE_RE.match(m)]
        if idx:
            mods[rng.choice(idx)] = rng.choice(types)
        else:
            mods.append(rng.choice(types))
    elif k in (5, 6) and ops:  # a register of another width or kind
        regs = [i for i, x in enumerate(ops) if re.match(r"^%[a-z0-9]+_\d$", x)]
        if regs:
            i = rng.choice(regs)
            ops[i] = o.reg(rng.choice(ALL_REGS))
        else:
            ops[rng.randrange(len(ops))] = o.reg(rng.choice(ALL_REGS))
    elif k == 7 and ops:  # an operand of another kind
        i = rng.randrange(len(ops))
        ops[i] = rng.choice([o.imm(), o.imm(".f32"), o.address(), "L0", "_", rng.choice(SPECIAL),
                             "{" + ", ".join(o.reg("b32") for _ in range(rng.choice([1, 2, 4])))
                             + "}", "sym_" + rng.choice(SPACES), "!" + o.reg("pred"),
                             o.reg("b32") + "+4", "-" + o.reg("f32")])
    elif k == 8:  # one operand too many
        ops.insert(rng.randrange(len(ops) + 1), o.reg(rng.choice(["b32", "b64", "pred", "f32"])))
    elif k == 9 and ops:  # one too few
        ops.pop(rng.randrange(len(ops)))
    elif k == 10 and ops:  # a vector's length changed, or a scalar made a vector
        vecs = [i for i, x in enumerate(ops) if x.startswith("{") and x.endswith("}")]
        if vecs:
            i = rng.choice(vecs)
            els = split_top(ops[i][1:-1], ",")
            n = rng.choice([1, 2, 3, 4, 8, len(els) * 2, max(1, len(els) - 1)])
            ops[i] = "{" + ", ".join((els * 16)[:n]).replace("  ", " ") + "}"
        else:
            i = rng.randrange(len(ops))
            ops[i] = "{" + ", ".join([ops[i]] * rng.choice([2, 4])) + "}"
    else:  # a vector or shape word replaced by a neighbour
        cand = [i for i, m in enumerate(mods) if re.match(r"^\.(v|x)\d+$|^\.m\d+n\d+k\d+$", m)]
        if cand:
            i = rng.choice(cand)
            m = mods[i]
            if m[1] in "vx":
                mods[i] = "." + m[1] + rng.choice(["1", "2", "3", "4", "8", "16", "32"])
            else:
                mods[i] = rng.choice([w for w in pool if re.match(r"^\.m\d+n\d+k\d+$", w)]
                                     or [m])
        elif mods:
            mods[rng.randrange(len(mods))] = rng.choice(pool)
    return join(guard, head + "".join(mods), ops)


def braces_ok(line: str) -> bool:
    """Balanced `{}`/`[]` without a brace vector inside a brace vector: one such line made a
    parser that recovers at the next `{` (ptxsim's before the fourteenth round) lose the lines
    after it in the batch; kept so that a seed gives the same lines."""
    depth = 0
    for ch in line:
        if ch == "{":
            depth += 1
            if depth > 1:
                return False
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0 and line.count("[") == line.count("]")


def older_pair(target: str, version: str, rng: random.Random) -> tuple[str, str]:
    """The same target one version lower (where its header still holds), or an older pair."""
    i = VERSIONS.index(version) if version in VERSIONS else len(VERSIONS) - 1
    if rng.random() < 0.6 and i > 0 and VERSIONS[i - 1] >= TARGET_MIN.get(target, "0"):
        return target, VERSIONS[i - 1]
    j = [p for p in PAIRS].index((target, version)) if (target, version) in PAIRS else 0
    return PAIRS[max(0, j - 1 - rng.randrange(2))]


def generate(seed: int, count: int) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    forms = read_forms(SPEC)
    by_op: dict[str, list[Form]] = collections.defaultdict(list)
    for f in forms:
        by_op[f.opcode].append(f)
    pool = sorted({v if "{" not in v else v.split("{")[0] for f in forms for vs in f.defs.values()
                   for v in vs if re.match(r"^\.[\w:]+", v)})
    types = sorted({p for p in pool if TYPE_RE.match(p)}) or [".b32"]
    opcodes = sorted(by_op)
    out: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str, str]] = set()
    tries = 0
    while len(out) < count and tries < count * 20:
        tries += 1
        # Every opcode family alike, then a form of it.
        form = rng.choice(by_op[rng.choice(opcodes)])
        line = instantiate(form, rng)
        if not line:
            continue
        target, version = rng.choice(PAIRS)
        if rng.random() < 0.5:
            for _ in range(1 + (rng.random() < 0.25)):
                line = mutate(line, rng, pool, types)
        elif rng.random() < 0.2:
            target, version = older_pair(target, version, rng)
        item = (target, version, line)
        if not braces_ok(line):
            continue  # keep the batches' other lines apart from a broken one
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


# --- judging -----------------------------------------------------------------------------

def judge(path: str, ptxsim: str, ptxas: str | None, jobs: int, batch: int, tsv: str | None,
          agreeing: bool, out: str | None, show: int, cache: str | None = None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import fuzz  # noqa: E402  (the judging harness: module frame, ptxas loop, ptxsim's JSON)
    from concurrent.futures import ThreadPoolExecutor
    ptxas = ptxas or str(fuzz.gen.PTXAS)
    if not Path(ptxas).exists():
        print(f"isagen.py: ptxas not found at {ptxas}; set PTXSIM_NVIDIA_ROOT. Skipping.")
        return 0
    lines = [tuple(l.split(None, 2)) for l in Path(path).read_text().splitlines()
             if l.strip() and not l.startswith("#")]
    by_pair: dict[tuple[str, str, bool], list[str]] = collections.defaultdict(list)
    for t, v, l in lines:
        by_pair[(t, v, fuzz.own_module(t, l))].append(l)
    work = [(t, v, ls[i:i + batch]) for (t, v, _), ls in sorted(by_pair.items())
            for i in range(0, len(ls), batch)]

    # ptxas's verdicts on a batch depend on its pair and lines only: `--cache` keeps them
    # between runs (the before and after runs of a measurement ask ptxas once).
    import hashlib
    import json
    known = json.loads(Path(cache).read_text()) if cache and Path(cache).exists() else {}

    def key(t, v, b):
        return hashlib.sha1("\n".join([t, v, *b]).encode()).hexdigest()

    def run(job):
        t, v, b = job
        theirs = known.get(key(t, v, b))
        if theirs is None:
            theirs = fuzz.ptxas_verdicts(ptxas, t, v, b)
        return theirs, fuzz.ptxsim_verdicts(ptxsim, t, v, b)

    with ThreadPoolExecutor(jobs) as ex:
        results = list(ex.map(run, work))
    if cache:
        for (t, v, b), (theirs, _) in zip(work, results):
            known[key(t, v, b)] = theirs
        Path(cache).write_text(json.dumps(known))
    cnt = collections.Counter()
    per_op = collections.defaultdict(collections.Counter)
    rows, dis = [], []
    for (t, v, b), (theirs, ours) in zip(work, results):
        for l in dict.fromkeys(b):
            pa, sa = l not in theirs, l not in ours
            cnt["accept" if pa else "reject"] += 1
            if pa == sa:
                cnt["agree-" + ("accept" if pa else "reject")] += 1
            else:
                kind = "ptxsim-rejects" if pa else "ptxsim-accepts"
                cnt[kind] += 1
                op = l.split()[1] if l.startswith("@") else l.split()[0]
                per_op[op.split(".")[0]][kind] += 1
                dis.append(f"{kind}\t{t}\t{v}\t{l}\t{theirs.get(l, 'accept')}\t"
                           f"{ours.get(l, 'accept')}")
            # A committed line must not carry a syntax error of ptxsim's: the conformance
            # test puts every table's lines of a pair into one module.
            if (pa == sa or not agreeing) and not (agreeing and ours.get(l, "").startswith("P")):
                rows.append(f"{t}\t{v}\t{l}\t{'accept' if pa else 'reject'}\t{theirs.get(l, '')}")
    total = cnt["accept"] + cnt["reject"]
    agree = cnt["agree-accept"] + cnt["agree-reject"]
    acc = cnt["agree-accept"] / max(cnt["accept"], 1)
    rej = cnt["agree-reject"] / max(cnt["reject"], 1)
    print(f"{path}: {total} lines, ptxas accepts {cnt['accept']}, rejects {cnt['reject']}; "
          f"agree {agree} ({100.0 * agree / max(total, 1):.2f}%); on ptxas's accepted "
          f"{100 * acc:.2f}%, rejected {100 * rej:.2f}%, balanced {50 * (acc + rej):.2f}%; "
          f"ptxsim-rejects {cnt['ptxsim-rejects']}, ptxsim-accepts {cnt['ptxsim-accepts']}")
    for op, c in sorted(per_op.items(), key=lambda kv: -sum(kv[1].values()))[:40]:
        print(f"  {op:<22}{c['ptxsim-rejects']:>7} rejected wrongly{c['ptxsim-accepts']:>7}"
              " accepted wrongly")
    for d in dis[:show]:
        print(d)
    if out:
        Path(out).write_text("\n".join(dis) + "\n")
    if tsv:
        fuzz.write_table(tsv, ptxas, f"scripts/conformance/isagen.py --judge "
                         f"{os.path.basename(path)}{' --agreeing' if agreeing else ''}", rows)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--lines", type=int, default=34000)
    ap.add_argument("--judge", help="judge this lines file (TARGET VERSION INSTRUCTION)")
    ap.add_argument("--ptxsim")
    ap.add_argument("--ptxas")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=400)
    ap.add_argument("--tsv")
    ap.add_argument("--agreeing", action="store_true")
    ap.add_argument("--out", help="write the disagreements here")
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--cache", help="keep ptxas's verdicts in this JSON file between runs")
    args = ap.parse_args()
    if args.judge:
        if not args.ptxsim:
            ap.error("--judge needs --ptxsim")
        return judge(args.judge, args.ptxsim, args.ptxas, args.jobs, args.batch, args.tsv,
                     args.agreeing, args.out, args.show, args.cache)
    for t, v, l in generate(args.seed, args.lines):
        print(f"{t} {v} {l}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
