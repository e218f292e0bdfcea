#!/usr/bin/env python3
"""Lines from hand-written PTX: the inline assembly of real CUDA projects.

Takes local checkouts (paths as arguments; nothing of them is committed), reads every `.h`,
`.hpp`, `.cuh`, `.cu` and `.inl` file, and extracts the PTX of each `asm("..." : outputs :
inputs : clobbers)` statement (`asm`, `__asm__`, with `volatile`/`__volatile__`):

* the template is the concatenation of its C string literals (escapes and line continuations
  undone); a template with anything else in it (a macro, a `std::string`) or a preprocessor
  line inside the statement is skipped and counted;
* `//` comments inside the PTX are dropped and its lines joined into one line, so a
  `{ .reg .pred p; setp...; @p bra L; L: }` block with its own local registers becomes one
  line (a block-less template that declares registers or labels is put inside `{ }`, as
  nvcc's own inlining scopes it);
* `%%` becomes `%`; `%N` becomes the register of operand N (outputs first, then inputs) by
  its constraint in fuzz.py's naming convention: `"r"` a `%b32_<k>`, `"l"` `%b64_<k>`, `"h"`
  `%b16_<k>`, `"f"` `%f32_<k>`, `"d"` `%f64_<k>`, `"q"` `%b128_<k>` (k counts the operands
  of that type), and `"n"` an immediate (its value is a compile-time constant the source
  does not show: 0, or the smallest value the instruction takes where 0 is out of range,
  see `IMMEDIATE`); other constraints are skipped and counted.

Each distinct line is printed as `TARGET VERSION INSTRUCTION` for `fuzz.py --file` on the
pairs of `PAIRS`. Where the statement sits under a libcu++-style gate (`#if __cccl_ptx_isa >=
NNN` and `__CUDA_ARCH__ >= XXX`, `_LIBCUDA_PTX_ARCH_SPECIFIC() == XXX`,
`_LIBCUDA_PTX_ARCH_FAMILY_SPECIFIC() == XXX`), the line is also judged at the gate (the lowest
version on the lowest target the header names) and one version below it, so the gates the
wrappers state are compared with ptxas's and ptxsim's.

  python3 scripts/conformance/inlineasm.py SRC... [--stats] > /tmp/asm.txt
  python3 scripts/conformance/fuzz.py --ptxsim target/debug/examples/check_json \
      --file /tmp/asm.txt
  python3 scripts/conformance/fuzz.py --ptxsim target/debug/examples/check_json \
      --file /tmp/asm.txt --agreeing --tsv /tmp/asm.tsv
  python3 scripts/conformance/inlineasm.py --table /tmp/asm.tsv tests/conformance/inlineasm.tsv.xz

`--table` keeps, of each instruction line, one row per distinct verdict and message (the first
pair that gives it; lines of 500 characters or more one row per verdict), and writes the rows
xz-compressed with this header: the conformance table
`tests/conformance/inlineasm.tsv.xz`, which `crates/check/tests/conformance.rs` reads.

`--mutate N --seed S` prints N lines instead: the single-instruction lines (not the `{ }`
blocks) mutated once or twice with specgen.py's mutations and the sources' own modifier
vocabulary (a modifier dropped, repeated, moved, replaced, another type or state space, a
register of another kind, an operand too few or too many, ...), each on a random pair of
`PAIRS`: held-out variations of the newest forms.

`--stats` prints, per checkout, the statements found, the lines extracted and the reasons for
the skipped ones to stderr. `--gates TSV` reads the verdicts `fuzz.py --tsv` wrote for these
lines and compares each stated gate with ptxas's: accepted at the gate, rejected one version
below it (a tight gate), or rejected at it (a gate below ptxas's). Standard library only.
"""
from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Every line is judged on these (.target, .version) pairs (all accepted as a header by ptxas
# 13.5: tests/conformance/targets.tsv).
PAIRS = [("sm_80", "7.8"), ("sm_90a", "8.0"), ("sm_90a", "8.7"), ("sm_100a", "8.8"),
         ("sm_100a", "9.1"), ("sm_103a", "9.0"), ("sm_120a", "8.8"), ("sm_120a", "9.1")]

# The register type of each operand constraint letter (the CUDA inline PTX guide's table).
CONSTRAINTS = {"r": "b32", "l": "b64", "h": "b16", "f": "f32", "d": "f64", "q": "b128"}

# `"n"` operands: the value where 0 is not a value the instruction takes (setmaxnreg's count
# is a multiple of 8 in 24..256: PTX ISA 9.0, setmaxnreg; the size of tensormap.cp_fenceproxy
# and fence.proxy.tensormap::generic is 128, as ptxas 13.5 says: "expected to be 128").
IMMEDIATE = {"setmaxnreg": "240", "tensormap.cp_fenceproxy": "128",
             "fence.proxy.tensormap::generic": "128"}

# The PTX ISA versions ptxas 13.5 knows, for "one version below" a gate.
VERSIONS = ["6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5",
            "7.6", "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8",
            "9.0", "9.1", "9.2"]

SUFFIXES = {".h", ".hpp", ".cuh", ".cu", ".inl"}
ASM = re.compile(r"\b(?:asm|__asm__|__asm)\b(?:\s+(?:volatile|__volatile__))?\s*\(")


def blank_comments(text: str) -> str:
    """The text with C/C++ comments replaced by spaces (newlines kept), strings left alone."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"' and re.search(r'(?:^|\W)(?:u8|u|U|L)?R$', text[max(0, i - 4):i]):
            # A raw string `R"delim(...)delim"` (code generators' templates): not code.
            m = re.match(r'"([^(\s]*)\(', text[i:])
            j = text.find(")" + (m.group(1) if m else "") + '"', i) if m else -1
            j = n if j < 0 else j + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def tokens(body: str):
    """The top-level tokens of an asm statement's parentheses: ('str', text), (':',),
    (',',), ('paren', text) for a parenthesized operand expression, ('word', text)."""
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c.isspace():
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and body[j] != '"':
                j += 2 if body[j] == "\\" else 1
            yield ("str", body[i + 1:j])
            i = j + 1
        elif c == ":":
            yield (":",)
            i += 1
        elif c == ",":
            yield (",",)
            i += 1
        elif c == "(":
            depth, j = 0, i
            while j < n:
                if body[j] == "(":
                    depth += 1
                elif body[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                elif body[j] == '"':
                    j += 1
                    while j < n and body[j] != '"':
                        j += 2 if body[j] == "\\" else 1
                j += 1
            yield ("paren", body[i:j + 1])
            i = j + 1
        else:
            m = re.match(r"[A-Za-z_][\w:<>]*|\S", body[i:])
            yield ("word", m.group(0))
            i += len(m.group(0))


def statement_end(text: str, start: int) -> int:
    """The index of the `)` closing the parenthesis before `start`, or -1."""
    depth, j, n = 1, start, len(text)
    while j < n:
        c = text[j]
        if c == '"':
            j += 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return -1


def unescape(s: str) -> str:
    s = s.replace("\\\n", "")
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": ""}.get(m.group(1), m.group(1)),
                  s)


class Skip(Exception):
    pass


def convert(body: str) -> str:
    """One asm statement's parenthesized text -> one line of PTX in fuzz.py's convention."""
    if re.search(r"^\s*#", body, re.M):
        raise Skip("preprocessor line inside the statement")
    sections: list[list[tuple]] = [[]]
    for tok in tokens(body):
        if tok[0] == ":":
            sections.append([])
        else:
            sections[-1].append(tok)
    template = sections[0]
    if not template or any(t[0] != "str" for t in template):
        raise Skip("template is not only string literals (macro)")
    ptx = unescape("".join(t[1] for t in template))
    operands: list[str] = []  # constraint letter per operand index
    for sec in sections[1:3]:
        for tok in sec:
            if tok[0] == "str":
                operands.append(tok[1].lstrip("=+&"))
    # Comments in the PTX end at its newlines; then the statements become one line.
    ptx = "\n".join(re.sub(r"//.*", "", l) for l in ptx.split("\n"))
    ptx = re.sub(r"/\*.*?\*/", " ", ptx, flags=re.S)
    ptx = re.sub(r"\s+", " ", ptx).strip()
    if not ptx:
        raise Skip("empty template")
    if "\t" in ptx:
        raise Skip("tab")
    counts: collections.Counter = collections.Counter()
    names: dict[int, str] = {}
    mnemonic = ptx.lstrip("{ ").split(" ")[0]

    def operand(m: re.Match) -> str:
        if m.group(0) == "%%":
            return "%"
        idx = int(m.group(1))
        if idx >= len(operands):
            raise Skip("placeholder beyond the operands")
        c = operands[idx]
        if idx not in names:
            if c == "n":
                names[idx] = next((v for k, v in IMMEDIATE.items()
                                   if mnemonic.startswith(k + ".")), "0")
            elif c in CONSTRAINTS:
                ty = CONSTRAINTS[c]
                names[idx] = f"%{ty}_{counts[ty]}"
                counts[ty] += 1
            else:
                raise Skip(f"constraint \"{c}\"")
        return names[idx]

    if re.search(r"%[=\[a-zA-Z{]", ptx.replace("%%", "")):
        raise Skip("operand modifier (%=, %[name], %cN)")
    ptx = re.sub(r"%%|%(\d+)", operand, ptx)
    if ptx.count("{") != ptx.count("}"):
        raise Skip("a { } block split over several statements")
    if not ptx.endswith((";", "}")):
        ptx += ";"
    if not ptx.startswith("{") and (".reg" in ptx or re.search(r"(^|; )\$?\w+:", ptx)):
        ptx = "{ " + ptx + " }"
    return ptx


def gate(pre: str) -> tuple[str, str] | None:
    """The (target, version) a libcu++-style gate above the statement names, if any."""
    isa = re.findall(r"#\s*if\s+__cccl_ptx_isa\s*>=\s*(\d+)", pre)
    arch_lines = re.findall(
        r"#\s*(?:el)?if\s+[^\n]*(?:__CUDA_ARCH__|_LIBCUDA_PTX_ARCH)[^\n]*(?:\\\n[^\n]*)*", pre)
    if not isa or not arch_lines:
        return None
    n = int(isa[-1])
    version = f"{n // 100}.{n % 100 // 10}"
    line = arch_lines[-1]
    m = re.search(r"__CUDA_ARCH__\s*>=\s*(\d+)", line)
    specific = re.findall(r"_LIBCUDA_PTX_ARCH_SPECIFIC\(\)\s*==\s*(\d+)", line)
    family = re.findall(r"_LIBCUDA_PTX_ARCH_FAMILY_SPECIFIC\(\)\s*==\s*(\d+)", line)
    if m:
        target = f"sm_{int(m.group(1)) // 10}"
    elif specific:
        target = f"sm_{min(int(x) for x in specific) // 10}a"
    elif family:
        target = f"sm_{min(int(x) for x in family) // 10}f"
    else:
        return None
    return target, version


def extract(path: Path, stats: collections.Counter) -> list[tuple[str, tuple[str, str] | None]]:
    try:
        raw = path.read_text(errors="replace")
    except OSError:
        return []
    text = blank_comments(raw)
    out = []
    for m in ASM.finditer(text):
        end = statement_end(text, m.end())
        if end < 0:
            stats["skip: unbalanced parentheses"] += 1
            continue
        stats["statements"] += 1
        try:
            line = convert(text[m.end():end])
        except Skip as e:
            stats[f"skip: {e}"] += 1
            continue
        stats["extracted"] += 1
        # The nearest gate: the preprocessor lines since the previous wrapper's `#endif`.
        pre = text[:m.start()]
        k = pre.rfind("#endif")
        out.append((line, gate(pre[k:] if k >= 0 else pre)))
    return out


def valid_headers() -> set[tuple[str, str]]:
    path = ROOT / "tests" / "conformance" / "targets.tsv"
    ok = set()
    for l in path.read_text().splitlines():
        f = l.split("\t")
        if len(f) >= 3 and f[2] == "accept":
            ok.add((f[0], f[1]))
    return ok


def mutated(lines: list[str], count: int, seed: int) -> int:
    """`count` mutations of the single-instruction lines, each on a random pair of PAIRS."""
    import random
    import specgen
    rng = random.Random(seed)
    # The mnemonic apart from the operands (`tcgen05.ld...b32{%r0}` is written without a space
    # in places), as specgen.py's `split` expects.
    plain = [re.sub(r"^([\w.:]+)\s*", r"\1 ", l) for l in lines
             if not l.startswith("{") and l.count(";") == 1]
    words = sorted({w for l in plain for w in l.split(" ")[0].rstrip(";").split(".")[1:]})
    seen: set[tuple[str, str, str]] = set()
    tries = 0
    while len(seen) < count and tries < count * 20:
        tries += 1
        line = specgen.mutate(rng.choice(plain), words, rng)
        if rng.random() < 0.3:
            line = specgen.mutate(line, words, rng)
        target, version = rng.choice(PAIRS)
        if (target, version, line) not in seen and "\t" not in line:
            seen.add((target, version, line))
            print(f"{target} {version} {line}")
    return 0


def write_table(tsv: str, out: str) -> int:
    """The conformance table: one row per instruction line and distinct verdict and message."""
    import lzma
    head: list[str] = []
    rows: list[str] = []
    seen: set[tuple[str, str, str]] = set()
    for row in Path(tsv).read_text().splitlines():
        if row.startswith("#") or row.startswith("target\t"):
            head.append(row)
            continue
        f = row.split("\t")
        # Long lines (wgmma's and tcgen05.ld's register vectors) keep one row per verdict,
        # which keeps the table's test fast.
        key = (f[2], f[3], f[4] if len(f[2]) < 500 else "")
        if key not in seen:
            seen.add(key)
            rows.append(row)
    head[0] = ("# generated by scripts/conformance/inlineasm.py (the inline assembly of CUTLASS,"
               " libcu++, DeepGEMM and ThunderKittens), judged by fuzz.py --file --agreeing;"
               " one row per line and verdict (and message, below 500 characters); do not edit")
    text = "\n".join(head + rows) + "\n"
    Path(out).write_bytes(lzma.compress(text.encode(), preset=9))
    print(f"{len(rows)} rows, {len({r[0] for r in seen})} lines -> {out}")
    return 0


def gate_report(lines: dict[str, set], tsv: str) -> int:
    """Prints how the gates the sources state compare with ptxas's verdicts in `tsv`."""
    verdict: dict[tuple[str, str, str], tuple[str, str]] = {}
    for row in Path(tsv).read_text().splitlines():
        f = row.split("\t")
        if len(f) == 5 and not row.startswith("#"):
            verdict[(f[0], f[1], f[2])] = (f[3], f[4])
    counts: collections.Counter = collections.Counter()
    for line, gates in sorted(lines.items()):
        for target, version in sorted(gates):
            at = verdict.get((target, version, line))
            i = VERSIONS.index(version) if version in VERSIONS else 0
            below = verdict.get((target, VERSIONS[i - 1], line)) if i > 0 else None
            if at is None:
                counts["gate pair not judged (no such header)"] += 1
            elif at[0] == "reject":
                counts["rejected at the stated gate"] += 1
                print(f"below ptxas's gate: {target} {version} {line[:100]} | {at[1]}")
            elif below and below[0] == "reject":
                counts["accepted at the gate, rejected one version below"] += 1
            elif below:
                counts["accepted one version below the gate too"] += 1
            else:
                counts["accepted at the gate (no lower version on that target)"] += 1
    for k, n in counts.most_common():
        print(f"{n:6} {k}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sources", nargs="*", help="checkout directories")
    ap.add_argument("--table", nargs=2, metavar=("TSV", "OUT"),
                    help="write the conformance table OUT (.tsv.xz) from fuzz.py's TSV")
    ap.add_argument("--stats", action="store_true")
    ap.add_argument("--no-gates", action="store_true", help="only the PAIRS")
    ap.add_argument("--gates", help="compare the stated gates with this fuzz.py --tsv output")
    ap.add_argument("--mutate", type=int, metavar="N", help="print N mutated lines instead")
    ap.add_argument("--seed", type=int, default=1, help="the --mutate seed")
    args = ap.parse_args()
    if args.table:
        return write_table(*args.table)
    if not args.sources:
        ap.error("no checkout directories")
    headers = valid_headers()
    lines: dict[str, set] = {}
    seen_total: set[str] = set()
    for src in args.sources:
        stats: collections.Counter = collections.Counter()
        distinct: set[str] = set()
        root = Path(src)
        for p in sorted(root.rglob("*")):
            if p.suffix in SUFFIXES and p.is_file():
                for line, g in extract(p, stats):
                    distinct.add(line)
                    lines.setdefault(line, set())
                    if g:
                        lines[line].add(g)
        new = distinct - seen_total
        seen_total |= distinct
        if args.stats:
            print(f"{root.name}: {stats['statements']} asm statements, {stats['extracted']}"
                  f" extracted, {len(distinct)} distinct lines ({len(new)} not in an earlier"
                  f" source)", file=sys.stderr)
            for k, v in sorted(stats.items()):
                if k.startswith("skip"):
                    print(f"  {k}: {v}", file=sys.stderr)
    if args.gates:
        return gate_report(lines, args.gates)
    if args.mutate:
        return mutated(sorted(lines), args.mutate, args.seed)
    rows = []
    for line in sorted(lines):
        pairs = list(PAIRS)
        if not args.no_gates:
            for target, version in sorted(lines[line]):
                pairs.append((target, version))
                if version in VERSIONS and VERSIONS.index(version) > 0:
                    pairs.append((target, VERSIONS[VERSIONS.index(version) - 1]))
        for t, v in dict.fromkeys(pairs):
            if (t, v) in headers:
                rows.append(f"{t} {v} {line}")
    print("\n".join(rows))
    if args.stats:
        print(f"{len(lines)} distinct lines, {len(rows)} judged lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
