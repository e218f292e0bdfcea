#!/usr/bin/env python3
"""A Triton `tl.dot` matmul compiled without a GPU for sm_80 (mma.sync + ldmatrix + cp.async),
for sm_90a (wgmma.mma_async) and for sm_100a (tcgen05.mma, 128 x 64 x 64 blocks).

    python3 triton_dot.py [OUTDIR]     # writes matmul_f16.sm_80.ptx, .sm_90a.ptx, .sm_100a.ptx

C[M][N] (f16) = A[M][K] (f16, row-major) x B[K][N] (f16, row-major), accumulated in f32 over
BLOCK_K steps and rounded to f16 once, as in Triton's matmul tutorial; one program per
BLOCK_M x BLOCK_N tile, num_warps=4, num_stages=3 (the software pipeline that uses cp.async).
Triton records the file's absolute path, so the file is copied to a fixed directory first.
"""
import importlib.util
import os
import shutil
import sys

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "0")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
STAGE = "/tmp/ptxsim-triton-dot-stage"


@triton.jit
def matmul_f16(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptrs, acc.to(tl.float16), mask=mask)


SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
             "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32",
             "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}
# What Triton's launcher would specialise on for 16-aligned pointers and sizes: without these
# hints the loads stay scalar and no cp.async is emitted.
ATTRS = {(i,): [["tt.divisibility", 16]] for i in (0, 1, 2, 5, 6, 7, 8)}


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else HERE
    shutil.rmtree(STAGE, ignore_errors=True)
    os.makedirs(STAGE)
    staged = os.path.join(STAGE, "triton_dot.py")
    shutil.copyfile(os.path.abspath(__file__), staged)
    spec = importlib.util.spec_from_file_location("ptxsim_triton_dot", staged)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    # sm_100a: 128 x 64 tiles, BLOCK_K 64, so that tl.dot becomes tcgen05.mma (M = 128).
    sm100 = dict(CONSTEXPRS, BLOCK_M=128, BLOCK_K=64)
    for cap, arch, constexprs in ((80, "sm_80", CONSTEXPRS), (90, "sm_90a", CONSTEXPRS),
                                  (100, "sm_100a", sm100)):
        src = triton.compiler.ASTSource(fn=mod.matmul_f16, signature=SIGNATURE,
                                        constexprs=constexprs, attrs=ATTRS)
        kernel = triton.compile(src, target=GPUTarget("cuda", cap, 32),
                                options={"num_warps": 4, "num_stages": 3})
        path = os.path.join(out_dir, f"matmul_f16.{arch}.ptx")
        with open(path, "w") as f:
            f.write(kernel.asm["ptx"])
        print(f"{path} (triton {triton.__version__}, shared {kernel.metadata.shared} bytes)")
    # sm_100a with bf16 and e4m3 inputs (f16 output as before): tcgen05.mma .kind::f16 with
    # bf16 operands and .kind::f8f6f4.
    for name, ty in (("bf16", "*bf16"), ("e4m3", "*fp8e4nv")):
        signature = dict(SIGNATURE, a_ptr=ty, b_ptr=ty)
        src = triton.compiler.ASTSource(fn=mod.matmul_f16, signature=signature,
                                        constexprs=sm100, attrs=ATTRS)
        kernel = triton.compile(src, target=GPUTarget("cuda", 100, 32),
                                options={"num_warps": 4, "num_stages": 3})
        path = os.path.join(out_dir, f"matmul_{name}.sm_100a.ptx")
        with open(path, "w") as f:
            f.write(kernel.asm["ptx"])
        print(f"{path} (triton {triton.__version__}, shared {kernel.metadata.shared} bytes)")
    shutil.rmtree(STAGE, ignore_errors=True)


if __name__ == "__main__":
    main()
