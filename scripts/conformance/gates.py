#!/usr/bin/env python3
"""Gate sweep: which (.version, .target) pairs ptxas accepts a line on, against `ptxsim check`.

Gating (the target and PTX ISA version that first allow an opcode, a modifier, a type or a
shape) is where a generator that uses other (.version, .target) pairs than ours finds the most.
This script takes lines ptxas accepts somewhere (the accepted lines of conformance tables, or of
`fuzz.py --tsv` runs on specgen/realmut/opgen output) and asks ptxas and ptxsim about each of
them on every pair of a ladder: the targets sm_50 ... sm_121a (plain, `a` and `f` variants) x
the PTX ISA versions 6.0 ... 9.1, where ptxas 13.5 takes the pair as a module header
(tests/conformance/targets.tsv). Verdicts are made as fuzz.py makes them (one module per pair
and batch, ptxas's rejected lines removed and the rest assembled again until clean, `-arch
compute_XX`); lines are first reduced to one per shape (the instruction with its register
numbers dropped).

Usage:
  python3 scripts/conformance/gates.py --ptxsim target/debug/examples/check_json \
      [--from tests/conformance/ops-forms.tsv.xz ...] [--per-opcode N] [--show N] \
      [--minimums OUT.tsv] [--boundary OUT.tsv] [--only PREFIX] [--targets ...] [--versions ...]

It prints the agreement per pair and the disagreements grouped by opcode and ptxas message.
`--minimums` writes, per line and target, the lowest version of the ladder ptxas accepts it at
(`-` for none); `--boundary` writes the rows next to each boundary (the lowest accepted version
of each target and the version below it, and for each version the lowest accepted target of a
family next to the one below it) in the conformance-table format, for the CI data.
Standard library only; without ptxas it says so and exits 0.
"""
from __future__ import annotations

import argparse
import collections
import lzma
import random
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzz  # noqa: E402  (module text, ptxas and ptxsim verdicts)
import gen  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a",
           "sm_100", "sm_100a", "sm_100f", "sm_101a", "sm_101f", "sm_103a", "sm_103f",
           "sm_110a", "sm_110f", "sm_120", "sm_120a", "sm_120f", "sm_121a", "sm_121f"]
VERSIONS = ["6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5",
            "7.6", "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8",
            "9.0", "9.1"]


def valid_pairs() -> set[tuple[str, str]]:
    """The (target, version) headers ptxas 13.5 accepts (tests/conformance/targets.tsv)."""
    out = set()
    for row in (ROOT / "tests/conformance/targets.tsv").read_text().splitlines():
        f = row.split("\t")
        if len(f) >= 3 and f[2] == "accept":
            out.add((f[0], f[1]))
    return out


def read_table(path: str) -> list[tuple[str, str, str, str]]:
    """(target, version, instruction, verdict) rows of a conformance table (.tsv or .tsv.xz)."""
    text = (lzma.open(path, "rt") if path.endswith(".xz") else open(path)).read()
    rows = []
    for row in text.splitlines():
        if row.startswith("#") or row.startswith("target\t"):
            continue
        f = row.split("\t")
        if len(f) >= 4:
            rows.append((f[0], f[1], f[2], f[3]))
    return rows


def shape(line: str) -> str:
    """The line with its register numbers dropped (`%u32_3` -> `%u32`)."""
    return re.sub(r"(%[a-z0-9]+)_\d+", r"\1", line)


def opcode_key(line: str) -> str:
    """The opcode and its first sub-operation word (`cp.async.bulk`, `ld`)."""
    words = line.split(" ")[0].split(".")
    return fuzz.family_key(line.split(" ")[0]) if words else line


