#!/usr/bin/env python3
"""Lines from real PTX: the repository's kernels' instructions, as written and mutated.

Reads every `.ptx` file of the repository (ptx-samples/ nvcc, Triton and hand-written kernels,
tests/, the fuzz corpus; not .nv/ or target/), takes each instruction line of a function body,
and rewrites its names into the convention of fuzz.py's modules: a register `%rd7` declared
`.reg .b64 %rd<9>` becomes `%b64_7` (index mod 9, plus 1), a variable of a state space becomes
`sym_<space>` (a kernel parameter `sym_param`), a label `L0`; lines naming anything else
(functions, textures, vector registers, `%`-names that are not declared) are left out. The
distinct shapes are then judged as written and mutated (specgen.py's mutations: modifiers
dropped, repeated, moved, unknown, types and state spaces swapped, registers of other widths
and kinds, immediates, symbols, the sink, vectors, one operand too few or too many), each on
one of eight (.target, .version) pairs. The output is a lines file for `fuzz.py --file`:

  python3 scripts/conformance/realmut.py --seed 7 --lines 6000 > /tmp/real7.txt
  python3 scripts/conformance/fuzz.py --ptxsim target/release/ptxsim --file /tmp/real7.txt

Standard library only.
"""
from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import specgen  # noqa: E402  (the mutations)

ROOT = Path(__file__).resolve().parents[2]
PAIRS = [("sm_70", "7.0"), ("sm_75", "7.3"), ("sm_80", "7.8"), ("sm_86", "8.0"),
         ("sm_90a", "8.3"), ("sm_100a", "8.7"), ("sm_120a", "8.8"), ("sm_120a", "9.0")]
REG_TYPES = set(specgen.REGS)
SPACES = ("global", "shared", "const", "local")


def ptx_files() -> list[Path]:
    skip = {"target", ".nv", ".git"}
    return sorted(p for p in ROOT.rglob("*.ptx") if not skip & set(p.relative_to(ROOT).parts))


def shapes(text: str) -> list[str]:
    """The instruction lines of one module, renamed (see the module documentation)."""
    regs: dict[str, str] = {}      # register name or prefix -> type
    prefixes: dict[str, str] = {}  # `%r<10>` prefix -> type
    symbols: dict[str, str] = {}   # variable -> sym_<space>
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    for m in re.finditer(r"\.reg\s+(?:\.v\d\s+)?\.(\w+)\s+([^;]+);", text):
        ty = m.group(1)
        for decl in m.group(2).split(","):
            decl = decl.strip()
            r = re.match(r"^(%?[\w$]+)<(\d+)>$", decl)
            if r:
                prefixes[r.group(1)] = ty
            elif re.match(r"^%?[\w$]+$", decl):
                regs[decl] = ty
    for m in re.finditer(r"\.(global|shared|const|local)\s+(?:\.\w+\s+)*?\.?\w*\s*([A-Za-z_$][\w$]*)\s*[\[;=]",
                         text):
        symbols[m.group(2)] = f"sym_{m.group(1)}"
    for m in re.finditer(r"\.param\s+(?:\.\w+\s+)*?([A-Za-z_$][\w$]*)\s*[\[,)]", text):
        symbols[m.group(1)] = "sym_param"
    labels = set(re.findall(r"^\s*([A-Za-z_$][\w$]*):", text, flags=re.M))
    out = []
    for raw in text.split(";"):
        line = raw.strip()
        # The last statement of a chunk: drop what precedes it on earlier lines.
        line = line.split("\n")[-1].strip() if "\n" in line else line
        line = re.sub(r"^[A-Za-z_$][\w$]*:\s*", "", line)
        if not line or line[0] in ".{}@" and not line.startswith("@"):
            continue
        if line.startswith("@"):
            guard, _, line = line.partition(" ")
        if not re.match(r"^[a-z][a-z0-9_]*[. ]", line + " ") or line.startswith(("call", "ret")):
            continue
        ok = True

        def rename(name: str) -> str:
            nonlocal ok
            if name in regs and regs[name] in REG_TYPES:
                return f"%{regs[name]}_1"
            r = re.match(r"^(%?[A-Za-z_$][\w$]*?)(\d+)$", name)
            if r and r.group(1) in prefixes and prefixes[r.group(1)] in REG_TYPES:
                return f"%{prefixes[r.group(1)]}_{int(r.group(2)) % 9 + 1}"
            if name in symbols:
                return symbols[name]
            if name in labels:
                return "L0"
            if re.match(r"^%(tid|ntid|ctaid|nctaid|laneid|warpid|clock|smid|nsmid|lanemask|"
                        r"envreg|pm|globaltimer|dynamic_smem|total_smem|cluster|is_explicit)", name):
                return name
            ok = False
            return name

        mn, _, rest = line.partition(" ")
        rest = re.sub(r"(?<![\w$.%])%?[A-Za-z_$][\w$]*(?:\.[xyzw]\b)?",
                      lambda m: rename_comp(m.group(0), rename), rest)
        if ok and "\n" not in rest:
            out.append(f"{mn} {' '.join(rest.split())};" if rest.strip() else f"{mn};")
    return out


def rename_comp(token: str, rename) -> str:
    """A name with its `.x` component: only special registers keep one."""
    base, dot, comp = token.partition(".")
    renamed = rename(base) if not base.startswith("%") or not re.match(
        r"^%(tid|ntid|ctaid|nctaid|clusterid|nclusterid|cluster_ctaid|cluster_nctaid)$", base) \
        else base
    return renamed + (dot + comp if dot else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--lines", type=int, default=6000)
    ap.add_argument("--mutated", type=float, default=0.75, help="share of mutated lines")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    found: dict[str, None] = {}
    files = ptx_files()
    for path in files:
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for s in shapes(text):
            found.setdefault(s)
    plain = sorted(found)
    words = sorted({w for l in plain for w in l.split(" ")[0].split(".")[1:]})
    out, seen = [], set()
    tries = 0
    while len(out) < args.lines and tries < args.lines * 20:
        tries += 1
        line = rng.choice(plain)
        if rng.random() < args.mutated:
            line = specgen.mutate(line, words, rng)
            if rng.random() < 0.3:
                line = specgen.mutate(line, words, rng)
        t, v = rng.choice(PAIRS)
        if "%b128_" in line and v < "8.3":
            continue
        if (t, v, line) in seen:
            continue
        seen.add((t, v, line))
        out.append((t, v, line))
    for t, v, l in out:
        print(f"{t} {v} {l}")
    print(f"realmut: {len(files)} files, {len(plain)} distinct instruction shapes, {len(out)} lines",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
