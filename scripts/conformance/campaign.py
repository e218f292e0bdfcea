#!/usr/bin/env python3
"""The differential campaign: every generator, fresh seeds, in shards, against ptxas.

A shard is one generator, one seed, one set of (.target, .version) pairs and a number of lines
(or modules). Its result, the counts and every disagreement, goes to `OUT/<shard>.json`; a shard
whose file exists is skipped, so the same command resumes an interrupted campaign. `--summary`
adds the results up (lines per generator, ptxas accepts, agree, both kinds of disagreement, the
disagreements by documented divergence ID, the undocumented ones, time) and `--tsv` writes them.

Line generators (each prints `TARGET VERSION INSTRUCTION` lines; see README.md): `fuzz`
(fuzz.generate), `specgen`, `opgen`, `isagen`, `realmut`, and, where checkouts are given,
`inlineasm` (`--asm-src DIR...`, `inlineasm.py --mutate`) and `realcorpus` (`--corpus DIR`, a
directory of `.ptx` files: `realcorpus.py lines`). Each line generator runs on its own pairs
("native") and moved onto the older pairs ("old") and the family pairs ("family") of the
fourteenth round, the third field of each line kept. `modgen` shards judge whole modules
(`modgen.generate`), one verdict each. Verdicts are made by fuzz.py's harness (one module per
pair and batch; ptxas's syntax errors found first with every line in a file of its own, then
the rejected lines removed until the rest assembles; `ptxsim check --format json` on the same
module).

A disagreement is "documented" when one of RULES, one per class of docs/divergences.md, matches
it (the kind, the instruction, ptxas's message, ptxsim's message); everything else counts as
undocumented and is listed with `--show`.

Usage:
  python3 scripts/conformance/campaign.py --ptxsim target/release/ptxsim --out /tmp/campaign \
      [--lines 2000000] [--shard-lines 20000] [--jobs 2] [--asm-src DIR...] [--corpus DIR]
  python3 scripts/conformance/campaign.py --out /tmp/campaign --summary [--tsv F] [--show N]
  python3 scripts/conformance/campaign.py --ptxsim BIN --out /tmp/campaign --rejudge
      (re-asks ptxsim only, ptxas's verdicts kept in each shard's file; after a checker fix)

Seeds: shard k of a generator uses seed 160000 + k (never used before this campaign; the seeds
of earlier rounds are listed in docs/conformance.md). Standard library only; without ptxas it
says so and exits 0.
"""
from __future__ import annotations

import argparse
import collections
import json
import lzma
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import fuzz  # noqa: E402  (the harness)
import gen  # noqa: E402

SEED_BASE = 160000

# The older and the family pairs of the fourteenth round (docs/conformance.md), every one a
# header ptxas 13.5 takes (tests/conformance/targets.tsv).
OLD_PAIRS = [("sm_50", "6.0"), ("sm_61", "6.3"), ("sm_72", "7.0"), ("sm_87", "7.8"),
             ("sm_89", "8.0"), ("sm_101a", "8.6"), ("sm_103a", "8.8"), ("sm_110a", "9.0"),
             ("sm_121a", "9.0")]
FAMILY_PAIRS = [("sm_100f", "8.8"), ("sm_100f", "9.2"), ("sm_101f", "8.8"), ("sm_103f", "8.8"),
                ("sm_110f", "9.0"), ("sm_120f", "8.8"), ("sm_120f", "9.0"), ("sm_121f", "9.1"),
                ("sm_88", "9.1"), ("sm_110", "9.0")]
VARIANTS = {"native": None, "old": OLD_PAIRS, "family": FAMILY_PAIRS}
LINE_GENERATORS = ["fuzz", "specgen", "opgen", "isagen", "realmut", "inlineasm", "realcorpus"]

# ------------------------------------------------------------------------------------------
# The documented divergences, one rule per class: (ID, kind, instruction pattern, ptxas message
# pattern, ptxsim message pattern); `kind` is "ptxsim-rejects" (ptxas accepts, ptxsim rejects),
# "ptxsim-accepts" or None for either; a None pattern matches anything; the instruction pattern
# is a regular expression (searched in the line without its guard, or in a whole module's text)
# or a predicate. The first rule that matches names the disagreement's class.

