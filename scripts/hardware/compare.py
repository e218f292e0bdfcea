#!/usr/bin/env python3
"""Compare ptxsim with an sm_90 GPU on every form of tests/hardware/sm90.ptx.

    python3 scripts/hardware/compare.py --hw HW_OUTPUTS [--dir DIR] [--ptxsim BIN] [--report FILE]

HW_OUTPUTS is the file scripts/hardware/run_gpu.cpp wrote (every kernel's output buffer, in the
order of forms.tsv; xz- or gzip-compressed if it ends in .xz or .gz). DIR holds sm90.ptx,
forms.tsv and the inputs (default tests/hardware, as scripts/hardware/gen.py writes them). Each kernel is run by `ptxsim run` over
the same input file the GPU read, and the two output buffers are compared bit for bit (NaN
payloads included). Exit 0 when every form agrees, 1 otherwise; the report lists each form with
its mismatch count and the first mismatching inputs.
Stdlib only.
"""
from __future__ import annotations

import argparse
import gzip
import lzma
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HW = REPO / "tests" / "hardware"  # replaced by --dir


def forms():
    rows = []
    for line in (HW / "forms.tsv").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        kernel, instruction, layout, count, out_bytes = line.split("\t")
        rows.append((kernel, instruction, layout, int(count), int(out_bytes)))
    return rows


def run_ptxsim(binary, kernel, layout, count, out_bytes, directory):
    out = Path(directory) / f"{kernel}.bin"
    cmd = [binary, "run", str(HW / "sm90.ptx"), "--entry", kernel, "--grid", str(count // 256),
           "--block", "256", "--arg", f"buf:{HW / f'in-{layout}.bin'}",
           "--arg", f"zeros:{count * out_bytes}", "--out", f"1={out}", "--no-registers",
           "--jobs", "1"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        return None, (done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[-1]
    return out.read_bytes(), None


def main():
    global HW
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--hw", required=True, help="the GPU's outputs (run_gpu's file, or .gz)")
    ap.add_argument("--ptxsim", default=str(REPO / "target" / "release" / "ptxsim"))
    ap.add_argument("--report", help="write the Markdown report here")
    ap.add_argument("--device", default="", help="the GPU, for the report's header")
    ap.add_argument("--write-sim", help="also write ptxsim's outputs, concatenated, here")
    ap.add_argument("--dir", type=Path, default=HW, help="module, forms.tsv and inputs")
    args = ap.parse_args()
    HW = args.dir.resolve()

    raw = Path(args.hw).read_bytes()
    if args.hw.endswith(".gz"):
        raw = gzip.decompress(raw)
    elif args.hw.endswith(".xz"):
        raw = lzma.decompress(raw)
    hw = raw
    rows = forms()
    pool_size = max((r[3] for r in rows if r[2] == "b32"), default=0)
    need = sum(c * o for *_, c, o in rows)
    if len(hw) != need:
        sys.exit(f"error: {args.hw} holds {len(hw)} bytes; forms.tsv needs {need}")
    inputs = {}
    offsets = []
    at = 0
    for row in rows:
        offsets.append(at)
        at += row[3] * row[4]
        if row[2] not in inputs:
            inputs[row[2]] = (HW / f"in-{row[2]}.bin").read_bytes()

    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        sims = list(pool.map(lambda r: run_ptxsim(args.ptxsim, r[0], r[2], r[3], r[4], tmp),
                             rows))

    if args.write_sim:
        Path(args.write_sim).write_bytes(b"".join(s or b"" for s, _ in sims))
    lines = []
    agree = elements = bad_forms = 0
    for (kernel, instruction, layout, count, ob), off, (sim, err) in zip(rows, offsets, sims):
        want = hw[off:off + count * ob]
        ib = len(inputs[layout]) // count
        if sim is None:
            bad_forms += 1
            lines.append(f"| `{instruction}` | {layout} | {count} | ptxsim failed: {err} |")
            continue
        mism = [i for i in range(count) if want[i * ob:(i + 1) * ob] != sim[i * ob:(i + 1) * ob]]
        elements += count
        agree += count - len(mism)
        if mism:
            bad_forms += 1
            shown = []
            for i in mism[:3]:
                row = inputs[layout][i * ib:(i + 1) * ib]
                w = min(ib, 8 if layout == "b64" else 4 if ib > 2 else ib)
                a = ", ".join(f"{int.from_bytes(row[k:k + w], 'little'):#0{2 + 2 * w}x}"
                              for k in range(0, ib, w))
                g = int.from_bytes(want[i * ob:(i + 1) * ob], "little")
                s = int.from_bytes(sim[i * ob:(i + 1) * ob], "little")
                shown.append(f"in {a}: gpu {g:#0{2 + 2 * ob}x}, ptxsim {s:#0{2 + 2 * ob}x}")
            lines.append(f"| `{instruction}` | {layout} | {count} | {len(mism)} differ; "
                         + "; ".join(shown) + " |")
    head = [
        "# ptxsim vs an sm_90 GPU",
        "",
        "Generated by `scripts/hardware/compare.py` from the outputs of",
        "`scripts/hardware/run-gpu.sh`: every kernel of `sm90.ptx` (one cvt / cvt.pack form",
        "each, written by `scripts/hardware/gen.py`) on the GPU and in ptxsim, over the same",
        "inputs, compared bit for bit (NaN payloads included).",
        "",
        f"- device: {args.device or 'see run-gpu.sh output'}",
        f"- inputs: every 8/16-bit value; {pool_size} values per 32/64-bit layout",
        f"- forms: {len(rows)}; forms that differ or failed: {bad_forms}",
        f"- elements compared bit for bit: {elements}; agreeing: {agree}",
        "",
    ]
    if lines:
        head += ["| form | inputs | count | result |", "|---|---|---|---|"] + lines
    else:
        head += ["Every form agrees on every element."]
    text = "\n".join(head) + "\n"
    if args.report:
        Path(args.report).write_text(text)
    print("\n".join(head[:11] + lines[:40]))
    if len(lines) > 40:
        print(f"... {len(lines) - 40} more rows in the report")
    return 1 if bad_forms else 0


if __name__ == "__main__":
    sys.exit(main())
