#!/usr/bin/env python3
"""A fifth probe: whole modules as a compiler emits them, from a corpus nobody here wrote.

  python3 scripts/conformance/realcorpus.py compile SRC_DIR OUT_DIR [--jobs 2] [--configs 1]
  python3 scripts/conformance/realcorpus.py judge OUT_DIR --ptxsim BIN [--cache F] [--show N]
  python3 scripts/conformance/realcorpus.py mutate OUT_DIR --seed N --modules N --ptxsim BIN
  python3 scripts/conformance/realcorpus.py lines OUT_DIR --seed N --lines N > lines.txt

`compile` runs `nvcc -ptx` on every `.cu` file under SRC_DIR (a checkout of a benchmark
collection: HeCBench's `src/`, Rodinia's `cuda/`) with `-I` its own directory, its parent and
the CUDA headers, each file under `--configs` of the configurations of CONFIGS (chosen by the
file's position, so that every configuration gets a share of the files): `-arch sm_90a` and
`sm_100a` plain, with `-G` (DWARF sections, `.loc`), `-lineinfo`, `-rdc=true`,
`--use_fast_math`, and `sm_75`, `sm_80`, `sm_120a`. A file that does not compile (missing
headers, other host code) is skipped. nvcc comes from `$PTXSIM_NVIDIA_ROOT/nvidia/cu13/bin`.

`judge` asks `ptxas -arch <the module's .target> m.ptx -o /dev/null` and `BIN check --format
json` (`ptxsim check` or the check-only `check_json`) about every module of OUT_DIR and prints
the agreement, the time of each per megabyte, and the disagreements.

`mutate` derives modules from the corpus and judges each whole: one line of a small module is
changed with the corpus's own vocabulary (a modifier swapped for one another instruction of the
same opcode carries in the corpus, a modifier removed or doubled, a type or width changed, a
state space changed, an operand's register swapped for one of another type), or the module is
retargeted (`.target`/`.version` lowered to older ones, so that gates are hit) or loses a
declaration. `--tsv F` writes the agreeing ones as `verdict<TAB>module` rows (the format of
`tests/conformance/modgen-modules.txt.xz`).

`lines` prints the corpus's instruction lines, renamed into fuzz.py's convention and mutated
with the same vocabulary, as `TARGET VERSION INSTRUCTION` lines for `fuzz.py --file`.

Standard library only; at most `--jobs` processes at a time.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402  (ptxas location, -arch choice)
import modgen  # noqa: E402  (ptxas and ptxsim verdicts on whole modules)
import realmut  # noqa: E402  (renaming a module's lines into fuzz.py's convention)

NVCC = gen.PTXAS.parent / "nvcc"
INCLUDE = gen.PTXAS.parent.parent / "include"
CONFIGS = [
    ("sm90a", ["-arch", "sm_90a"]),
    ("sm100a", ["-arch", "sm_100a"]),
    ("sm90a-G", ["-arch", "sm_90a", "-G"]),
    ("sm100a-lineinfo", ["-arch", "sm_100a", "-lineinfo"]),
    ("sm90a-rdc", ["-arch", "sm_90a", "-rdc=true"]),
    ("sm100a-fastmath", ["-arch", "sm_100a", "--use_fast_math"]),
    ("sm75", ["-arch", "sm_75"]),
    ("sm80-lineinfo", ["-arch", "sm_80", "-lineinfo"]),
    ("sm120a", ["-arch", "sm_120a"]),
    ("sm100a-G-rdc", ["-arch", "sm_100a", "-G", "-rdc=true"]),
    ("sm90a-lineinfo-fastmath", ["-arch", "sm_90a", "-lineinfo", "--use_fast_math"]),
    ("sm120a-G", ["-arch", "sm_120a", "-G"]),
]
# Older (.target, .version) pairs a module is retargeted to by `mutate`.
OLDER = [("sm_50", "6.0"), ("sm_60", "6.3"), ("sm_70", "7.0"), ("sm_75", "7.3"),
         ("sm_80", "7.0"), ("sm_80", "7.8"), ("sm_86", "7.1"), ("sm_89", "7.8"),
         ("sm_90", "8.0"), ("sm_90a", "7.8"), ("sm_100a", "8.6"), ("sm_100a", "8.7"),
         ("sm_120a", "8.7"), ("sm_90", "8.8"), ("sm_52", "7.0"), ("sm_61", "6.5")]


def compile_one(src: Path, root: Path, out: Path, name: str, flags: list[str]) -> str:
    rel = src.relative_to(root)
    dest = out / (re.sub(r"[^\w.-]", "_", str(rel.with_suffix(""))) + f".{name}.ptx")
    if dest.exists():
        return "cached"
    # CUDA 13 dropped cudaThreadSynchronize, which older benchmarks (Rodinia) still call.
    cmd = [str(NVCC), "-ptx", *flags, "-DcudaThreadSynchronize=cudaDeviceSynchronize", "-I", str(src.parent), "-I", str(src.parent.parent),
           "-I", str(INCLUDE), str(src), "-o", str(dest)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, cwd=src.parent)
    except subprocess.TimeoutExpired:
        dest.unlink(missing_ok=True)
        return "timeout"
    if p.returncode != 0:
        dest.unlink(missing_ok=True)
        return "failed"
    return "ok"


def cmd_compile(args) -> int:
    root = Path(args.src).resolve()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sources = sorted(p for p in root.rglob("*.cu") if p.is_file())
    jobs = []
    for i, src in enumerate(sources):
        for k in range(args.configs):
            name, flags = CONFIGS[(i + k * 5) % len(CONFIGS)]
            jobs.append((src, name, flags))
    counts: dict[str, int] = {}
    with concurrent.futures.ThreadPoolExecutor(min(args.jobs, 2)) as ex:
        for r in ex.map(lambda j: compile_one(j[0], root, out, j[1], j[2]), jobs):
            counts[r] = counts.get(r, 0) + 1
    print(f"realcorpus: {len(sources)} .cu files, {len(jobs)} compilations: {counts}",
          file=sys.stderr)
    return 0


def target_of(text: str) -> str:
    m = re.search(r"^\s*\.target\s+(\w+)", text, flags=re.M)
    return m.group(1) if m else "sm_90"


# ptxas's fatal errors after a module assembled: whole-program linking and 32-bit code
# generation, docs/divergences.md D27 and D28.
LINK_OR_32BIT = ("Unresolved extern function", "Cannot take address of function",
                 "32-Bit compilation is no longer supported", "32-Bit ABI")


def assembler_verdict(target: str, path: Path) -> str:
    """`ptxas -arch sm_XX`'s verdict, or where that stops at whole-program linking or 32-bit
    code generation (D27, D28: nothing on a line is wrong) the verdict of `-arch compute_XX`,
    the assembler alone, which ptxsim follows there."""
    v = modgen.ptxas_verdict(str(gen.PTXAS), target, path)
    if any(f in v for f in LINK_OR_32BIT):
        v = modgen.ptxas_verdict(str(gen.PTXAS), target, path, compute=True)
    return v


def ptxas_verdicts(items: list[tuple[str, Path]], jobs: int, cache: dict, key,
                   assembler: bool = False) -> list[str]:
    """ptxas's first error ('' if accepted) for each (target, path), through `cache`;
    `assembler`: `assembler_verdict`'s."""
    todo = [(t, p) for t, p in items if key(t, p) not in cache]

    def one(tp):
        start = time.perf_counter()
        v = (assembler_verdict(tp[0], tp[1]) if assembler
             else modgen.ptxas_verdict(str(gen.PTXAS), tp[0], tp[1]))
        return v, time.perf_counter() - start
    with concurrent.futures.ThreadPoolExecutor(min(jobs, 2)) as ex:
        for (t, p), (v, secs) in zip(todo, ex.map(one, todo)):
            cache[key(t, p)] = [re.sub(r"^\S*\.ptx, ", "", v), secs]
    return [cache[key(t, p)][0] for t, p in items]