def operands(line: str) -> list[str]:
    """The top-level operands of an instruction line (fuzz.split_top after the name)."""
    parts = line.rstrip().rstrip(";").split(None, 1)
    return fuzz.split_top(parts[1]) if len(parts) == 2 else []


def atom_fourth_operand(line: str) -> bool:
    """D6/D44/D58: `atom` with a fourth operand and neither `.cas` nor `.L2::cache_hint`."""
    name = line.split(" ", 1)[0]
    return (name.startswith("atom.") and ".cas" not in name and "cache_hint" not in name
            and len(operands(line)) >= 4)


REJECTS, ACCEPTS = "ptxsim-rejects", "ptxsim-accepts"
RULES: list[tuple[str, str | None, object, str | None, str | None]] = [
    # docs/divergences.md, in the order of its sections.
    ("D3", REJECTS, r"^mov\.pred ", None, r"\.f16x2"),
    ("D4", REJECTS, r"^mov(\.v[24])?\.[a-z0-9]+ [^,]+, \{[^}]*(\{|, )_[,}]", None, None),
    ("D6", REJECTS, atom_fourth_operand, None, None),
    ("D15", REJECTS, r"^(atom|red)\.[^ ]* _[,;]", None, None),
    ("D16", ACCEPTS, None, r"Incompatible elements of vector expression", None),
    ("D18", ACCEPTS, r"^call", r"Label or \.u32/\.u64/\.u8 array expected for argument 1", None),
    ("D24", ACCEPTS, r"^tcgen05\.", r"Use a 32-bit integer or bit register only", None),
    ("D25", REJECTS, r"^ldmatrix", None, r"not a `\.pred` register"),
    ("D27", ACCEPTS, None, r"Unresolved extern function", None),
    ("D28", ACCEPTS, None, r"32-Bit (compilation|ABI)", None),
    ("D29", REJECTS, r"= *\{ *\}|= *\(?[0-9]+ *[-+*/]", None, r"^\d+: P"),
    ("D37", ACCEPTS, r"^tex\.[^ ]*(\.f16|\.f16x2|2dms)\b", None, None),
    ("D44", REJECTS, r"^cp\.(reduce\.)?async\.bulk\.tensor", None,
     r"must be a memory operand"),
    ("D44", ACCEPTS, r"^mma\.[^ ]*block_scale", None, None),
    ("D49", REJECTS, r"^(sust|suld)\.b\.", None, r"E0321"),
    ("D54", ACCEPTS, r"^(tex|tld4)\.[^ ]* [^\[]*\[[^\],]+,[^\],]+,[^\]]+\]", None, None),
    ("D58", REJECTS, r"^bar(rier)?\.[^ ]* ([^,]*, *)?([0-9]{10,}|0x[0-9a-fA-F]{9,})", None, None),
    ("D58", REJECTS, r"^sured\.", None, r"operand `c` must be a register of exactly the size"),
    ("D58", REJECTS, r"^txq\.level\.[^ ]* [^,]+, \[[^]]+\], \{", None, None),
    ("D58", ACCEPTS, r"^(div|rem)\.[us]64 .*%\w+\+\d", None, None),
    ("D58", ACCEPTS, r"^createpolicy\.range", r"must be less than or equal to the value", None),
    ("D58", ACCEPTS, None, r"^ptxas <builtin>, line \d+; fatal", None),
    ("D58", ACCEPTS, r"^cvt\.[^ ]* .*%(cluster|ctaid|tid|ntid|nctaid|laneid|warpid|smid|"
     r"clock|globaltimer|lanemask|envreg|pm|dynamic_smem|total_smem|aggr_smem|reserved_smem|"
     r"current_graph|is_explicit)", None, None),
    # Module rules (modgen): D29's parser gaps and register variables.
    ("D29", REJECTS, r"^// modgen", None, r"P0001 unexpected character `\\|P0008 duplicate "
     r"`\.target`|P0004 unexpected `[-+*/]`"),
    ("D29", ACCEPTS, r"^// modgen", r"cannot be allocated into a register|Call has wrong number "
     r"of parameters|Type of argument does not match formal parameter", None),
    ("D29", ACCEPTS, r"(?s)^// modgen.*\.section", r"Parsing error", None),
    ("D29", REJECTS, r"^// modgen", None, r"P0004 unexpected `;`|P0001 unexpected character `~`|"
     r"P0004 unexpected `\(`|E0401 the `\.b128` type needs"),
    # The sixteenth round (docs/divergences.md, "chk16"): D70 words ptxas takes, D71 operands
    # ptxas takes, D72 rules ptxas has that ptxsim does not check, D73 ptxas's crashes, D74 the
    # harness.
    ("D70", REJECTS, r"^wmma\.[^ ]*\.v[248]\b", None, r"\.v[248] is not a modifier"),
    ("D70", REJECTS, r"^(ldmatrix|stmatrix|tcgen05\.ld|tcgen05\.st)\.", None,
     r"`?\.(row|col)`? is not a modifier"),
    ("D70", REJECTS, r"^ldmatrix\.[^ ]*\.x16", None, r"needs one of `\.x1`"),
    ("D70", REJECTS, r"^suld\.b\.v[24]\.", None, r"is not a surface geometry"),
    ("D44", REJECTS, r"^mma\.[^ ]*block_scale", None, r"operand `scale-[ab]-data` must be a "
     r"register"),
    ("D70", REJECTS, r"^cp\.async\.bulk\.tensor\.", None, r"\.(cta|cluster) is not a modifier"),
    ("D70", REJECTS, r"^setmaxnreg\.", None, r"\.[su]32 is not a modifier"),
    ("D70", REJECTS, r"^wgmma\.(fence|commit_group|wait_group)\.", None, r"needs \.aligned"),
    ("D70", REJECTS, r"^fence\.async\.", None, r"\.async needs \.proxy"),
    ("D70", REJECTS, r"^suld\.b\.[^ ]*\.(clamp|trap|zero)\.v[24]", None, r"is not a modifier"),
    ("D70", REJECTS, r"^mma\.[^ ]*block_scale", None, r"needs four types"),
    ("D71", REJECTS, r"^mbarrier\.", None, r"operand `(count|state)` must be a register|`d\|p` is "
     r"the first operand"),
    ("D71", REJECTS, r"^cp\.async\.bulk\.", None, r"operand `\[mbar\]` must be a memory operand"),
    ("D71", REJECTS, r"^tcgen05\.cp\.", None, r"operand `s-desc` must be a register"),
    ("D71", REJECTS, r"^tex\.level\.", None, r"takes 3 operands|operand `lod` must be a register "
     r"of exactly the size"),
    ("D71", REJECTS, r"^brx\.idx \w+\+", None, None),
    ("D71", REJECTS, r"^mov\.(b32|b64|v[24]\.\w+) ", None, r"a mov vector has 2 or 4 elements|"
     r"mov\.v[24] moves vectors"),
    ("D71", REJECTS, r"^cvt\.[^ ]*\.e2m1x2\.bf16x2 [^,]+, \{", None, r"operand `a` must be a "
     r"register"),
    ("D71", REJECTS, r"^tex\.[^ ]*\.3d\.", None, r"no depth compare for a 3d texture"),
    ("D71", REJECTS, r"^tex\.level\.", None, r"operand `lod` \(\.f32\) takes a decimal float"),
    ("D71", REJECTS, r"^movmatrix\.", None, r"`d\|p` is the first operand"),
    ("D71", REJECTS, r"^cp\.async\.bulk\.tensor\.", None, r"a result is a register, not a "
     r"negated predicate|operand `cache-policy` must be a register"),
    ("D72", ACCEPTS, r"^cp\.async\.bulk\.tensor\.", r"Arguments mismatch for instruction "
     r"'(cp\.async\.bulk\.tensor|mov)'|Illegal modifier '\.multicast::cluster'", None),
    ("D72", ACCEPTS, r"^tcgen05\.ld\.", r"Vector with elements of different types", None),
    ("D72", ACCEPTS, r"^(ldmatrix|suld)\.[^ ]* .*%\w+\+\d", r"Arguments mismatch", None),
    ("D72", ACCEPTS, r"^clusterlaunchcontrol\.", r"Unknown modifier '\.try_cancel'", None),
    ("D72", ACCEPTS, r"^mov\.b\d+ \{", r"Result register required", None),
    ("D72", ACCEPTS, r"^mov\.v[24]\.\w+ \{[^}]*\}, 0[dDfF]", r"Arguments mismatch", None),
    ("D72", ACCEPTS, r"^wgmma\.", r"Multiple \.aligned modifiers specified", None),
    ("D72", ACCEPTS, r"^cp\.async\.bulk\.", r"out of range, expected to be in range|"
     r"Argument 3 of instruction 'cp\.async\.bulk': must be register", None),
    ("D72", ACCEPTS, r"^tcgen05\.(ld|st|cp)\.", r"Argument 1 of instruction 'add': must be "
     r"register", None),
    ("D23", ACCEPTS, r"^tcgen05\.mma\b", None, None),
    ("D72", ACCEPTS, r"^st\.[^ ]*\.wb\b", r"cannot be combined with modifier '\.wb'", None),
    ("D72", ACCEPTS, r"^brx\.idx [0-9.]+e", r"Arguments mismatch", None),
    ("D72", ACCEPTS, r"^tensormap\.replace\.", r"expected to be in range", None),
    ("D72", ACCEPTS, r"^setp\.[^ ]*bf16(x2)? ", r"Arguments mismatch", None),
    ("D72", ACCEPTS, r"^sust\.", r"Parsing error near '(_|\[)'|Arguments mismatch for "
     r"instruction 'sust\.p'|Operand vector size doesn't match geometry", None),
    ("D72", ACCEPTS, r"^(or|xor|and)\.pred .*%\w+\+\d", r"Arguments mismatch", None),
    ("D72", ACCEPTS, r"^selp\.[^ ]* .*\w\+\d", r"Arguments mismatch", None),
    ("D72", ACCEPTS, r"^createpolicy\.fractional", r"out of range", None),
    ("D72", ACCEPTS, r"^cp\.async\.bulk\.", r"expected to be multiple of 16", None),
    ("D72", ACCEPTS, r"^(multimem|tensormap\.replace)\.", r"Arguments mismatch for instruction "
     r"'mov'", None),
    ("D72", ACCEPTS, r"^tcgen05\.commit\.", r"out of range", None),
    ("D72", ACCEPTS, None, r"Unexpected number of 'format conversion' modifiers", None),
    ("D72", ACCEPTS, r"^barrier\.\w+\.cluster\.", r"Arguments mismatch for instruction 'barrier'",
     None),
    ("D73", ACCEPTS, None, r"^exit -\d+$", None),
    ("D74", ACCEPTS, r"^// modgen", r"SM version specified by \.target is higher than default",
     None),
]


