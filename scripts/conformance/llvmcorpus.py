#!/usr/bin/env python3
"""A tenth probe: whole modules written by another compiler, LLVM's NVPTX back end.

  python3 scripts/conformance/llvmcorpus.py compile NVPTX_TEST_DIR OUT_DIR [--llc llc-19]...
  python3 scripts/conformance/llvmcorpus.py clang SRC... OUT_DIR [--clang clang-19]

`compile` reads LLVM's own NVPTX code-generation tests (`llvm/test/CodeGen/NVPTX` of an LLVM
checkout or source release, read-only; nothing of it is committed): every `llc` command of a
`.ll` file's `RUN:` lines (lit's `%if ptxas %{ ... %}` wrappers undone, `%s` the file itself,
`not llc` and runs that stop before the assembly printer left out) is run with each `--llc`
given, and once more at the newest `-mcpu`/`-mattr=+ptxNN` pair each `llc` knows (the test's
other options kept); the `.py` generators (`wmma.py`, `surf-tex.py`, `ld-st-addrrspace.py`)
are run as their `RUN:` lines say and their output compiled the same way. Modules `llc` does
not produce (an intrinsic this `llc` lacks, a test of an error) are skipped. Each module goes
to `OUT_DIR/dev` or `OUT_DIR/held` by a hash of its test file's name (one in four held out),
named `<test>.<config>.ptx` so that `realcorpus.py judge` reports by configuration.

`clang` compiles CUDA files to PTX with `clang --cuda-device-only -S -nocudalib -nocudainc`
(clang 19's CUDA wrapper headers do not take CUDA 13's, so the sources use clang's builtins
only: `scripts/conformance/llvm-kernels.cu`), for sm_70, sm_80 and sm_90a, at `-O3` and at
`-O0 -g` (DWARF sections, `.loc`), into `OUT_DIR/clang`.

`triton` (run with a Python that has Triton's wheel: `pip install triton` ships a newer LLVM,
reachable as `triton._C.libtriton.llvm.translate_to_asm`) translates every `.ll` test (and the
generators' output) with that LLVM for sm_100a/PTX 8.7, sm_120a/PTX 8.8, sm_103a/PTX 8.8 and
sm_90a/PTX 8.6, into `OUT_DIR/triton-dev` and `OUT_DIR/triton-held` (the same split).

`realcorpus.py judge|mutate|lines OUT_DIR/dev` (or `held`) then asks ptxas and ptxsim.
Standard library only; at most `--jobs` processes at a time.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402  (the NVIDIA tool locations)

INCLUDE = gen.PTXAS.parent.parent / "include"
# Options that make llc stop before the assembly printer or print something else.
NOT_PTX = ("-stop-after", "-stop-before", "-start-after", "-start-before", "-run-pass",
           "-print-", "-debug", "-filetype", "-view-", "--crash", "-x", "-pass-remarks",
           "-time-passes")


def run_lines(text: str, comment: str) -> list[str]:
    """The commands of a test's RUN lines, continuations joined, `%if X %{ c %}` undone."""
    cmds: list[str] = []
    cur = ""
    for line in text.splitlines():
        m = re.match(rf"^\s*{re.escape(comment)}\s*RUN:(.*)$", line)
        if not m:
            continue
        part = m.group(1).rstrip()
        if part.endswith("\\"):
            cur += part[:-1] + " "
            continue
        cmds.append(cur + part)
        cur = ""
    out = []
    for c in cmds:
        c = re.sub(r"%if\s+[^%]*%\{", "", c).replace("%}", "")
        out.append(c.strip())
    return out


def llc_invocations(cmd: str, infile: str, temps: dict[str, str]) -> list[list[str]]:
    """The option lists of the `llc` stages of one RUN command (input and output dropped)."""
    got = []
    for stage in cmd.split("|"):
        try:
            words = shlex.split(stage)
        except ValueError:
            continue
        if not words or words[0] != "llc":
            continue
        opts = []
        skip = False
        it = iter(words[1:])
        for w in it:
            if w in ("<", "-o", ">"):
                next(it, None)
                continue
            if w.startswith("<") or w.startswith(">") or w == "%s" or w.startswith("%t"):
                continue
            if w.startswith(NOT_PTX):
                skip = True
            opts.append(w)
        if not skip:
            got.append(opts)
    return got


def llc_input(cmd: str, source: str, temps: dict[str, str]) -> str:
    """The file an `llc` RUN command reads: a generator's output `%t...` or the test itself."""
    for name in sorted(temps, key=len, reverse=True):
        if name in cmd:
            return temps[name]
    return source