def load_cache(path: str | None) -> dict:
    if path and os.path.exists(path):
        return json.loads(Path(path).read_text())
    return {}


def cmd_judge(args) -> int:
    files = sorted(Path(args.out).glob("*.ptx"))
    cache = load_cache(args.cache)
    items = [(target_of(f.read_text(errors="replace")), f) for f in files]
    nv = ptxas_verdicts(items, args.jobs, cache, lambda t, p: p.name, args.assembler)
    if args.cache:
        Path(args.cache).write_text(json.dumps(cache))
    start = time.perf_counter()
    ours = modgen.ptxsim_verdicts(args.ptxsim, files)
    ours_secs = time.perf_counter() - start
    size = sum(f.stat().st_size for f in files)
    ptxas_secs = sum(cache[f.name][1] for f in files)
    rows = [(f, t, theirs, ours[str(f)]) for (t, f), theirs in zip(items, nv)
            if theirs != "ptxas timed out" and not theirs.startswith("exit -")]
    acc = [r for r in rows if r[2] == ""]
    agree = [r for r in rows if (r[2] == "") == (r[3] == "")]
    we_reject = [r for r in rows if r[2] == "" and r[3] != ""]
    we_accept = [r for r in rows if r[2] != "" and r[3] == ""]
    print(f"modules {len(rows)} ({size / 1e6:.1f} MB), ptxas accepts {len(acc)}, agree "
          f"{len(agree)} ({100 * len(agree) / max(len(rows), 1):.2f}%), ptxsim rejects/ptxas "
          f"accepts {len(we_reject)}, ptxsim accepts/ptxas rejects {len(we_accept)}")
    print(f"time: ptxas {ptxas_secs:.1f} s ({ptxas_secs / max(size / 1e6, 1e-9):.2f} s/MB, one "
          f"process per module), ptxsim {ours_secs:.1f} s ({ours_secs / max(size / 1e6, 1e-9):.3f}"
          " s/MB, 500 modules per process)")
    by_config: dict[str, list[int]] = {}
    for f, _, theirs, mine in rows:
        c = by_config.setdefault(f.name.split(".")[-2], [0, 0])
        c[0] += 1
        c[1] += (theirs == "") == (mine == "")
    for c, (n, a) in sorted(by_config.items()):
        print(f"  {c:24} {n:5} agree {a:5}")
    for f, t, theirs, mine in (we_reject + we_accept)[:args.show]:
        print(f"==== {f.name} ({t}): ptxas: {theirs or 'accept'} | ptxsim: {mine or 'accept'}")
    if args.tsv:
        agreeing = [(f.read_text(errors="replace"), theirs) for f, _, theirs, mine in rows
                    if (theirs == "") == (mine == "")]
        write_tsv(args.tsv, f"realcorpus.py judge {Path(args.out).name}"
                  f"{' --assembler' if args.assembler else ''}",
                  [(theirs == "", text) for text, theirs in agreeing
                   if len(text) <= args.tsv_chars])
    return 0


