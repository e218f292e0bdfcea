#!/usr/bin/env python3
"""Builds the programs of CoffeeBeforeArch's CUDA tutorial series (CoffeeBeforeArch/
cuda_programming: vector addition, matrix multiplication, sum reduction, histogram,
convolution; each folder one .cu file) for PTX only and runs them on ptxsim's libcuda.so.1
with their compiled-in sizes.

  cba.py <cuda_programming checkout> [build dir, default /tmp/ptxsim-cba]

Every program computes its result on the host too and asserts (C `assert`, active: no
-DNDEBUG) that the device's equals it, then prints "COMPLETED SUCCESSFULLY"; the histogram
programs assert only that the bin counts add up to the input's size and print nothing.
Verdicts: PASS when the program exits 0 after its asserts (an assert that fails aborts:
FAIL); TIMEOUT, ERROR as for the other suites.

Environment: BENCHMARKS, TIMEOUT, PTXSIM_LIBCUDA, PTXSIM_NVIDIA_ROOT (as for scripts/hecbench).
Writes <build>/results.tsv and <build>/logs/NAME.{build,run}.log.
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "suites"))
from suite import from_arguments  # noqa: E402


def judge(source):
    text = source.read_text(errors="replace")

    def verdict(body):
        if "COMPLETED SUCCESSFULLY" in body:
            return "PASS", "its asserts against the host held (COMPLETED SUCCESSFULLY)"
        if "assert(" in text and "SUCCESSFULLY" not in text:
            return "PASS", "its assert against the host held (exit 0)"
        return None
    return verdict


def main():
    checkout, suite = from_arguments("/tmp/ptxsim-cba", "01_vector_addition",
                                     "a CoffeeBeforeArch cuda_programming checkout")
    only = re.compile(os.environ.get("BENCHMARKS", ""))
    bin_dir = suite.build / "bin"
    bin_dir.mkdir(exist_ok=True)
    for source in sorted(checkout.glob("0*/**/*.cu")):
        name = "-".join(source.relative_to(checkout).parent.parts)
        if len(list(source.parent.glob("*.cu"))) > 1:  # unified_memory: two programs
            name += "-" + source.stem
        if not only.search(name):
            continue
        command = suite.nvcc(["-O3", "-std=c++17", str(source), "-o", str(bin_dir / name)])
        if suite.compile(name, [command], source.parent):
            work = suite.build / "work" / name
            work.mkdir(parents=True, exist_ok=True)
            suite.run(name, str(bin_dir / name), work, judge(source))
    suite.summary()


if __name__ == "__main__":
    main()
