#!/usr/bin/env python3
"""Run the Triton corpus (corpus.py's output) on ptxsim's libcuda.so and compare every output
with a reference computed on the host with numpy (and ml_dtypes for the 8-bit and bfloat16
formats), never with ptxsim.

Usage: python3 scripts/triton/run_corpus.py CORPUS_DIR LIBCUDA [--only SUBSTRING]
           [--save DIR] [--json RESULTS.json]

Each compute capability runs in a child process with PTXSIM_TARGET set to the record's target
(sm_80, sm_90a, sm_100a, sm_120a); a child that dies is restarted after the record it died on.
Verdicts: "exact" (every output bit for bit; NaN for NaN), "close" (within the documented
tolerance of an approximate operation), "wrong", "fault" (the launch failed), "load" (the
module was refused), "no-harness". --save DIR writes, for records that pass, the inputs, the
expected outputs and a launch description (DIR/<name>.<target>/case.json) of the records in
SELECTION, and copies their PTX to ptx-samples/triton/corpus/, for the Rust test
(DIR = tests/triton-corpus).
"""
import ctypes
import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction

import numpy as np

try:
    import ml_dtypes
except ImportError:  # the fp8/bf16 references need it
    ml_dtypes = None

TARGETS = {80: "sm_80", 90: "sm_90a", 100: "sm_100a", 120: "sm_120a"}


# ---------------------------------------------------------------- the driver, through ctypes
class Cuda:
    def __init__(self, path):
        self.lib = ctypes.CDLL(os.path.abspath(path))
        c = ctypes
        sig = {
            "cuInit": [c.c_uint], "cuDeviceGet": [c.POINTER(c.c_int), c.c_int],
            "cuCtxCreate_v2": [c.POINTER(c.c_void_p), c.c_uint, c.c_int],
            "cuCtxDestroy_v2": [c.c_void_p],
            "cuCtxSynchronize": [],
            "cuModuleLoadData": [c.POINTER(c.c_void_p), c.c_char_p],
            "cuModuleUnload": [c.c_void_p],
            "cuModuleGetFunction": [c.POINTER(c.c_void_p), c.c_void_p, c.c_char_p],
            "cuFuncSetAttribute": [c.c_void_p, c.c_int, c.c_int],
            "cuMemAlloc_v2": [c.POINTER(c.c_uint64), c.c_size_t],
            "cuMemFree_v2": [c.c_uint64],
            "cuMemcpyHtoD_v2": [c.c_uint64, c.c_void_p, c.c_size_t],
            "cuMemcpyDtoH_v2": [c.c_void_p, c.c_uint64, c.c_size_t],
            "cuLaunchKernel": [c.c_void_p] + [c.c_uint] * 7
            + [c.c_void_p, c.POINTER(c.c_void_p), c.POINTER(c.c_void_p)],
            "cuGetErrorName": [c.c_int, c.POINTER(c.c_char_p)],
            "cuTensorMapEncodeTiled": [c.c_void_p, c.c_int, c.c_uint, c.c_uint64,
                                       c.POINTER(c.c_uint64), c.POINTER(c.c_uint64),
                                       c.POINTER(c.c_uint32), c.POINTER(c.c_uint32), c.c_int,
                                       c.c_int, c.c_int, c.c_int],
        }
        for name, args in sig.items():
            fn = getattr(self.lib, name)
            fn.argtypes, fn.restype = args, c.c_int
        self.check(self.lib.cuInit(0), "cuInit")
        self.new_context()

    def new_context(self):
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        self.ctx = ctypes.c_void_p()
        self.check(self.lib.cuCtxCreate_v2(ctypes.byref(self.ctx), 0, dev), "cuCtxCreate")

    def reset(self):
        self.lib.cuCtxDestroy_v2(self.ctx)
        self.new_context()

    def check(self, rc, what):
        if rc != 0:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(rc, ctypes.byref(name))
            raise RuntimeError(f"{what}: {name.value.decode() if name.value else rc}")

    def alloc(self, data):
        ptr = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(ptr), max(data.nbytes, 1)), "cuMemAlloc")
        if data.nbytes:
            self.check(self.lib.cuMemcpyHtoD_v2(ptr.value, data.ctypes.data, data.nbytes),
                       "cuMemcpyHtoD")
        return ptr.value


class Buf:
    """A device buffer argument: initial contents; read back after the launch."""

    def __init__(self, array):
        self.array = np.ascontiguousarray(array)


class Desc(Buf):
    """A host-made tensor descriptor over a row-major 2-D array: the kernel receives the
    CUtensorMap by value, then the shape (i32) and the strides in elements (i64), as Triton's
    launcher passes a tensordesc argument. meta: Triton's tensordesc_meta entry (swizzle mode,
    element type, block)."""

    def __init__(self, array, meta):
        super().__init__(array)
        self.meta = meta

    def encode(self, cuda, address):
        # Triton's device element-type codes are CUtensorMapDataType's except 8-10
        host_type = {8: 10, 9: 8, 10: 9}.get(self.meta["elem_type"], self.meta["elem_type"])
        rows, cols = self.array.shape
        size = self.array.itemsize
        c = ctypes
        # "tensorMap address must be aligned to 64 bytes" (cuTensorMapEncodeTiled)
        self.raw = (c.c_uint8 * 192)()
        tensor_map = (c.c_uint8 * 128).from_buffer(self.raw, -c.addressof(self.raw) % 64)
        dims = (c.c_uint64 * 2)(cols, rows)
        strides = (c.c_uint64 * 2)(cols * size, rows * cols * size)
        box = (c.c_uint32 * 2)(self.meta["block_size"][1], self.meta["block_size"][0])
        ones = (c.c_uint32 * 2)(1, 1)
        # interleave none, the swizzle Triton chose, L2 promotion 128B (2), no NaN fill
        cuda.check(cuda.lib.cuTensorMapEncodeTiled(tensor_map, host_type, 2, address, dims,
                                                   strides, box, ones, 0, self.meta["swizzle"],
                                                   2, 0), "cuTensorMapEncodeTiled")
        return [tensor_map, ctypes.c_int32(rows), ctypes.c_int32(cols), ctypes.c_int64(cols),
                ctypes.c_int64(1)]