def classify(kind: str, line: str, theirs: str, ours: str) -> str | None:
    body = re.sub(r"^@!?%?\w+\s+", "", line)
    for rid, k, lre, pre, sre in RULES:
        if k is not None and k != kind:
            continue
        if callable(lre) and not lre(body):
            continue
        if isinstance(lre, str) and not re.search(lre, body, re.M):
            continue
        if pre is not None and not re.search(pre, theirs):
            continue
        if sre is not None and not re.search(sre, ours):
            continue
        return rid
    return None


# ------------------------------------------------------------------------------------------
# Shards.

def shard_name(g: str, variant: str, k: int) -> str:
    return f"{g}-{variant}-{SEED_BASE + k}"


def plan(args) -> list[tuple[str, str, int]]:
    """(generator, variant, k) in the order they run: round robin over the generators and their
    variants, so a campaign stopped early still covers every one."""
    gens = ["fuzz", "specgen", "opgen", "isagen", "realmut"]
    if args.asm_src:
        gens.append("inlineasm")
    if args.corpus:
        gens.append("realcorpus")
    cells = [(g, v) for g in gens for v in VARIANTS] + [("modgen", "native")]
    out = []
    total = 0
    k = 0
    while total < args.lines:
        for g, v in cells:
            out.append((g, v, k))
            total += args.shard_modules if g == "modgen" else args.shard_lines
        k += 1
    return out


