#!/usr/bin/env python3
"""The eleventh probe: PTX written by hand by other people, for `realcorpus.py`.

  python3 scripts/conformance/handcorpus.py zluda ZLUDA_CHECKOUT OUT
  python3 scripts/conformance/handcorpus.py ocelot GPUOCELOT_CHECKOUT OUT
  python3 scripts/conformance/handcorpus.py ptxtests PTX_TESTS_CHECKOUT OUT [--per-template N]

Each command copies the modules of one source into `OUT/<source>-dev` and `OUT/<source>-held`
(one in four held out, by a hash of the file's path inside the checkout, decided before any
judging), named `<path with / as _>.<source>.ptx` so that `realcorpus.py judge` groups them by
source. Checkouts are read-only; nothing of them is committed.

* `zluda`: every `.ptx` file of ZLUDA (its `ptx/src/test/` pass and fail tests, the pass
  tests' inputs, the driver's test modules): small modules by ZLUDA's authors, one or a few
  instructions each, at PTX ISA 6.5-8.x and `.target sm_30`-`sm_90`.
* `ocelot`: every `.ptx` file of gpuocelot (its `tests/ptx/` modules: CUDA SDK 2.2, Rodinia,
  Parboil, hand-written synthetic tests) at PTX ISA 1.4-3.1 and `.target sm_10`-`sm_35`;
  ptxas 13.5 takes these headers (`gen.arch_for` assembles them for sm_75), so no module
  needs retargeting.
* `ptxtests`: ptx_tests builds each test's module from a template (`src/testcase/*.ptx`, with
  `<NAME>` placeholders filled by the Rust test) inside a fixed frame (`.version 7.8`,
  `.target sm_90`, `.entry run(.param .u64 <arg>, ...)`, each argument loaded into
  `<arg>_addr`, the body, `ret;`). This script fills the placeholders itself, not by running
  the Rust code: a type placeholder takes the PTX type names of the test's source (string
  literals and the Rust types of its type arguments, `i16` as `s16`), a `_SIZE` placeholder
  the size of the type chosen for its stem, `<INPUT_LD>`-like ones `b<bits>`, every other
  placeholder one of the test's string literals that looks like PTX (or nothing); up to
  `--per-template` instances per template (the first uses the first candidate of each).

Standard library only.
"""
from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
from pathlib import Path

SIZES = {"8": 1, "16": 2, "32": 4, "64": 8, "128": 16}
RUST_TYPES = {"u8": "u8", "u16": "u16", "u32": "u32", "u64": "u64", "i8": "s8", "i16": "s16",
              "i32": "s32", "i64": "s64", "f16": "f16", "f32": "f32", "f64": "f64",
              "bf16": "bf16", "F8E4M3": "e4m3", "F8E5M2": "e5m2"}
PTX_TYPE = re.compile(r"^(?:[bsu](?:8|16|32|64)|f(?:16|32|64)|bf16|f16x2|bf16x2|e4m3|e5m2|"
                      r"e4m3x2|e5m2x2|pred)$")


def held_out(rel: str) -> bool:
    """One in four files is held out, by the first byte of the SHA-1 of its path."""
    return hashlib.sha1(rel.encode()).digest()[0] % 4 == 0


def place(out: Path, source: str, rel: str, text: str) -> str:
    part = "held" if held_out(rel) else "dev"
    d = out / f"{source}-{part}"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{rel.replace('/', '_')}.{source}.ptx").write_text(text)
    return part


def copy_all(checkout: Path, out: Path, source: str) -> int:
    counts = {"dev": 0, "held": 0}
    for f in sorted(checkout.rglob("*.ptx")):
        rel = str(f.relative_to(checkout))
        counts[place(out, source, rel, f.read_text(errors="replace"))] += 1
    print(f"{source}: {counts['dev']} modules developed against, {counts['held']} held out",
          file=sys.stderr)
    return 0


# ---- ptx_tests: templates inside a fixed frame ----

HEADER = "\n    .version 7.8\n    .target sm_90\n    .address_size 64\n"


def frame(args: list[str], body: str) -> str:
    sig = ".entry run(" + ", ".join(f".param .u64 {a}" for a in args) + ")"
    loads = "".join(f".reg .u64    {a}_addr;\nld.param.u64 {a}_addr, [{a}];\n" for a in args)
    return f"{HEADER}\n{sig}\n{{\n{loads}\n{body}\nret;\n}}"