def write_tsv(path: str, command: str, rows: list[tuple[bool, str]]) -> None:
    """Writes `verdict<TAB>module` rows (`\\n`, `\\t`, `\\\\` escaped), the format of
    `tests/conformance/modgen-modules.txt.xz`; appends where the file exists."""
    new = not os.path.exists(path)
    with open(path, "a") as f:
        if new:
            f.write("# generated by scripts/conformance/realcorpus.py; modules ptxas and "
                    "ptxsim agree on\n")
            version = subprocess.run([str(gen.PTXAS), "--version"], capture_output=True,
                                     text=True).stdout.strip().splitlines()
            f.write(f"# ptxas: {version[-1] if version else '?'}\n")
            f.write("verdict\tmodule\n")
        f.write(f"# command: {command}; ptxas -arch <target> m.ptx -o /dev/null\n")
        for accept, text in rows:
            esc = text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
            f.write(f"{'accept' if accept else 'reject'}\t{esc}\n")


# ---- mutations with the corpus's vocabulary ----

INSTR = re.compile(r"^(\s*(?:@!?%?\w+\s+)?)([a-z][\w]*)((?:\.[\w:]+)*)(\s+[^;]*)?;")
TYPES = ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
         "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred", "tf32", "e4m3", "e5m2"]
SPACES = ["global", "shared", "local", "const", "param", "shared::cta", "shared::cluster",
          "param::entry", "param::func", "generic"]


