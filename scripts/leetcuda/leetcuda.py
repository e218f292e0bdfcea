#!/usr/bin/env python3
"""Builds LeetCUDA's CUDA-core kernel files (xlite-dev/LeetCUDA, kernels/<name>/<name>.cu:
element-wise add, relu, sigmoid, swish, elu, gelu, hardswish, hardshrink, block reduce, dot
product, softmax, layer norm, rms norm, histogram, sgemv, hgemv, embedding, matrix transpose,
the SGEMM kernels: CUDA cores, cp.async, WMMA tf32 with 2-4 stages; and kernels/hgemm's HGEMM
kernels: CUDA cores, WMMA, mma.sync m16n8k16 with 2-4 stages, NN and TN) for PTX
only, with the nvcc flags of their .py tests (--use_fast_math ...), and runs them on ptxsim's
libcuda.so.1.

  leetcuda.py <LeetCUDA checkout> [build dir, default /tmp/ptxsim-leetcuda]

Each file is a PyTorch extension: its bindings take torch::Tensor arguments and its .py test
calls them from Python and compares with PyTorch. Here include/torch/extension.h stands in
for PyTorch's header (a Tensor is a device allocation with a dtype and a shape), and a C++
driver includes the kernel file and calls every binding, checking it against the operation's
definition on the host (elementwise.cu for the element-wise files, hgemm.cu for HGEMM,
families.cu for the others; tolerances there).

Verdicts: PASS when every binding's result is within tolerance; FAIL otherwise (the driver
prints each mismatch); ERROR when a launch fails.

Environment: BENCHMARKS, TIMEOUT, PTXSIM_LIBCUDA, PTXSIM_NVIDIA_ROOT (as for scripts/hecbench).
Writes <build>/results.tsv and <build>/logs/NAME.{build,run}.log.
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "suites"))
from suite import from_arguments  # noqa: E402

HERE = Path(__file__).resolve().parent
# The flags of LeetCUDA's .py tests (torch.utils.cpp_extension.load's extra_cuda_cflags).
FLAGS = ["-O3", "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
         "-U__CUDA_NO_HALF2_OPERATORS__", "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
         "--expt-relaxed-constexpr", "--expt-extended-lambda", "--use_fast_math", "-std=c++17"]

# name: (file under kernels/, driver, its defines)
PROGRAMS = {
    "elementwise": ("elementwise/elementwise.cu", "elementwise.cu",
                    ["-DOP=elementwise_add", "-DBINARY"]),
    **{op: (f"{op}/{op}.cu", "elementwise.cu", [f"-DOP={op}"])
       for op in ["relu", "sigmoid", "swish", "elu", "gelu", "hardswish", "hardshrink"]},
    "reduce": ("reduce/block_all_reduce.cu", "families.cu", ["-DREDUCE"]),
    "dot-product": ("dot-product/dot_product.cu", "families.cu", ["-DDOT"]),
    "softmax": ("softmax/softmax.cu", "families.cu", ["-DSOFTMAX"]),
    "layer-norm": ("layer-norm/layer_norm.cu", "families.cu", ["-DLAYER_NORM"]),
    "rms-norm": ("rms-norm/rms_norm.cu", "families.cu", ["-DRMS_NORM"]),
    "histogram": ("histogram/histogram.cu", "families.cu", ["-DHISTOGRAM"]),
    "sgemv": ("sgemv/sgemv.cu", "families.cu", ["-DSGEMV"]),
    "embedding": ("embedding/embedding.cu", "families.cu", ["-DEMBEDDING"]),
    "mat-transpose": ("mat-transpose/mat_transpose.cu", "families.cu", ["-DTRANSPOSE"]),
    "hgemv": ("hgemv/hgemv.cu", "families.cu", ["-DHGEMV"]),
    # With the folder's other files, as sgemm.py builds it (less sgemm_cublas.cu: no cuBLAS).
    "sgemm": ("sgemm/sgemm.cu", "families.cu", ["-DSGEMM"],
              ["sgemm/sgemm_async.cu", "sgemm/sgemm_wmma_tf32_stage.cu"]),
    # The files and flags of hgemm/tools/utils.py's build, less cuBLAS and CuTe (CUTLASS); the
    # driver declares the bindings (pybind/hgemm.cc would bind them for Python).
    "hgemm": (None, "hgemm.cu", ["-DNO_MMA_HGEMM_BIN", "-DNO_WMMA_HGEMM_BIN",
                                 "-DNO_CUBLAS_HGEMM_BIN", "-DNO_CUTE_HGEMM_BIN"],
              [f"hgemm/{f}.cu" for f in [
                  "naive/hgemm", "naive/hgemm_async", "wmma/hgemm_wmma", "wmma/hgemm_wmma_stage",
                  "mma/basic/hgemm_mma", "mma/basic/hgemm_mma_stage",
                  "mma/basic/hgemm_mma_stage_tn", "mma/swizzle/hgemm_mma_stage_swizzle",
                  "mma/swizzle/hgemm_mma_stage_tn_swizzle_x4"]]),
}


def judge(body):
    m = re.search(r"^(\d+) of (\d+) checks failed", body, re.M)
    if not m:
        return None
    refused = len(re.findall(r": refused by its binding", body))
    note = f" ({refused} bindings refused the shapes)" if refused else ""
    if m.group(1) != "0":
        line = next(l for l in body.splitlines() if "MISMATCH" in l)
        return "FAIL", f"{m.group(1)} of {m.group(2)} bindings differ from the host: {line}"
    return "PASS", f"all {m.group(2)} bindings equal the host's results{note}"


def main():
    checkout, suite = from_arguments("/tmp/ptxsim-leetcuda", "kernels/relu/relu.cu",
                                     "a LeetCUDA checkout")
    only = re.compile(os.environ.get("BENCHMARKS", ""))
    bin_dir = suite.build / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, (kernel, driver, defines, *extra) in PROGRAMS.items():
        if not only.search(name):
            continue
        kernels = checkout / "kernels"
        units = [str(kernels / f) for f in (extra[0] if extra else [])]
        if kernel:
            includes = [f'-DKERNEL_FILE="{kernels / kernel}"']
        else:  # hgemm: its folders on the include path, as utils.py puts them
            includes = [f"-I{kernels / 'hgemm'}", f"-I{kernels / 'hgemm/utils'}"]
        command = suite.nvcc([*FLAGS, f"-I{HERE / 'include'}", *includes, *defines,
                              str(HERE / driver), *units, "-o", str(bin_dir / name)])
        if suite.compile(name, [command], kernels):
            suite.run(name, str(bin_dir / name), suite.build, judge)
    suite.summary()


if __name__ == "__main__":
    main()