def family(target: str) -> str:
    """`sm_100a` -> `sm_100`: the variants of one architecture."""
    return re.match(r"sm_\d+", target).group(0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptxsim", required=True)
    ap.add_argument("--ptxas", default=str(gen.PTXAS))
    ap.add_argument("--from", dest="sources", nargs="+", default=[],
                    help="conformance tables whose accepted lines are swept")
    ap.add_argument("--per-opcode", type=int, default=0,
                    help="at most N shapes per opcode key (a seeded sample; 0: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", help="only lines starting with this")
    ap.add_argument("--targets", nargs="+", default=TARGETS)
    ap.add_argument("--versions", nargs="+", default=VERSIONS)
    ap.add_argument("--batch", type=int, default=400)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=3, help="examples per disagreement group")
    ap.add_argument("--groups", type=int, default=60, help="disagreement groups to print")
    ap.add_argument("--minimums", help="write the lowest accepted version per line and target")
    ap.add_argument("--boundary", help="write the boundary rows (conformance-table format)")
    ap.add_argument("--all", help="write every row (conformance-table format)")
    args = ap.parse_args()
    if not Path(args.ptxas).exists():
        print(f"gates.py: ptxas not found at {args.ptxas}; set PTXSIM_NVIDIA_ROOT. Skipping.")
        return 0
    start = time.time()
    lines: dict[str, str] = {}
    for src in args.sources:
        for _, _, instruction, verdict in read_table(src):
            if verdict != "accept" or (args.only and not instruction.startswith(args.only)):
                continue
            lines.setdefault(shape(instruction), instruction)
    chosen = sorted(lines.values())
    if args.per_opcode:
        rng = random.Random(args.seed)
        by_op = collections.defaultdict(list)
        for l in chosen:
            by_op[opcode_key(l)].append(l)
        chosen = []
        for op in sorted(by_op):
            ls = by_op[op]
            chosen += ls if len(ls) <= args.per_opcode else sorted(rng.sample(ls, args.per_opcode))
    valid = valid_pairs()
    pairs = [(t, v) for t in args.targets for v in args.versions if (t, v) in valid]
    jobs = []
    for t, v in pairs:
        # Register declarations a module header cannot have there (`.reg .b128` below PTX
        # 8.3 or sm_70, `.reg .f16`/`.f16x2` below sm_53) would fail every line of the module.
        low = t in ("sm_50", "sm_60")
        ls = [l for l in chosen if not ((gen.vkey(v) < (8, 3) or low) and "%b128_" in l)
              and not (t == "sm_50" and "%f16" in l)]
        jobs += [(t, v, b) for b in fuzz.batches(ls, args.batch)]
    print(f"{len(chosen)} lines x {len(pairs)} pairs: {sum(len(b) for _, _, b in jobs)} verdicts"
          f" in {len(jobs)} modules", flush=True)

    done = [0]

    def run(job):
        t, v, b = job
        out = (fuzz.ptxas_verdicts(args.ptxas, t, v, b),
               fuzz.ptxsim_verdicts(args.ptxsim, t, v, b))
        done[0] += 1
        if done[0] % 100 == 0:
            print(f"  {done[0]} of {len(jobs)} modules, {time.time() - start:.0f} s", flush=True)
        return out

    with ThreadPoolExecutor(args.jobs) as ex:
        results = list(ex.map(run, jobs))
    # verdict[(line, target, version)] = (ptxas message or None, ptxsim message or None)
    verdict: dict[tuple[str, str, str], tuple[str | None, str | None]] = {}
    for (t, v, b), (theirs, ours) in zip(jobs, results):
        for l in b:
            verdict[(l, t, v)] = (theirs.get(l), ours.get(l))
    per_pair = collections.defaultdict(collections.Counter)
    groups = collections.defaultdict(list)
    for (l, t, v), (theirs, ours) in verdict.items():
        c = per_pair[(t, v)]
        c["lines"] += 1
        if (theirs is None) == (ours is None):
            c["agree"] += 1
            continue
        kind = "ptxsim-rejects" if theirs is None else "ptxsim-accepts"
        c[kind] += 1
        msg = theirs if theirs is not None else re.sub(r"`[^`]*`", "`..`", ours or "")
        msg = re.sub(r"'%[^']*'|'sym_[^']*'", "'..'", msg)
        groups[(kind, opcode_key(l), msg)].append((t, v, l, theirs, ours))
    total = sum(c["lines"] for c in per_pair.values())
    agree = sum(c["agree"] for c in per_pair.values())
    rej = sum(c["ptxsim-rejects"] for c in per_pair.values())
    acc = sum(c["ptxsim-accepts"] for c in per_pair.values())
    print(f"{total} verdicts, {agree} agree ({100.0 * agree / max(total, 1):.2f}%), {rej} "
          f"ptxsim-rejects, {acc} ptxsim-accepts, "
          f"accepted by ptxas {sum(1 for x in verdict.values() if x[0] is None)}, "
          f"{time.time() - start:.0f} s")
    print(f"{'target':<9}{'version':>8}{'lines':>7}{'agree':>7}{'rejects':>9}{'accepts':>9}")
    for (t, v), c in sorted(per_pair.items(), key=lambda kv: (kv[0][0], gen.vkey(kv[0][1]))):
        if c["agree"] != c["lines"]:
            print(f"{t:<9}{v:>8}{c['lines']:>7}{c['agree']:>7}{c['ptxsim-rejects']:>9}"
                  f"{c['ptxsim-accepts']:>9}")
    ordered = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    for (kind, op, msg), rows in ordered[:args.groups]:
        distinct = len({r[2] for r in rows})
        print(f"\n{kind} {op}: {len(rows)} verdicts, {distinct} lines | {msg}")
        for t, v, l, theirs, ours in rows[:args.show]:
            print(f"    {t} {v} {l}  | ptxsim: {ours or 'accept'}")
    header = ("# generated by scripts/conformance/gates.py; do not edit\n"
              "# command: ptxas -arch compute_<target, sm_75 below sm_75> m.ptx -o /dev/null\n"
              "# registers: %<regtype>_<n> is declared .reg .<regtype>; _ is the sink;"
              " sym_<space> is a .b8 array in that space\n")
    if args.minimums:
        with open(args.minimums, "w") as f:
            f.write(header + "instruction\t" + "\t".join(args.targets) + "\n")
            for l in chosen:
                cells = []
                for t in args.targets:
                    ok = [v for v in args.versions if (l, t, v) in verdict
                          and verdict[(l, t, v)][0] is None]
                    cells.append(min(ok, key=gen.vkey) if ok else "-")
                f.write(l + "\t" + "\t".join(cells) + "\n")
    keep: set[tuple[str, str, str]] = set()
    for l in chosen:
        for t in args.targets:
            vs = [v for v in args.versions if (l, t, v) in verdict]
            for lo, hi in zip(vs, vs[1:]):
                if (verdict[(l, t, lo)][0] is None) != (verdict[(l, t, hi)][0] is None):
                    keep |= {(l, t, lo), (l, t, hi)}
        for v in args.versions:
            ts = [t for t in args.targets if (l, t, v) in verdict]
            for lo, hi in zip(ts, ts[1:]):
                if (verdict[(l, lo, v)][0] is None) != (verdict[(l, hi, v)][0] is None):
                    keep |= {(l, lo, v), (l, hi, v)}
    for path, which in ((args.boundary, keep), (args.all, set(verdict))):
        if not path:
            continue
        with open(path, "w") as f:
            f.write(header + "target\tversion\tinstruction\tverdict\tmessage\n")
            for l, t, v in sorted(which, key=lambda k: (k[1], gen.vkey(k[2]), k[0])):
                theirs = verdict[(l, t, v)][0]
                f.write(f"{t}\t{v}\t{l}\t{'accept' if theirs is None else 'reject'}\t"
                        f"{theirs or ''}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
