#!/usr/bin/env python3
"""Module headers on every target and version: `.version` x `.target` (every spelling ptxas 13.5
takes and some it does not) x a body, and `.target` option lists (issue 32, fourteenth round).

Each module is a header (`.version V`, `.target LIST`, `.address_size 64` from PTX ISA 2.3 on)
and one of two bodies: a kernel that only returns, or nothing. The parts:

* every `.target` spelling: `sm_XX`, `sm_XXa`, `sm_XXf` and `compute_...` of each architecture
  ptxas knows or knew (sm_10 ... sm_121f) and of some that never existed (`sm_91`, `sm_89a`,
  `sm_90f`), at every `.version` from 1.0 to 9.5 and at versions ptxas does not know (6.6,
  9.6, 10.0);
* option lists at a few pairs: `texmode_unified`, `texmode_independent`, `debug`,
  `map_f64_to_f32`, misspelled and upper-case options, before and after the architecture,
  doubled, conflicting, and lists of two architectures.

`--judge` asks `ptxas -arch <the last architecture, as gen.arch_for picks it>` about each
module (one process per module, `--cache` keeps the verdicts) and `check --format json` (or
the check-only `check_json`), prints the agreement per part and the disagreements; `--tsv`
writes the agreeing modules (but the header-only ones) in the format of `tests/conformance/modgen-modules.txt.xz`
(`verdict<TAB>module`, newlines as `\\n`), which `crates/check/tests/modules.rs` reads.

  python3 scripts/conformance/headers.py --judge --ptxsim target/debug/examples/check_json \\
      --cache /tmp/headers-cache.json --show 40 [--tsv /tmp/header-modules.txt]

Standard library only; ptxas is found as gen.py finds it.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402  (ptxas location, -arch choice)
import modgen  # noqa: E402  (one module's ptxas verdict, check's verdicts on many files)

# Architecture numbers with the variants ptxas 13.5's `.target` might take; the numbers that
# never existed check that unknown names are refused.
GENERIC = [10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86,
           87, 88, 89, 90, 100, 101, 103, 107, 110, 120, 121]
SUFFIXED = [90, 100, 101, 103, 107, 110, 120, 121]
NEVER = ["sm_91", "sm_99", "sm_102", "sm_122", "sm_130", "sm_89a", "sm_80a", "sm_90f",
         "sm_86f", "sm_75a", "sm_120b", "sm_5", "sm_050", "compute_91", "compute_90f"]
VERSIONS = ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "2.0", "2.1", "2.2", "2.3", "3.0", "3.1",
            "3.2", "4.0", "4.1", "4.2", "4.3", "5.0", "5.1", "6.0", "6.1", "6.2", "6.3", "6.4",
            "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6", "7.7", "7.8", "8.0", "8.1",
            "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0", "9.1", "9.2", "9.3", "9.4",
            "9.5"]
UNKNOWN_VERSIONS = ["5.2", "6.6", "7.9", "8.9", "9.6", "10.0"]
KERNEL = ".visible .entry k()\n{\n\tret;\n}\n"


def spellings() -> list[str]:
    names = []
    for n in GENERIC:
        names += [f"sm_{n}", f"compute_{n}"]
        if n in SUFFIXED:
            names += [f"sm_{n}a", f"sm_{n}f", f"compute_{n}a", f"compute_{n}f"]
    return names + NEVER


def vkey(v: str) -> tuple[int, int]:
    return gen.vkey(v)


def module(targets: str, version: str, body: str) -> str:
    head = [f".version {version}", f".target {targets}"]
    if vkey(version) >= (2, 3):
        head.append(".address_size 64")
    return "\n".join(head) + "\n\n" + body


def option_lists() -> list[tuple[str, str]]:
    """(target list, version) pairs of the option part."""
    options = ["texmode_unified", "texmode_independent", "debug", "map_f64_to_f32",
               "texmode_raw", "TEXMODE_UNIFIED", "Debug", "texmode", "map_f64_to_f64"]
    pairs = [("sm_10", "1.0"), ("sm_12", "1.4"), ("sm_13", "2.0"), ("sm_20", "2.3"),
             ("sm_52", "6.0"), ("sm_61", "6.3"), ("sm_90", "8.0"), ("sm_100f", "8.8"),
             ("sm_120a", "9.0"), ("compute_90", "7.8")]
    out = []
    for arch, v in pairs:
        for o in options:
            out += [(f"{arch}, {o}", v), (f"{o}, {arch}", v)]
        out += [(f"{arch}, texmode_unified, texmode_independent", v),
                (f"{arch}, texmode_independent, texmode_independent", v),
                (f"{arch}, texmode_unified, texmode_unified", v),
                (f"{arch}, debug, debug", v),
                (f"{arch}, debug, texmode_independent", v),
                (f"{arch}, texmode_independent, debug, map_f64_to_f32", v),
                (f"{arch}, {arch}", v),
                (f"texmode_independent", v), (f"debug", v),
                (f"{arch},", v), (f"{arch} debug", v), (f"{arch}, , debug", v)]
        for other in ["sm_80", "sm_90a", "sm_52", "sm_10", "sm_120f", "compute_80", "sm_91"]:
            if other != arch:
                out += [(f"{arch}, {other}", v), (f"{other}, {arch}", v)]
    return out


def plan() -> list[tuple[str, str, str]]:
    """(part, the architecture -arch is picked by, module text) for every module."""
    out = []
    for t in spellings():
        for v in VERSIONS + UNKNOWN_VERSIONS:
            out.append(("pairs", t, module(t, v, KERNEL)))
            out.append(("pairs-empty", t, module(t, v, "")))
    for targets, v in option_lists():
        # ptxas checks the last architecture of the list against -arch (`.target sm_90, sm_80`
        # assembles for sm_80, `.target sm_80, sm_90` does not), as ptxsim gates by it.
        last = [w.strip() for w in targets.split(",")
                if re.fullmatch(r"\s*(sm|compute)_\d+[af]?\s*", w)]
        out.append(("options", last[-1] if last else "sm_90", module(targets, v, KERNEL)))
    return out


def arch_for(target: str) -> str:
    """gen.arch_for for any spelling: `compute_XX` as `sm_XX`; numbers ptxas's `-arch` does not
    take (`sm_91`, `sm_89a`) as sm_90, whose `.target` check then speaks about the name."""
    m = re.fullmatch(r"(?:sm|compute)_(\d+)([af]?)", target)
    if not m:
        return "sm_90"
    known = {75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 107, 110, 120, 121}
    n, suffix = int(m.group(1)), m.group(2)
    if n < 75:
        return "sm_75"
    if n not in known or (suffix and n not in SUFFIXED) or (suffix == "f" and n == 90):
        return "sm_90"
    return gen.arch_for(f"sm_{n}{suffix}")


def judge(ptxsim: str, jobs: int, cache: str | None, tsv: str | None, show: int) -> int:
    if not gen.PTXAS.exists():
        print(f"headers.py: ptxas not found at {gen.PTXAS}; set PTXSIM_NVIDIA_ROOT. Skipping.")
        return 0
    items = plan()
    known = json.loads(Path(cache).read_text()) if cache and Path(cache).exists() else {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, (_, _, text) in enumerate(items):
            p = Path(tmp) / f"m{i}.ptx"
            p.write_text(text)
            paths.append(p)
        def key(i):
            return f"{arch_for(items[i][1])}\n{items[i][2]}"

        todo = [i for i in range(len(items)) if key(i) not in known]

        def ask(i):
            # modgen.ptxas_verdict picks -arch with gen.arch_for, which wants an sm_ name.
            return modgen.ptxas_verdict(str(gen.PTXAS), arch_for(items[i][1]), paths[i])

        with ThreadPoolExecutor(jobs) as ex:
            for i, verdict in zip(todo, ex.map(ask, todo)):
                known[key(i)] = verdict
        if cache:
            Path(cache).write_text(json.dumps(known))
        ours = modgen.ptxsim_verdicts(ptxsim, paths)
        mine = [ours[str(p)] for p in paths]
    stats = collections.defaultdict(collections.Counter)
    rows, dis = [], []
    for i, ((part, _, text), me) in enumerate(zip(items, mine)):
        theirs = known[key(i)]
        s = stats[part]
        s["modules"] += 1
        s["accepted"] += theirs == ""
        if (theirs == "") == (me == ""):
            s["agree"] += 1
            # The header-only modules give the pairs' verdicts again (ptxas compares the pair
            # only when there is code): left out of the CI table.
            if part != "pairs-empty":
                rows.append(f"{'accept' if theirs == '' else 'reject'}\t"
                            + text.replace("\\", "\\\\").replace("\n", "\\n"))
        else:
            s["ptxsim rejects" if theirs == "" else "ptxsim accepts"] += 1
            head = " | ".join(l for l in text.splitlines()[:2])
            dis.append(f"{part}: {head} | ptxas: {theirs or 'accept'} | ptxsim: {me or 'accept'}")
    for part, s in stats.items():
        print(f"{part:<12} modules {s['modules']:>5}, ptxas accepts {s['accepted']:>5}, agree "
              f"{s['agree']:>5} ({100 * s['agree'] / s['modules']:.2f}%), ptxsim rejects "
              f"{s['ptxsim rejects']}, ptxsim accepts {s['ptxsim accepts']}")
    for d in dis[:show]:
        print(d)
    if tsv:
        with open(tsv, "w") as f:
            f.write("# generated by scripts/conformance/headers.py --judge --tsv; do not edit\n"
                    f"# command: ptxas -arch <last .target architecture, gen.arch_for> m.ptx "
                    "-o /dev/null\n")
            f.write("verdict\tmodule\n")
            f.write("\n".join(rows) + "\n")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--judge", action="store_true")
    ap.add_argument("--ptxsim")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", help="a JSON file keeping ptxas's verdicts between runs")
    ap.add_argument("--tsv", help="write the agreeing modules here")
    ap.add_argument("--show", type=int, default=20)
    args = ap.parse_args()
    if args.judge:
        if not args.ptxsim:
            ap.error("--judge needs --ptxsim")
        return judge(args.ptxsim, args.jobs, args.cache, args.tsv, args.show)
    for part, _, text in plan():
        print(f"// {part}\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