def run_launch(cuda, ptx, entry, grid, warps, shared, params):
    """Loads ptx, launches entry with params (Buf, or (ctype, value)); returns the buffers'
    final contents, in order."""
    module = ctypes.c_void_p()
    cuda.check(cuda.lib.cuModuleLoadData(ctypes.byref(module), ptx.encode()), "load")
    try:
        fn = ctypes.c_void_p()
        cuda.check(cuda.lib.cuModuleGetFunction(ctypes.byref(fn), module, entry.encode()),
                   "cuModuleGetFunction")
        if shared > 48 * 1024:
            cuda.check(cuda.lib.cuFuncSetAttribute(fn, 8, shared), "cuFuncSetAttribute")
        values, ptrs = [], []
        for p in params:
            if isinstance(p, Desc):
                d = cuda.alloc(p.array)
                ptrs.append(d)
                values += p.encode(cuda, d)
            elif isinstance(p, Buf):
                d = cuda.alloc(p.array)
                ptrs.append(d)
                values.append(ctypes.c_uint64(d))
            else:
                values.append(p[0](p[1]))
        argv = (ctypes.c_void_p * len(values))(
            *[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
        g = list(grid) + [1] * (3 - len(grid))
        cuda.check(cuda.lib.cuLaunchKernel(fn, g[0], g[1], g[2], 32 * warps, 1, 1, shared, None,
                                           argv, None), "launch")
        cuda.check(cuda.lib.cuCtxSynchronize(), "launch")
        outs = []
        for p, d in zip([p for p in params if isinstance(p, Buf)], ptrs):
            host = np.empty_like(p.array)
            cuda.check(cuda.lib.cuMemcpyDtoH_v2(host.ctypes.data, d, host.nbytes), "DtoH")
            outs.append(host)
            cuda.lib.cuMemFree_v2(d)
        return outs
    finally:
        cuda.lib.cuModuleUnload(module)


I32 = ctypes.c_int32
F32 = ctypes.c_float


# ---------------------------------------------------------------- number formats (host)
def np_dtype(name):
    table = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
             "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "fp16": np.float16,
             "fp32": np.float32, "fp64": np.float64}
    if name in table:
        return np.dtype(table[name])
    return np.dtype({"bf16": ml_dtypes.bfloat16, "fp8e4nv": ml_dtypes.float8_e4m3fn,
                     "fp8e5": ml_dtypes.float8_e5m2, "fp8e4b15": np.uint8}[name])


def is_float(name):
    return name.startswith(("fp", "bf"))


def same_bits(a, b):
    """Bit-for-bit equality, a NaN matching any NaN of the same format."""
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return np.zeros(a.shape, bool)
    eq = a.view(np.uint8).reshape(a.size, -1) == b.view(np.uint8).reshape(b.size, -1)
    eq = eq.all(axis=1).reshape(a.shape)
    if a.dtype.kind == "f" or a.dtype in (np.dtype(ml_dtypes.bfloat16),
                                          np.dtype(ml_dtypes.float8_e5m2),
                                          np.dtype(ml_dtypes.float8_e4m3fn)):
        fa = a.astype(np.float64)
        fb = b.astype(np.float64)
        eq |= np.isnan(fa) & np.isnan(fb)
    return eq


def ulp_of(x, dtype):
    """The spacing of dtype at |x| (the subnormal spacing below the smallest normal)."""
    info = ml_dtypes.finfo(dtype) if dtype not in (np.float16, np.float32, np.float64) \
        else np.finfo(dtype)
    x = np.abs(np.asarray(x, np.float64))
    e = np.floor(np.log2(np.maximum(x, float(info.smallest_normal))))
    return np.exp2(e - info.nmant)


def within(actual, expected, ulps=0.0, atol=0.0, rtol=0.0):
    """Elementwise |a - e| <= atol + rtol |e| + ulps * ulp(max(|a|, |e|)) in the output's own
    format; equal bits, NaN for NaN and the same infinity pass."""
    dt = actual.dtype.type
    a = actual.astype(np.float64)
    e = np.asarray(expected).astype(np.float64)
    ok = same_bits(actual, np.asarray(expected).astype(actual.dtype))
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - e)
        lim = atol + rtol * np.abs(e) + ulps * ulp_of(np.maximum(np.abs(a), np.abs(e)), dt)
        ok |= np.isfinite(a) & np.isfinite(e) & (diff <= lim)
        ok |= (a == e)
    return ok


def round_f32(values):
    """Exact rationals (Fractions) rounded to the nearest f32, ties to even."""
    out = []
    for v in values:
        f = np.float32(float(v))  # round to f64 first, then to f32: fix double rounding
        lo, hi = sorted([f, np.nextafter(f, np.float32(np.inf) if Fraction(float(f)) < v
                                         else np.float32(-np.inf))])
        if not np.isfinite(lo) or not np.isfinite(hi):
            out.append(f)
            continue
        dl, dh = abs(v - Fraction(float(lo))), abs(v - Fraction(float(hi)))
        if dl < dh:
            out.append(lo)
        elif dh < dl:
            out.append(hi)
        else:
            out.append(lo if int(lo.view(np.uint32)) % 2 == 0 else hi)
    return np.array(out, np.float32)


# ---------------------------------------------------------------- references
def philox(counter, seed, rounds=10):
    """Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) with
    counter (counter, 0, 0, 0) and key (seed & 0xffffffff, seed >> 32)."""
    m0, m1, w0, w1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
    c = [counter.astype(np.uint64)] + [np.zeros_like(counter, np.uint64)] * 3
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64((seed >> 32) & 0xFFFFFFFF)
    mask = np.uint64(0xFFFFFFFF)
    for _ in range(rounds):
        p0 = np.uint64(m0) * c[0]
        p1 = np.uint64(m1) * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & mask, (p0 >> np.uint64(32)) ^ c[3] ^ k1,
             p0 & mask]
        k0 = (k0 + np.uint64(w0)) & mask
        k1 = (k1 + np.uint64(w1)) & mask
    return [x.astype(np.uint32) for x in c]


def uniform(bits):
    """Triton's uint32 -> [0, 1) map: the bits as int32 x, x < 0 -> -x - 1, times 2^-31
    (rounded as f32 4.6566127342e-10), each step an f32 operation."""
    x = bits.view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def rng(seed):
    return np.random.default_rng(seed)


def ints_as(dtype, shape, lo, hi, r):
    return r.integers(lo, hi, size=shape).astype(dtype)


# ---------------------------------------------------------------- harnesses
# Each harness takes the record and returns (grid, params, check); check(outputs) returns
# ("exact" | "close" | "wrong", detail).
EXPECTED = []  # (output index, reference, tolerance or None) of the record being checked


def eq(outs, index, want):
    """Output `index` equals `want` bit for bit (NaN for NaN)."""
    want = np.asarray(want).astype(outs[index].dtype).reshape(outs[index].shape)
    EXPECTED.append((index, want, None))
    return same_bits(outs[index], want)


def near(outs, index, want, ulps=0.0, atol=0.0, rtol=0.0):
    """Output `index` is within the tolerance of the f64 reference `want` (see within)."""
    want = np.asarray(want, np.float64).reshape(outs[index].shape)
    EXPECTED.append((index, want, {"ulps": ulps, "atol": atol, "rtol": rtol}))
    return within(outs[index], want, ulps=ulps, atol=atol, rtol=rtol)


def verdict(oks, approximate=False):
    bad = [(name, int((~ok).sum()), ok.size) for name, ok in oks if not ok.all()]
    if bad:
        return "wrong", "; ".join(f"{n}: {b} of {t} elements differ" for n, b, t in bad)
    return ("close" if approximate else "exact"), ""


def h_vec_add(rec):
    r = rng(1)
    n = 1000
    x, y = r.standard_normal(n).astype(np.float32), r.standard_normal(n).astype(np.float32)
    return [4], [Buf(x), Buf(y), Buf(np.zeros(n, np.float32)), (I32, n)], \
        lambda o: verdict([("out", eq(o, 2, x + y))])


def h_softmax(rec):
    r = rng(2)
    rows, cols = 37, 100
    x = (r.standard_normal((rows, cols)) * 3).astype(np.float32)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    ref = e / e.sum(1, keepdims=True)
    # ex2.approx (2 ulp) of an argument rounded once, a tree sum and div.full (2 ulp)
    return [8], [Buf(x), Buf(np.zeros_like(x)), (I32, rows), (I32, cols), (I32, cols)], \
        lambda o: verdict([("out", near(o, 1, ref, ulps=8, atol=1e-37, rtol=2e-6))], True)


def h_philox(rec):
    n, seed = 1000, 0x1234567
    want = np.stack(philox(np.arange(n, dtype=np.uint32), seed), axis=1).reshape(-1)
    return [8], [Buf(np.zeros(4 * n, np.uint32)), (I32, n), (I32, seed)], \
        lambda o: verdict([("bits", eq(o, 0, want))])


def h_dropout(rec):
    r = rng(3)
    n, p, seed = 2000, 0.3, 77
    x = r.standard_normal(n).astype(np.float32)
    u = uniform(philox(np.arange(n, dtype=np.uint32), seed)[0])
    keep = u > np.float32(p)
    scale = np.float32(1) - np.float32(p)
    ref = np.where(keep, x.astype(np.float64) / np.float64(scale), 0.0)

    def check(o):
        kept = o[1] != 0
        return verdict([("mask", kept == keep), ("value", near(o, 1, ref, ulps=2))], True)
    return [8], [Buf(x), Buf(np.zeros(n, np.float32)), (I32, n), (F32, p), (I32, seed)], check