def newest(llc: str) -> tuple[str, str]:
    """The newest `sm_XX` and `ptxNN` an `llc` knows (from `-mcpu=help`)."""
    p = subprocess.run([llc, "-march=nvptx64", "-mcpu=help"], capture_output=True, text=True)
    text = p.stdout + p.stderr
    cpus = re.findall(r"^\s*(sm_\d+a?)\s", text, flags=re.M)
    ptxs = re.findall(r"^\s*ptx(\d+)\s", text, flags=re.M)
    cpu = max(cpus, key=lambda c: (int(re.sub(r"\D", "", c)), c.endswith("a")))
    return cpu, "ptx" + max(ptxs, key=int)


def config_name(llc: str, opts: list[str]) -> str:
    ver = re.sub(r"\D", "", Path(llc).name) or "llc"
    cpu = next((re.sub(r"^-+mcpu=", "", o) for o in opts if re.match(r"^-+mcpu=", o)), "sm_20")
    ptx = re.findall(r"\+ptx(\d+)", " ".join(opts))
    h = hashlib.sha1(" ".join(opts).encode()).hexdigest()[:6]
    return f"llc{ver}-{cpu}-{'ptx' + ptx[-1] if ptx else 'dflt'}-{h}"


def held_out(test: str) -> bool:
    """One test file in four, by a hash of its name."""
    return hashlib.sha1(test.encode()).digest()[0] % 4 == 0


def cmd_compile(args) -> int:
    root = Path(args.tests)
    out = Path(args.out)
    for part in ("dev", "held"):
        (out / part).mkdir(parents=True, exist_ok=True)
    llcs = args.llc or ["llc"]
    tmp = Path(tempfile.mkdtemp(prefix="llvmcorpus-"))
    jobs: dict[Path, tuple[str, list[str], str]] = {}
    newest_of = {llc: newest(llc) for llc in llcs}
    for test in sorted(list(root.glob("*.ll")) + list(root.glob("*.py"))):
        text = test.read_text(errors="replace")
        comment = "#" if test.suffix == ".py" else ";"
        temps: dict[str, str] = {}
        for cmd in run_lines(text, comment):
            gm = re.match(r"^%python\s+%s\s+(.*?)>\s*(%t\S*)\s*$", cmd)
            if gm:                                     # a generator writing a .ll file
                dest = tmp / (test.stem + re.sub(r"[^\w.-]", "_", gm.group(2)) + ".ll")
                gen_args = [a.replace("%t", str(tmp / test.stem)) for a in
                            shlex.split(gm.group(1))]
                p = subprocess.run([sys.executable, str(test), *gen_args], capture_output=True,
                                   text=True, cwd=root)
                if p.returncode == 0:
                    dest.write_text(p.stdout)
                    temps[gm.group(2)] = str(dest)
                continue
            if re.search(r"(^|\s)not\s+llc\b", cmd):
                continue
            src = llc_input(cmd, str(test), temps)
            if src.endswith(".py"):
                continue
            tag = test.stem + (Path(src).stem[len(test.stem):] if src != str(test) else "")
            stem = re.sub(r"[^\w-]", "_", tag)
            part = "held" if held_out(test.name) else "dev"
            for opts in llc_invocations(cmd, str(test), temps):
                for llc in llcs:
                    variants = [opts]
                    if args.newest:
                        cpu, ptx = newest_of[llc]
                        newer = [o for o in opts if not re.match(r"^-+(mcpu|mattr)=", o)]
                        variants.append(newer + [f"-mcpu={cpu}", f"-mattr=+{ptx}"])
                    for v in variants:
                        name = f"{stem}.{config_name(llc, v)}.ptx"
                        jobs.setdefault(out / part / name, (llc, v, src))

    def one(item):
        dest, (llc, opts, src) = item
        if dest.exists():
            return "cached"
        try:
            p = subprocess.run([llc, *opts, src, "-o", str(dest)], capture_output=True,
                               text=True, timeout=120)
        except subprocess.TimeoutExpired:
            dest.unlink(missing_ok=True)
            return "timeout"
        if p.returncode != 0 or not dest.exists() or ".target" not in dest.read_text():
            dest.unlink(missing_ok=True)
            return "failed"
        return "ok"
    counts: dict[str, int] = {}
    with concurrent.futures.ThreadPoolExecutor(min(args.jobs, 2)) as ex:
        for r in ex.map(one, sorted(jobs.items())):
            counts[r] = counts.get(r, 0) + 1
    print(f"llvmcorpus: {len(jobs)} llc runs: {counts}", file=sys.stderr)
    return 0


TRITON_PAIRS = [("sm_100a", "+ptx87"), ("sm_120a", "+ptx88"), ("sm_103a", "+ptx88"),
                ("sm_90a", "+ptx86")]


