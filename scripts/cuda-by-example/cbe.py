#!/usr/bin/env python3
"""Builds the programs of "CUDA by Example" (Sanders and Kandrot, 2010; the book's source code,
chapter*/ and appendix_a/) for PTX only and runs them on ptxsim's libcuda.so.1, unmodified.

  cbe.py <checkout of the book's code> [build dir, default /tmp/ptxsim-cuda-by-example]

The programs that draw with OpenGL/GLUT (cpu_bitmap.h, cpu_anim.h, gpu_anim.h, gl_helper.h:
julia, ripple, ray, heat, the chapter 8 interop) are SKIP rows. The others are judged by what
they check themselves (add_loop_long's "We did it!", the histograms' per-bin comparison with a
CPU count, the hash table's lookup of every key, dot's "Does GPU value X = Y?" with the closed
form) or by values derived here from the source ("2 + 7 = 9", each "a + b = c" line of the
add loops, "Hello, World!"); the rest print timings or device properties only (RAN). The
book's CPU versions (`*_cpu.cu`, no kernel) are SKIP rows. The two
programs of chapter 11 that need two GPUs run with PTXSIM_DEVICE_COUNT=2.

Environment: BENCHMARKS (a regular expression on the name, chapterNN/program), TIMEOUT (seconds
per program, default 120), PTXSIM_LIBCUDA, PTXSIM_NVIDIA_ROOT. Writes <build>/results.tsv and
<build>/logs/NAME.{build,run}.log.
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "suites"))
from suite import from_arguments  # noqa: E402

GRAPHICS = re.compile(r'#include "[^"]*(cpu_bitmap|cpu_anim|gpu_anim|gl_helper)\.h"')
TWO_GPUS = {"chapter11/multidevice", "chapter11/portable"}


def judge(body):
    bad = re.search(r"^.*(Error: |Failure at|elements found in hash table\.  Should be|"
                    r"hashed to .* but was located).*$", body, re.M)
    if bad:
        return "FAIL", bad.group(0).strip()
    dot = re.findall(r"Does GPU value ([-+\d.e]+) = ([-+\d.e]+)\?", body)
    if dot:
        gpu, exact = map(float, dot[-1])
        ok = abs(gpu - exact) <= 1e-5 * abs(exact)
        return ("PASS" if ok else "FAIL"), f"dot product {gpu:g}, closed form {exact:g}"
    sums = re.findall(r"^(-?\d+) \+ (-?\d+) = (-?\d+)$", body, re.M)
    if sums:
        wrong = [s for s in sums if int(s[0]) + int(s[1]) != int(s[2])]
        return ("FAIL", f"{' + '.join(wrong[0][:2])} = {wrong[0][2]}") if wrong \
            else ("PASS", f"{len(sums)} sums right")
    for line, why in [("We did it!", "its own check of every sum"),
                      ("All ", "every key found in the hash table")]:
        if re.search(rf"^{re.escape(line)}", body, re.M):
            return "PASS", why
    if re.search(r"Histogram Sum:", body):
        return "PASS", "every bin equal to the CPU's count"
    if re.fullmatch(r"\$ .*\nHello, World!\n?", body.strip() + "\n") or "Hello, World!" in body:
        return "PASS", "Hello, World!"
    return None


def main():
    checkout, suite = from_arguments("/tmp/ptxsim-cuda-by-example", "common/book.h",
                                     "the book's source code")
    only = re.compile(os.environ.get("BENCHMARKS", ""))
    sources = sorted(checkout.glob("chapter*/*.cu")) + sorted(checkout.glob("appendix_a/*.cu"))
    for source in sources:
        name = f"{source.parent.name}/{source.stem}"
        row = name.replace("/", "-")
        if not only.search(name):
            continue
        if source.stem.endswith("_cpu"):
            suite.record(row, "SKIP", 0, "the book's CPU version, no kernel")
            continue
        if GRAPHICS.search(source.read_text(errors="replace")):
            suite.record(row, "SKIP", 0, "draws with OpenGL/GLUT")
            continue
        binary = suite.build / "bin" / row
        binary.parent.mkdir(exist_ok=True)
        command = suite.nvcc([source.name, "-o", str(binary), "-lpthread"])
        if suite.compile(row, [command], source.parent):
            env = {"PTXSIM_DEVICE_COUNT": "2"} if name in TWO_GPUS else None
            suite.run(row, str(binary), source.parent, judge, env=env)
    suite.summary()


if __name__ == "__main__":
    main()
