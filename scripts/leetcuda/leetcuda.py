#!/usr/bin/env python3
"""Builds LeetCUDA's CUDA-core kernel files (xlite-dev/LeetCUDA, kernels/<name>/<name>.cu:
element-wise add, relu, sigmoid, swish, elu, gelu, hardswish, hardshrink, block reduce, dot
product, softmax, layer norm, rms norm, histogram, sgemv, embedding, matrix transpose) for PTX
only, with the nvcc flags of their .py tests (--use_fast_math ...), and runs them on ptxsim's
libcuda.so.1.

  leetcuda.py <LeetCUDA checkout> [build dir, default /tmp/ptxsim-leetcuda]

Each file is a PyTorch extension: its bindings take torch::Tensor arguments and its .py test
calls them from Python and compares with PyTorch. Here include/torch/extension.h stands in
for PyTorch's header (a Tensor is a device allocation with a dtype and a shape), and a C++
driver includes the kernel file and calls every binding, checking it against the operation's
definition on the host (elementwise.cu for the element-wise files, families.cu for the
others; tolerances there).

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
    for name, (kernel, driver, defines) in PROGRAMS.items():
        if not only.search(name):
            continue
        source = checkout / "kernels" / kernel
        command = suite.nvcc([*FLAGS, f"-I{HERE / 'include'}", f'-DKERNEL_FILE="{source}"',
                              *defines, str(HERE / driver), "-o", str(bin_dir / name)])
        if suite.compile(name, [command], source.parent):
            suite.run(name, str(bin_dir / name), suite.build, judge)
    suite.summary()


if __name__ == "__main__":
    main()