def generate(g: str, variant: str, seed: int, n: int, args) -> list[tuple[str, str, str]]:
    py = sys.executable
    if g == "fuzz":
        lines = fuzz.generate(seed, n)
    else:
        cmd = {
            "specgen": [py, str(HERE / "specgen.py"), "--seed", str(seed), "--lines", str(n)],
            "opgen": [py, str(HERE / "opgen.py"), "--seed", str(seed), "--lines", str(n)],
            "isagen": [py, str(HERE / "isagen.py"), "--seed", str(seed), "--lines", str(n)],
            "realmut": [py, str(HERE / "realmut.py"), "--seed", str(seed), "--lines", str(n)],
            "inlineasm": [py, str(HERE / "inlineasm.py"), *(args.asm_src or []), "--mutate",
                          str(n), "--seed", str(seed)],
            "realcorpus": [py, str(HERE / "realcorpus.py"), "lines", str(args.corpus), "--seed",
                           str(seed), "--lines", str(n)],
        }[g]
        p = subprocess.run(cmd, capture_output=True, text=True, check=True)
        lines = [tuple(l.split(None, 2)) for l in p.stdout.splitlines()
                 if l.strip() and not l.startswith("#") and len(l.split(None, 2)) == 3]
    pairs = VARIANTS[variant]
    if pairs:
        lines = [(*pairs[i % len(pairs)], l) for i, (_, _, l) in enumerate(lines)]
    return list(dict.fromkeys(lines))