def cmd_triton_one(args) -> int:
    """Translates one `.ll` file at every pair of TRITON_PAIRS (a child process of `triton`:
    LLVM stops the process on a fatal error)."""
    from triton._C.libtriton import llvm  # noqa: PLC0415  (only this command needs it)
    llvm.init_targets()
    src = Path(args.src)
    text = src.read_text(errors="replace")
    for proc, features in TRITON_PAIRS:
        dest = Path(args.out) / f"{src.stem}.triton-{proc}-{features[1:]}.ptx"
        try:
            ptx = llvm.translate_to_asm(text, "nvptx64-nvidia-cuda", proc, features, [], False,
                                        False, False)
        except Exception:  # noqa: BLE001  (a test this LLVM does not take)
            continue
        if isinstance(ptx, str) and ".target" in ptx:
            dest.write_text(ptx)
    return 0


def cmd_triton(args) -> int:
    root = Path(args.tests)
    out = Path(args.out)
    for part in ("triton-dev", "triton-held"):
        (out / part).mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="llvmcorpus-"))
    sources: list[tuple[str, Path]] = [(t.name, t) for t in sorted(root.glob("*.ll"))]
    for test in sorted(root.glob("*.py")):
        for cmd in run_lines(test.read_text(errors="replace"), "#"):
            gm = re.match(r"^%python\s+%s\s+(.*?)>\s*(%t\S*)\s*$", cmd)
            if not gm:
                continue
            dest = tmp / (test.stem + re.sub(r"[^\w.-]", "_", gm.group(2)) + ".ll")
            gen_args = [a.replace("%t", str(tmp / test.stem)) for a in shlex.split(gm.group(1))]
            p = subprocess.run([sys.executable, str(test), *gen_args], capture_output=True,
                               text=True, cwd=root)
            if p.returncode == 0:
                dest.write_text(p.stdout)
                sources.append((test.name, dest))
    def one(item):
        name, src = item
        part = out / ("triton-held" if held_out(name) else "triton-dev")
        try:
            subprocess.run([sys.executable, __file__, "triton-one", str(src), str(part)],
                           capture_output=True, timeout=300)
        except subprocess.TimeoutExpired:
            pass
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        list(ex.map(one, sources))
    made = len(list(out.glob("triton-*/*.ptx")))
    print(f"llvmcorpus triton: {len(sources)} sources, {made} modules", file=sys.stderr)
    return 0


CLANG_ARCHS = ["sm_70", "sm_80", "sm_90a"]


def cmd_clang(args) -> int:
    out = Path(args.out) / "clang"
    out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    for src in args.src:
        for arch in CLANG_ARCHS:
            for opt in ("-O3", "-O0 -g", "-O2 -gline-tables-only", "-O3 -ffast-math"):
                tag = re.sub(r"\W", "_", opt)
                dest = out / f"{Path(src).stem}.clang-{arch}{tag}.ptx"
                cmd = [args.clang, "-x", "cuda", "--cuda-device-only", "-S", "-nocudalib",
                       "-nocudainc", f"--cuda-gpu-arch={arch}", f"--cuda-path={INCLUDE.parent}",
                       *opt.split(), str(src), "-o", str(dest)]
                p = subprocess.run(cmd, capture_output=True, text=True)
                ok = p.returncode == 0 and dest.exists()
                counts["ok" if ok else "failed"] = counts.get("ok" if ok else "failed", 0) + 1
                if not ok:
                    dest.unlink(missing_ok=True)
                    if args.verbose:
                        print(p.stderr[-600:], file=sys.stderr)
    print(f"llvmcorpus clang: {counts}", file=sys.stderr)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("tests", help="llvm/test/CodeGen/NVPTX of an LLVM checkout")
    c.add_argument("out")
    c.add_argument("--llc", action="append", help="an llc binary (repeatable; default llc)")
    c.add_argument("--no-newest", dest="newest", action="store_false",
                   help="only the RUN lines' own -mcpu/-mattr")
    c.add_argument("--jobs", type=int, default=2)
    k = sub.add_parser("clang")
    k.add_argument("src", nargs="+")
    k.add_argument("out")
    k.add_argument("--clang", default="clang")
    k.add_argument("--verbose", action="store_true")
    t = sub.add_parser("triton")
    t.add_argument("tests", help="llvm/test/CodeGen/NVPTX of an LLVM checkout")
    t.add_argument("out")
    o = sub.add_parser("triton-one")
    o.add_argument("src")
    o.add_argument("out")
    args = ap.parse_args()
    return {"compile": cmd_compile, "clang": cmd_clang, "triton": cmd_triton,
            "triton-one": cmd_triton_one}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
