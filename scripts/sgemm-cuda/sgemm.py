#!/usr/bin/env python3
"""Builds siboehm/SGEMM_CUDA's twelve SGEMM kernels (src/kernels/1_naive.cuh ..
12_kernel_double_buffering.cuh, launched by its src/runner.cu's run_kernel with the block and
tile sizes it picks) for PTX only, and runs each on ptxsim's libcuda.so.1 on 128x128 and
256x256 matrices (kernel 11: 256 and 512, see SIZES_OF).

  sgemm.py <SGEMM_CUDA checkout> [build dir, default /tmp/ptxsim-sgemm-cuda]

The repository's sgemm.cu checks each kernel against cuBLAS (its kernel 0), at sizes 128 to
4096 with 50 timed runs each; the toolkit these runs use has no cuBLAS and a simulator no time
for 4096. check.cu (here) replaces sgemm.cu: it fills the matrices with the repository's
randomize_matrix, computes C = 0.5*A*B + 3*C on the host in double precision, and compares
with the repository's verify_matrix (each element within 0.01). include/cublas_v2.h declares
what runner.cu names of cuBLAS.

Verdicts: PASS when both sizes pass verify_matrix; FAIL otherwise (check.cu prints the first
element that differs).

Environment: BENCHMARKS (a regular expression on "kernel1".."kernel12"), TIMEOUT,
PTXSIM_LIBCUDA, PTXSIM_NVIDIA_ROOT (as for scripts/hecbench).
Writes <build>/results.tsv and <build>/logs/NAME.{build,run}.log.
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "suites"))
from suite import from_arguments  # noqa: E402

HERE = Path(__file__).resolve().parent
SIZES = "128 256"
# Kernel 11's block tile is 128x256 (runner.cu's K11_BM, K11_BN) and it has no bounds checks: at
# 128 its threads read past the end of B and write C's columns 128-255 into the next rows.
# sgemm.cu allocates every matrix at the largest size (4096x4096), which hides the reads (on
# ptxsim, with the matrices allocated at the size used, the first one stops the launch:
# CUDA_ERROR_ILLEGAL_ADDRESS); its sizes here start at 256.
SIZES_OF = {"kernel11": "256 512"}


def judge(sizes):
    def verdict(body):
        results = re.findall(r"kernel \d+ size (\d+): (PASS|FAIL)", body)
        if any(r == "FAIL" for _, r in results):
            line = next((l for l in body.splitlines() if l.startswith("Divergence")), "")
            return "FAIL", f"differs from the host's C = alpha*A*B + beta*C: {line}"
        if len(results) == len(sizes.split()):
            return "PASS", f"equals the host's C = alpha*A*B + beta*C within 0.01 (sizes {sizes})"
        return None
    return verdict


def main():
    checkout, suite = from_arguments("/tmp/ptxsim-sgemm-cuda", "src/runner.cu",
                                     "an SGEMM_CUDA checkout")
    only = re.compile(os.environ.get("BENCHMARKS", ""))
    binary = suite.build / "sgemm_check"
    names = [f"kernel{k}" for k in range(1, 13) if only.search(f"kernel{k}")]
    # One binary for all twelve (runner.cu instantiates every kernel).
    built = suite.compile("build", [suite.nvcc([
        "-O3", "-std=c++20", f"-I{checkout / 'src'}", f"-I{HERE / 'include'}",
        str(HERE / "check.cu"), str(checkout / "src/runner.cu"), "-o", str(binary)])], checkout)
    if built:
        for name in names:
            sizes = SIZES_OF.get(name, SIZES)
            suite.run(name, f"{binary} {name[len('kernel'):]} {sizes}", suite.build, judge(sizes))
    else:
        for name in names:
            suite.record(name, "BUILD-FAIL", 0, "see logs/build.build.log")
    suite.summary()


if __name__ == "__main__":
    main()
