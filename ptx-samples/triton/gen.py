#!/usr/bin/env python3
"""Compile the Triton kernels in kernels.py to PTX without a GPU.

Usage: python3 gen.py [OUTDIR]   (default: the directory of this file)

Uses triton.compile(ASTSource(...), target=GPUTarget("cuda", cap, 32)); tested with
triton 3.9.0 (pip install triton). Triton records the kernel file's absolute path in
.file and .debug_info, so kernels.py is first copied to a fixed staging directory
and imported from there; that keeps the output independent of the checkout path.
"""
import importlib.util
import os
import shutil
import re
import sys

# Pin the FP-fusion default (Triton 3.9 warns that it will change in 3.10).
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "0")

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
STAGE = "/tmp/ptxsim-triton-stage"

# (kernel name, signature, constexprs, compute capability)
JOBS = [
    ("f32_to_fp8e4nv", {"in_ptr": "*fp32", "out_ptr": "*fp8e4nv", "n": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 256}, 90),
    ("f32_to_fp8e4nv", {"in_ptr": "*fp32", "out_ptr": "*fp8e4nv", "n": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 256}, 100),
    ("f32_to_bf16_scaled",
     {"in_ptr": "*fp32", "out_rn_ptr": "*bf16", "out_rz_ptr": "*bf16", "scale": "fp32", "n": "i32",
      "BLOCK": "constexpr"},
     {"BLOCK": 256}, 90),
    ("f16_to_f32", {"in_ptr": "*fp16", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 128}, 80),
    ("fp8e5_to_f16", {"in_ptr": "*fp8e5", "out_ptr": "*fp16", "n": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 256}, 90),
]
MATH_SIG = {"x_ptr": "*fp32", "w_ptr": "*fp32", "gelu_tanh_ptr": "*fp32", "gelu_erf_ptr": "*fp32",
            "rms_ptr": "*fp32", "softmax_ptr": "*fp32", "n_cols": "i32", "eps": "fp32",
            "BLOCK": "constexpr"}
JOBS += [("gelu_rms_softmax", MATH_SIG, {"BLOCK": 512}, 80),
         ("gelu_rms_softmax", MATH_SIG, {"BLOCK": 512}, 90)]
SOFTMAX_SIG = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "BLOCK": "constexpr"}
LAYER_NORM_SIG = {"x_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32",
                  "n_cols": "i32", "eps": "fp32", "BLOCK": "constexpr"}
JOBS += [("softmax_rows", SOFTMAX_SIG, {"BLOCK": 512}, 80),
         ("softmax_rows", SOFTMAX_SIG, {"BLOCK": 512}, 90),
         ("layer_norm_rows", LAYER_NORM_SIG, {"BLOCK": 512}, 80),
         ("layer_norm_rows", LAYER_NORM_SIG, {"BLOCK": 512}, 90)]
TMA_ADD_SIG = {"a_ptr": "*i32", "b_ptr": "*i32", "c_ptr": "*i32", "M": "i32", "N": "i32",
               "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"}
JOBS += [("tma_add", TMA_ADD_SIG, {"BLOCK_M": 16, "BLOCK_N": 32}, 90)]
TMA_MATMUL_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                  "K": "i32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
JOBS += [("tma_matmul", TMA_MATMUL_SIG, {"BM": 64, "BN": 64, "BK": 32}, 90),
         ("tma_matmul_ws", TMA_MATMUL_SIG, {"BM": 64, "BN": 64, "BK": 32}, 90)]


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else HERE
    shutil.rmtree(STAGE, ignore_errors=True)
    os.makedirs(STAGE)
    staged = os.path.join(STAGE, "kernels.py")
    shutil.copyfile(os.path.join(HERE, "kernels.py"), staged)
    spec = importlib.util.spec_from_file_location("ptxsim_triton_kernels", staged)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for name, sig, consts, cap in JOBS:
        fn = getattr(mod, name)
        src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs=consts)
        k = triton.compile(src, target=GPUTarget("cuda", cap, 32))
        ptx = k.asm["ptx"]
        target = re.search(r"^\.target\s+(\w+)", ptx, re.M).group(1)  # e.g. sm_90a
        path = os.path.join(out_dir, f"{name}.{target}.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        print(f"  triton/{os.path.basename(path)} (triton {triton.__version__})")
    shutil.rmtree(STAGE, ignore_errors=True)


if __name__ == "__main__":
    main()