HEADERS: dict[tuple[str, str], str | None] = {}


def header_verdict(ptxas: str, target: str, version: str) -> str | None:
    """ptxas's message on an empty kernel with this header, None if it takes it. A pair it
    refuses (`.version 8.8` with `.target sm_110a`: "PTX .version 8.8 does not support .target
    sm_110a") gives every line of a batch that message on the header, which the harness would
    split batch by batch down to single lines; such a pair's lines are left out instead."""
    if (target, version) not in HEADERS:
        HEADERS[(target, version)] = fuzz.ptxas_verdicts(ptxas, target, version, ["ret;"]) \
            .get("ret;")
    return HEADERS[(target, version)]


def judge_lines(lines, args) -> list[tuple[str, str, str, str | None, str | None]]:
    """(target, version, line, ptxas's message or None, ptxsim's or None) for every line of a
    pair ptxas takes as a header."""
    by_pair: dict[tuple[str, str, bool], list[str]] = collections.defaultdict(list)
    for t, v, l in lines:
        if header_verdict(args.ptxas, t, v) is None:
            by_pair[(t, v, fuzz.own_module(t, l))].append(l)
    work = [(t, v, ls[i:i + args.batch]) for (t, v, _), ls in sorted(by_pair.items())
            for i in range(0, len(ls), args.batch)]

    def run(job):
        t, v, b = job
        with ThreadPoolExecutor(2) as ex:  # both tools at once
            theirs = ex.submit(fuzz.ptxas_verdicts, args.ptxas, t, v, b)
            ours = ex.submit(fuzz.ptxsim_verdicts, args.ptxsim, t, v, b)
            return theirs.result(), ours.result()

    with ThreadPoolExecutor(args.jobs) as ex:
        results = list(ex.map(run, work))
    out = []
    for (t, v, b), (theirs, ours) in zip(work, results):
        for l in dict.fromkeys(b):
            out.append((t, v, l, theirs.get(l), ours.get(l)))
    return out


def judge_modules(seed: int, n: int, args) -> list[tuple[str, str, str, str | None, str | None]]:
    import modgen
    modules = modgen.generate(seed, n)
    with fuzz.scratch() as tmp:
        paths = []
        for i, (target, text) in enumerate(modules):
            p = Path(tmp) / f"{i:05}.ptx"
            p.write_text(text)
            paths.append(p)
        with ThreadPoolExecutor(args.jobs) as ex:
            nv = list(ex.map(lambda mp: modgen.ptxas_verdict(args.ptxas, mp[0][0], mp[1]),
                             zip(modules, paths)))
        ours = modgen.ptxsim_verdicts(args.ptxsim, paths)
        out = []
        for (target, text), p, theirs in zip(modules, paths, nv):
            theirs = re.sub(r"^\S*/\d+\.ptx, ", "", theirs)
            if theirs == "ptxas timed out" or theirs.startswith("exit -"):
                continue  # ptxas crashed or hung: no verdict (as modgen.py --judge)
            out.append((target, "module", text, theirs or None, ours[str(p)] or None))
    return out


