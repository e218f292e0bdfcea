# Triton kernels of the corpus (scripts/triton/corpus.py compiles them; run_corpus.py runs them
# on ptxsim). Each is written here from the public description of the operation, not copied
# from Triton's tests or tutorials.
import triton
import triton.language as tl


@triton.jit
def vec_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # out[i] = x[i] + y[i]
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


@triton.jit
def softmax_persistent(x_ptr, out_ptr, n_rows, n_cols, stride, BLOCK: tl.constexpr):
    # Row softmax; each program walks rows pid, pid + programs, ...
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def philox_bits(out_ptr, n, seed, BLOCK: tl.constexpr):
    # out[4 i + j] = word j of Philox4x32-10(counter = (i, 0, 0, 0), key = seed)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r0, r1, r2, r3 = tl.randint4x(seed, offs)
    tl.store(out_ptr + 4 * offs + 0, r0, mask=mask)
    tl.store(out_ptr + 4 * offs + 1, r1, mask=mask)
    tl.store(out_ptr + 4 * offs + 2, r2, mask=mask)
    tl.store(out_ptr + 4 * offs + 3, r3, mask=mask)


@triton.jit
def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    # out[i] = x[i] / (1 - p) where uniform(seed, i) > p, else 0
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def layer_norm_fwd(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, stride, n_cols, eps,
                   BLOCK: tl.constexpr):
    # y = (x - mean) * rstd * w + b per row, in chunks of BLOCK columns; mean and rstd saved.
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        d = tl.where(cols < n_cols, x - mean, 0.0)
        acc += d * d
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + row * stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def layer_norm_bwd(x_ptr, dy_ptr, w_ptr, mean_ptr, rstd_ptr, dx_ptr, dw_ptr, db_ptr, n_rows,
                   n_cols, BLOCK: tl.constexpr):
    # dx = rstd (w dy - (xhat . w dy) xhat / N - sum(w dy) / N); dw += dy xhat and db += dy,
    # accumulated with f32 atomics across rows.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    dy = tl.load(dy_ptr + row * n_cols + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = w * dy
    c1 = tl.sum(xhat * wdy, axis=0) / n_cols
    c2 = tl.sum(wdy, axis=0) / n_cols
    tl.store(dx_ptr + row * n_cols + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=mask)
    tl.atomic_add(dw_ptr + cols, dy * xhat, mask=mask)
    tl.atomic_add(db_ptr + cols, dy, mask=mask)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
           stride_cn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
           PRECISION: tl.constexpr):
    # C = A @ B in BM x BN tiles, tile order grouped by GROUP_M rows of tiles; the accumulator
    # is int32 for integer inputs and f32 otherwise; C takes the type of c_ptr.
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_m = min(tiles_m - first_m, GROUP_M)
    pm = first_m + (pid % per_group) % group_m
    pn = (pid % per_group) // group_m
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    if a_ptr.dtype.element_ty.is_int():
        acc = tl.zeros((BM, BN), dtype=tl.int32)
        zero = 0
    else:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        zero = 0.0
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=zero)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=zero)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn,
             acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr):
    # Row-major C = A @ B; each program takes tiles pid, pid + programs, ... (f32 accumulator).
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, tl.num_programs(0)):
        rm = (tile // tiles_n) * BM + tl.arange(0, BM)
        rn = (tile % tiles_n) * BN + tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            kk = k + tl.arange(0, BK)
            a = tl.load(a_ptr + rm[:, None] * K + kk[None, :],
                        mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
            b = tl.load(b_ptr + kk[:, None] * N + rn[None, :],
                        mask=(kk[:, None] < K) & (rn[None, :] < N), other=0)
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_tma(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr):
    # Row-major C = A @ B through device-made tensor descriptors, one tile per program.
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([pm * BM, k * BK]), b_desc.load([k * BK, pn * BN]), acc)
    c_desc.store([pm * BM, pn * BN], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def matmul_tma_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                          BK: tl.constexpr):
    # matmul_tma with each program walking tiles pid, pid + programs, ... (B given as N x K).
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, tl.num_programs(0),
                         flatten=True):
        pm = tile // tiles_n
        pn = tile % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = a_desc.load([pm * BM, k * BK])
            b = b_desc.load([pn * BN, k * BK])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pm * BM, pn * BN], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def grouped_gemm(a_ptrs, b_ptrs, c_ptrs, sizes_ptr, group_count, BM: tl.constexpr,
                 BN: tl.constexpr, BK: tl.constexpr):
    # Group g multiplies its row-major (m x k) A by (k x n) B into f32 C; pointers and sizes
    # (m, n, k per group) come from device arrays; programs walk the tiles of all groups.
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    seen = 0
    for g in range(group_count):
        m = tl.load(sizes_ptr + 3 * g)
        n = tl.load(sizes_ptr + 3 * g + 1)
        k = tl.load(sizes_ptr + 3 * g + 2)
        tiles_n = tl.cdiv(n, BN)
        tiles = tl.cdiv(m, BM) * tiles_n
        a = tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))
        b = tl.load(b_ptrs + g).to(tl.pointer_type(tl.float16))
        c = tl.load(c_ptrs + g).to(tl.pointer_type(tl.float32))
        first = (pid + programs - seen % programs) % programs  # the group's tiles start at
        # program (seen mod programs)
        for t in range(first, tiles, programs):
            rm = (t // tiles_n) * BM + tl.arange(0, BM)
            rn = (t % tiles_n) * BN + tl.arange(0, BN)
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for kk in range(0, k, BK):
                rk = kk + tl.arange(0, BK)
                x = tl.load(a + rm[:, None] * k + rk[None, :],
                            mask=(rm[:, None] < m) & (rk[None, :] < k), other=0.0)
                y = tl.load(b + rk[:, None] * n + rn[None, :],
                            mask=(rk[:, None] < k) & (rn[None, :] < n), other=0.0)
                acc = tl.dot(x, y, acc)
            tl.store(c + rm[:, None] * n + rn[None, :], acc,
                     mask=(rm[:, None] < m) & (rn[None, :] < n))
        seen += tiles


@triton.jit
def attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, sm_scale, seq, HEAD: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr):
    # softmax(Q K^T * sm_scale) V with an online softmax over BN-key blocks; one program per
    # BM query rows of one head (program_id 1); f16 inputs, f16 O, f32 log-sum-exp (base 2).
    head = tl.program_id(1)
    base = head * seq * HEAD
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rd = tl.arange(0, HEAD)
    q = tl.load(q_ptr + base + rm[:, None] * HEAD + rd[None, :], mask=rm[:, None] < seq, other=0.0)
    m_i = tl.full([BM], -float("inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, HEAD], tl.float32)
    scale = sm_scale * 1.44269504
    for start in range(0, seq, BN):
        rn = start + tl.arange(0, BN)
        k = tl.load(k_ptr + base + rn[None, :] * HEAD + rd[:, None], mask=rn[None, :] < seq,
                    other=0.0)
        s = tl.dot(q, k) * scale
        s = tl.where(rn[None, :] < seq, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + rn[:, None] * HEAD + rd[None, :], mask=rn[:, None] < seq,
                    other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(o_ptr + base + rm[:, None] * HEAD + rd[None, :], (acc / l_i[:, None]).to(tl.float16),
             mask=rm[:, None] < seq)
    tl.store(lse_ptr + head * seq + rm, m_i + tl.math.log2(l_i), mask=rm < seq)


@triton.jit
def attention_bwd_dv(q_ptr, k_ptr, do_ptr, lse_ptr, dv_ptr, sm_scale, seq, HEAD: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr):
    # dV = P^T dO for a BN-key block (program_id 0) of one head, P recomputed from Q, K and the
    # forward pass's base-2 log-sum-exp.
    head = tl.program_id(1)
    base = head * seq * HEAD
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    rd = tl.arange(0, HEAD)
    k = tl.load(k_ptr + base + rn[:, None] * HEAD + rd[None, :], mask=rn[:, None] < seq, other=0.0)
    dv = tl.zeros([BN, HEAD], tl.float32)
    scale = sm_scale * 1.44269504
    for start in range(0, seq, BM):
        rm = start + tl.arange(0, BM)
        qt = tl.load(q_ptr + base + rm[None, :] * HEAD + rd[:, None], mask=rm[None, :] < seq,
                     other=0.0)
        lse = tl.load(lse_ptr + head * seq + rm, mask=rm < seq, other=float("inf"))
        pt = tl.math.exp2(tl.dot(k, qt) * scale - lse[None, :])
        pt = tl.where((rm[None, :] < seq) & (rn[:, None] < seq), pt, 0.0)
        do = tl.load(do_ptr + base + rm[:, None] * HEAD + rd[None, :], mask=rm[:, None] < seq,
                     other=0.0)
        dv = tl.dot(pt.to(tl.float16), do, dv)
    tl.store(dv_ptr + base + rn[:, None] * HEAD + rd[None, :], dv, mask=rn[:, None] < seq)


@triton.jit
def dot_scaled(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K, A_FORMAT: tl.constexpr,
               B_FORMAT: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               VEC: tl.constexpr):
    # C = (A * 2^(scaleA)) @ (B * 2^(scaleB)) with one e8m0 scale per VEC elements along K.
    # A: M x K elements (packed two e2m1 per byte for "e2m1"); B given N x K likewise.
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    PACK_A: tl.constexpr = 2 if A_FORMAT == "e2m1" else 1
    PACK_B: tl.constexpr = 2 if B_FORMAT == "e2m1" else 1
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ka = k // PACK_A + tl.arange(0, BK // PACK_A)
        kb = k // PACK_B + tl.arange(0, BK // PACK_B)
        ks = k // VEC + tl.arange(0, BK // VEC)
        a = tl.load(a_ptr + rm[:, None] * (K // PACK_A) + ka[None, :])
        b = tl.load(b_ptr + rn[:, None] * (K // PACK_B) + kb[None, :])
        sa = tl.load(a_scale_ptr + rm[:, None] * (K // VEC) + ks[None, :])
        sb = tl.load(b_scale_ptr + rn[:, None] * (K // VEC) + ks[None, :])
        acc = tl.dot_scaled(a, sa, A_FORMAT, b.T, sb, B_FORMAT, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def row_scans(x_ptr, cumsum_ptr, cumprod_ptr, sorted_ptr, argmax_ptr, argmin_ptr, n_cols,
              BLOCK: tl.constexpr):
    # Per row of BLOCK int32: inclusive prefix sums and products (wrapping), the row sorted
    # descending, and the first index of its maximum and minimum.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols)
    tl.store(cumsum_ptr + row * n_cols + cols, tl.cumsum(x, axis=0))
    tl.store(cumprod_ptr + row * n_cols + cols, tl.cumprod(x, axis=0))
    tl.store(sorted_ptr + row * n_cols + cols, tl.sort(x, descending=True))
    tl.store(argmax_ptr + row, tl.argmax(x, axis=0))
    tl.store(argmin_ptr + row, tl.argmin(x, axis=0))


@triton.jit
def float_reductions(x_ptr, cumsum_ptr, sorted_ptr, stats_ptr, BLOCK: tl.constexpr):
    # One row of BLOCK f32: inclusive prefix sum, ascending sort, then max, min, sum, argmax.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + cols)
    tl.store(cumsum_ptr + row * BLOCK + cols, tl.cumsum(x, axis=0))
    tl.store(sorted_ptr + row * BLOCK + cols, tl.sort(x))
    tl.store(stats_ptr + row * 4 + 0, tl.max(x, axis=0))
    tl.store(stats_ptr + row * 4 + 1, tl.min(x, axis=0))
    tl.store(stats_ptr + row * 4 + 2, tl.sum(x, axis=0))
    tl.store(stats_ptr + row * 4 + 3, tl.argmax(x, axis=0).to(tl.float32))


@triton.jit
def histogram(x_ptr, hist_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    # hist[b] += count of x[i] == b over each program's BLOCK elements (atomic merge).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    h = tl.histogram(x, BINS, mask=offs < n)
    tl.atomic_add(hist_ptr + tl.arange(0, BINS), h)


@triton.jit
def atomics(x_ptr, fx_ptr, out_ptr, fout_ptr, n, BLOCK: tl.constexpr):
    # Integer atomics on out[0..8): add, max, min, and, or, xor, a cas counter and an exchange;
    # f32 atomics on fout[0..2): add and max.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    fx = tl.load(fx_ptr + offs, mask=mask, other=0.0)
    zero = tl.zeros([BLOCK], dtype=tl.int32)
    tl.atomic_add(out_ptr + zero, x, mask=mask)
    tl.atomic_max(out_ptr + 1 + zero, x, mask=mask)
    tl.atomic_min(out_ptr + 2 + zero, x, mask=mask)
    tl.atomic_and(out_ptr + 3 + zero, x | 0x7ff0fff, mask=mask)
    tl.atomic_or(out_ptr + 4 + zero, x & 0x1248, mask=mask)
    tl.atomic_xor(out_ptr + 5 + zero, x, mask=mask)
    # Every element increments the counter once by compare-and-swap, retrying until it wins.
    done = ~mask
    while tl.sum((~done).to(tl.int32), axis=0) > 0:
        old = tl.load(out_ptr + 6 + zero, volatile=True)
        prev = tl.atomic_cas(out_ptr + 6 + zero, tl.where(done, -1, old), old + 1)
        done = done | (prev == old)
    tl.atomic_xchg(out_ptr + 7 + zero, x, mask=mask & (offs == n - 1))
    tl.atomic_add(fout_ptr + zero, fx, mask=mask)
    tl.atomic_max(fout_ptr + 1 + zero, fx, mask=mask)


@triton.jit
def unary_math(x_ptr, y_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    # y[i] = FN(x[i]) in x's type; f16 and bf16 are widened to f32 first and the result
    # rounded back (Triton's math functions take f32 or f64).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    if x_ptr.dtype.element_ty.primitive_bitwidth == 16:
        x = x.to(tl.float32)
    if FN == "exp":
        y = tl.exp(x)
    elif FN == "exp2":
        y = tl.math.exp2(x)
    elif FN == "log":
        y = tl.log(x)
    elif FN == "log2":
        y = tl.math.log2(x)
    elif FN == "sin":
        y = tl.sin(x)
    elif FN == "cos":
        y = tl.cos(x)
    elif FN == "sqrt":
        y = tl.sqrt(x)
    elif FN == "sqrt_rn":
        y = tl.math.sqrt_rn(x)
    elif FN == "rsqrt":
        y = tl.math.rsqrt(x)
    elif FN == "erf":
        y = tl.math.erf(x)
    elif FN == "floor":
        y = tl.floor(x)
    elif FN == "ceil":
        y = tl.ceil(x)
    elif FN == "abs":
        y = tl.abs(x)
    elif FN == "recip_rn":
        y = tl.math.div_rn(tl.full(x.shape, 1, x.dtype), x)
    elif FN == "fdiv":
        y = tl.math.fdiv(x, x + 3)
    elif FN == "sigmoid":
        y = tl.sigmoid(x)
    elif FN == "tanh":
        y = tl.extra.cuda.libdevice.tanh(x)
    elif FN == "exp10":
        y = tl.extra.cuda.libdevice.exp10(x)
    elif FN == "expm1":
        y = tl.extra.cuda.libdevice.expm1(x)
    elif FN == "log1p":
        y = tl.extra.cuda.libdevice.log1p(x)
    elif FN == "log10":
        y = tl.extra.cuda.libdevice.log10(x)
    elif FN == "tan":
        y = tl.extra.cuda.libdevice.tan(x)
    elif FN == "asin":
        y = tl.extra.cuda.libdevice.asin(x)
    elif FN == "acos":
        y = tl.extra.cuda.libdevice.acos(x)
    elif FN == "atan":
        y = tl.extra.cuda.libdevice.atan(x)
    elif FN == "sinh":
        y = tl.extra.cuda.libdevice.sinh(x)
    elif FN == "cosh":
        y = tl.extra.cuda.libdevice.cosh(x)
    elif FN == "asinh":
        y = tl.extra.cuda.libdevice.asinh(x)
    elif FN == "cbrt":
        y = tl.extra.cuda.libdevice.cbrt(x)
    elif FN == "erfc":
        y = tl.extra.cuda.libdevice.erfc(x)
    elif FN == "lgamma":
        y = tl.extra.cuda.libdevice.lgamma(x)
    elif FN == "pow":
        y = tl.extra.cuda.libdevice.pow(x, x * 0.5)
    elif FN == "atan2":
        y = tl.extra.cuda.libdevice.atan2(x, x + 1.5)
    elif FN == "trunc":
        y = tl.extra.cuda.libdevice.trunc(x)
    elif FN == "rint":
        y = tl.extra.cuda.libdevice.rint(x)
    elif FN == "fma":
        y = tl.fma(x, x + 1, x * 0.25)
    else:
        tl.static_assert(False, "unknown function")
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def cast(x_ptr, y_ptr, n, ROUNDING: tl.constexpr, BLOCK: tl.constexpr):
    # y[i] = x[i] converted to y's element type (fp_downcast_rounding for float narrowing).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if ROUNDING == "rtz":
        y = x.to(y_ptr.dtype.element_ty, fp_downcast_rounding="rtz")
    else:
        y = x.to(y_ptr.dtype.element_ty)
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def bitcast_f32(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # y[i] = the bits of f32 x[i] as int32, plus one, back as f32 (the next float up for x > 0).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, (x.to(tl.int32, bitcast=True) + 1).to(tl.float32, bitcast=True),
             mask=mask)


@triton.jit
def matmul_host_tma(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                    BK: tl.constexpr):
    # C = A @ B with tensor descriptors the host made (cuTensorMapEncodeTiled) and passed by
    # value; one BM x BN tile per program.
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([pm * BM, k * BK]), b_desc.load([k * BK, pn * BN]), acc)
    c_desc.store([pm * BM, pn * BN], acc.to(c_desc.dtype))


@triton.jit
def matmul_tma_ws(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr):
    # matmul_tma with a warp-specialized K loop (producer warps load, consumer warps multiply).
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        acc = tl.dot(a_desc.load([pm * BM, k * BK]), b_desc.load([k * BK, pn * BN]), acc)
    c_desc.store([pm * BM, pn * BN], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def batched_dot(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                K: tl.constexpr, F16_ACC: tl.constexpr):
    # c[b] = a[b] @ b[b] for B whole-tile matrices at once (a 3-D tl.dot); with F16_ACC the
    # product accumulates in f16 (out_dtype), else in a's f32/f64 accumulator type.
    rb = tl.arange(0, B)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :])
    if F16_ACC:
        c = tl.dot(a, b, out_dtype=tl.float16)
    else:
        c = tl.dot(a, b)
    tl.store(c_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :],
             c.to(c_ptr.dtype.element_ty))


@triton.jit
def _affine_combine(a1, b1, a2, b2):
    # (a1, b1) then (a2, b2) as maps x -> a x + b, composed (wrapping int32)
    return a1 * a2, b1 * a2 + b2


@triton.jit
def _keep_max_index(v1, i1, v2, i2):
    take = (v2 > v1) | ((v2 == v1) & (i2 < i1))
    return tl.where(take, v2, v1), tl.where(take, i2, i1)


@triton.jit
def custom_scans(a_ptr, b_ptr, gidx_ptr, rec_ptr, best_ptr, gathered_ptr, xs_ptr,
                 BLOCK: tl.constexpr):
    # One row of BLOCK int32: the linear recurrence h_j = a_j h_{j-1} + b_j (h_-1 = 0) by
    # tl.associative_scan with a custom combine; the maximum and its first index by tl.reduce;
    # tl.gather of the row at gidx; the xor of the row (tl.xor_sum).
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + row * BLOCK + cols)
    b = tl.load(b_ptr + row * BLOCK + cols)
    _, h = tl.associative_scan((a, b), 0, _affine_combine)
    tl.store(rec_ptr + row * BLOCK + cols, h)
    v, i = tl.reduce((b, cols), 0, _keep_max_index)
    tl.store(best_ptr + row * 2, v)
    tl.store(best_ptr + row * 2 + 1, i)
    g = tl.load(gidx_ptr + row * BLOCK + cols)
    tl.store(gathered_ptr + row * BLOCK + cols, tl.gather(b, g, 0))
    tl.store(xs_ptr + row, tl.xor_sum(b, 0))


@triton.jit
def integer_ops(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Per element of int32 x, y (y != 0): x // y, x % y (C semantics: truncation), umulhi,
    # shifts (arithmetic, logical), min, max, clamp, abs, and a 64-bit product's high word.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    out = out_ptr + offs * 10
    tl.store(out + 0, x // y, mask=mask)
    tl.store(out + 1, x % y, mask=mask)
    tl.store(out + 2, tl.umulhi(x.to(tl.uint32, bitcast=True), y.to(tl.uint32, bitcast=True))
             .to(tl.int32, bitcast=True), mask=mask)
    tl.store(out + 3, x >> (y & 31), mask=mask)
    tl.store(out + 4, (x.to(tl.uint32, bitcast=True) >> (y & 31).to(tl.uint32))
             .to(tl.int32, bitcast=True), mask=mask)
    tl.store(out + 5, tl.minimum(x, y), mask=mask)
    tl.store(out + 6, tl.maximum(x, y), mask=mask)
    tl.store(out + 7, tl.clamp(x, -1000, 1000), mask=mask)
    tl.store(out + 8, tl.abs(x), mask=mask)
    tl.store(out + 9, ((x.to(tl.int64) * y.to(tl.int64)) >> 32).to(tl.int32), mask=mask)


@triton.jit
def nan_minmax(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # f32 minimum/maximum with propagate_nan=ALL and NONE, and tl.where on NaN comparisons.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    out = out_ptr + offs * 5
    tl.store(out + 0, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL), mask=mask)
    tl.store(out + 1, tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL), mask=mask)
    tl.store(out + 2, tl.maximum(x, y), mask=mask)
    tl.store(out + 3, tl.minimum(x, y), mask=mask)
    tl.store(out + 4, tl.where(x < y, x, y), mask=mask)
