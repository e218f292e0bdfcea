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


@triton.jit
def gelu_rms_softmax(x_ptr, w_ptr, gelu_tanh_ptr, gelu_erf_ptr, rms_ptr, softmax_ptr, n_cols, eps,
                     BLOCK: tl.constexpr):
    # One program per row of n_cols f32 (n_cols <= BLOCK):
    #   gelu_tanh[j] = 0.5 x (1 + tanh(0.79788456 (x + 0.044715 x^3)))   (libdevice tanh)
    #   gelu_erf[j]  = 0.5 x (1 + erf(x * 0.70710678))                    (libdevice erf)
    #   rms[j]       = x * rsqrt(mean(x^2) + eps) * w[j]                   (tl.math.rsqrt)
    #   softmax[j]   = exp(x - max) / sum(exp(x - max))                    (tl.exp)
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    inner = 0.7978845608 * (x + 0.044715 * x * x * x)
    gelu_t = 0.5 * x * (1.0 + tl.extra.cuda.libdevice.tanh(inner))
    gelu_e = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067812))
    tl.store(gelu_tanh_ptr + row * n_cols + cols, gelu_t, mask=mask)
    tl.store(gelu_erf_ptr + row * n_cols + cols, gelu_e, mask=mask)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / n_cols
    tl.store(rms_ptr + row * n_cols + cols, x * tl.math.rsqrt(ms + eps) * w, mask=mask)
    xm = tl.where(mask, x, -float("inf"))
    e = tl.exp(xm - tl.max(xm, axis=0))
    tl.store(softmax_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def softmax_rows(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    # The Triton tutorial's fused softmax: one program per row of n_cols f32 (n_cols <= BLOCK).
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    tl.store(out_ptr + row * n_cols + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def layer_norm_rows(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    # Layer norm as the Triton tutorial computes it: mean, variance, rsqrt, affine.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n_cols
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, xc * rstd * w + b, mask=mask)


@triton.jit
def tma_add(a_ptr, b_ptr, c_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Tensor descriptors made on the device (tensormap.replace on a zeroed object in shared
    # memory, published with tensormap.cp_fenceproxy to the global scratch); a BLOCK_M x
    # BLOCK_N tile of a + b through TMA loads and a TMA store (elements past M, N: zero-filled
    # loads, stores dropped).
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    a = a_desc.load([pm * BLOCK_M, pn * BLOCK_N])
    b = b_desc.load([pm * BLOCK_M, pn * BLOCK_N])
    c_desc.store([pm * BLOCK_M, pn * BLOCK_N], a + b)


@triton.jit
def tma_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr):
    # C = A @ B with device-made tensor descriptors: on sm_90a a pipeline of TMA loads into
    # shared memory completing on mbarriers, wgmma, and a TMA store of the f32 tile.
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pm * BM, k * BK])
        b = b_desc.load([k * BK, pn * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pm * BM, pn * BN], acc)


@triton.jit
def tma_matmul_ws(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr):
    # tma_matmul with a warp-specialized K loop (producer warps issue the TMA loads,
    # consumer warpgroups the wgmma; setmaxnreg moves registers between them).
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        a = a_desc.load([pm * BM, k * BK])
        b = b_desc.load([k * BK, pn * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pm * BM, pn * BN], acc)
