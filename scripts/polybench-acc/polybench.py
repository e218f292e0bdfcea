#!/usr/bin/env python3
"""Builds PolyBench/ACC's CUDA programs (CUDA/*/*.cu, the PolyBench 3.2 kernels ported to CUDA)
for PTX only and runs them on ptxsim's libcuda.so.1, unmodified.

  polybench.py <PolyBench-ACC checkout> [build dir, default /tmp/ptxsim-polybench-acc]

Each program runs its kernels on the GPU, then the same computation on the CPU (RUN_ON_CPU),
and prints how many outputs differ by more than 0.05 percent ("Non-Matching CPU-GPU Outputs
Beyond Error Threshold of 0.05 Percent: N", or "Number of misses: N"): PASS when every count is
0, FAIL otherwise. The problem sizes are the headers' MINI_DATASET or, where that is sized for a
GPU (hundreds of millions of operations), smaller ones given below (the headers define nothing
when the program's sizes are defined). The sizes are defined in a header nvcc includes first
(-include) after CUDA's own headers: given with -D, `N` would rename a parameter of cuda.h.

Environment: BENCHMARKS (a regular expression: only the programs whose name matches), TIMEOUT
(seconds per program, default 120), PTXSIM_LIBCUDA, PTXSIM_NVIDIA_ROOT (as for
scripts/hecbench). Writes <build>/results.tsv and <build>/logs/NAME.{build,run}.log.
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "suites"))
from suite import from_arguments  # noqa: E402

# name: (source under CUDA/, size definitions; empty: MINI_DATASET)
PROGRAMS = {
    # Their grids are M / 256 rounded down (ceil before the division): M a multiple of 256.
    "correlation": ("datamining/correlation/correlation.cu", "-DM=256 -DN=256"),
    "covariance": ("datamining/covariance/covariance.cu", "-DM=256 -DN=256"),
    "2mm": ("linear-algebra/kernels/2mm/2mm.cu", "-DNI=128 -DNJ=128 -DNK=128 -DNL=128"),
    "3mm": ("linear-algebra/kernels/3mm/3mm.cu", ""),
    "atax": ("linear-algebra/kernels/atax/atax.cu", "-DNX=512 -DNY=512"),
    "bicg": ("linear-algebra/kernels/bicg/bicg.cu", "-DNX=512 -DNY=512"),
    "doitgen": ("linear-algebra/kernels/doitgen/doitgen.cu", ""),
    "gemm": ("linear-algebra/kernels/gemm/gemm.cu", ""),
    "gemver": ("linear-algebra/kernels/gemver/gemver.cu", "-DN=512"),
    "gesummv": ("linear-algebra/kernels/gesummv/gesummv.cu", "-DN=512"),
    "mvt": ("linear-algebra/kernels/mvt/mvt.cu", "-DN=512"),
    "syr2k": ("linear-algebra/kernels/syr2k/syr2k.cu", "-DNI=128 -DNJ=128"),
    "syrk": ("linear-algebra/kernels/syrk/syrk.cu", "-DNI=128 -DNJ=128"),
    "gramschmidt": ("linear-algebra/solvers/gramschmidt/gramschmidt.cu", "-DNI=128 -DNJ=128"),
    "lu": ("linear-algebra/solvers/lu/lu.cu", "-DN=128"),
    "adi": ("stencils/adi/adi.cu", "-DTSTEPS=1 -DN=128"),
    "convolution-2d": ("stencils/convolution-2d/2DConvolution.cu", "-DNI=512 -DNJ=512"),
    "convolution-3d": ("stencils/convolution-3d/3DConvolution.cu", ""),
    "fdtd-2d": ("stencils/fdtd-2d/fdtd2d.cu", "-DTMAX=20 -DNX=128 -DNY=128"),
    "jacobi-1d-imper": ("stencils/jacobi-1d-imper/jacobi1D.cu", "-DTSTEPS=100 -DN=1024"),
    "jacobi-2d-imper": ("stencils/jacobi-2d-imper/jacobi2D.cu", "-DTSTEPS=10 -DN=128"),
}

COUNT = re.compile(r"(?:Non-Matching CPU-GPU Outputs Beyond Error Threshold of [\d.]+ Percent|"
                   r"Number of misses): *(-?\d+)")


def judge(body):
    counts = [int(c) for c in COUNT.findall(body)]
    if not counts:
        return None
    if any(counts):
        return "FAIL", f"outputs differing from the CPU's by more than 0.05%: {counts}"
    return "PASS", f"GPU outputs equal to the CPU's within 0.05% ({len(counts)} check(s))"


def main():
    checkout, suite = from_arguments("/tmp/ptxsim-polybench-acc", "CUDA/utilities/polybench.c",
                                     "a PolyBench-ACC checkout")
    root = checkout / "CUDA"
    only = re.compile(os.environ.get("BENCHMARKS", ""))
    for name, (source, sizes) in PROGRAMS.items():
        if not only.search(name):
            continue
        folder = (root / source).parent
        binary = suite.build / "bin" / name
        binary.parent.mkdir(exist_ok=True)
        flags = ["-DMINI_DATASET"]
        if sizes:
            header = suite.build / "bin" / f"{name}.sizes.h"
            defines = "".join(f"#define {d[2:].replace('=', ' ')}\n" for d in sizes.split())
            header.write_text(f"#include <cuda.h>\n#include <cuda_runtime.h>\n{defines}")
            flags = ["-include", str(header)]
        # The suite's common.mk: nvcc -O3 FILE.cu -I<utilities>.
        command = suite.nvcc(["-O3", (root / source).name, f"-I{root / 'utilities'}", *flags,
                              "-o", str(binary)])
        if suite.compile(name, [command], folder):
            suite.run(name, str(binary), folder, judge)
    suite.summary()


if __name__ == "__main__":
    main()
