#!/usr/bin/env python3
"""Builds SHOC's CUDA benchmarks (src/cuda/level0..2) for PTX only, without its autotools
machinery, and runs them on ptxsim's libcuda.so.1 at the smallest problem size (-s 1), one pass
(-n 1).

  shoc.py <SHOC checkout> [build dir, default /tmp/ptxsim-shoc]

Each benchmark is its .cu/.cpp files plus SHOC's driver (src/cuda/common/main.cpp) and the
common library (src/common/Makefile.am's libSHOCCommon: option parser, result database, timers),
compiled by one nvcc call, with the config.h SHOC's configure writes on Linux (gettimeofday,
`restrict`). CUDA 13 removed cudaDeviceProp::clockRate, which main.cpp prints: the runner
compiles a copy of main.cpp that reads it through cudaDeviceGetAttribute instead. Benchmarks
that need what the toolkit here lacks (cuBLAS, cuFFT) are SKIP; those that use texture
references, removed in CUDA 12, are BUILD-FAIL.

Verdicts: most benchmarks check their results against a host computation and print "Passed" /
"Failed" (Sort, Scan, Reduction, BFS, SpMV, MD, FFT); MD5Hash searches a key space for the
digest of a key the host drew and prints an ERROR line when the key it finds is not that one;
Stencil2D validates against a host stencil (a "validation errors" count). PASS when the
benchmark's own check reports success and nothing reports failure. RAN: the level-0 benchmarks
(bus speed, peak flops), which measure and check nothing, S3D (prints no check) and Triad (it
compares the two halves of its array, both computed on the device: "Error;" lines when they
differ, but no host value).

Environment: BENCHMARKS, TIMEOUT, PTXSIM_LIBCUDA, PTXSIM_NVIDIA_ROOT (as for scripts/hecbench).
Writes <build>/results.tsv and <build>/logs/NAME.{build,run}.log.
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "suites"))
from suite import from_arguments  # noqa: E402

# src/common/Makefile.am's libSHOCCommon.
COMMON = ["CTimer", "ResultDatabase", "OptionParser", "Option", "Timer", "ProgressBar",
          "InvalidArgValue", "Matrix2DStatics"]

# name: (folder under src/cuda, sources in it, extra files of src/common, extra flags, skip reason)
PROGRAMS = {
    "BusSpeedDownload": ("level0", ["BusSpeedDownload.cu"], [], [], ""),
    "BusSpeedReadback": ("level0", ["BusSpeedReadback.cu"], [], [], ""),
    "DeviceMemory": ("level0", ["DeviceMemory.cu"], [], [], ""),
    "MaxFlops": ("level0", ["MaxFlops.cu"], [], [], ""),
    "BFS": ("level1/bfs", ["BFS.cu", "bfs_kernel.cu"], ["Graph"], [], ""),
    "FFT": ("level1/fft", ["FFT.cpp", "fftlib.cu"], [], ["-lcufft"], "needs cuFFT"),
    "GEMM": ("level1/gemm", ["GEMM.cpp"], [], ["-lcublas"], "needs cuBLAS"),
    "MD": ("level1/md", ["MD.cu"], [], [], ""),
    "MD5Hash": ("level1/md5hash", ["MD5Hash.cu"], [], [], ""),
    "NeuralNet": ("level1/neuralnet", ["NeuralNet.cu"], [], ["-lcublas"], "needs cuBLAS"),
    "Reduction": ("level1/reduction", ["Reduction.cu"], [], [], ""),
    "Scan": ("level1/scan", ["Scan.cu"], [], [], ""),
    "Sort": ("level1/sort", ["Sort.cu", "sort_kernel.cu"], [], [], ""),
    "Spmv": ("level1/spmv", ["Spmv.cu"], [], [], ""),
    "Stencil2D": ("level1/stencil2d", ["Stencil2Dmain.cpp", "CUDAStencil.cpp",
                                       "CUDAStencilFactory.cpp", "CommonCUDAStencilFactory.cpp",
                                       "CUDAStencilKernel.cu"], [], [], ""),
    "Triad": ("level1/triad", ["Triad.cu"], [], [], ""),
    "QTC": ("level2/qtclustering", ["QTC.cu", "comm.cpp", "libdata.cpp"], [], [], ""),
    "S3D": ("level2/s3d", ["S3D.cu"], [], [], ""),
}

FAILED = re.compile(r"\b(Failed|FAILED|Failure|ERROR|Error;)|pass \d+: [1-9]\d* validation error")
PASSED = re.compile(r"\bPassed\b|\bPASSED\b|pass \d+: 0 validation errors")


def judge(name):
    def verdict(body):
        bad = FAILED.search(body)
        if bad:
            line = next(l for l in body.splitlines() if bad.group(0) in l)
            return "FAIL", f"the benchmark's check failed: {line.strip()}"
        if PASSED.search(body):
            return "PASS", f"the benchmark's checks passed ({len(PASSED.findall(body))})"
        if name == "MD5Hash":  # it prints only a mismatch
            return "PASS", "found the key of the host's MD5 digest (no ERROR line)"
        return None
    return verdict


def main():
    checkout, suite = from_arguments("/tmp/ptxsim-shoc", "src/cuda/common/main.cpp",
                                     "a SHOC checkout")
    src = checkout / "src"
    only = re.compile(os.environ.get("BENCHMARKS", ""))
    bin_dir = suite.build / "bin"
    bin_dir.mkdir(exist_ok=True)
    # What SHOC's configure writes on Linux: gettimeofday, and C99's restrict as g++ spells it.
    (bin_dir / "config.h").write_text("#define HAVE_GETTIMEOFDAY 1\n#define HAVE_STDLIB_H 1\n"
                                      "#define restrict __restrict\n")
    main_cpp = (src / "cuda/common/main.cpp").read_text()
    (bin_dir / "main.cpp").write_text(main_cpp.replace(
        "deviceProp.clockRate",
        "[&]{ int r = 0; cudaDeviceGetAttribute(&r, cudaDevAttrClockRate, device); return r; }()"))
    for name, (folder, sources, common, flags, skip) in PROGRAMS.items():
        if not only.search(name):
            continue
        if skip:
            suite.record(name, "SKIP", 0, skip + " (not in the toolkit these runs use)")
            continue
        where = src / "cuda" / folder
        command = suite.nvcc([
            "-O2", f"-I{bin_dir}", f"-I{src / 'common'}", f"-I{src / 'cuda/common'}", f"-I{where}",
            str(bin_dir / "main.cpp"), *[str(where / s) for s in sources],
            *[str(src / "common" / f"{c}.cpp") for c in COMMON + common], *flags,
            "-o", str(bin_dir / name)])
        if suite.compile(name, [command], where):
            suite.run(name, f"{bin_dir / name} -s 1 -n 1", where, judge(name))
    suite.summary()


if __name__ == "__main__":
    main()