def h_layer_norm_fwd(rec):
    dt = np_dtype(rec["signature"]["x_ptr"][1:])
    r = rng(4)
    rows, cols = 6, 300
    x = (r.standard_normal((rows, cols)) * 2 + 0.5).astype(dt)
    w = r.standard_normal(cols).astype(np.float32)
    b = r.standard_normal(cols).astype(np.float32)
    xd = x.astype(np.float64)
    mean = xd.mean(1)
    rstd = 1 / np.sqrt(xd.var(1) + 1e-5)
    y = (xd - mean[:, None]) * rstd[:, None] * w + b
    ulps = 2 if dt == np.float16 else 64

    def check(o):
        return verdict([("y", near(o, 3, y, ulps=ulps, atol=1e-5)),
                        ("mean", near(o, 4, mean, ulps=16, atol=1e-6)),
                        ("rstd", near(o, 5, rstd, ulps=16))], True)
    return [rows], [Buf(x), Buf(w), Buf(b), Buf(np.zeros_like(x)), Buf(np.zeros(rows, np.float32)),
                    Buf(np.zeros(rows, np.float32)), (I32, cols), (I32, cols), (F32, 1e-5)], check


def h_layer_norm_bwd(rec):
    r = rng(5)
    rows, cols = 8, 200
    x = r.standard_normal((rows, cols)).astype(np.float32)
    dy = r.standard_normal((rows, cols)).astype(np.float32)
    w = r.standard_normal(cols).astype(np.float32)
    xd = x.astype(np.float64)
    mean = xd.mean(1)
    rstd = 1 / np.sqrt(xd.var(1) + 1e-5)
    xhat = (xd - mean[:, None]) * rstd[:, None]
    wdy = w * dy.astype(np.float64)
    c1 = (xhat * wdy).mean(1, keepdims=True)
    c2 = wdy.mean(1, keepdims=True)
    dx = (wdy - (xhat * c1 + c2)) * rstd[:, None]
    dw = (dy * xhat).sum(0)
    db = dy.astype(np.float64).sum(0)

    def check(o):
        return verdict([("dx", near(o, 5, dx, atol=1e-4, rtol=1e-4)),
                        ("dw", near(o, 6, dw, atol=1e-4, rtol=1e-4)),
                        ("db", near(o, 7, db, atol=1e-4, rtol=1e-4))], True)
    return [rows], [Buf(x), Buf(dy), Buf(w), Buf(mean.astype(np.float32)),
                    Buf(rstd.astype(np.float32)), Buf(np.zeros_like(x)),
                    Buf(np.zeros(cols, np.float32)), Buf(np.zeros(cols, np.float32)),
                    (I32, rows), (I32, cols)], check


def small_ints(dtname, shape, r, lo=-4, hi=5):
    """Integer-valued inputs exact in the format, small enough that every product sum of the
    GEMMs below is exact in f32 (|sum| < 2^24) and in f16 outputs (|c| <= 2048)."""
    return ints_as(np.int64, shape, lo, hi, r).astype(np.float64).astype(np_dtype(dtname)) \
        if is_float(dtname) else ints_as(np_dtype(dtname), shape, lo, hi, r)