def vocabulary(texts: list[str]) -> dict[str, list[str]]:
    """opcode -> the distinct modifier lists the corpus gives it."""
    vocab: dict[str, set[str]] = {}
    for text in texts:
        for line in text.splitlines():
            m = INSTR.match(line)
            if m:
                vocab.setdefault(m.group(2), set()).add(m.group(3))
    return {k: sorted(v) for k, v in vocab.items()}


MODULE_REGS = ["%rs1", "%r1", "%rd1", "%f1", "%fd1", "%p1", "%h1", "%hh1"]
LINE_REGS = ["%b16_1", "%b32_1", "%b64_1", "%f32_1", "%f64_1", "%pred_1", "%f16_1", "%f16x2_1",
             "%b128_1", "%u32_1", "%s64_1"]


def mutate_line(line: str, vocab: dict[str, list[str]], rng: random.Random,
                regs: list[str] = MODULE_REGS) -> str | None:
    """`line` with one mutation from the corpus's vocabulary (None where the one drawn does
    not apply); `regs`: the registers an operand may be swapped for."""
    m = INSTR.match(line)
    if not m:
        return None
    guard, op, mods, rest = m.group(1), m.group(2), m.group(3), m.group(4) or ""
    words = [w for w in mods.split(".") if w]
    kind = rng.randrange(8)
    if kind == 0 and len(vocab.get(op, [])) > 1:      # another modifier list of this opcode
        mods = rng.choice(vocab[op])
        return f"{guard}{op}{mods}{rest};"
    if kind == 1 and words:                             # a modifier removed
        del words[rng.randrange(len(words))]
    elif kind == 2 and words:                           # a modifier doubled
        i = rng.randrange(len(words))
        words.insert(i, words[i])
    elif kind == 3:                                     # a type or width changed
        idx = [i for i, w in enumerate(words) if w in TYPES or re.match(r"^v\d$", w)]
        if not idx:
            return None
        i = rng.choice(idx)
        words[i] = rng.choice(["v2", "v4", "v8"]) if words[i].startswith("v") else rng.choice(TYPES)
    elif kind == 4:                                     # a state space changed
        idx = [i for i, w in enumerate(words) if w in SPACES]
        if not idx:
            return None
        words[rng.choice(idx)] = rng.choice(SPACES)
    elif kind == 5:                                     # a modifier of another list moved in
        other = [w for ms in vocab.get(op, []) for w in ms.split(".") if w and w not in words]
        if not other:
            return None
        words.insert(rng.randrange(len(words) + 1), rng.choice(other))
    elif kind == 6:                                     # a register swapped for another kind
        names = re.findall(r"%[a-z]+\d+(?:_\d+)?", rest)
        if not names:
            return None
        rest = rest.replace(rng.choice(names), rng.choice(regs), 1)
    else:                                               # an operand dropped or doubled
        ops = [o for o in rest.split(",")]
        if len(ops) < 2 or "{" in rest or "(" in rest:
            return None
        i = rng.randrange(len(ops))
        if rng.random() < 0.5:
            del ops[i]
        else:
            ops.insert(i, ops[i])
        rest = ",".join(ops)
    return f"{guard}{op}{''.join('.' + w for w in words)}{rest};"


def mutate_module(text: str, vocab, rng: random.Random) -> tuple[str, str, str] | None:
    """(kind, the mutated module, what changed), or None where the mutation does not apply."""
    lines = text.split("\n")
    kind = rng.random()
    if kind < 0.2:                                      # retargeted to an older pair
        t, v = rng.choice(OLDER)
        out = re.sub(r"^\.version\s+\S+", f".version {v}", text, count=1, flags=re.M)
        out = re.sub(r"^\.target\s+\w+", f".target {t}", out, count=1, flags=re.M)
        return "retarget", out, f".target {t} .version {v}"
    if kind < 0.3:                                      # a declaration dropped
        idx = [i for i, l in enumerate(lines)
               if re.match(r"^\s*(\.reg|\.shared|\.global|\.const|\.local|\.extern|\.func|"
                           r"\.visible \.func|\.file)\b", l) and l.rstrip().endswith(";")]
        if not idx:
            return None
        i = rng.choice(idx)
        what = lines[i].strip()
        del lines[i]
        return "drop-decl", "\n".join(lines), what
    idx = [i for i, l in enumerate(lines) if INSTR.match(l)]
    if not idx:
        return None
    i = rng.choice(idx)
    new = mutate_line(lines[i], vocab, rng)
    if new is None or new == lines[i]:
        return None
    lines[i] = new
    return "line", "\n".join(lines), new.strip()


