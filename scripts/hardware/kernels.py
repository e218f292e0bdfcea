#!/usr/bin/env python3
"""The sample kernels of tests/kernels/manifest.json on an sm_90 GPU, against ptxsim and the
host reference. Used by scripts/hardware/run-gpu.sh; stdlib only.

    kernels.py plan WORKDIR > PLAN       # launches for run_gpu (the sm_80 / sm_90 PTX only)
    kernels.py compare WORKDIR GPU_OUTPUTS --ptxsim BIN [--report FILE] [--device TEXT]

`plan` copies each PTX file into WORKDIR with its `.version` lowered to 9.0 where it is newer
(the driver of CUDA 13.0 JIT-compiles PTX ISA 9.0 at most; the instructions are unchanged) and
prints one run_gpu launch per (kernel, PTX file) with the manifest's grid, block and arguments.
`compare` runs each launch in ptxsim on the original PTX file and compares every output buffer
three ways: GPU vs ptxsim (every byte), and GPU vs the host reference on the bytes the
reference covers (its mask); where an output has a `tolerance` (approximate instructions), an
element within it counts as equal to the reference (tests/kernels/README.md, "Tolerances"). The
GPU vs ptxsim comparison is always byte-exact. Exit 1 if the GPU and ptxsim differ anywhere.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "tests" / "kernels" / "manifest.json"
RUNNABLE = re.compile(r"^\.target\s+sm_(\d+)[a-z]*\b", re.M)


def scalar_bits(spec: str) -> str:
    kind, value = spec.split(":", 1)
    if kind == "f32":
        if value.lower().startswith("0f"):
            return f"b32:{int(value[2:], 16):x}"
        return f"b32:{struct.unpack('<I', struct.pack('<f', float(value)))[0]:x}"
    if kind == "f64":
        if value.lower().startswith("0d"):
            return f"b64:{int(value[2:], 16):x}"
        return f"b64:{struct.unpack('<Q', struct.pack('<d', float(value)))[0]:x}"
    width = int(kind[1:])
    v = int(value, 0) & ((1 << width) - 1)
    return f"b{max(width, 32)}:{v:x}"


# Tolerances (tests/kernels/README.md): format -> (bytes, struct code or None for bf16,
# smallest normal exponent, explicit mantissa bits)
TOL_FORMATS = {"f16": (2, "<e", -14, 10), "bf16": (2, None, -126, 7), "f32": (4, "<f", -126, 23),
               "f64": (8, "<d", -1022, 52)}


def _decode(fmt, data):
    size, code, _, _ = TOL_FORMATS[fmt]
    if code is None:  # bf16: the top half of an f32
        return struct.unpack("<f", b"\0\0" + data)[0]
    return struct.unpack(code, data)[0]


def _ulp(fmt, v):
    _, _, emin, mant = TOL_FORMATS[fmt]
    e = math.frexp(v)[1] - 1 if v else emin
    return math.ldexp(1.0, max(e, emin) - mant)


def reference_mismatches(actual, want, mask, output):
    """Covered bytes where `actual` differs from the host reference `want`. Where the output has
    a `tolerance`, the bytes of elements within it are forgiven (a NaN for a NaN only with
    `nan_any`); without one, every differing covered byte counts."""
    covered = [k for k in range(len(want)) if mask is None or (mask[k // 8] >> (k % 8)) & 1]
    bad = [k for k in covered if k >= len(actual) or actual[k] != want[k]]
    tol = output.get("tolerance")
    if not bad or not tol:
        return len(bad)
    fmt = tol["type"]
    size = TOL_FORMATS[fmt][0]
    bound = (REPO / tol["bound"]).read_bytes()
    forgiven = set()
    for k in bad:
        start = k - k % size
        if start in forgiven:
            continue
        if start + size > len(actual):
            continue
        a = _decode(fmt, actual[start:start + size])
        e = _decode(fmt, want[start:start + size])
        limit = struct.unpack_from("<d", bound, 8 * (start // size))[0]
        if math.isnan(a) or math.isnan(e):
            ok = math.isnan(a) and math.isnan(e) and output.get("nan_any", False)
        elif math.isinf(a) or math.isinf(e):
            ok = False
        else:
            ok = abs(a - e) <= limit + tol["ulp"] * _ulp(fmt, max(abs(a), abs(e)))
        if ok:
            forgiven.add(start)
    return sum(1 for k in bad if k - k % size not in forgiven)


def launches():
    manifest = json.loads(MANIFEST.read_text())
    for case in manifest["cases"]:
        for ptx in case["ptx"]:
            text = (REPO / ptx).read_text()
            m = RUNNABLE.search(text)
            if not m or int(m.group(1)) > 90:
                continue  # sm_100a and later do not run on an sm_90 GPU
            yield case, ptx, text


def plan(workdir: Path):
    workdir.mkdir(parents=True, exist_ok=True)
    records = []
    for case, ptx, text in launches():
        copy = workdir / Path(ptx).name
        if not copy.exists():
            copy.write_text(re.sub(r"^\.version\s+9\.[1-9]\b", ".version 9.0", text, flags=re.M))
        args = []
        for spec in case["args"]:
            kind, value = spec.split(":", 1)
            if kind == "buf":
                args.append(f"buf:{REPO / value}")
            elif kind == "zeros":
                args.append(spec)
            else:
                args.append(scalar_bits(spec))
        saved = [o["arg"] for o in case["outputs"]]
        dims = lambda d: ",".join(str(x) for x in d)  # noqa: E731
        print("\t".join([str(copy), case["entry"], dims(case["grid"]), dims(case["block"]),
                         " ".join(args), " ".join(str(i) for i in saved),
                         str(case.get("dynamic_shared", 0))]))
        records.append({"case": case, "ptx": ptx})
    (workdir / "launches.json").write_text(json.dumps(records))


def run_ptxsim(binary, record, workdir, index):
    case = record["case"]
    cmd = [binary, "run", record["ptx"], "--entry", case["entry"],
           "--grid", ",".join(map(str, case["grid"])), "--block", ",".join(map(str, case["block"])),
           "--no-registers", "--jobs", "1", "--max-steps", "10000000"]
    for spec in case["args"]:
        cmd += ["--arg", spec]
    if case.get("dynamic_shared"):
        cmd += ["--dynamic-shared", str(case["dynamic_shared"])]
    outs = {}
    for o in case["outputs"]:
        path = workdir / f"sim-{index}-{o['arg']}.bin"
        cmd += ["--out", f"{o['arg']}={path}"]
        outs[o["arg"]] = path
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        return None, (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return {i: p.read_bytes() for i, p in outs.items()}, None


def compare(workdir: Path, gpu_file: str, binary: str, report: str | None, device: str):
    records = json.loads((workdir / "launches.json").read_text())
    gpu = Path(gpu_file).read_bytes()
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        sims = list(pool.map(lambda ir: run_ptxsim(binary, ir[1], workdir, ir[0]),
                             enumerate(records)))
    rows, examples, offset, bad_launches = [], [], 0, 0
    total = same = ref_total = ref_same = 0
    for record, (sim, err) in zip(records, sims):
        case = record["case"]
        for o in case["outputs"]:
            n = o["bytes"]
            g = gpu[offset:offset + n]
            offset += n
            label = f"`{case['entry']}` {Path(record['ptx']).name} arg {o['arg']}"
            if sim is None:
                bad_launches += 1
                rows.append(f"| {label} | ptxsim failed: {err} | | |")
                continue
            s = sim[o["arg"]]
            diff_sim = sum(1 for a, b in zip(g, s) if a != b) + abs(len(g) - len(s))
            want = (REPO / o["expected"]).read_bytes()
            mask = (REPO / o["mask"]).read_bytes() if o.get("mask") else None
            covered = [k for k in range(len(want))
                       if mask is None or (mask[k // 8] >> (k % 8)) & 1]
            diff_ref = reference_mismatches(g, want, mask, o)
            total += n
            same += n - diff_sim
            ref_total += len(covered)
            ref_same += len(covered) - diff_ref
            if diff_sim:
                bad_launches += 1
            note = " (NaN payloads may differ: the reference fixes only NaN-ness)" if (
                diff_ref and o.get("nan_any")) else ""
            rows.append(f"| {label} | {n} | {diff_sim} | {diff_ref} of {len(covered)}{note} |")
            firsts = [k for k in range(min(len(g), len(s))) if g[k] != s[k]][:1] + \
                ([k for k in covered if k < len(g) and g[k] != want[k]][:1] if diff_ref else [])
            for k in sorted(set(firsts)):
                at = k - k % 8
                show = lambda b: b[at:at + 8].hex(" ")  # noqa: E731
                examples.append(f"- {label}, bytes {at}..{at + 8}: GPU `{show(g)}`, ptxsim "
                                f"`{show(s)}`, reference `{show(want)}`")
    lines = [
        "# Sample kernels on an sm_90 GPU",
        "",
        "Generated by `scripts/hardware/kernels.py` (through `scripts/hardware/run-gpu.sh`): every",
        "sm_80 / sm_90 PTX file of every kernel in `tests/kernels/manifest.json`, launched on the GPU",
        "with the manifest's grid, block and inputs (zeroed output buffers, as the manifest says), and",
        "in ptxsim on the same file.",
        "",
        f"- device: {device or 'see run-gpu.sh output'}",
        f"- launches: {len(records)}; output buffers where the GPU and ptxsim differ, or ptxsim failed: {bad_launches}",
        f"- bytes GPU = ptxsim: {same} of {total}",
        f"- bytes GPU = host reference (where the reference covers them): {ref_same} of {ref_total}",
        "",
        "| output | bytes | GPU != ptxsim | GPU != reference |",
        "|---|---|---|---|",
    ] + rows + (["", "First differing bytes (little-endian):", ""] + examples if examples else [])
    text = "\n".join(lines) + "\n"
    if report:
        Path(report).write_text(text)
    print("\n".join(lines[:11]))
    for row in rows:
        if "| 0 | 0 of" not in row:
            print(row)
    print("\n".join(examples))
    return 1 if bad_launches else 0


def main():
    ap = argparse.ArgumentParser(description="sample kernels on an sm_90 GPU vs ptxsim")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan")
    p.add_argument("workdir", type=Path)
    c = sub.add_parser("compare")
    c.add_argument("workdir", type=Path)
    c.add_argument("gpu")
    c.add_argument("--ptxsim", default=str(REPO / "target" / "release" / "ptxsim"))
    c.add_argument("--report")
    c.add_argument("--device", default="")
    args = ap.parse_args()
    if args.command == "plan":
        plan(args.workdir)
        return 0
    return compare(args.workdir, args.gpu, args.ptxsim, args.report, args.device)


if __name__ == "__main__":
    sys.exit(main())
