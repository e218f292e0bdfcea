#!/usr/bin/env python3
"""Builds the examples of "Professional CUDA C Programming" (Cheng, Grossman, McKercher; Wrox
2014; deeperlearning/professional-cuda-c-programming, examples/chapter01..10) for PTX only,
with the flags of each chapter's Makefile, and runs them on ptxsim's libcuda.so.1 with no
arguments (the book's defaults).

  pcuda.py <professional-cuda-c-programming checkout> [build dir, default /tmp/ptxsim-pcuda]

Most examples compute on the host too and compare ("Arrays match." / "Arrays do not match.",
"different on ...", "Test failed!"; most print only a mismatch); those are PASS or FAIL by
that check. An example that
checks nothing and exits 0 is RAN. SKIP: the examples that need a vendor library the toolkit
here lacks (cuBLAS, cuFFT, cuSPARSE, cuRAND), OpenACC, MPI, NVTX, or a second GPU (chapter 8,
most of chapter 9), and chapter 10's crypt programs (they need input files made by its C
tools and a key; not tried), and the five with fixed 16384x16384 matrices (see SKIP).

Environment: BENCHMARKS, TIMEOUT, PTXSIM_LIBCUDA, PTXSIM_NVIDIA_ROOT (as for scripts/hecbench).
Writes <build>/results.tsv and <build>/logs/NAME.{build,run}.log.
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "suites"))
from suite import from_arguments  # noqa: E402

# Flags of each chapter's Makefile (without its -arch).
FLAGS = {
    "chapter03": ["-rdc=true", "-lcudadevrt"],  # dynamic parallelism (nested*)
    "chapter06": ["-Xcompiler", "-fopenmp", "-lgomp"],
}
SKIP = {
    "chapter08": "needs cuBLAS, cuFFT, cuSPARSE, cuRAND or OpenACC (not in the toolkit here)",
    "simpleMultiGPU": "needs two GPUs",
    "simpleP2P_PingPong": "needs two GPUs",
    "sumMatrixGPU_nvToolsExt": "needs NVTX (not in the toolkit here)",
    "crypt": "needs chapter 10's generated data and key files (not tried)",
}
# Fixed 16384x16384 float matrices (1 GiB each, four on the host and three on the device: about
# 7 GiB on ptxsim, where device memory is host memory) and no argument to make them smaller:
# not run on the shared machine these runs use.
for big in ["sumMatrixOnGPU-1D-grid-1D-block", "sumMatrixOnGPU-2D-grid-1D-block",
            "sumMatrixOnGPU-2D-grid-2D-block", "sumMatrixOnGPU", "sumMatrix"]:
    SKIP[big] = "fixed 16384x16384 matrices (about 7 GiB on ptxsim), no size argument"
FAILED = re.compile(r"Arrays do not match|different on|Test failed|output a different value|"
                    r"^Error! ", re.M)
PASSED = re.compile(r"Arrays match")


# What the examples' checks print on a mismatch, as written in their sources.
CHECKS = re.compile(r'"(Arrays do not match|different on|Test failed|The device output a '
                    r'different value|Error! data)')


# floating-point-perf sizes its arrays by the free device memory (90 % of it, 7 GiB of ptxsim's
# default 16 GiB, all copied in): run it on a 256 MiB device.
ENV = {"floating-point-perf": {"PTXSIM_DEVICE_MEMORY": str(256 << 20)}}

# Examples whose output on a GPU is a difference or a fault, by design.
EXPECTED = {
    # fmad.cu prints whether the device's x * x + y (nvcc contracts it to one fma, rounded
    # once) equals the host's (two roundings); for its x = 2.891903, y = -3.980364 they differ
    # by 8.881784e-16 (exact rational arithmetic, rounded once vs twice, gives that).
    "fmad": (re.compile(r"different value than the host, diff=8\.881784e-16"),
             "the device's fma(x, x, y) differs from the host's x*x+y by 8.881784e-16, as "
             "exact arithmetic rounded once and twice does"),
    # debug-segfault.cu stores through a null pointer on purpose (chapter 10, debugging).
    "debug-segfault": (re.compile(r"CUDA_ERROR_ILLEGAL_ADDRESS.*null address"),
                       "faults at its deliberate store through a null pointer, as on a GPU"),
}


def judge(source):
    """Most checks print only on a mismatch (checkResult's "Arrays do not match", "Test
    failed!"): an example whose source has such a check and whose run printed none of it
    passed that check."""
    checked = bool(CHECKS.search(source.read_text(errors="replace")))

    def verdict(body):
        bad = FAILED.search(body)
        if bad:
            line = next(l for l in body.splitlines() if bad.group(0) in l)
            return "FAIL", f"its check against the host failed: {line.strip()}"
        if PASSED.search(body):
            return "PASS", f"its check against the host passed ({len(PASSED.findall(body))})"
        if checked:
            return "PASS", "its check against the host printed no mismatch"
        return None
    return verdict


def main():
    checkout, suite = from_arguments("/tmp/ptxsim-pcuda", "examples/common/common.h",
                                     "a professional-cuda-c-programming checkout")
    only = re.compile(os.environ.get("BENCHMARKS", ""))
    bin_dir = suite.build / "bin"
    bin_dir.mkdir(exist_ok=True)
    for source in sorted((checkout / "examples").glob("chapter*/*.cu")):
        chapter, name = source.parent.name, source.stem
        if not only.search(name):
            continue
        skip = SKIP.get(chapter) or SKIP.get(name) or SKIP.get(name.split(".")[0])
        if skip:
            suite.record(name, "SKIP", 0, skip)
            continue
        command = suite.nvcc(["-O2", str(source), *FLAGS.get(chapter, []),
                              "-o", str(bin_dir / name)])
        if suite.compile(name, [command], source.parent):
            work = suite.build / "work" / name
            work.mkdir(parents=True, exist_ok=True)
            env = ENV.get(name)
            note = "".join(f"{k}={v}; " for k, v in (env or {}).items())
            suite.run(name, str(bin_dir / name), work, judge(source), env=env, note=note)
            expected = EXPECTED.get(name)
            log = (suite.logs / f"{name}.run.log").read_text(errors="replace")
            if expected and expected[0].search(log):
                seconds = float(suite.results[name].split("\t")[2])
                suite.record(name, "PASS", seconds, expected[1])
    suite.summary()


if __name__ == "__main__":
    main()
