#!/usr/bin/env python3
"""The warp and atomic probes (tests/hardware/warp/plan.tsv) in ptxsim against a GPU's outputs.
Stdlib only; run from anywhere (paths in the plan are relative to the repository root).

    compare.py GPU_BIN[.xz] --ptxsim BIN        # per kernel: equal / differs (exit 1 if any differs)
    compare.py --ptxsim BIN --save-ptxsim FILE  # ptxsim's outputs in the GPU file's layout (.xz: compressed)
    compare.py --agree RUN1 RUN2 ...            # which kernels' outputs differ between GPU runs

The GPU file is what scripts/hardware/run_gpu.cpp writes for the plan: every launch's saved
buffers, concatenated in plan order. Each saved buffer is compared as little-endian u32 words;
where the buffer is a whole number of slots of one word per thread of the launch, a word is
named `slot S thread T` (probe.cu lays its `out` buffers out slot-major).
"""
from __future__ import annotations

import argparse
import lzma
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PLAN = REPO / "tests" / "hardware" / "warp" / "plan.tsv"


def dims(text):
    parts = [int(x) for x in text.split(",")]
    return parts + [1] * (3 - len(parts))


def read_plan(path: Path):
    launches = []
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        args = f[4].split()
        saved = [int(i) for i in (f[5].split() if len(f) > 5 else [])]
        sizes = []
        for i in saved:
            kind, value = args[i].split(":", 1)
            if kind == "buf":
                sizes.append((REPO / value).stat().st_size)
            else:
                sizes.append(int(value))
        launches.append({"module": f[0], "entry": f[1], "grid": f[2], "block": f[3],
                         "args": args, "saved": saved, "sizes": sizes})
    return launches


def read_blob(path: str) -> bytes:
    data = Path(path).read_bytes()
    return lzma.decompress(data) if path.endswith(".xz") else data


def split(blob: bytes, launches):
    """{(entry, arg): bytes} in plan order; raises if the blob's size does not fit the plan."""
    total = sum(sum(l["sizes"]) for l in launches)
    if len(blob) != total:
        raise SystemExit(f"the file has {len(blob)} bytes, the plan saves {total}")
    out, offset = {}, 0
    for l in launches:
        for i, n in zip(l["saved"], l["sizes"]):
            out[(l["entry"], i)] = blob[offset:offset + n]
            offset += n
    return out


def run_ptxsim(binary: str, launch, tmp: Path):
    cmd = [binary, "run", launch["module"], "--entry", launch["entry"], "--grid", launch["grid"],
           "--block", launch["block"], "--no-registers", "--jobs", "1", "--max-steps", "10000000"]
    for spec in launch["args"]:
        kind, value = spec.split(":", 1)
        if kind == "poison":
            path = tmp / f"poison-{value}.bin"
            if not path.exists():
                path.write_bytes(b"\xa5" * int(value))
            cmd += ["--arg", f"buf:{path}"]
        elif kind == "b32":
            cmd += ["--arg", f"u32:0x{value}"]
        elif kind == "b64":
            cmd += ["--arg", f"u64:0x{value}"]
        else:  # buf:PATH (relative to the repository root) and zeros:N are ptxsim's own forms
            cmd += ["--arg", spec]
    outs = {}
    for i in launch["saved"]:
        path = tmp / f"{launch['entry']}-{i}.bin"
        cmd += ["--out", f"{i}={path}"]
        outs[i] = path
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        lines = (done.stderr + done.stdout).strip().splitlines()
        return None, lines[-1] if lines else f"exit {done.returncode}"
    return {i: p.read_bytes() for i, p in outs.items()}, None


def words(b: bytes):
    return [int.from_bytes(b[k:k + 4], "little") for k in range(0, len(b) - len(b) % 4, 4)]


def label(launch, index: int, nwords: int) -> str:
    g, b = dims(launch["grid"]), dims(launch["block"])
    threads = g[0] * g[1] * g[2] * b[0] * b[1] * b[2]
    if nwords % threads == 0:
        return f"word {index} (slot {index // threads} thread {index % threads})"
    return f"word {index}"


def describe(launch, i, a: bytes, b: bytes, names=("GPU", "ptxsim"), show=4) -> str:
    wa, wb = words(a), words(b)
    diff = [k for k in range(min(len(wa), len(wb))) if wa[k] != wb[k]]
    if not diff and len(a) == len(b):
        return "equal"
    parts = [f"differs in {len(diff)} of {len(wa)} words"]
    for k in diff[:show]:
        parts.append(f"{label(launch, k, len(wa))}: {names[0]} 0x{wa[k]:08x}, "
                     f"{names[1]} 0x{wb[k]:08x}")
    return "; ".join(parts)


def main():
    ap = argparse.ArgumentParser(description="warp/atomic probes: GPU vs ptxsim")
    ap.add_argument("gpu", nargs="?", help="the GPU's outputs (run_gpu file, .xz allowed)")
    ap.add_argument("--ptxsim", default=str(REPO / "target" / "release" / "ptxsim"))
    ap.add_argument("--plan", type=Path, default=PLAN)
    ap.add_argument("--save-ptxsim", help="write ptxsim's outputs in the GPU file's layout")
    ap.add_argument("--agree", nargs="+", metavar="RUN",
                    help="compare GPU runs with each other instead (the first is the reference)")
    ap.add_argument("--show", type=int, default=4, help="differing words shown per buffer")
    args = ap.parse_args()
    launches = read_plan(args.plan)

    if args.agree:
        runs = [split(read_blob(p), launches) for p in args.agree]
        bad = 0
        for l in launches:
            for i in l["saved"]:
                key = (l["entry"], i)
                differ = [n + 1 for n, r in enumerate(runs[1:], 1) if r[key] != runs[0][key]]
                if differ:
                    bad += 1
                    print(f"{l['entry']} arg {i}: runs {', '.join(map(str, differ))} differ from run 1 "
                          f"({describe(l, i, runs[0][key], runs[differ[0] - 1][key], ('run 1', f'run {differ[0]}'), 2)})")
                else:
                    print(f"{l['entry']} arg {i}: all {len(runs)} runs agree")
        return 1 if bad else 0

    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        sims = [run_ptxsim(args.ptxsim, l, tmp) for l in launches]
    failed = [(l["entry"], err) for l, (sim, err) in zip(launches, sims) if sim is None]
    if args.save_ptxsim:
        if failed:
            for entry, err in failed:
                print(f"{entry}: ptxsim failed: {err}")
            return 1
        blob = b"".join(sim[i] for l, (sim, _) in zip(launches, sims) for i in l["saved"])
        Path(args.save_ptxsim).write_bytes(
            lzma.compress(blob, preset=9) if args.save_ptxsim.endswith(".xz") else blob)
        print(f"wrote {args.save_ptxsim} ({len(blob)} bytes of outputs)")
        if not args.gpu:
            return 0
    if not args.gpu:
        ap.error("give the GPU file (or --save-ptxsim / --agree)")
    gpu = split(read_blob(args.gpu), launches)
    bad = 0
    for l, (sim, err) in zip(launches, sims):
        for i in l["saved"]:
            if sim is None:
                bad += 1
                print(f"{l['entry']} arg {i}: ptxsim failed: {err}")
                continue
            verdict = describe(l, i, gpu[(l["entry"], i)], sim[i], show=args.show)
            bad += verdict != "equal"
            print(f"{l['entry']} arg {i}: {verdict}")
    print(f"{sum(len(l['saved']) for l in launches) - bad} of "
          f"{sum(len(l['saved']) for l in launches)} buffers equal")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