def run_shard(g: str, variant: str, k: int, args, side: Path) -> dict:
    """Judges one shard; `side` keeps ptxas's verdict of each line (xz-compressed JSON), which
    `--rejudge` reuses."""
    seed = SEED_BASE + k
    start = time.time()
    if g == "modgen":
        rows = judge_modules(seed, args.shard_modules, args)
    else:
        rows = judge_lines(generate(g, variant, seed, args.shard_lines, args), args)
    side.write_bytes(lzma.compress(json.dumps([[t, v, l, th] for t, v, l, th, _ in rows])
                                   .encode()))
    return tally(g, variant, seed, rows, time.time() - start)


def tally(g, variant, seed, rows, seconds) -> dict:
    c = collections.Counter()
    dis = []
    for t, v, l, theirs, ours in rows:
        pa, sa = theirs is None, ours is None
        c["lines"] += 1
        c["ptxas_accepts"] += pa
        if pa == sa:
            c["agree"] += 1
            continue
        kind = "ptxsim-rejects" if pa else "ptxsim-accepts"
        c[kind] += 1
        rid = classify(kind, l, theirs or "", ours or "")
        dis.append({"kind": kind, "target": t, "version": v, "line": l, "ptxas": theirs or "",
                    "ptxsim": ours or "", "id": rid})
    return {"generator": g, "variant": variant, "seed": seed, "counts": dict(c),
            "seconds": round(seconds, 1), "disagreements": dis, "load": os.getloadavg()[0]}


# ------------------------------------------------------------------------------------------