def type_size(t: str) -> str:
    m = re.search(r"(\d+)", t)
    if t in ("e4m3", "e5m2"):
        return "1"
    return str(SIZES.get(m.group(1), 4)) if m else "4"


def candidates(rs: str) -> tuple[list[str], list[str], list[str]]:
    """(PTX types, other PTX-looking literals, the kernel's argument names) of a test."""
    literals = re.findall(r'"([^"\\\n]*)"', rs)
    types = [l for l in literals if PTX_TYPE.match(l)]
    for rust in re.findall(r"(?:::<|\bfor\s|impl\w*<)\s*\(?\s*([A-Za-z0-9_]+)", rs):
        if rust in RUST_TYPES:
            types.append(RUST_TYPES[rust])
    for rust in re.findall(r"\b(u8|u16|u32|u64|i8|i16|i32|i64|f16|f32|f64)\b", rs):
        types.append(RUST_TYPES[rust])
    other = [l for l in literals if re.fullmatch(r"[.a-z0-9_:]{0,40}", l) and
             not PTX_TYPE.match(l) and not l.startswith(("input", "output")) and
             not l.endswith((".ptx", ".rs"))]
    args_m = re.search(r"fn args\(&self\)[^{]*\{\s*&\[([^\]]*)\]", rs)
    args = re.findall(r'"(\w+)"', args_m.group(1)) if args_m else ["input", "output"]
    return (list(dict.fromkeys(types)) or ["u32"], list(dict.fromkeys(other)), args)


def instantiate(template: str, rs: str, rng: random.Random, first: bool) -> str:
    types, other, args = candidates(rs)
    holes = list(dict.fromkeys(re.findall(r"<([A-Z0-9_]+)>", template)))
    chosen: dict[str, str] = {}
    pick = (lambda xs: xs[0]) if first else rng.choice
    for h in holes:
        if h.endswith("_SIZE") or h.endswith("_LD") or h.endswith("_ST"):
            continue
        if "TYPE" in h or h in ("INPUT", "OUTPUT"):
            chosen[h] = pick(types)
        elif h in ("FTZ", "FLUSH"):
            chosen[h] = pick(["", ".ftz"])
        elif h == "SAT":
            chosen[h] = pick(["", ".sat"])
        elif h == "CC":
            chosen[h] = pick(["", ".cc"])
        elif h == "RND":
            chosen[h] = pick([".rn", ".rz", ".rm", ".rp"])
        else:
            chosen[h] = pick(other or [""])
    for h in holes:
        stem = re.sub(r"_(SIZE|LD|ST)$", "", h)
        base = chosen.get(stem) or chosen.get("TYPE") or types[0]
        if h.endswith("_SIZE"):
            chosen[h] = type_size(base)
        elif h.endswith("_LD") or h.endswith("_ST"):
            chosen[h] = f"b{int(type_size(base)) * 8}"
    body = template
    for h, v in chosen.items():
        body = body.replace(f"<{h}>", v)
    return frame([a for a in args], body)


def cmd_ptxtests(args) -> int:
    rng = random.Random(args.seed)
    root = Path(args.checkout) / "src" / "testcase"
    counts = {"dev": 0, "held": 0}
    for t in sorted(root.glob("*.ptx")):
        rs_path = t.with_suffix(".rs")
        rs = rs_path.read_text(errors="replace") if rs_path.exists() else ""
        template = t.read_text(errors="replace")
        rel = str(t.relative_to(Path(args.checkout)))
        seen = set()
        for i in range(args.per_template * 4):
            if len(seen) >= args.per_template:
                break
            text = instantiate(template, rs, rng, first=(i == 0))
            if text in seen:
                continue
            seen.add(text)
            part = "held" if held_out(rel) else "dev"
            d = Path(args.out) / f"ptxtests-{part}"
            d.mkdir(parents=True, exist_ok=True)
            (d / f"{t.stem}-{len(seen):02}.ptxtests.ptx").write_text(text)
            counts[part] += 1
    print(f"ptxtests: {counts['dev']} modules developed against, {counts['held']} held out",
          file=sys.stderr)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("zluda", "ocelot"):
        s = sub.add_parser(name)
        s.add_argument("checkout")
        s.add_argument("out")
    p = sub.add_parser("ptxtests")
    p.add_argument("checkout")
    p.add_argument("out")
    p.add_argument("--per-template", type=int, default=24)
    p.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.cmd == "ptxtests":
        return cmd_ptxtests(args)
    return copy_all(Path(args.checkout), Path(args.out), args.cmd)


if __name__ == "__main__":
    sys.exit(main())