def corpus(out_dir: str, max_chars: int) -> list[tuple[Path, str]]:
    files = sorted(Path(out_dir).glob("*.ptx"))
    got = []
    for f in files:
        text = f.read_text(errors="replace")
        if len(text) <= max_chars:
            got.append((f, text))
    return got


def cmd_mutate(args) -> int:
    rng = random.Random(args.seed)
    pool = corpus(args.out, args.max_chars)
    vocab = vocabulary([t for _, t in corpus(args.out, 10 ** 9)])
    modules: list[tuple[str, str, str]] = []
    changes: list[str] = []
    seen = set()
    tries = 0
    while len(modules) < args.modules and tries < args.modules * 20:
        tries += 1
        _, text = rng.choice(pool)
        got = mutate_module(text, vocab, rng)
        if got is None or got[1] in seen:
            continue
        seen.add(got[1])
        modules.append((got[0], target_of(got[1]), got[1]))
        changes.append(got[2])
    cache = load_cache(args.cache)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, (_, _, text) in enumerate(modules):
            p = Path(tmp) / f"{i:05}.ptx"
            p.write_text(text)
            paths.append(p)
        texts = {p: m[2] for p, m in zip(paths, modules)}
        nv = ptxas_verdicts([(m[1], p) for m, p in zip(modules, paths)], args.jobs, cache,
                            lambda t, p: t + texts[p], args.assembler)
        if args.cache:
            Path(args.cache).write_text(json.dumps(cache))
        ours = modgen.ptxsim_verdicts(args.ptxsim, paths)
    rows = []
    by_kind: dict[str, list[int]] = {}
    for (kind, target, text), p, theirs, change in zip(modules, paths, nv, changes):
        if theirs == "ptxas timed out" or theirs.startswith("exit -"):
            continue
        mine = ours[str(p)]
        ok = (theirs == "") == (mine == "")
        s = by_kind.setdefault(kind, [0, 0, 0, 0])
        s[0] += 1
        s[1] += ok
        s[2] += (not ok) and theirs == ""
        s[3] += (not ok) and mine == ""
        rows.append((ok, kind, target, text, theirs, mine, change))
    n = len(rows)
    agree = sum(r[0] for r in rows)
    print(f"modules {n}, ptxas accepts {sum(1 for r in rows if r[4] == '')}, agree {agree} "
          f"({100 * agree / max(n, 1):.2f}%), ptxsim rejects/ptxas accepts "
          f"{sum(s[2] for s in by_kind.values())}, ptxsim accepts/ptxas rejects "
          f"{sum(s[3] for s in by_kind.values())}")
    for kind, s in sorted(by_kind.items()):
        print(f"  {kind:10} {s[0]:5} agree {s[1]:5} we-reject {s[2]:4} we-accept {s[3]:4}")
    shown = 0
    for ok, kind, target, text, theirs, mine, change in rows:
        if ok or shown >= args.show:
            continue
        shown += 1
        print(f"==== {kind} {target}: {change}\n  ptxas: {theirs or 'accept'}\n  ptxsim: "
              f"{mine or 'accept'}")
        if args.context:
            line = re.match(r"^(\d+)", mine) or re.search(r"line (\d+)", theirs)
            if line:
                k = int(line.group(1))
                print("\n".join(text.split("\n")[max(k - 3, 0):k + 1]))
    if args.tsv:
        write_tsv(args.tsv, f"realcorpus.py mutate CORPUS --seed {args.seed} --modules "
                  f"{args.modules} --max-chars {args.max_chars}"
                  f"{' --assembler' if args.assembler else ''}",
                  [(theirs == "", text) for ok, _, _, text, theirs, _, _ in rows
                   if ok and len(text) <= args.tsv_chars])
    return 0


