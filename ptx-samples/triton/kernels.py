# Small Triton conversion kernels compiled by gen.py (no GPU needed to compile).
import triton
import triton.language as tl


@triton.jit
def f32_to_fp8e4nv(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # out[i] = fp8 e4m3 (Triton "fp8e4nv") of in[i]
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(in_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x.to(tl.float8e4nv), mask=mask)


@triton.jit
def f32_to_bf16_scaled(in_ptr, out_rn_ptr, out_rz_ptr, scale, n, BLOCK: tl.constexpr):
    # out_rn[i] = bf16_rn(in[i] * scale); out_rz[i] = bf16_rz(in[i] * scale)
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(in_ptr + offs, mask=mask) * scale
    tl.store(out_rn_ptr + offs, x.to(tl.bfloat16), mask=mask)
    tl.store(out_rz_ptr + offs, x.to(tl.bfloat16, fp_downcast_rounding="rtz"), mask=mask)


@triton.jit
def f16_to_f32(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # out[i] = (float)in[i]
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(in_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x.to(tl.float32), mask=mask)


@triton.jit
def fp8e5_to_f16(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # out[i] = f16 of fp8 e5m2 in[i]
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(in_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x.to(tl.float16), mask=mask)