def h_matmul(rec):
    sig = rec["signature"]
    at, ct = sig["a_ptr"][1:], sig["c_ptr"][1:]
    r = rng(6)
    m, n, k = 100, 72, 96
    a = small_ints(at, (m, k), r)
    b = small_ints(at, (k, n), r)
    want = a.astype(np.int64) @ b.astype(np.int64) if not is_float(at) else \
        a.astype(np.float64) @ b.astype(np.float64)
    want = want.astype(np_dtype(ct))
    tm, tn = -(-m // rec["constexprs"]["BM"]), -(-n // rec["constexprs"]["BN"])
    return [tm * tn], [Buf(a), Buf(b), Buf(np.zeros((m, n), np_dtype(ct))), (I32, m), (I32, n),
                       (I32, k), (I32, k), (I32, 1), (I32, n), (I32, 1), (I32, n), (I32, 1)], \
        lambda o: verdict([("c", eq(o, 2, want))])


def h_matmul_persistent(rec):
    r = rng(7)
    m, n, k = 160, 136, 72
    a, b = small_ints("fp16", (m, k), r), small_ints("fp16", (k, n), r)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return [3], [Buf(a), Buf(b), Buf(np.zeros((m, n), np.float32)), (I32, m), (I32, n),
                 (I32, k)], lambda o: verdict([("c", eq(o, 2, want))])


def h_matmul_tma(rec):
    sig, c = rec["signature"], rec["constexprs"]
    at, ct = sig["a_ptr"][1:], sig["c_ptr"][1:]
    persistent = "persistent" in rec["kernel"]
    r = rng(8)
    m, n, k = 192, 128, 128
    a = small_ints(at, (m, k), r)
    b = small_ints(at, (k, n), r)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np_dtype(ct))
    bb = np.ascontiguousarray(b.T) if persistent else b
    grid = [3] if persistent else [-(-m // c["BM"]), -(-n // c["BN"])]
    return grid, [Buf(a), Buf(bb), Buf(np.zeros((m, n), np_dtype(ct))), (I32, m), (I32, n),
                  (I32, k)], lambda o: verdict([("c", eq(o, 2, want))])


def h_matmul_host_tma(rec):
    sig, meta = rec["signature"], rec["tensordesc_meta"]
    at = sig["a_desc"].split("<")[1].split("[")[0]
    ct = sig["c_desc"].split("<")[1].split("[")[0]
    r = rng(20)
    m, n, k = 160, 128, 96
    a = small_ints(at, (m, k), r)
    b = small_ints(at, (k, n), r)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np_dtype(ct))
    c = rec["constexprs"]
    return [-(-m // c["BM"]), -(-n // c["BN"])], \
        [Desc(a, meta[0]), Desc(b, meta[1]), Desc(np.zeros((m, n), np_dtype(ct)), meta[2]),
         (I32, m), (I32, n), (I32, k)], lambda o: verdict([("c", eq(o, 2, want))])


def h_batched_dot(rec):
    sig, c = rec["signature"], rec["constexprs"]
    at, ct = sig["a_ptr"][1:], sig["c_ptr"][1:]
    r = rng(21)
    bt, m, n, k = c["B"], c["M"], c["N"], c["K"]
    a, b = small_ints(at, (bt, m, k), r), small_ints(at, (bt, k, n), r)
    # |sum| <= 32 * 16: exact in an f16 accumulator too
    want = np.einsum("bmk,bkn->bmn", a.astype(np.float64), b.astype(np.float64))
    return [1], [Buf(a), Buf(b), Buf(np.zeros((bt, m, n), np_dtype(ct)))], \
        lambda o: verdict([("c", eq(o, 2, want.astype(np_dtype(ct))))])


def h_custom_scans(rec):
    r = rng(22)
    rows, cols = 3, rec["constexprs"]["BLOCK"]
    a = r.integers(-2**31, 2**31, (rows, cols), dtype=np.int64).astype(np.int32)
    b = r.integers(-2**31, 2**31, (rows, cols), dtype=np.int64).astype(np.int32)
    b[:, 50] = b[:, 20] = 2**31 - 1  # a tie for the maximum: the first index wins
    g = r.integers(0, cols, (rows, cols)).astype(np.int32)
    h = np.zeros((rows, cols), np.int64)
    acc = np.zeros(rows, np.int64)
    for j in range(cols):  # h_j = a_j h_{j-1} + b_j, wrapping in 32 bits
        acc = (a[:, j].astype(np.int64) * acc + b[:, j]) % 2**32
        h[:, j] = acc
    best = np.stack([b.max(1), np.argmax(b, 1)], 1)
    return [rows], [Buf(a), Buf(b), Buf(g), Buf(np.zeros((rows, cols), np.int32)),
                    Buf(np.zeros((rows, 2), np.int32)), Buf(np.zeros((rows, cols), np.int32)),
                    Buf(np.zeros(rows, np.int32))], \
        lambda o: verdict([("recurrence", eq(o, 3, h.astype(np.uint32).view(np.int32))),
                           ("max", eq(o, 4, best)),
                           ("gather", eq(o, 5, np.take_along_axis(b, g, 1))),
                           ("xor", eq(o, 6, np.bitwise_xor.reduce(b, 1)))])


def h_integer_ops(rec):
    r = rng(23)
    n = 1500
    x = r.integers(-2**31 + 1, 2**31, n, dtype=np.int64)  # no INT_MIN: abs and // stay defined
    y = np.where(r.random(n) < 0.5, r.integers(-300, 300, n), r.integers(-2**31 + 1, 2**31, n))
    y = np.where(y == 0, 7, y)
    q = np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y))  # C division: toward zero
    ux, uy = x % 2**32, y % 2**32
    s = y & 31
    cols = [q, x - q * y, (ux * uy) >> 32, x >> s, ux >> s, np.minimum(x, y), np.maximum(x, y),
            np.clip(x, -1000, 1000), np.abs(x), (x * y) >> 32]
    want = (np.stack(cols, 1) % 2**32).astype(np.uint32).view(np.int32)
    return [-(-n // 256)], [Buf(x.astype(np.int32)), Buf(y.astype(np.int32)),
                            Buf(np.zeros((n, 10), np.int32)), (I32, n)], \
        lambda o: verdict([("ops", eq(o, 2, want))])


def h_nan_minmax(rec):
    r = rng(24)
    n = 1000
    x = (r.standard_normal(n) * 10).astype(np.float32)
    y = (r.standard_normal(n) * 10).astype(np.float32)
    x[r.random(n) < 0.1] = np.nan
    y[r.random(n) < 0.1] = np.nan
    y[:20] = x[:20]  # equal pairs
    with np.errstate(invalid="ignore"):
        want = np.stack([np.maximum(x, y), np.minimum(x, y), np.fmax(x, y), np.fmin(x, y),
                         np.where(x < y, x, y)], 1)
    return [-(-n // 256)], [Buf(x), Buf(y), Buf(np.zeros((n, 5), np.float32)), (I32, n)], \
        lambda o: verdict([("minmax", eq(o, 2, want))])


def h_grouped_gemm(rec):
    # The pointer arrays need device addresses: filled in by run_record (see "pointers").
    return "grouped", None, None


def h_attention_fwd(rec):
    r = rng(9)
    heads, seq, d = 2, 80, rec["constexprs"]["HEAD"]
    q, k, v = [(r.standard_normal((heads, seq, d)) * 0.5).astype(np.float16) for _ in range(3)]
    scale = 1 / np.sqrt(d)
    s = np.einsum("hqd,hkd->hqk", q.astype(np.float64), k.astype(np.float64)) * scale
    mx = s.max(-1, keepdims=True)
    p = np.exp(s - mx)
    out = np.einsum("hqk,hkd->hqd", p / p.sum(-1, keepdims=True), v.astype(np.float64))
    lse = (mx[..., 0] + np.log(p.sum(-1))) / np.log(2)
    bm = rec["constexprs"]["BM"]

    def check(o):
        # P is rounded to f16 before the P V product: relative 2^-11 on each term
        return verdict([("o", near(o, 3, out, atol=2e-3, rtol=2e-3)),
                        ("lse", near(o, 4, lse, atol=1e-4, rtol=1e-5))], True)
    return [-(-seq // bm), heads], [Buf(q), Buf(k), Buf(v), Buf(np.zeros_like(q)),
                                    Buf(np.zeros((heads, seq), np.float32)), (F32, scale),
                                    (I32, seq)], check


def h_attention_bwd_dv(rec):
    r = rng(10)
    heads, seq, d = 2, 96, rec["constexprs"]["HEAD"]
    q, k, do = [(r.standard_normal((heads, seq, d)) * 0.5).astype(np.float16) for _ in range(3)]
    scale = 1 / np.sqrt(d)
    s = np.einsum("hqd,hkd->hqk", q.astype(np.float64), k.astype(np.float64)) * scale
    lse2 = np.log2(np.exp(s).sum(-1))
    p = np.exp(s) / np.exp(s).sum(-1, keepdims=True)
    dv = np.einsum("hqk,hqd->hkd", p, do.astype(np.float64))
    bn = rec["constexprs"]["BN"]
    return [-(-seq // bn), heads], [Buf(q), Buf(k), Buf(do), Buf(lse2.astype(np.float32)),
                                    Buf(np.zeros((heads, seq, d), np.float32)), (F32, scale),
                                    (I32, seq)], \
        lambda o: verdict([("dv", near(o, 4, dv, atol=2e-3, rtol=2e-3))], True)


E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float64)


def decode_format(codes, fmt):
    if fmt == "e4m3":
        return codes.view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    if fmt == "e5m2":
        return codes.view(ml_dtypes.float8_e5m2).astype(np.float64)
    lo, hi = codes & 0xF, codes >> 4  # e2m1 pairs: element 2i in the low nibble
    vals = np.stack([lo, hi], -1).reshape(codes.shape[0], -1)
    return np.where(vals & 8, -1.0, 1.0) * E2M1[vals & 7]


def encode_values(vals, fmt):
    if fmt == "e4m3":
        return vals.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    if fmt == "e5m2":
        return vals.astype(ml_dtypes.float8_e5m2).view(np.uint8)
    idx = np.array([np.where(E2M1 == abs(v))[0][0] for v in vals.reshape(-1)]).reshape(vals.shape)
    nib = (idx | np.where(vals < 0, 8, 0)).astype(np.uint8)
    return nib[:, 0::2] | (nib[:, 1::2] << 4)


def h_dot_scaled(rec):
    c = rec["constexprs"]
    fa, fb = c["A_FORMAT"], c["B_FORMAT"]
    r = rng(11)
    m = n = 128
    k = 256
    vals = np.array([0, 0.5, 1, 1.5, 2, 3, -1, -2, -0.5], np.float64)
    a = r.choice(vals, (m, k))
    b = r.choice(vals, (n, k))
    vec = c["VEC"]
    if rec["signature"]["a_scale_ptr"] == "*fp8e4nv":
        # nvfp4: e4m3 scale factors (positive, a few mantissa bits)
        factors = np.array([0.5, 0.75, 1, 1.25, 1.5, 2], np.float64)
        fa_, fb_ = r.choice(factors, (m, k // vec)), r.choice(factors, (n, k // vec))
        sa = fa_.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
        sb = fb_.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    else:
        sa = r.integers(125, 130, (m, k // vec)).astype(np.uint8)  # e8m0: 2^(s - 127)
        sb = r.integers(125, 130, (n, k // vec)).astype(np.uint8)
        fa_, fb_ = np.exp2(sa.astype(np.float64) - 127), np.exp2(sb.astype(np.float64) - 127)
    ad = a * np.repeat(fa_, vec, 1)
    bd = b * np.repeat(fb_, vec, 1)
    want = (ad @ bd.T).astype(np.float32)  # every term and sum is exact in f32
    return [1, 1], [Buf(encode_values(a, fa)), Buf(sa), Buf(encode_values(b, fb)), Buf(sb),
                    Buf(np.zeros((m, n), np.float32)), (I32, m), (I32, n), (I32, k)], \
        lambda o: verdict([("c", eq(o, 4, want))])


def h_row_scans(rec):
    r = rng(12)
    rows, cols = 5, 256
    x = r.integers(-1000, 1000, (rows, cols)).astype(np.int32)
    x[:, 7] = 5000  # a tie for the maximum: argmax takes the first
    x[:, 200] = 5000
    cs = np.cumsum(x.astype(np.int64), 1).astype(np.int32)
    cpw = np.zeros_like(x, np.uint64)
    acc = np.ones(rows, np.uint64)
    for j in range(cols):
        acc = (acc * x[:, j].astype(np.int64).astype(np.uint64)) & np.uint64(0xFFFFFFFF)
        cpw[:, j] = acc
    srt = -np.sort(-x.astype(np.int64), 1)
    z = lambda: Buf(np.zeros((rows, cols), np.int32))  # noqa: E731
    return [rows], [Buf(x), z(), z(), z(), Buf(np.zeros(rows, np.int32)),
                    Buf(np.zeros(rows, np.int32)), (I32, cols)], \
        lambda o: verdict([("cumsum", eq(o, 1, cs)),
                           ("cumprod", eq(o, 2, cpw.astype(np.uint32).view(np.int32))),
                           ("sort", eq(o, 3, srt)), ("argmax", eq(o, 4, np.argmax(x, 1))),
                           ("argmin", eq(o, 5, np.argmin(x, 1)))])


def h_float_reductions(rec):
    r = rng(13)
    rows, cols = 3, 512
    # Integer-valued f32: every partial sum is exact, so any summation order gives the sum.
    x = r.integers(-50, 50, (rows, cols)).astype(np.float32)
    x[:, 3] = 70
    x[:, 400] = 70
    stats = np.stack([x.max(1), x.min(1), x.sum(1), np.argmax(x, 1).astype(np.float32)], 1)
    return [rows], [Buf(x), Buf(np.zeros_like(x)), Buf(np.zeros_like(x)),
                    Buf(np.zeros((rows, 4), np.float32))], \
        lambda o: verdict([("cumsum", eq(o, 1, np.cumsum(x, 1))),
                           ("sort", eq(o, 2, np.sort(x, 1))),
                           ("stats", eq(o, 3, stats.astype(np.float32)))])


def h_histogram(rec):
    r = rng(14)
    n = 3000
    x = r.integers(0, 64, n).astype(np.int32)
    return [-(-n // 512)], [Buf(x), Buf(np.zeros(64, np.int32)), (I32, n)], \
        lambda o: verdict([("hist", eq(o, 1, np.bincount(x, minlength=64)))])


def h_atomics(rec):
    r = rng(15)
    n = 1000
    x = r.integers(-100000, 100000, n).astype(np.int32)
    fx = r.integers(-1000, 1000, n).astype(np.float32)  # integer values: any order is exact
    init = np.array([0, -2**31, 2**31 - 1, -1, 0, 0, 0, 0], np.int64).astype(np.int32)
    want = np.array([x.sum(), x.max(), x.min(), np.bitwise_and.reduce(x | 0x7ff0fff),
                     np.bitwise_or.reduce(x & 0x1248), np.bitwise_xor.reduce(x), n, x[-1]],
                    np.int64).astype(np.int32)
    fwant = np.array([fx.sum(), fx.max()], np.float32)
    return [-(-n // 128)], [Buf(x), Buf(fx), Buf(init), Buf(np.array([0, -np.inf], np.float32)),
                            (I32, n)], \
        lambda o: verdict([("int", eq(o, 2, want)), ("f32", eq(o, 3, fwant))])


def h_bitcast(rec):
    r = rng(16)
    n = 500
    x = np.abs(r.standard_normal(n)).astype(np.float32)
    return [2], [Buf(x), Buf(np.zeros_like(x)), (I32, n)], \
        lambda o: verdict([("y", eq(o, 1, np.nextafter(x, np.float32(np.inf))))])


# Math: (input range, numpy function on f64, allowed error in ulps of the output format against
# the correctly rounded result, allowed absolute error). The figures are the maximum errors the
# CUDA C++ Programming Guide ("Mathematical Functions", measured against the correctly rounded
# result) gives for the function Triton calls: libdevice's single-precision functions
# (tanhf 2, expm1f 1, ...), and for tl.exp, tl.log, tl.sin, tl.cos, which Triton lowers to the
# approximate instructions, the intrinsics' figures (__expf: 2 + floor(|1.173 x|) ulp, here for
# |x| <= 10; __logf: 3 ulp, absolute 2^-21.41 in [0.5, 2]; __log2f: 2 ulp, absolute 2^-22 in
# [0.5, 2]; __sinf/__cosf: absolute 2^-21.41 in [-pi, pi]). 0, 0: the operation is exact (IEEE
# sqrt and division with .rn, rounding to integers, abs, fma).
def _erf(v):
    import math
    return np.vectorize(math.erf)(v)


def _erfc(v):
    import math
    return np.vectorize(math.erfc)(v)


def _lgamma(v):
    import math
    return np.vectorize(math.lgamma)(v)


MATH = {
    "exp": ((-10, 10), np.exp, 13, 0), "exp2": ((-10, 10), np.exp2, 2, 0),
    "log": ((0.01, 100), np.log, 3, 2**-21.41), "log2": ((0.01, 100), np.log2, 2, 2**-22),
    "sin": ((-3.1, 3.1), np.sin, 0, 2**-21.41), "cos": ((-3.1, 3.1), np.cos, 0, 2**-21.41),
    "sqrt": ((0, 100), np.sqrt, 1, 0), "sqrt_rn": ((0, 100), np.sqrt, 0, 0),
    "rsqrt": ((0.01, 100), lambda v: 1 / np.sqrt(v), 2, 0), "erf": ((-3, 3), _erf, 2, 0),
    "floor": ((-100, 100), np.floor, 0, 0), "ceil": ((-100, 100), np.ceil, 0, 0),
    "abs": ((-100, 100), np.abs, 0, 0), "recip_rn": ((0.1, 100), lambda v: 1 / v, 0, 0),
    "fdiv": ((0, 100), lambda v: v / (v + 3), 2, 0),
    # 1 / (1 + __expf(-x)): __expf's 13 ulp (the relative error shrinks through 1 + e), one
    # f32 addition and div.full's 2 ulp
    "sigmoid": ((-10, 10), lambda v: 1 / (1 + np.exp(-v)), 16, 0),
    "tanh": ((-5, 5), np.tanh, 2, 0), "exp10": ((-5, 5), lambda v: 10 ** v, 2, 0),
    "expm1": ((-3, 3), np.expm1, 1, 0), "log1p": ((-0.5, 10), np.log1p, 1, 0),
    "log10": ((0.01, 100), np.log10, 2, 0), "tan": ((-1.5, 1.5), np.tan, 4, 0),
    "asin": ((-1, 1), np.arcsin, 2, 0), "acos": ((-1, 1), np.arccos, 2, 0),
    "atan": ((-10, 10), np.arctan, 2, 0), "sinh": ((-5, 5), np.sinh, 3, 0),
    "cosh": ((-5, 5), np.cosh, 2, 0), "asinh": ((-10, 10), np.arcsinh, 3, 0),
    "cbrt": ((-100, 100), np.cbrt, 1, 0), "erfc": ((-3, 3), _erfc, 4, 0),
    "lgamma": ((0.5, 10), _lgamma, 6, 0), "pow": ((0.1, 5), lambda v: v ** (v * 0.5), 4, 0),
    "atan2": ((0.1, 5), lambda v: np.arctan2(v, v + 1.5), 3, 0),
    "trunc": ((-100, 100), np.trunc, 0, 0), "rint": ((-100, 100), np.rint, 0, 0),
    "fma": ((-10, 10), None, 0, 0),
}
# The same functions in mpmath at 120 bits (the references; CPython's and numpy's libm are not
# correctly rounded, lgamma near its zeros by many ulps). b is the second operand as the kernel
# computes it (x + 1.5 for atan2, x + 3 for fdiv, x * 0.5 for pow).
def _mp():
    import mpmath as m
    return {
        "exp": lambda a, b: m.exp(a), "exp2": lambda a, b: m.power(2, a),
        "log": lambda a, b: m.log(a), "log2": lambda a, b: m.log(a, 2),
        "sin": lambda a, b: m.sin(a), "cos": lambda a, b: m.cos(a),
        "sqrt": lambda a, b: m.sqrt(a), "sqrt_rn": lambda a, b: m.sqrt(a),
        "rsqrt": lambda a, b: 1 / m.sqrt(a), "erf": lambda a, b: m.erf(a),
        "floor": lambda a, b: m.floor(a), "ceil": lambda a, b: m.ceil(a),
        "abs": lambda a, b: abs(a), "recip_rn": lambda a, b: 1 / a,
        "fdiv": lambda a, b: a / b, "sigmoid": lambda a, b: 1 / (1 + m.exp(-a)),
        "tanh": lambda a, b: m.tanh(a), "exp10": lambda a, b: m.power(10, a),
        "expm1": lambda a, b: m.expm1(a), "log1p": lambda a, b: m.log1p(a),
        "log10": lambda a, b: m.log10(a), "tan": lambda a, b: m.tan(a),
        "asin": lambda a, b: m.asin(a), "acos": lambda a, b: m.acos(a),
        "atan": lambda a, b: m.atan(a), "sinh": lambda a, b: m.sinh(a),
        "cosh": lambda a, b: m.cosh(a), "asinh": lambda a, b: m.asinh(a),
        "cbrt": lambda a, b: m.cbrt(a) if a >= 0 else -m.cbrt(-a), "erfc": lambda a, b: m.erfc(a),
        "lgamma": lambda a, b: m.loggamma(a), "pow": lambda a, b: m.power(a, b),
        "atan2": lambda a, b: m.atan2(a, b), "trunc": lambda a, b: m.mpf(int(a)),
        "rint": lambda a, b: m.mpf(round(float(a))),
    }


def reference(fn, x, dt):
    """fn over x as the kernel computes it: in f32 for f16/bf16 inputs, the second operand
    rounded in that precision; the result correctly rounded to f64 (120-bit mpmath)."""
    import mpmath
    mpmath.mp.prec = 120
    kdt = np.float64 if dt == np.float64 else np.float32
    xk = x.astype(kdt)
    with np.errstate(all="ignore"):
        second = {"atan2": xk + kdt(1.5), "fdiv": xk + kdt(3), "pow": xk * kdt(0.5)}.get(
            fn, xk)
    f = _mp()[fn]
    return np.array([float(f(mpmath.mpf(float(a)), mpmath.mpf(float(b))))
                     for a, b in zip(xk, second)])


# The Guide's double-precision figures (Triton calls libdevice's f64 functions throughout).
MATH_F64_ULPS = {"exp": 1, "exp2": 1, "log": 1, "log2": 1, "sin": 2, "cos": 2, "tan": 2,
                 "sqrt": 0, "rsqrt": 1, "erf": 2, "expm1": 1, "log1p": 1, "log10": 1,
                 "exp10": 1, "asin": 2, "acos": 2, "atan": 2, "sinh": 2, "cosh": 1, "asinh": 3,
                 "cbrt": 1, "erfc": 5, "lgamma": 4, "pow": 2, "atan2": 2, "tanh": 2}


def h_math(rec):
    c = rec["constexprs"]
    fn = c["FN"]
    dtn = rec["signature"]["x_ptr"][1:]
    dt = np_dtype(dtn)
    (lo, hi), f, ulps, atol = MATH[fn]
    r = rng(17)
    n = 700
    x = r.uniform(lo, hi, n).astype(dt)
    if fn in ("floor", "ceil", "trunc", "rint"):
        x[:8] = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.0, 3.0]).astype(dt)
    xd = x.astype(np.float64)
    exact = ulps == 0 and atol == 0
    if fn == "fma":
        if dt == np.float32:
            xp1 = x + np.float32(1)
            q = x * np.float32(0.25)
            want = round_f32([Fraction(float(a)) * Fraction(float(b)) + Fraction(float(cc))
                              for a, b, cc in zip(x, xp1, q)])
        elif dt == np.float64:
            xp1, q = x + 1.0, x * 0.25
            want = np.array([float(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(cc)))
                             for a, b, cc in zip(x, xp1, q)])
        else:
            # f16/bf16: Triton computes x + 1 and x * 0.25 in the format, then fma in f32 and
            # rounds to the format; each step is exact-then-rounded, modelled the same way.
            xp1 = (x.astype(np.float32) + np.float32(1)).astype(dt)
            q = (x.astype(np.float32) * np.float32(0.25)).astype(dt)
            want = round_f32([Fraction(float(a)) * Fraction(float(b)) + Fraction(float(cc))
                              for a, b, cc in zip(x, xp1, q)]).astype(dt)
            exact = False
            ulps = 1  # double rounding f32 -> format may differ from one rounding
    elif fn in ("floor", "ceil", "abs", "trunc", "rint"):
        want = f(xd)  # exact in numpy, signed zeros included (mpmath has no -0)
    else:
        want = reference(fn, x, dt)
        if dt in (np.float16, np.dtype(ml_dtypes.bfloat16)):
            # Triton widens to f32, computes, and rounds back: the f32 error is far below the
            # format's ulp, so one ulp covers it and the final rounding
            ulps, exact = 1, False
    if dt == np.float64 and not exact:
        ulps, atol = MATH_F64_ULPS.get(fn, ulps), 0
        exact = ulps == 0
    if not exact:
        # the figures are against the correctly rounded result
        with np.errstate(all="ignore"):
            want = np.asarray(want, np.float64).astype(dt).astype(np.float64)

    def check(o):
        if exact:
            return verdict([("y", eq(o, 1, np.asarray(want).astype(dt)))])
        return verdict([("y", near(o, 1, want, ulps=ulps, atol=atol))], True)
    return [-(-n // c["BLOCK"])], [Buf(x), Buf(np.zeros(n, dt)), (I32, n)], check


INT_RANGE = {"i8": (-128, 127), "i16": (-32768, 32767), "i32": (-2**31, 2**31 - 1),
             "i64": (-2**63, 2**63 - 1), "u8": (0, 255), "u16": (0, 65535), "u32": (0, 2**32 - 1),
             "u64": (0, 2**64 - 1)}


def cast_inputs(src, dst, r):
    """Inputs of src that convert to dst without undefined behaviour (floats to integers: in
    the destination's range, since LLVM's fptosi/fptoui are poison outside it)."""
    n = 1024
    if src == "fp8e4b15":
        return np.arange(256, dtype=np.uint8).repeat(4)
    if not is_float(src):
        lo, hi = INT_RANGE[src]
        vals = r.integers(lo, hi, n, dtype=np.int64 if src != "u64" else np.uint64,
                          endpoint=True) if src != "u64" else \
            r.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
        x = vals.astype(np_dtype(src))
        x[:6] = np.array([0, 1, 2, lo, hi, lo + 1], dtype=object).astype(np_dtype(src)) \
            if src != "u64" else np.array([0, 1, 2, 0, 2**64 - 1, 3], np.uint64)
        return x
    dt = np_dtype(src)
    if src in ("fp8e4nv", "fp8e5"):
        codes = np.arange(256, dtype=np.uint8)
        if src == "fp8e5" and dst == "bf16":
            # Triton lowers fp8e5 -> bf16 as a shift and a multiplication by 2^112 (prmt, lop3,
            # mul.rn.bf16x2), which makes the infinity and NaN codes finite (0x7c -> 65536):
            # only the finite codes have a reference
            codes = codes[(codes & 0x7c) != 0x7c]
        return np.resize(codes, 1024).view(dt)
    if src in ("fp16", "bf16"):
        bits = r.integers(0, 65536, n).astype(np.uint16)
        bits[:256] = np.arange(256, dtype=np.uint16) * 257  # spread over the range
        x = bits.view(dt)
    elif src == "fp32":
        x = r.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    else:
        x = r.integers(0, 2**64, n, dtype=np.uint64).view(np.float64)
    if not is_float(dst):
        lo, hi = INT_RANGE[dst]
        v = r.uniform(lo, hi, n)
        v = np.where(r.random(n) < 0.5, np.round(r.uniform(-200, 200, n), 2), v)
        v = np.clip(v, lo, min(hi, float(np.finfo(dt).max) if dt != np.float64 else hi))
        x = v.astype(dt)
        xd = x.astype(np.float64)
        x = np.where((xd < lo) | (xd >= hi + 1.0) | ~np.isfinite(xd), np.zeros(1, dt), x)
    if dst in ("fp8e4nv", "fp8e5", "fp16", "bf16", "fp32") and is_float(src):
        # keep a third of the inputs in the destination's normal range
        fin = float(ml_dtypes.finfo(np_dtype(dst)).max) if dst not in ("fp16", "fp32") else \
            float(np.finfo(np_dtype(dst)).max)
        k = n // 3
        near = (r.uniform(-1, 1, k) * fin * r.choice([1e-6, 1e-3, 0.1, 1.0, 1.2], k))
        x[:k] = near.astype(dt)
    return x


def cvt_float(x, dst, rtz, satfinite):
    """x (any float format) to float format dst, rounding to nearest even or toward zero; with
    satfinite, finite values past the largest normal saturate to it (cvt.satfinite)."""
    dt = np_dtype(dst)
    xd = x.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if satfinite:
            # "If the absolute value of input (ignoring sign) is greater than MAX_NORM of the
            # specified destination format, then the result is sign-preserved MAX_NORM" (cvt,
            # PTX ISA 9.7.9.21): infinities too; NaN stays NaN
            mx = float(ml_dtypes.finfo(dt).max)
            src = np.where(np.isnan(xd), xd, np.clip(xd, -mx, mx))
        else:
            src = xd
        # numpy and ml_dtypes convert f64 -> dt with one rounding (to nearest even); every
        # source format widens to f64 exactly
        y = src.astype(dt)
        if rtz:
            yd = y.astype(np.float64)
            over = np.isfinite(xd) & (np.abs(yd) > np.abs(xd))
            toward = np.nextafter(y, np.zeros(1, dt)) if dt in (np.float16, np.float32) else \
                step_toward_zero(y)
            y = np.where(over, toward, y)
            fmax = float(ml_dtypes.finfo(dt).max) if dt not in (np.float16, np.float32) else \
                float(np.finfo(dt).max)
            big = np.isfinite(xd) & (np.abs(xd) > fmax)
            y = np.where(big, np.copysign(fmax, xd).astype(dt), y)
    return y


def step_toward_zero(y):
    """The next value toward zero in y's 8- or 16-bit format (bit pattern minus one)."""
    bits = y.view(np.uint8 if y.itemsize == 1 else np.uint16).copy()
    mag = bits & (0x7F if y.itemsize == 1 else 0x7FFF)
    bits = np.where(mag != 0, bits - 1, bits).astype(bits.dtype)
    return bits.view(y.dtype)


def cast_reference(x, src, dst, rounding):
    """What Triton's `.to(dst)` computes, by the rules of its language reference: floats to
    integers truncate toward zero; integers to floats round to nearest even; unsigned sources
    are zero-extended, signed ones sign-extended; integer narrowing keeps the low bits; float
    narrowing rounds as asked (ties to even, or toward zero for "rtz"); conversions to the fp8
    formats saturate finite values (Triton lowers them to cvt.rn.satfinite)."""
    dt = np_dtype(dst)
    if not is_float(src) and not is_float(dst):
        return x.astype(dt)  # wraps: numpy keeps the low bits
    if is_float(src) and not is_float(dst):
        return np.trunc(x.astype(np.float64)).astype(dt)
    if not is_float(src):
        if dst in ("fp8e4nv", "fp8e5", "bf16", "fp16"):
            # one rounding from the exact integer: through Fraction-free f64 only when exact
            big = np.abs(x.astype(np.float64)) >= 2**53
            y = x.astype(np.float64).astype(dt)
            if big.any():
                y = np.array([float(Fraction(int(v))) for v in x]).astype(dt)
            return y
        if dst == "fp32":
            return x.astype(np.float32) if x.dtype.itemsize <= 4 else np.array(
                [round_f32([Fraction(int(v))])[0] for v in x], np.float32)
        return x.astype(dt)
    return cvt_float(x, dst, rounding == "rtz", dst in ("fp8e4nv", "fp8e5"))


def h_cast(rec):
    sig = rec["signature"]
    src, dst = sig["x_ptr"][1:], sig["y_ptr"][1:]
    if "fp8e4b15" in (src, dst):
        return None
    r = rng(18)
    x = cast_inputs(src, dst, r)
    want = cast_reference(x, src, dst, rec["constexprs"]["ROUNDING"])
    n = x.size
    return [-(-n // 256)], [Buf(x), Buf(np.zeros(n, np_dtype(dst))), (I32, n)], \
        lambda o: verdict([("y", eq(o, 1, want))])


HARNESS = {"vec_add": h_vec_add, "softmax_persistent": h_softmax, "philox_bits": h_philox,
           "dropout": h_dropout, "layer_norm_fwd": h_layer_norm_fwd,
           "layer_norm_bwd": h_layer_norm_bwd, "matmul": h_matmul,
           "matmul_persistent": h_matmul_persistent, "matmul_tma": h_matmul_tma,
           "matmul_tma_persistent": h_matmul_tma,
           "matmul_host_tma": h_matmul_host_tma, "matmul_tma_ws": h_matmul_tma,
           "batched_dot": h_batched_dot, "custom_scans": h_custom_scans,
           "integer_ops": h_integer_ops, "nan_minmax": h_nan_minmax, "grouped_gemm": h_grouped_gemm,
           "attention_fwd": h_attention_fwd, "attention_bwd_dv": h_attention_bwd_dv,
           "dot_scaled": h_dot_scaled, "row_scans": h_row_scans,
           "float_reductions": h_float_reductions, "histogram": h_histogram,
           "atomics": h_atomics, "bitcast_f32": h_bitcast, "unary_math": h_math,
           "cast": h_cast}


def scratch_params(rec, grid):
    programs = int(np.prod(grid))
    out = []
    for key in ("global_scratch", "profile_scratch"):
        size = rec.get(key, [0, 1])[0]
        out.append(Buf(np.zeros(max(size * programs, 16), np.uint8)))
    return out


def run_grouped(cuda, rec, ptx):
    """grouped_gemm: three groups; the pointer arrays hold device addresses of the groups'
    buffers, so the buffers are allocated here first."""
    r = rng(19)
    sizes = [(100, 72, 64), (64, 130, 40), (33, 20, 96)]
    groups, dev = [], []
    for m, n, k in sizes:
        a, b = small_ints("fp16", (m, k), r), small_ints("fp16", (k, n), r)
        want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
        groups.append((a, b, want))
        dev.append((cuda.alloc(a), cuda.alloc(b), cuda.alloc(np.zeros((m, n), np.float32))))
    ptrs = [Buf(np.array([d[i] for d in dev], np.int64)) for i in range(3)]
    grid = [4]
    params = ptrs + [Buf(np.array(sizes, np.int32).reshape(-1)), (I32, len(sizes))]
    run_launch(cuda, ptx, rec["entry"], grid, rec["num_warps"], rec["shared"],
               params + scratch_params(rec, grid))
    oks = []
    for (a, b, want), (_, _, c) in zip(groups, dev):
        host = np.empty_like(want)
        cuda.check(cuda.lib.cuMemcpyDtoH_v2(host.ctypes.data, c, host.nbytes), "DtoH")
        oks.append(("c", same_bits(host, want)))
    return verdict(oks)


def run_record(cuda, rec, corpus, save):
    if "file" not in rec:
        return {"verdict": "not-compiled", "detail": rec.get("error", "")}
    harness = HARNESS.get(rec["kernel"])
    made = harness(rec) if harness else None
    if made is None:
        return {"verdict": "no-harness", "detail": ""}
    ptx = open(os.path.join(corpus, rec["file"])).read()
    try:
        if made[0] == "grouped":
            v, d = run_grouped(cuda, rec, ptx)
            return {"verdict": v, "detail": d}
        grid, params, check = made
        params = params + scratch_params(rec, grid)
        outs = run_launch(cuda, ptx, rec["entry"], grid, rec["num_warps"], rec["shared"], params)
    except RuntimeError as e:
        msg = str(e)
        cuda.reset()
        return {"verdict": "load" if msg.startswith("load") else "fault", "detail": msg}
    EXPECTED.clear()
    v, d = check(outs)
    if save and v in ("exact", "close"):
        save_case(save, rec, grid, params, v)
    return {"verdict": v, "detail": d}


ELEM = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
        "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2", "int8": "s8", "int16": "s16",
        "int32": "s32", "int64": "s64", "uint8": "u8", "uint16": "u16", "uint32": "u32",
        "uint64": "u64"}


# The records whose PTX, inputs and references are committed (ptx-samples/triton/corpus/,
# tests/triton-corpus/) for crates/exec/tests/suite/triton_corpus.rs: one or two targets of each
# kind of kernel, small files.
SELECTION = {
    ("vec_add_f32", 90), ("softmax_persistent", 80), ("philox_bits", 90), ("dropout", 100),
    ("layer_norm_fwd_fp16", 90), ("layer_norm_bwd", 80), ("matmul_fp16_fp32_ieee", 120),
    ("matmul_fp8e4nv_fp32_ieee", 90), ("matmul_i8_i32_ieee", 100), ("matmul_fp32_fp32_tf32", 80),
    ("matmul_tma_fp16", 100), ("matmul_tma_persistent_fp16", 90), ("attention_fwd", 90),
    ("dot_scaled_e2m1_e2m1", 100), ("dot_scaled_nvfp4", 120), ("histogram", 90), ("integer_ops", 90), ("nan_minmax", 100),
    ("batched_dot_fp64_fp64", 80), ("custom_scans", 120), ("atomics", 80), ("row_scans_i32", 90),
    ("math_exp_fp32", 90), ("math_lgamma_fp64", 80), ("math_tanh_fp32", 100),
    ("math_sin_fp16", 90), ("cast_fp32_bf16_rtz", 90), ("cast_fp16_fp8e5_rtne", 80),
    ("cast_fp32_fp8e4nv_rtne", 100), ("cast_fp8e4nv_fp32_rtne", 90), ("cast_u64_fp32_rtne", 90),
    ("cast_fp32_i8_rtne", 80), ("cast_fp32_fp16_rtz", 100), ("cast_fp8e5_bf16_rtne", 90),
}
REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def save_case(save, rec, grid, params, v):
    """Writes SAVE/<name>.<target>/case.json with the launch, the inputs and the host
    references (EXPECTED) of a record that passed, for crates/exec/tests/suite/triton_corpus.rs.
    Buffers that start as zeros are written as their size."""
    if (rec["name"], rec["cap"]) not in SELECTION or any(isinstance(p, Desc) for p in params):
        return
    target = TARGETS[rec["cap"]]
    case = f"{rec['name']}.{target}"
    ptx_dir = os.path.join(REPO, "ptx-samples", "triton", "corpus")
    os.makedirs(ptx_dir, exist_ok=True)
    shutil.copyfile(os.path.join(CORPUS, rec["file"]), os.path.join(ptx_dir, rec["file"]))
    d = os.path.join(save, case)
    os.makedirs(d, exist_ok=True)
    buf_index = [i for i, p in enumerate(params) if isinstance(p, Buf)]
    args = []
    for i, p in enumerate(params):
        if isinstance(p, Buf):
            if not p.array.any():
                args.append({"zeros": int(p.array.nbytes)})
            else:
                p.array.tofile(os.path.join(d, f"arg{i}.bin"))
                args.append({"file": f"arg{i}.bin"})
        else:
            kind = {ctypes.c_int32: "s32", ctypes.c_float: "f32"}[p[0]]
            args.append({kind: p[1]})
    outputs = []
    for index, want, tol in EXPECTED:
        arg = buf_index[index]
        elem = ELEM[params[arg].array.dtype.name]
        if tol is None:
            want.tofile(os.path.join(d, f"out{arg}.bin"))
            outputs.append({"arg": arg, "elem": elem, "expected": f"out{arg}.bin"})
        else:
            want.astype(np.float64).tofile(os.path.join(d, f"out{arg}.f64.bin"))
            outputs.append(dict({"arg": arg, "elem": elem, "reference": f"out{arg}.f64.bin"},
                                **tol))
    g = list(grid) + [1] * (3 - len(grid))
    meta = {"ptx": f"ptx-samples/triton/corpus/{rec['file']}", "entry": rec["entry"], "target": target, "grid": g,
            "block": [32 * rec["num_warps"], 1, 1], "shared": rec["shared"], "verdict": v,
            "args": args, "outputs": outputs}
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(meta, f, indent=1)


CORPUS = ""


def child(corpus, lib, cap, names, save):
    global CORPUS
    CORPUS = corpus
    records = json.load(open(os.path.join(corpus, "corpus.json")))["records"]
    cuda = Cuda(lib)
    for rec in records:
        if rec["cap"] != cap or rec["name"] not in names:
            continue
        try:
            res = run_record(cuda, rec, corpus, save)
        except Exception as e:  # a harness's own error: reported, never hidden
            res = {"verdict": "harness-error", "detail": f"{type(e).__name__}: {e}"}
        res.update(name=rec["name"], cap=cap)
        print(json.dumps(res), flush=True)


def main():
    args = sys.argv[1:]
    if len(args) >= 5 and args[0] == "--child":
        child(args[1], args[2], int(args[3]), set(json.loads(sys.stdin.read())), args[4] or None)
        return
    if len(args) < 2:
        sys.exit(__doc__)
    corpus, lib = args[0], args[1]
    only = args[args.index("--only") + 1] if "--only" in args else None
    out_json = args[args.index("--json") + 1] if "--json" in args else None
    save = os.path.abspath(args[args.index("--save") + 1]) if "--save" in args else ""
    records = json.load(open(os.path.join(corpus, "corpus.json")))["records"]
    results = []
    for cap, target in TARGETS.items():
        todo = [r["name"] for r in records if r["cap"] == cap and (not only or any(o in r["name"] for o in only.split(",")))]
        while todo:
            # a step limit far above what any corpus kernel needs: a hang is a fault, not a wait
            env = dict(os.environ, PTXSIM_TARGET=target, PTXSIM_MAX_STEPS="20000000")
            p = subprocess.run([sys.executable, __file__, "--child", corpus, lib, str(cap), save],
                               input=json.dumps(todo), capture_output=True, text=True, env=env)
            done = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
            results += done
            for d in done:
                print(f"{d['verdict']:>13} {d['name']} {target} {d['detail'][:200]}", flush=True)
            finished = {d["name"] for d in done}
            todo = [t for t in todo if t not in finished]
            if todo:  # the child died on todo[0]
                tail = (p.stderr.strip().splitlines() or ["?"])[-1][:200]
                results.append({"verdict": "crash", "name": todo[0], "cap": cap, "detail": tail})
                print(f"{'crash':>13} {todo[0]} {target} {tail}", flush=True)
                todo = todo[1:]
    counts = {}
    for r in results:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print(json.dumps(counts))
    if out_json:
        json.dump(results, open(out_json, "w"), indent=1)


if __name__ == "__main__":
    main()