def cmd_lines(args) -> int:
    rng = random.Random(args.seed)
    found: dict[str, tuple[str, str]] = {}
    texts = [t for _, t in corpus(args.out, 10 ** 9)]
    for text in texts:
        t = target_of(text)
        v = (re.search(r"^\s*\.version\s+(\S+)", text, flags=re.M) or [None, "8.8"])[1]
        for s in realmut.shapes(text):
            found.setdefault(s, (t, v))
    plain = sorted(found)
    vocab = vocabulary(plain)
    out: dict[tuple[str, str, str], None] = {}
    tries = 0
    while len(out) < args.lines and tries < args.lines * 20:
        tries += 1
        line = rng.choice(plain)
        t, v = found[line]
        if rng.random() < args.mutated:
            new = mutate_line(line, vocab, rng, LINE_REGS)
            if new is None:
                continue
            line = new
        line = " ".join(line.split())  # a tab after the mnemonic, as nvcc writes it
        if rng.random() < 0.3:
            # sm_60 and later: fuzz.py's modules declare `.f16x2` registers, an sm_53 type.
            t, v = rng.choice([p for p in OLDER if int(re.sub(r"\D", "", p[0])) >= 60])
        if "%b128_" in line and (float(v) < 8.3 or int(re.sub(r"\D", "", t)) < 70):
            continue  # fuzz.py's modules declare `.b128` registers then, which ptxas refuses
        if "%f16x2_" in line and (float(v) < 4.2 or int(re.sub(r"\D", "", t)) < 53):
            continue  # the same for `.f16x2` (PTX ISA 4.2, sm_53)
        out.setdefault((t, v, line))
    print("\n".join(" ".join(key) for key in out))
    print(f"realcorpus: {len(texts)} modules, {len(plain)} distinct instruction shapes, "
          f"{len(out)} lines", file=sys.stderr)
    return 0


ASSEMBLER_HELP = ("where ptxas -arch sm_XX stops at whole-program linking or 32-bit code "
                  "(D27, D28), take -arch compute_XX's verdict")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("src")
    c.add_argument("out")
    c.add_argument("--jobs", type=int, default=2)
    c.add_argument("--configs", type=int, default=1, help="configurations per file")
    j = sub.add_parser("judge")
    j.add_argument("out")
    j.add_argument("--ptxsim", required=True)
    j.add_argument("--jobs", type=int, default=2)
    j.add_argument("--cache")
    j.add_argument("--show", type=int, default=30)
    j.add_argument("--assembler", action="store_true", help=ASSEMBLER_HELP)
    j.add_argument("--tsv", help="append the agreeing modules as verdict<TAB>module rows")
    j.add_argument("--tsv-chars", type=int, default=6000)
    m = sub.add_parser("mutate")
    m.add_argument("out")
    m.add_argument("--ptxsim", required=True)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--modules", type=int, default=1000)
    m.add_argument("--max-chars", type=int, default=40000, help="mutate modules up to this size")
    m.add_argument("--jobs", type=int, default=2)
    m.add_argument("--cache")
    m.add_argument("--show", type=int, default=30)
    m.add_argument("--context", action="store_true", help="print the lines around each error")
    m.add_argument("--assembler", action="store_true", help=ASSEMBLER_HELP)
    m.add_argument("--tsv")
    m.add_argument("--tsv-chars", type=int, default=6000)
    li = sub.add_parser("lines")
    li.add_argument("out")
    li.add_argument("--seed", type=int, default=1)
    li.add_argument("--lines", type=int, default=6000)
    li.add_argument("--mutated", type=float, default=0.75)
    args = ap.parse_args()
    needs = {"compile": NVCC, "judge": gen.PTXAS, "mutate": gen.PTXAS}.get(args.cmd)
    if needs is not None and not needs.exists():
        print(f"realcorpus.py {args.cmd}: needs {needs}", file=sys.stderr)
        return 2
    return {"compile": cmd_compile, "judge": cmd_judge, "mutate": cmd_mutate,
            "lines": cmd_lines}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