def summary(out: Path, args) -> int:
    per_gen: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    by_id: collections.Counter = collections.Counter()
    undocumented = []
    loads = []
    for f in sorted(out.glob("*.json")):
        r = json.loads(f.read_text())
        key = r["generator"] if r["generator"] == "modgen" else f"{r['generator']}/{r['variant']}"
        c = per_gen[key]
        c.update(r["counts"])
        c["shards"] += 1
        c["seconds"] += r["seconds"]
        first = r.get("first", r["counts"])
        c["first-disagree"] += first.get("ptxsim-rejects", 0) + first.get("ptxsim-accepts", 0)
        loads.append(r.get("load", 0.0))
        for d in r["disagreements"]:
            rid = classify(d["kind"], d["line"], d["ptxas"], d["ptxsim"])
            if rid:
                by_id[rid] += 1
                c["documented"] += 1
            else:
                c["undocumented"] += 1
                undocumented.append(d)
    total = collections.Counter()
    cols = ["shards", "lines", "ptxas_accepts", "agree", "first-disagree", "ptxsim-rejects",
            "ptxsim-accepts", "documented", "undocumented", "seconds"]
    rows = []
    for key in sorted(per_gen):
        c = per_gen[key]
        total.update(c)
        rows.append([key] + [str(round(c[x]) if x == "seconds" else c[x]) for x in cols])
    rows.append(["total"] + [str(round(total[x]) if x == "seconds" else total[x]) for x in cols])
    print("\t".join(["generator/pairs"] + cols))
    for r in rows:
        print("\t".join(r))
    secs = max(total["seconds"], 1)
    print(f"lines/s (per shard time, summed): {total['lines'] / secs:.1f}; mean load "
          f"{sum(loads) / max(len(loads), 1):.2f}")
    for rid, n in sorted(by_id.items(), key=lambda kv: int(kv[0][1:])):
        print(f"documented {rid}\t{n}")
    by_op = collections.Counter((d["kind"], re.sub(r"^@!?%?\w+\s+", "", d["line"]).split(" ")[0]
                                 .split(".")[0]) for d in undocumented)
    for (kind, op), n in by_op.most_common(40):
        print(f"undocumented\t{kind}\t{op}\t{n}")
    for d in undocumented[:args.show]:
        text = d["line"] if d["version"] != "module" else d["line"].replace("\n", " | ")[:300]
        print(f"{d['kind']}\t{d['target']} {d['version']} {text}\t| ptxas: "
              f"{d['ptxas'] or 'accept'}\t| ptxsim: {d['ptxsim'] or 'accept'}")
    if args.tsv:
        with open(args.tsv, "w") as f:
            f.write("# generated by scripts/conformance/campaign.py --summary; counts only\n")
            f.write("\t".join(["generator/pairs"] + cols) + "\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
            for rid, n in sorted(by_id.items(), key=lambda kv: int(kv[0][1:])):
                f.write(f"documented {rid}\t{n}\n")
    return 0


def rejudge(out: Path, args) -> int:
    """Asks ptxsim again about every line of every shard (after a checker fix), with ptxas's
    verdicts kept from the shard's first run (`<shard>.ptxas.xz`): the counts and the
    disagreements are made anew, the time of the first run kept."""
    import modgen
    for f in sorted(out.glob("*.json")):
        if args.only and not f.stem.startswith(args.only):
            continue
        r = json.loads(f.read_text())
        side = f.with_suffix(".ptxas.xz")
        if not side.exists():
            continue
        theirs = json.loads(lzma.decompress(side.read_bytes()))
        if r["generator"] == "modgen":
            with fuzz.scratch() as tmp:
                paths = {}
                for i, (_, _, text, _) in enumerate(theirs):
                    p = Path(tmp) / f"{i:05}.ptx"
                    p.write_text(text)
                    paths[text] = p
                got = modgen.ptxsim_verdicts(args.ptxsim, list(paths.values()))
                rows = [(t, v, l, th, got[str(paths[l])] or None) for t, v, l, th in theirs]
        else:
            by_pair = collections.defaultdict(list)
            for t, v, l, _ in theirs:
                by_pair[(t, v, fuzz.own_module(t, l))].append(l)
            work = [(t, v, ls[i:i + args.batch]) for (t, v, _), ls in sorted(by_pair.items())
                    for i in range(0, len(ls), args.batch)]
            with ThreadPoolExecutor(args.jobs) as ex:
                res = list(ex.map(lambda j: fuzz.ptxsim_verdicts(args.ptxsim, *j), work))
            ours = {(t, v, l): o.get(l) for (t, v, b), o in zip(work, res) for l in b}
            rows = [(t, v, l, th, ours[(t, v, l)]) for t, v, l, th in theirs]
        new = tally(r["generator"], r["variant"], r["seed"], rows, r["seconds"])
        new["load"] = r.get("load", 0.0)
        new["first"] = r.get("first", r["counts"])
        f.write_text(json.dumps(new))
    return summary(out, args)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptxsim")
    ap.add_argument("--ptxas", default=str(gen.PTXAS))
    ap.add_argument("--out", required=True, help="the shards' result files")
    ap.add_argument("--lines", type=int, default=2_000_000)
    ap.add_argument("--shard-lines", type=int, default=20000)
    ap.add_argument("--shard-modules", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=400)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--asm-src", nargs="*", help="checkouts for inlineasm.py --mutate")
    ap.add_argument("--corpus", help="a directory of .ptx files for realcorpus.py lines")
    ap.add_argument("--only", help="run only the shards whose name starts with this")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--rejudge", action="store_true")
    ap.add_argument("--tsv", help="--summary: write the counts here")
    ap.add_argument("--show", type=int, default=0, help="--summary: print N undocumented ones")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.summary:
        return summary(out, args)
    if not Path(args.ptxas).exists():
        print(f"campaign.py: ptxas not found at {args.ptxas}; set PTXSIM_NVIDIA_ROOT. Skipping.")
        return 0
    if not args.ptxsim:
        ap.error("--ptxsim is needed to judge")
    if args.rejudge:
        return rejudge(out, args)
    for g, variant, k in plan(args):
        name = shard_name(g, variant, k)
        if args.only and not name.startswith(args.only):
            continue
        path = out / f"{name}.json"
        if path.exists():
            continue
        r = run_shard(g, variant, k, args, path.with_suffix(".ptxas.xz"))
        tmp = path.with_suffix(".part")
        tmp.write_text(json.dumps(r))
        tmp.rename(path)
        c = r["counts"]
        print(f"{name}: {c.get('lines', 0)} lines, agree {c.get('agree', 0)}, ptxsim-rejects "
              f"{c.get('ptxsim-rejects', 0)}, ptxsim-accepts {c.get('ptxsim-accepts', 0)}, "
              f"undocumented {sum(1 for d in r['disagreements'] if not d['id'])}, "
              f"{r['seconds']} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
