#!/usr/bin/env python3
"""Golden outputs of mma.sync on sm_90 silicon: forms, inputs, CUDA driver, packer and reader.

The data is independent of the fragment layouts: for every tile (one warp, one mma), lane L
supplies the 32-bit register words A[tile][L][0..na), B[tile][L][0..nb), C[tile][L][0..nc) and
the GPU's D[tile][L][0..nd) is recorded. What is stored is exactly "these register inputs gave
these register outputs". The ISA fragment layouts (see README.md) are used only here, to place
matrix-level adversarial cases (cancellation, exponent spread, ties...) into registers.

    gen.py cuda > mma.cu                 # the CUDA driver (committed; regenerate after edits)
    gen.py ptx DIR [--version 9.0]       # one stand-alone PTX per form, for a ptxas check
    gen.py inputs IN.bin [--skip F,...]  # the inputs of every form (deterministic)
    gen.py pack IN.bin DDIR GOLDEN.bin.xz [--log LOG] [--device TEXT] [--toolkit TEXT]
    gen.py summary GOLDEN.bin.xz         # decode and print the index and per-class counts
    gen.py selftest                      # inputs -> fake outputs -> pack -> load, no GPU

Stdlib only. PRNG: SplitMix64; every (form, class) has its own stream seeded with
crc32("<form>/<class>") (zlib.crc32 of the UTF-8 text), so adding or reordering forms or
classes does not change any other stream. Format of GOLDEN: README.md; reader: load().
"""
from __future__ import annotations

import json
import lzma
import os
import struct
import sys
import zlib
from pathlib import Path

MASK64 = (1 << 64) - 1
POISON = 0xA5A5A5A5  # every D word is set to this before each run


class Rng:
    """SplitMix64 (Steele, Lea, Flood 2014): state += 0x9E3779B97F4A7C15, then the finaliser."""

    def __init__(self, seed: int):
        self.s = seed & MASK64

    def next(self) -> int:
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:  # uniform enough for test data (n << 2^64)
        return self.next() % n

    def bits(self, n: int) -> int:
        return self.next() >> (64 - n) if n else 0

    def range(self, lo: int, hi: int) -> int:  # inclusive
        return lo + self.below(hi - lo + 1)

    def chance(self, num: int, den: int) -> bool:
        return self.below(den) < num


# ----------------------------------------------------------------------------------------------
# Number formats. Element values are handled as bit patterns in the element's own width
# (tf32 in its 32-bit f32 container, low 13 bits zero unless a class sets them).

class Fp:
    def __init__(self, name, ebits, mbits, width, ieee=True, shift=0):
        self.name, self.ebits, self.mbits, self.width, self.shift = name, ebits, mbits, width, shift
        self.bias = (1 << (ebits - 1)) - 1
        self.ieee = ieee  # False: e4m3 (no Inf; S.1111.111 is NaN, S.1111.110 = 448 is max)
        self.emin = 1 - self.bias
        self.emax = self.bias if ieee else self.bias + 1
        self.sign = 1 << (width - 1)

    def enc(self, s, efield, m):
        return (s << (self.width - 1)) | (efield << (self.mbits + self.shift)) | (m << self.shift)

    def normal(self, s, e, m):
        assert self.emin <= e <= self.emax, (self.name, e)
        return self.enc(s, e + self.bias, m)

    def pow2(self, e, s=0):
        """2^e exactly, normal or subnormal; None when not representable."""
        if self.emin <= e <= self.emax:
            return self.normal(s, e, 0)
        if self.emin - self.mbits <= e < self.emin:
            return self.enc(s, 0, 1 << (e - (self.emin - self.mbits)))
        return None

    def rand_normal(self, rng, elo, ehi, s=None):
        e = rng.range(max(elo, self.emin), min(ehi, self.emax))
        m = rng.bits(self.mbits)
        if not self.ieee and e == self.emax and m == (1 << self.mbits) - 1:
            m -= 1
        return self.normal(rng.bits(1) if s is None else s, e, m)

    def rand_sub(self, rng, s=None):
        return self.enc(rng.bits(1) if s is None else s, 0, 1 + rng.below((1 << self.mbits) - 1))

    def rand_finite_bits(self, rng):
        while True:
            x = rng.bits(self.width)
            if not self.isnan(x) and not self.isinf(x):
                return x

    def isnan(self, x):
        e = (x >> (self.mbits + self.shift)) & ((1 << self.ebits) - 1)
        m = (x >> self.shift) & ((1 << self.mbits) - 1)
        if self.ieee:
            return e == (1 << self.ebits) - 1 and m != 0
        return e == (1 << self.ebits) - 1 and m == (1 << self.mbits) - 1

    def isinf(self, x):
        e = (x >> (self.mbits + self.shift)) & ((1 << self.ebits) - 1)
        m = (x >> self.shift) & ((1 << self.mbits) - 1)
        return self.ieee and e == (1 << self.ebits) - 1 and m == 0

    def inf(self, s=0):
        return self.enc(s, (1 << self.ebits) - 1, 0) if self.ieee else self.maxf(s)

    def maxf(self, s=0):
        return self.normal(s, self.emax, (1 << self.mbits) - 1 - (0 if self.ieee else 1))

    def nans(self):
        """A few NaN encodings: canonical-ish quiet, with payloads, signalling, negative."""
        if not self.ieee:
            return [self.enc(0, 15 if self.ebits == 4 else 31, 7), self.enc(1, (1 << self.ebits) - 1, 7)]
        top = (1 << self.ebits) - 1
        q = 1 << (self.mbits - 1)
        out = [self.enc(0, top, q), self.enc(1, top, q), self.enc(0, top, 1)]  # qNaN, -qNaN, sNaN
        if self.mbits >= 3:
            out += [self.enc(0, top, q | 0b101), self.enc(1, top, (1 << self.mbits) - 1)]
        return out

    def dec(self, x):
        s = -1.0 if x >> (self.width - 1) else 1.0
        e = (x >> (self.mbits + self.shift)) & ((1 << self.ebits) - 1)
        m = (x >> self.shift) & ((1 << self.mbits) - 1)
        if self.isnan(x):
            return float("nan")
        if self.isinf(x):
            return s * float("inf")
        if e == 0:
            return s * m * 2.0 ** (self.emin - self.mbits)
        return s * (1 + m / (1 << self.mbits)) * 2.0 ** (e - self.bias)

    def from_float(self, v):
        """Round a Python float to this format (RNE; overflow -> max finite); for crafting C."""
        if v != v:
            return self.nans()[0]
        s = 1 if (v < 0 or (v == 0 and str(v).startswith("-"))) else 0
        a = abs(v)
        if a == float("inf"):
            return self.inf(s)
        if a == 0:
            return self.enc(s, 0, 0)
        m, e = frexp_int(a)  # a = m * 2^e, m odd integer
        # value = m * 2^e; target quantum at exponent q
        top = m.bit_length() + e - 1  # floor(log2 a)
        q = max(top, self.emin) - self.mbits
        if e >= q:
            n = m << (e - q)
        else:
            sh = q - e
            n = m >> sh
            rem = m - (n << sh)
            half = 1 << (sh - 1)
            if rem > half or (rem == half and n & 1):
                n += 1
        # n * 2^q, n < 2^(mbits+1) (or == after rounding up)
        if n >= (1 << (self.mbits + 1)):
            n >>= 1
            q += 1
        if n < (1 << self.mbits):  # subnormal
            return self.enc(s, 0, n)
        e2 = q + self.mbits
        if e2 > self.emax:
            return self.maxf(s)
        x = self.normal(s, e2, n - (1 << self.mbits))
        if not self.ieee and self.isnan(x):
            return self.maxf(s)
        return x


def frexp_int(a):
    n, d = a.as_integer_ratio()  # d is a power of two
    e = -(d.bit_length() - 1)
    while n % 2 == 0:
        n //= 2
        e += 1
    return n, e


FMT = {
    "f16": Fp("f16", 5, 10, 16),
    "bf16": Fp("bf16", 8, 7, 16),
    "tf32": Fp("tf32", 8, 10, 32, shift=13),
    "e4m3": Fp("e4m3", 4, 3, 8, ieee=False),
    "e5m2": Fp("e5m2", 5, 2, 8),
    "f32": Fp("f32", 8, 23, 32),
    "f64": Fp("f64", 11, 52, 64),
}
INT_BITS = {"s8": 8, "u8": 8, "s32": 32}
WIDTH = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "f32": 32, "f64": 64,
         "s8": 8, "u8": 8, "s32": 32}


# ----------------------------------------------------------------------------------------------
# Forms. name = the instruction after "mma.sync.aligned.".

class Form:
    def __init__(self, name):
        self.name = name
        parts = name.split(".")
        self.shape = parts[0]
        m, rest = self.shape[1:].split("n")
        n, k = rest.split("k")
        self.m, self.n, self.k = int(m), int(n), int(k)
        self.alayout, self.blayout = parts[1], parts[2]
        self.satfinite = "satfinite" in parts
        self.d, self.a, self.b, self.c = [p for p in parts[3:] if p != "satfinite"]
        self.volta = self.shape == "m8n8k4" and self.a == "f16"  # 4 quad-pair 8x8x4 products
        groups = 4 if self.volta else 1
        per = lambda rows, cols, t: rows * cols * groups * WIDTH[t] // (32 * 32)
        self.na = per(self.m, self.k, self.a)
        self.nb = per(self.k, self.n, self.b)
        self.nc = per(self.m, self.n, self.c)
        self.nd = per(self.m, self.n, self.d)
        self.integer = self.a in INT_BITS

    @property
    def ptx(self):
        return "mma.sync.aligned." + self.name

    def info(self):
        return {"name": self.name, "ptx": self.ptx, "m": self.m, "n": self.n, "k": self.k,
                "a": self.a, "b": self.b, "c": self.c, "d": self.d, "satfinite": self.satfinite,
                "alayout": self.alayout, "blayout": self.blayout,
                "words": {"a": self.na, "b": self.nb, "c": self.nc, "d": self.nd}}


def _forms():
    out = []
    for k in (16, 8):
        out += [f"m16n8k{k}.row.col.f32.f16.f16.f32", f"m16n8k{k}.row.col.f16.f16.f16.f16",
                f"m16n8k{k}.row.col.f32.bf16.bf16.f32"]
    out += ["m16n8k4.row.col.f32.tf32.tf32.f32", "m16n8k8.row.col.f32.tf32.tf32.f32"]
    for k in (32, 16):
        for acc in ("f32", "f16"):
            for a, b in (("e4m3", "e4m3"), ("e5m2", "e5m2"), ("e4m3", "e5m2"), ("e5m2", "e4m3")):
                out.append(f"m16n8k{k}.row.col.{acc}.{a}.{b}.{acc}")
    for k in (16, 32):
        for a, b in (("s8", "s8"), ("u8", "u8"), ("s8", "u8"), ("u8", "s8")):
            for sat in ("", ".satfinite"):
                out.append(f"m16n8k{k}.row.col{sat}.s32.{a}.{b}.s32")
    out += ["m8n8k16.row.col.s32.s8.s8.s32", "m8n8k16.row.col.satfinite.s32.s8.s8.s32"]
    out += [f"{s}.row.col.f64.f64.f64.f64" for s in ("m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16")]
    out += ["m8n8k4.row.col.f32.f16.f16.f32", "m8n8k4.row.col.f16.f16.f16.f16"]
    return [Form(n) for n in out]


FORMS = _forms()


# ----------------------------------------------------------------------------------------------
# Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8kK" / m8n8k4 / m8n8k16), used only
# to place matrix elements. g = lane >> 2, t = lane & 3, p = elements per 32-bit word (1 for
# tf32/f64, where an f64 element is one 64-bit register = 2 words). Element j of word r:
#   A (row): row g + 8*(r % 2), col t*p + j + (r // 2) * 4p          (m8 shapes: r = 0 only)
#   B (col): k t*p + j + r * 4p, col g
#   C/D    : element i of the lane (i = 0..3 for m16n8, 0..1 for m8n8): row g + 8*(i // 2),
#            col 2t + i % 2
# Volta m8n8k4 f16 has its own quad-pair layout; its classes do not need a layout.

def layout(form):
    """[(lane, element index in lane order, row, col)] for A, B and C of a non-Volta form."""
    def per_elem(t):
        return 2 if t == "f64" else 1  # words per element when an element spans 2 words

    def epw(t):
        return max(1, 32 // WIDTH[t])

    A, B, C = [], [], []
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        p = epw(form.a)
        na_el = form.m * form.k // 32
        for idx in range(na_el):
            r, j = divmod(idx, p)
            A.append((lane, idx, g + 8 * (r % 2), t * p + j + (r // 2) * 4 * p))
        p = epw(form.b)
        nb_el = form.k * form.n // 32
        for idx in range(nb_el):
            r, j = divmod(idx, p)
            B.append((lane, idx, t * p + j + r * 4 * p, g))
        nc_el = form.m * form.n // 32
        for i in range(nc_el):
            C.append((lane, i, g + 8 * (i // 2), 2 * t + i % 2))
    return A, B, C


def check_layout(form):
    A, B, C = layout(form)
    assert sorted((r, c) for _, _, r, c in A) == [(r, c) for r in range(form.m) for c in range(form.k)], form.name
    assert sorted((r, c) for _, _, r, c in B) == [(r, c) for r in range(form.k) for c in range(form.n)], form.name
    assert sorted((r, c) for _, _, r, c in C) == [(r, c) for r in range(form.m) for c in range(form.n)], form.name


def pack_elems(elems, t, nwords):
    """Lane's element bit patterns (lane order) -> 32-bit words (low element in low bits)."""
    w = WIDTH[t]
    if w == 64:
        out = []
        for x in elems:
            out += [x & 0xFFFFFFFF, x >> 32]
        return out
    p = 32 // w
    out = []
    mask = (1 << w) - 1
    for r in range(nwords):
        v = 0
        for j in range(p):
            v |= (elems[r * p + j] & mask) << (j * w)
        out.append(v)
    return out


def to_registers(form, Am, Bm, Cm, lay):
    """Matrices (lists of lists of bit patterns) -> per-lane word lists for A, B, C."""
    A, B, C = lay
    ea = [[0] * (len(A) // 32) for _ in range(32)]
    eb = [[0] * (len(B) // 32) for _ in range(32)]
    ec = [[0] * (len(C) // 32) for _ in range(32)]
    for lane, i, r, c in A:
        ea[lane][i] = Am[r][c]
    for lane, i, r, c in B:
        eb[lane][i] = Bm[r][c]
    for lane, i, r, c in C:
        ec[lane][i] = Cm[r][c]
    wa, wb, wc = [], [], []
    for lane in range(32):
        wa += pack_elems(ea[lane], form.a, form.na)
        wb += pack_elems(eb[lane], form.b, form.nb)
        wc += pack_elems(ec[lane], form.c, form.nc)
    return wa, wb, wc


# ----------------------------------------------------------------------------------------------
# Test classes. Each returns matrices (A: m x k, B: k x n, C: m x n of bit patterns); tiles of a
# class are consecutive; `v` is the tile's index within its class (variants cycle on it).

def zeros(r, c):
    return [[0] * c for _ in range(r)]


def ranges(fa, fb, fc=None):
    """Exponent window in which random values live for 'rand' (keeps sums finite)."""
    if fc is not None and fc.name == "f16":
        return -4, 3
    lo = max(fa.emin, fb.emin, -6) if min(fa.mbits, fb.mbits) > 3 else max(fa.emin, fb.emin, -4)
    return lo, -lo


def c_rand(rng, F, fc, elo, ehi):
    return [[fc.rand_normal(rng, elo, ehi) for _ in range(F.n)] for _ in range(F.m)]


def cls_rand(F, rng, v, c_zero=False):
    fa, fb, fc = FMT[F.a], FMT[F.b], FMT[F.c]
    lo, hi = ranges(fa, fb, fc)
    A = [[fa.rand_normal(rng, lo, hi) for _ in range(F.k)] for _ in range(F.m)]
    B = [[fb.rand_normal(rng, lo, hi) for _ in range(F.n)] for _ in range(F.k)]
    C = zeros(F.m, F.n) if c_zero else c_rand(rng, F, fc, 2 * lo, 2 * hi)
    return A, B, C


def cls_bits(F, rng, v):
    """Uniform random bit patterns of finite values (tf32: all 32 bits, low 13 included)."""
    fa, fb, fc = FMT[F.a], FMT[F.b], FMT[F.c]
    if F.a == "tf32" and v % 2:  # half the tiles: the same but with the low 13 bits zero
        ra = lambda: fa.rand_finite_bits(rng) & ~0x1FFF
        rb = lambda: fb.rand_finite_bits(rng) & ~0x1FFF
    else:
        ra, rb = (lambda: fa.rand_finite_bits(rng)), (lambda: fb.rand_finite_bits(rng))
    A = [[ra() for _ in range(F.k)] for _ in range(F.m)]
    B = [[rb() for _ in range(F.n)] for _ in range(F.k)]
    C = [[fc.rand_finite_bits(rng) for _ in range(F.n)] for _ in range(F.m)]
    return A, B, C


def cls_tf32low(F, rng, v):
    """tf32 values with random low 13 bits: are they ignored, truncated or rounded?"""
    A, B, C = cls_rand(F, rng, v, c_zero=(v % 2 == 0))
    A = [[x | rng.bits(13) for x in row] for row in A]
    B = [[x | rng.bits(13) for x in row] for row in B]
    return A, B, C


def cls_single(F, rng, v):
    """One (v%2==0) or two nonzero products per row, at varying k, plus random C: the rounding of
    c + a*b (+ a'*b') on its own."""
    fa, fb, fc = FMT[F.a], FMT[F.b], FMT[F.c]
    lo, hi = ranges(fa, fb, fc)
    A = zeros(F.m, F.k)
    B = [[fb.rand_normal(rng, lo, hi) for _ in range(F.n)] for _ in range(F.k)]
    for i in range(F.m):
        for _ in range(1 + v % 2):
            A[i][rng.below(F.k)] = fa.rand_normal(rng, lo, hi)
    C = c_rand(rng, F, fc, 2 * lo - 12, 2 * hi + 4)
    return A, B, C


def prod_exp_range(fa, fb):
    return fa.emin - fa.mbits + fb.emin - fb.mbits, fa.emax + fb.emax


def split_pow2(fa, fb, e, sa, sb):
    """a, b with a*b = +-2^e exactly (a, b powers of two, normal preferred); None if impossible."""
    for ea in sorted(range(fa.emin - fa.mbits, fa.emax + 1), key=lambda x: abs(x - e / 2)):
        a, b = fa.pow2(ea, sa), fb.pow2(e - ea, sb)
        if a is not None and b is not None:
            return a, b
    return None


def cls_cancel(F, rng, v):
    """Massive cancellation. Variants:
    0: A[:,k+K/2] = A[:,k], B[k+K/2,:] = -B[k,:] (exact pairwise cancel of large products), C tiny;
    1: as 0, one pair's B perturbed by one ulp (the residue is one ulp of a product), C = 0;
    2: C = -(A[i,0]*B[0,j]) exactly (narrow formats), other products 2^-8..2^-20 smaller;
    3: as 0 with pairs at very different magnitudes and C = +-0: the sign of an exact zero."""
    fa, fb, fc = FMT[F.a], FMT[F.b], FMT[F.c]
    K, h = F.k, F.k // 2
    var = v % 4
    hi_a, hi_b = min(fa.emax, 12), min(fb.emax, 12)
    if hi_a + hi_b > fc.emax - 3:  # f16 accumulator: keep the products finite
        hi_a = (fc.emax - 3) // 2
        hi_b = fc.emax - 3 - hi_a
    # variant 3: products anywhere in the accumulator's range (not overflowing)
    wa = (max(fa.emin, fc.emin // 2), min(fa.emax, (fc.emax - 3) // 2))
    wb = (max(fb.emin, fc.emin // 2), min(fb.emax, (fc.emax - 3) // 2))
    A, B = zeros(F.m, K), zeros(K, F.n)
    for i in range(F.m):
        for k in range(h):
            if var == 3:
                A[i][k] = fa.rand_normal(rng, *wa)
            else:
                A[i][k] = fa.rand_normal(rng, hi_a - 4, hi_a)
            A[i][k + h] = A[i][k]
    for k in range(h):
        for j in range(F.n):
            if var == 3:
                B[k][j] = fb.rand_normal(rng, *wb)
            else:
                B[k][j] = fb.rand_normal(rng, hi_b - 4, hi_b)
            B[k + h][j] = B[k][j] ^ fb.sign
    if var == 1:
        k = rng.below(h)
        for j in range(F.n):
            x = B[k + h][j]
            if (x >> fb.shift) & ((1 << fb.mbits) - 1) not in (0, (1 << fb.mbits) - 1):
                B[k + h][j] = x + ((1 if rng.bits(1) else -1) << fb.shift)
    if var == 2:
        for i in range(F.m):
            for k in range(K):
                A[i][k] = fa.rand_normal(rng, hi_a - 4, hi_a) if k == 0 else \
                    fa.rand_normal(rng, hi_a - 14, hi_a - 4)
        for k in range(K):
            for j in range(F.n):
                B[k][j] = fb.rand_normal(rng, hi_b - 4, hi_b) if k == 0 else \
                    fb.rand_normal(rng, hi_b - 14, hi_b - 4)
        C = [[fc.from_float(-(fa.dec(A[i][0]) * fb.dec(B[0][j]))) for j in range(F.n)]
             for i in range(F.m)]
    elif var == 0:
        C = [[fc.rand_normal(rng, fc.emin + 4, 2) if rng.bits(1) else 0 for _ in range(F.n)]
             for _ in range(F.m)]
    elif var == 1:
        C = zeros(F.m, F.n)
    else:
        C = [[fc.sign if rng.bits(1) else 0 for _ in range(F.n)] for _ in range(F.m)]
    return A, B, C


def cls_spread(F, rng, v):
    """Exponent spread within a row of A / a column of B: one big product at k0 plus small ones
    whose exponent is d = da_i + db_j lower (da, db vary over the whole range by row/column), so
    one tile covers 128 spreads. Variants: 0 small terms same sign as the big one, 1 opposite
    sign, 2 random signs and mantissas, 3 big term in C instead (all products small), C = 0
    otherwise; 4..7 as 0..3 with powers of two (mantissa 1.0) everywhere."""
    fa, fb, fc = FMT[F.a], FMT[F.b], FMT[F.c]
    var = v % 8
    pow2 = var >= 4
    var %= 4
    K = F.k
    k0 = rng.below(K)
    # big: a = 2^ea0, b = 2^eb0 (times mantissas), small: a = 2^(ea0 - da_i), b = 2^(eb0 - db_j)
    ea0 = rng.range(max(fa.emin, fa.emax - 6), fa.emax)
    eb0 = rng.range(max(fb.emin, fb.emax - 6), fb.emax)
    if ea0 + eb0 > fc.emax - 4:  # keep the big product (and sums) finite in the accumulator
        ea0 = min(fa.emax, (fc.emax - 4) // 2)
        eb0 = min(fb.emax, fc.emax - 4 - ea0)
    span_a = ea0 - (fa.emin - fa.mbits)
    span_b = eb0 - (fb.emin - fb.mbits)
    # spreads per row/col: rows cover 0..span_a in 16 steps (randomised), cols 0..span_b
    da = sorted(rng.range(0, span_a) for _ in range(F.m))
    db = sorted(rng.range(0, span_b) for _ in range(F.n))
    sgn_big = rng.bits(1)

    def val(f, e, s):
        if pow2 or e < f.emin:
            x = f.pow2(e, s)
            return 0 if x is None else x
        return f.normal(s, e, rng.bits(f.mbits) if f.ieee or e < f.emax else rng.bits(f.mbits - 1))

    A, B = zeros(F.m, K), zeros(K, F.n)
    for i in range(F.m):
        for k in range(K):
            if k == k0 and var != 3:
                A[i][k] = val(fa, ea0, sgn_big)
            else:
                s = (sgn_big ^ (var == 1)) if var != 2 else rng.bits(1)
                A[i][k] = val(fa, ea0 - da[i] + rng.range(-1, 0) * (var == 2), s)
    for k in range(K):
        for j in range(F.n):
            if k == k0 and var != 3:
                B[k][j] = val(fb, eb0, 0)
            else:
                B[k][j] = val(fb, eb0 - db[j], 0)
    if var == 3:
        ec = min(ea0 + eb0, fc.emax)
        C = [[fc.normal(sgn_big, ec, 0 if pow2 else rng.bits(fc.mbits)) for _ in range(F.n)]
             for _ in range(F.m)]
    else:
        C = zeros(F.m, F.n)
    return A, B, C


def cls_ties(F, rng, v):
    """Sums on (and next to) a rounding tie of D. Row i, col j: D = C + T + S, where
    C = +-1.m * 2^ec (random mantissa, so both parities of the last bit), T = a tie term of
    exactly half an ulp of C (at k1; variants 1 and 3 split it into two quarter-ulp products at
    k1 and k2), S = a sticky term +-2^(t - s_ij) at k3 with s_ij = sa_i + sb_j >= 1 (so the sum
    sits just above/below the tie, by 2^-s_ij ulp; S = 0 (exact tie) in tiles with (v // 4) odd
    and where not representable).
    Variants 2 and 3: C = 0 and the 'C' part is a product at k0 (mantissa from A and B)."""
    fa, fb, fc, fd = FMT[F.a], FMT[F.b], FMT[F.c], FMT[F.d]
    var = v % 4
    P = fd.mbits + 1
    pmin, pmax = prod_exp_range(fa, fb)
    K = F.k
    ks = list(range(K))
    for i in range(K - 1, 0, -1):
        j = rng.below(i + 1)
        ks[i], ks[j] = ks[j], ks[i]
    k0, k1, k2, k3 = ks[0], ks[1 % K], ks[2 % K], ks[3 % K]
    # choose t (exponent of the tie term) so that C / the big product and T are representable
    lo_t = max(pmin + 2, fc.emin - P + 1)
    hi_t = min(pmax - P, fc.emax - P, pmax - 2)
    if var >= 2:
        hi_t = min(hi_t, fa.emax + fb.emax - P)
        lo_t = max(lo_t, fa.emin + fb.emin - P + 2)
    if lo_t > hi_t:
        lo_t = hi_t = max(min(hi_t, pmax - 2), pmin + 2)
    t = rng.range(lo_t, hi_t)
    A, B, C = zeros(F.m, K), zeros(K, F.n), zeros(F.m, F.n)
    row_sign = [rng.bits(1) for _ in range(F.m)]
    # tie term(s)
    tie = split_pow2(fa, fb, t if var in (0, 2) else t - 1, 0, 0)
    sa = [rng.range(0, 12) for _ in range(F.m)]
    sb = [rng.range(1, 12) + 12 * (j % 2) for j in range(F.n)]
    st_sign = [rng.bits(1) for _ in range(F.n)]
    # sticky: a_i = 2^(xa - sa_i) at k3, b_j = 2^(xb - sb_j): product 2^(t - sa_i - sb_j)
    xa = min(fa.emax, max(fa.emin, t // 2))
    xb = t - xa
    for i in range(F.m):
        s = row_sign[i]
        if tie:
            A[i][k1] = tie[0] ^ (fa.sign if s else 0)
            if var in (1, 3) and K > 2:
                A[i][k2] = tie[0] ^ (fa.sign if s else 0)
        x = fa.pow2(xa - sa[i], s)
        A[i][k3] = 0 if x is None or (v // 4) % 2 else x  # odd groups of 4 tiles: exact ties
    if tie:
        for j in range(F.n):
            B[k1][j] = tie[1]
            if var in (1, 3) and K > 2:
                B[k2][j] = tie[1]
    for j in range(F.n):
        x = fb.pow2(xb - sb[j], st_sign[j])
        B[k3][j] = 0 if x is None else x
    if K <= 3:  # too few k for all the terms: keep C, T and S
        pass
    if var < 2:
        for i in range(F.m):
            for j in range(F.n):
                ec = t + P  # half an ulp of C (P-bit precision at exponent ec) = 2^t
                C[i][j] = fc.normal(row_sign[i], min(max(ec, fc.emin), fc.emax), rng.bits(fc.mbits)) \
                    if fc.emin <= ec <= fc.emax else 0
    else:
        # big product at k0: a = 1.ma * 2^xa0, b = 1.mb * 2^xb0, xa0 + xb0 = t + P (or - 1)
        e = t + P - rng.below(2)  # the product is in [2^e, 2^(e+2)): half the elements tie
        xa0 = min(fa.emax, max(fa.emin, e // 2))
        xb0 = min(fb.emax, max(fb.emin, e - xa0))
        for i in range(F.m):
            A[i][k0] = fa.normal(row_sign[i], xa0, rng.bits(fa.mbits) if fa.ieee or xa0 < fa.emax else 0)
        exact = fa.mbits + fb.mbits + 2 <= P  # else B is a power of two (the product fits D)
        for j in range(F.n):
            B[k0][j] = fb.normal(0, xb0, rng.bits(fb.mbits) if exact and (fb.ieee or xb0 < fb.emax) else 0)
    return A, B, C


def cls_subnormal(F, rng, v):
    """Subnormals. 0: A, B half subnormal / half small normal, C = 0; 1: small normal A, B whose
    products land near and below the accumulator's (D's) subnormal threshold, C subnormal;
    2: C subnormal (random), one tiny product per row (is C or the sum flushed?);
    3: A, B random subnormal/normal mix with C random normal."""
    fa, fb, fc = FMT[F.a], FMT[F.b], FMT[F.c]
    var = v % 4
    K = F.k

    def small(f):
        return f.rand_sub(rng) if rng.bits(1) else f.rand_normal(rng, f.emin, f.emin + 3)

    if var in (0, 3):
        A = [[small(fa) for _ in range(K)] for _ in range(F.m)]
        B = [[small(fb) if rng.bits(1) else fb.rand_normal(rng, -2, 2) for _ in range(F.n)] for _ in range(K)]
        C = zeros(F.m, F.n) if var == 0 else c_rand(rng, F, fc, -4, 4)
        return A, B, C
    # target product exponent around the accumulator's emin
    target = fc.emin + rng.range(-fc.mbits, 2)
    pmin, pmax = prod_exp_range(fa, fb)
    target = max(pmin, min(pmax, target))
    ea = max(fa.emin - fa.mbits, min(fa.emax, target // 2))
    eb = target - ea
    A, B = zeros(F.m, K), zeros(K, F.n)

    def near(f, e):
        e = max(f.emin - f.mbits, min(f.emax, e + rng.range(-2, 2)))
        if e >= f.emin:
            return f.normal(rng.bits(1), e, rng.bits(f.mbits) if f.ieee or e < f.emax else 0)
        return f.enc(rng.bits(1), 0, rng.range(1 << (e - (f.emin - f.mbits)), (1 << f.mbits) - 1)
                     if e - (f.emin - f.mbits) < f.mbits else 1)

    for i in range(F.m):
        ks = range(K) if var == 1 else [rng.below(K)]
        for k in ks:
            A[i][k] = near(fa, ea)
    for k in range(K):
        for j in range(F.n):
            B[k][j] = near(fb, eb)
    C = [[fc.rand_sub(rng) if rng.chance(3, 4) else 0 for _ in range(F.n)] for _ in range(F.m)]
    return A, B, C


def cls_special(F, rng, v):
    """NaN / Inf / -0 / overflow. 0: mostly ordinary values, ~6% of A, B and C elements
    special (NaNs with payloads, +-Inf, +-0, max finite); 1: only +-0 and small normals, C +-0
    (the sign of zero results); 2: overflow: max-magnitude A, B, C near max (same and mixed
    signs); 3: NaN payloads: A and B with distinct NaNs in a few places, C NaN in a few."""
    fa, fb, fc = FMT[F.a], FMT[F.b], FMT[F.c]
    var = v % 4
    lo, hi = ranges(fa, fb, fc)

    def spec(f):
        c = rng.below(8)
        if c < 3:
            n = f.nans()
            return n[rng.below(len(n))]
        if c < 5:
            return f.inf(rng.bits(1))
        if c < 7:
            return f.sign if rng.bits(1) else 0
        return f.maxf(rng.bits(1))

    def elem(f, e_lo, e_hi, p):
        if var == 0:
            return spec(f) if rng.chance(p, 100) else f.rand_normal(rng, e_lo, e_hi)
        if var == 1:
            return (f.sign if rng.bits(1) else 0) if rng.chance(3, 4) else f.rand_normal(rng, e_lo, e_hi)
        if var == 2:
            return f.maxf(rng.bits(1) if rng.chance(1, 4) else 0) if rng.bits(1) else \
                f.rand_normal(rng, f.emax - 3, f.emax, 0)
        if rng.chance(p, 100):
            n = f.nans()
            return n[rng.below(len(n))] ^ (rng.bits(1) << (f.width - 1))
        return f.rand_normal(rng, e_lo, e_hi)

    A = [[elem(fa, lo, hi, 4) for _ in range(F.k)] for _ in range(F.m)]
    B = [[elem(fb, lo, hi, 4) for _ in range(F.n)] for _ in range(F.k)]
    if var == 1:
        C = [[fc.sign if rng.bits(1) else 0 for _ in range(F.n)] for _ in range(F.m)]
    elif var == 2:
        C = [[fc.maxf(rng.bits(1)) if rng.chance(1, 2) else fc.rand_normal(rng, fc.emax - 8, fc.emax)
              for _ in range(F.n)] for _ in range(F.m)]
    else:
        C = [[elem(fc, 2 * lo, 2 * hi, 6) for _ in range(F.n)] for _ in range(F.m)]
    return A, B, C


# integers ---------------------------------------------------------------------------------------

def irand(rng, t):
    return rng.bits(8) if t in ("s8", "u8") else rng.bits(32)


def cls_int_rand(F, rng, v, c_zero=False):
    A = [[irand(rng, F.a) for _ in range(F.k)] for _ in range(F.m)]
    B = [[irand(rng, F.b) for _ in range(F.n)] for _ in range(F.k)]
    C = zeros(F.m, F.n) if c_zero else [[rng.bits(32) for _ in range(F.n)] for _ in range(F.m)]
    return A, B, C


def cls_int_extreme(F, rng, v):
    """Extreme operands (-128, 127, 255, 0, 1, -1) and C near INT32_MAX / INT32_MIN, so that the
    sum overflows (wraps, or saturates with .satfinite) by varying amounts."""
    pa = {"s8": [0x80, 0x7F, 0xFF, 0x01, 0x00], "u8": [0xFF, 0xFE, 0x80, 0x7F, 0x01, 0x00]}
    var = v % 4

    def pick(t):
        if var == 0:
            return pa[t][0]
        if var == 1:
            return pa[t][rng.below(2)]
        return pa[t][rng.below(len(pa[t]))]
    A = [[pick(F.a) for _ in range(F.k)] for _ in range(F.m)]
    B = [[pick(F.b) for _ in range(F.n)] for _ in range(F.k)]
    C = []
    for i in range(F.m):
        row = []
        for j in range(F.n):
            base = 0x7FFFFFFF if (i + j + v) % 2 else 0x80000000
            off = rng.range(0, 1 << (4 + 2 * (j % 8)))
            row.append((base - off) & 0xFFFFFFFF if base == 0x7FFFFFFF else (base + off) & 0xFFFFFFFF)
        C.append(row)
    return A, B, C


# Volta m8n8k4 (layout-free: words drawn directly) ----------------------------------------------

def raw_words(F, rng, v, kind):
    fa, fc = FMT[F.a], FMT[F.c]
    def half_word(gen):
        return gen() | (gen() << 16)
    if kind == "rand":
        ga = lambda: fa.rand_normal(rng, -6, 6)
        gc = (lambda: fc.rand_normal(rng, -12, 12))
    elif kind == "rand_c0":
        ga = lambda: fa.rand_normal(rng, -6, 6)
        gc = lambda: 0
    elif kind == "bits":
        ga = lambda: fa.rand_finite_bits(rng)
        gc = lambda: fc.rand_finite_bits(rng)
    else:  # special
        def ga():
            if rng.chance(5, 100):
                n = fa.nans() + [fa.inf(0), fa.inf(1), fa.sign, 0, fa.maxf(0)]
                return n[rng.below(len(n))]
            return fa.rand_normal(rng, -6, 6)
        gc = lambda: fc.rand_normal(rng, -12, 12) if not rng.chance(5, 100) else fc.nans()[0]
    wa = [half_word(ga) for _ in range(32 * F.na)]
    wb = [half_word(ga) for _ in range(32 * F.nb)]
    if F.c == "f16":
        wc = [half_word(gc) for _ in range(32 * F.nc)]
    else:
        wc = [gc() for _ in range(32 * F.nc)]
    return wa, wb, wc


def tile_unit(F):
    """Tiles per class unit (a float form has 21 units, tf32 23): the forms this data is for
    (f16/bf16/tf32, fp8 at k32 with f32 accumulation) get the most; f64 (expected to be exact
    IEEE fma chains), f16-accumulating fp8 and k16 fp8 fewer, to keep the file small."""
    if F.a == "f64":
        return 4
    if F.a in ("e4m3", "e5m2"):
        return 12 if (F.k == 32 and F.c == "f32") else 4
    return 12 if F.k >= 16 else 16


def classes(F):
    """[(class name, tile count, generator)] for a form."""
    if F.volta:
        return [(k, n, (lambda k: lambda F, rng, v: raw_words(F, rng, v, k))(k))
                for k, n in (("rand", 16), ("rand_c0", 8), ("bits", 8), ("special", 16))]
    if F.integer:
        return [("rand", 16, cls_int_rand),
                ("rand_c0", 8, lambda F, rng, v: cls_int_rand(F, rng, v, True)),
                ("extreme", 16, cls_int_extreme)]
    u = tile_unit(F)
    out = [("rand", 2 * u, cls_rand),
           ("rand_c0", u, lambda F, rng, v: cls_rand(F, rng, v, True)),
           ("bits", 2 * u, cls_bits),
           ("single", u, cls_single),
           ("cancel", 2 * u, cls_cancel),
           ("spread", 4 * u, cls_spread),
           ("ties", 4 * u, cls_ties),
           ("subnormal", 2 * u, cls_subnormal),
           ("special", 3 * u, cls_special)]
    if F.a == "tf32":
        out.append(("tf32low", 2 * u, cls_tf32low))
    return out


def seed_of(form, cls):
    return zlib.crc32(f"{form}/{cls}".encode())


def generate(F):
    """(class table, A words, B words, C words) of a form; words are flat [tile][lane][reg]."""
    lay = None if F.volta else layout(F)
    wa, wb, wc, table = [], [], [], []
    tile = 0
    for name, count, fn in classes(F):
        seed = seed_of(F.name, name)
        rng = Rng(seed)
        for v in range(count):
            if F.volta:
                a, b, c = fn(F, rng, v)
            else:
                A, B, C = fn(F, rng, v)
                a, b, c = to_registers(F, A, B, C, lay)
            assert len(a) == 32 * F.na and len(b) == 32 * F.nb and len(c) == 32 * F.nc, F.name
            wa += a
            wb += b
            wc += c
        table.append({"name": name, "first": tile, "count": count, "seed": seed})
        tile += count
    return table, wa, wb, wc


# ----------------------------------------------------------------------------------------------
# Driver input file (IN.bin), read by mma.cu:
#   "MMAIN001" | u32 nforms | nforms x { char name[96] (NUL padded), u32 ntiles, na, nb, nc, nd,
#   u32 reserved, u64 off_a, off_b, off_c } | data (u32 LE words)

IN_MAGIC = b"MMAIN001"
IN_REC = struct.Struct("<96s6I3Q")


def words_bytes(ws):
    return struct.pack(f"<{len(ws)}I", *ws)


def write_inputs(path, skip=()):
    recs, blobs, meta = [], [], []
    for F in FORMS:
        if F.name in skip:
            continue
        table, wa, wb, wc = generate(F)
        ntiles = sum(c["count"] for c in table)
        blobs.append((words_bytes(wa), words_bytes(wb), words_bytes(wc)))
        recs.append((F, ntiles))
        meta.append({"name": F.name, "classes": table})
        print(f"  inputs {F.name}: {ntiles} tiles", file=sys.stderr)
    head = len(IN_MAGIC) + 4 + IN_REC.size * len(recs)
    off = head
    out = bytearray(IN_MAGIC + struct.pack("<I", len(recs)))
    offs = []
    for (F, ntiles), (a, b, c) in zip(recs, blobs):
        offs.append((off, off + len(a), off + len(a) + len(b)))
        out += IN_REC.pack(F.name.encode(), ntiles, F.na, F.nb, F.nc, F.nd, 0, *offs[-1])
        off += len(a) + len(b) + len(c)
    for a, b, c in blobs:
        out += a + b + c
    Path(path).write_bytes(bytes(out))
    return meta


def read_inputs(path):
    data = Path(path).read_bytes()
    assert data[:8] == IN_MAGIC, "not an mma input file"
    (n,) = struct.unpack_from("<I", data, 8)
    forms = []
    for i in range(n):
        name, ntiles, na, nb, nc, nd, _, oa, ob, oc = IN_REC.unpack_from(data, 12 + i * IN_REC.size)
        name = name.rstrip(b"\0").decode()
        forms.append({"index": i, "name": name, "tiles": ntiles, "na": na, "nb": nb, "nc": nc,
                      "nd": nd, "a": data[oa:oa + ntiles * 128 * na], "b": data[ob:ob + ntiles * 128 * nb],
                      "c": data[oc:oc + ntiles * 128 * nc]})
    return forms


# ----------------------------------------------------------------------------------------------
# CUDA driver source

def cuda():
    L = ["// Generated by scripts/hardware/mma/gen.py (python3 gen.py cuda > mma.cu); do not edit.",
         "// Runs every mma.sync form of IN.bin (gen.py inputs) on the GPU, twice, one warp per",
         "// tile: lane L loads its A, B, C register words from [tile][L][reg] and stores D the same",
         "// way. Usage: mma IN.bin OUTDIR [FORM_INDEX...]; writes OUTDIR/d<index>.run1 and .run2",
         "// (raw u32 LE D words) per form. Forms rejected by ptxas are compiled out with",
         "// -DMMA_SKIP_<n> (n = position in gen.py FORMS) and reported as skipped.",
         "#include <cstdio>", "#include <cstdlib>", "#include <cstring>", "#include <string>",
         "#include <vector>", "#include <cuda_runtime.h>", "",
         "typedef unsigned int u32;", "typedef unsigned long long u64;",
         "typedef void (*Kernel)(const u32*, const u32*, const u32*, u32*, int);", ""]
    for n, F in enumerate(FORMS):
        L.append(f"#ifndef MMA_SKIP_{n}")
        L.append(f"// {F.ptx}")
        L.append(f"__global__ void k{n}(const u32* __restrict__ a, const u32* __restrict__ b, "
                 "const u32* __restrict__ c, u32* __restrict__ d, int ntiles) {")
        L.append("    int tile = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;")
        L.append("    if (tile >= ntiles) return;  // whole warps only: the condition is warp-uniform")
        L.append("    size_t t = (size_t)tile * 32 + lane;")
        wide = F.a == "f64"
        outs, ins = [], []
        regs = {}
        for op, cnt in (("a", F.na), ("b", F.nb), ("c", F.nc)):
            L.append(f"    const u32* p{op} = {op} + t * {cnt};")
            if wide:
                names = []
                for r in range(cnt // 2):
                    L.append(f"    u64 {op}{r} = (u64)p{op}[{2 * r}] | ((u64)p{op}[{2 * r + 1}] << 32);")
                    names.append(f"{op}{r}")
            else:
                names = []
                for r in range(cnt):
                    L.append(f"    u32 {op}{r} = p{op}[{r}];")
                    names.append(f"{op}{r}")
            regs[op] = names
        nd_regs = F.nd // 2 if wide else F.nd
        ty = "u64" if wide else "u32"
        L.append(f"    {ty} " + ", ".join(f"d{r}" for r in range(nd_regs)) + ";")
        cons = "l" if wide else "r"
        idx = 0
        groups = []
        dnames = [f"d{r}" for r in range(nd_regs)]
        for names in (dnames, regs["a"], regs["b"], regs["c"]):
            groups.append("{" + ", ".join(f"%{idx + i}" for i in range(len(names))) + "}")
            idx += len(names)
        asm = f'{F.ptx} {groups[0]}, {groups[1]}, {groups[2]}, {groups[3]};'
        outs = ", ".join(f'"={cons}"({x})' for x in dnames)
        ins = ", ".join(f'"{cons}"({x})' for x in regs["a"] + regs["b"] + regs["c"])
        L.append(f'    asm volatile("{asm}"\n        : {outs}\n        : {ins});')
        L.append(f"    u32* pd = d + t * {F.nd};")
        for r in range(nd_regs):
            if wide:
                L.append(f"    pd[{2 * r}] = (u32)d{r}; pd[{2 * r + 1}] = (u32)(d{r} >> 32);")
            else:
                L.append(f"    pd[{r}] = d{r};")
        L.append("}")
        L.append("#endif")
    L.append("")
    L.append("struct Entry { const char* name; Kernel k; };")
    L.append("static const Entry table[] = {")
    for n, F in enumerate(FORMS):
        L.append(f"#ifndef MMA_SKIP_{n}")
        L.append(f'    {{"{F.name}", k{n}}},')
        L.append("#endif")
    L.append("    {nullptr, nullptr}};")
    L.append(r'''
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d (%s)\n", cudaGetErrorString(e_), __FILE__, __LINE__, #x); \
    return 2; } } while (0)

struct Rec { char name[96]; u32 ntiles, na, nb, nc, nd, reserved; u64 oa, ob, oc; };

static int run_form(const std::vector<unsigned char>& in, const Rec& r, int index, const char* outdir) {
    Kernel k = nullptr;
    for (const Entry* e = table; e->name; e++)
        if (strcmp(e->name, r.name) == 0) k = e->k;
    if (!k) { printf("form %d %s: SKIPPED (not compiled)\n", index, r.name); fflush(stdout); return 0; }
    size_t per = (size_t)r.ntiles * 32, sa = per * r.na * 4, sb = per * r.nb * 4, sc = per * r.nc * 4,
           sd = per * r.nd * 4;
    if (r.oa + sa > in.size() || r.ob + sb > in.size() || r.oc + sc > in.size()) {
        printf("form %d %s: FAILED (input file truncated)\n", index, r.name); return 1;
    }
    u32 *a, *b, *c, *d;
    CK(cudaMalloc(&a, sa ? sa : 4)); CK(cudaMalloc(&b, sb ? sb : 4));
    CK(cudaMalloc(&c, sc ? sc : 4)); CK(cudaMalloc(&d, sd));
    CK(cudaMemcpy(a, in.data() + r.oa, sa, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, in.data() + r.ob, sb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(c, in.data() + r.oc, sc, cudaMemcpyHostToDevice));
    std::vector<unsigned char> host(sd);
    for (int run = 1; run <= 2; run++) {
        CK(cudaMemset(d, 0xA5, sd));
        CK(cudaDeviceSynchronize());
        int threads = 128, blocks = (int)((r.ntiles * 32 + threads - 1) / threads);
        k<<<blocks, threads>>>(a, b, c, d, (int)r.ntiles);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(host.data(), d, sd, cudaMemcpyDeviceToHost));
        std::string path = std::string(outdir) + "/d" + std::to_string(index) + ".run" + std::to_string(run);
        FILE* f = fopen(path.c_str(), "wb");
        if (!f || fwrite(host.data(), 1, sd, f) != sd || fclose(f) != 0) {
            printf("form %d %s: FAILED (cannot write %s)\n", index, r.name, path.c_str()); return 1;
        }
    }
    cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(d);
    printf("form %d %s: ok (%u tiles)\n", index, r.name, r.ntiles);
    fflush(stdout);
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: mma IN.bin OUTDIR [FORM_INDEX...]\n"); return 2; }
    FILE* f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    std::vector<unsigned char> in;
    unsigned char buf[1 << 16];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) in.insert(in.end(), buf, buf + got);
    fclose(f);
    if (in.size() < 12 || memcmp(in.data(), "MMAIN001", 8) != 0) { fprintf(stderr, "bad input file\n"); return 2; }
    u32 n; memcpy(&n, in.data() + 8, 4);
    std::vector<int> which;
    for (int i = 3; i < argc; i++) which.push_back(atoi(argv[i]));
    if (which.empty()) for (u32 i = 0; i < n; i++) which.push_back((int)i);
    int dev = 0; cudaDeviceProp prop;
    CK(cudaGetDevice(&dev)); CK(cudaGetDeviceProperties(&prop, dev));
    printf("device %s, sm_%d%d\n", prop.name, prop.major, prop.minor); fflush(stdout);
    int bad = 0;
    for (int i : which) {
        if (i < 0 || (u32)i >= n) continue;
        Rec r; memcpy(&r, in.data() + 12 + (size_t)i * sizeof(Rec), sizeof(Rec));
        r.name[95] = 0;
        int rc = run_form(in, r, i, argv[2]);
        if (rc == 2) { printf("form %d %s: FAILED (CUDA error; context may be lost)\n", i, r.name); return 3; }
        bad |= rc;
    }
    return bad;
}
''')
    return "\n".join(L)


def ptx_files(outdir, version="9.0"):
    """One stand-alone module per form (same instruction text as mma.cu), for ptxas -arch sm_90."""
    os.makedirs(outdir, exist_ok=True)
    for n, F in enumerate(FORMS):
        w = "b64" if F.a == "f64" else "b32"
        nd = F.nd // 2 if w == "b64" else F.nd
        g = lambda p, c: "{" + ",".join(f"%{p}{i}" for i in range(c)) + "}"
        div = 2 if w == "b64" else 1
        src = (f".version {version}\n.target sm_90\n.address_size 64\n"
               f".visible .entry k(.param .u64 p)\n{{\n"
               f"  .reg .{w} %d<20>; .reg .{w} %a<20>; .reg .{w} %b<20>; .reg .{w} %c<20>;\n"
               f"  .reg .b64 %q;\n  ld.param.u64 %q, [p];\n"
               + "".join(f"  ld.global.{w} %a{i}, [%q];\n" for i in range(F.na // div))
               + "".join(f"  ld.global.{w} %b{i}, [%q];\n" for i in range(F.nb // div))
               + "".join(f"  ld.global.{w} %c{i}, [%q];\n" for i in range(F.nc // div))
               + f"  {F.ptx} {g('d', nd)}, {g('a', F.na // div)}, {g('b', F.nb // div)}, {g('c', F.nc // div)};\n"
               + "".join(f"  st.global.{w} [%q], %d{i};\n" for i in range(nd))
               + "  ret;\n}\n")
        Path(outdir, f"f{n}.ptx").write_text(src)
        print(f"{n}\t{F.name}")


# ----------------------------------------------------------------------------------------------
# Golden file. Uncompressed layout (all integers little-endian):
#   0  16 bytes  magic b"PTXSIM-MMA-GOLD1"
#   16 u32       index length J in bytes
#   20 J bytes   index: UTF-8 JSON (see README.md)
#   then zero padding to a multiple of 16, then the blobs at the absolute offsets of the index.

GOLD_MAGIC = b"PTXSIM-MMA-GOLD1"


def pack(in_path, ddir, out_path, log=None, device="", toolkit="", notes=None):
    ins = read_inputs(in_path)
    meta_cls = {F.name: generate_table(F) for F in FORMS}
    by_name = {f["name"]: f for f in ins}
    index = {"format": "ptxsim mma golden v1", "device": device, "toolkit": toolkit,
             "generator": "scripts/hardware/mma/gen.py", "poison": POISON,
             "layout": "each blob: u32 LE words [tile][lane 0..31][word 0..n)", "forms": []}
    blobs = []
    lines = []
    for n, F in enumerate(FORMS):
        e = F.info()
        e["form_index"] = n
        f = by_name.get(F.name)
        if f is None:
            e["status"] = "rejected by ptxas (not run)"
            index["forms"].append(e)
            lines.append(f"{F.name}: rejected by ptxas, not run")
            continue
        e["tiles"] = f["tiles"]
        e["classes"] = meta_cls[F.name]
        i = f["index"]
        r1 = Path(ddir, f"d{i}.run1")
        r2 = Path(ddir, f"d{i}.run2")
        size = f["tiles"] * 128 * F.nd
        d1 = r1.read_bytes() if r1.exists() else None
        d2 = r2.read_bytes() if r2.exists() else None
        if d1 is None or len(d1) != size:
            e["status"] = "no output (failed or not compiled)"
            index["forms"].append(e)
            lines.append(f"{F.name}: NO OUTPUT")
            continue
        parts = {"a": f["a"], "b": f["b"], "c": f["c"], "d": d1}
        agree = d2 is not None and d1 == d2
        e["runs_agree"] = agree
        if d2 is not None and not agree and len(d2) == size:
            parts["d2"] = d2
        words = struct.unpack(f"<{len(d1) // 4}I", d1)
        e["poison_words"] = sum(1 for w in words if w == POISON)
        e["status"] = "ok"
        e["_parts"] = parts
        index["forms"].append(e)
        diff = "" if agree else (" RUN 2 MISSING" if d2 is None else
                                 f" RUNS DIFFER in {sum(x != y for x, y in zip(d1, d2))} bytes")
        lines.append(f"{F.name}: ok, {f['tiles']} tiles, D {len(d1)} bytes, poison words "
                     f"{e['poison_words']}, runs {'agree' if agree else 'DISAGREE'}{diff}")
    # lay out blobs: compute index size iteratively (offsets change the JSON length)
    def build(base):
        off = base
        for e in index["forms"]:
            parts = e.get("_parts")
            if not parts:
                continue
            e["offsets"] = {}
            for key in ("a", "b", "c", "d", "d2"):
                if key in parts:
                    e["offsets"][key] = off
                    off += len(parts[key])
        clean = {**index, "forms": [{k: v for k, v in e.items() if k != "_parts"} for e in index["forms"]]}
        if notes:
            clean["notes"] = notes
        return json.dumps(clean, indent=1).encode()

    base = 0
    for _ in range(10):
        j = build(base)
        nb = (20 + len(j) + 15) // 16 * 16
        if nb == base:
            break
        base = nb
    j = build(base)
    assert (20 + len(j) + 15) // 16 * 16 == base
    out = bytearray(GOLD_MAGIC + struct.pack("<I", len(j)) + j)
    out += b"\0" * (base - len(out))
    for e in index["forms"]:
        parts = e.get("_parts")
        if parts:
            for key in ("a", "b", "c", "d", "d2"):
                if key in parts:
                    assert len(out) == e["offsets"][key]
                    out += parts[key]
    raw = bytes(out)
    comp = lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME)
    Path(out_path).write_bytes(comp)
    lines.append(f"golden: {len(raw)} bytes raw, {len(comp)} bytes xz -> {out_path}")
    text = "\n".join(lines) + "\n"
    if log:
        with open(log, "a") as fh:
            fh.write(text)
    sys.stdout.write(text)
    return raw


def generate_table(F):
    table, tile = [], 0
    for name, count, _ in classes(F):
        table.append({"name": name, "first": tile, "count": count, "seed": seed_of(F.name, name)})
        tile += count
    return table


def load(path):
    """Decode a golden file: (index dict, {form name: {"a","b","c","d"[,"d2"]: list of tiles,
    each a list of 32 lanes, each a tuple of u32 words}}). Forms without data are absent."""
    raw = Path(path).read_bytes()
    if raw[:6] == b"\xfd7zXZ\0":
        raw = lzma.decompress(raw)
    assert raw[:16] == GOLD_MAGIC, "not an mma golden file"
    (jlen,) = struct.unpack_from("<I", raw, 16)
    index = json.loads(raw[20:20 + jlen])
    data = {}
    for e in index["forms"]:
        if e.get("status") != "ok":
            continue
        T = e["tiles"]
        out = {}
        for key, off in e["offsets"].items():
            n = e["words"]["d" if key == "d2" else key]
            ws = struct.unpack_from(f"<{T * 32 * n}I", raw, off)
            out[key] = [[ws[(t * 32 + l) * n:(t * 32 + l + 1) * n] for l in range(32)] for t in range(T)]
        data[e["name"]] = out
    return index, data


def summary(path):
    index, data = load(path)
    print(f"{index['format']}; device: {index['device']}; toolkit: {index['toolkit']}")
    for e in index["forms"]:
        cl = ", ".join(f"{c['name']}:{c['count']}" for c in e.get("classes", []))
        print(f"{e['name']:42s} {e['status']:12s} tiles={e.get('tiles', 0):4d} "
              f"agree={e.get('runs_agree')} [{cl}]")


def selftest():
    import tempfile
    for F in FORMS:
        if not F.volta:
            check_layout(F)
    # format sanity
    f16 = FMT["f16"]
    assert f16.pow2(0) == 0x3C00 and f16.pow2(-24) == 0x0001 and f16.pow2(-25) is None
    assert FMT["e4m3"].maxf() == 0x7E and FMT["e4m3"].dec(0x7E) == 448.0
    assert FMT["e5m2"].inf() == 0x7C and FMT["tf32"].pow2(0) == 0x3F800000
    assert FMT["f32"].from_float(-3.0) == 0xC0400000 and FMT["bf16"].from_float(1.0) == 0x3F80
    assert FMT["f32"].from_float(2.0 ** -149) == 1 and FMT["f16"].from_float(65504.0) == 0x7BFF
    for x in range(1 << 16):
        if not f16.isnan(x):
            assert f16.from_float(f16.dec(x)) == x or f16.dec(x) == 0, hex(x)
    with tempfile.TemporaryDirectory() as d:
        inp = Path(d, "in.bin")
        meta = write_inputs(inp)
        ins = read_inputs(inp)
        rng = Rng(1)
        for f in ins:  # fake D: random words, run 2 = run 1 except for one form
            nd = f["tiles"] * 32 * f["nd"]
            d1 = words_bytes([rng.bits(32) for _ in range(nd)])
            Path(d, f"d{f['index']}.run1").write_bytes(d1)
            d2 = d1 if f["index"] != 3 else bytes([d1[0] ^ 1]) + d1[1:]
            if f["index"] != 5:  # form 5: run 2 missing
                Path(d, f"d{f['index']}.run2").write_bytes(d2)
        (Path(d) / f"d{ins[-1]['index']}.run1").unlink()  # last form: no output at all
        gold = Path(d, "g.bin.xz")
        pack(inp, d, gold, device="fake", toolkit="fake")
        index, data = load(gold)
        for f in ins[:-1]:
            got = data[f["name"]]
            flat = b"".join(words_bytes(w) for t in got["a"] for w in t)
            assert flat == f["a"], f["name"]
            flat = b"".join(words_bytes(w) for t in got["d"] for w in t)
            assert flat == Path(d, f"d{f['index']}.run1").read_bytes()
        assert index["forms"][3]["runs_agree"] is False and "d2" in data[FORMS[3].name]
        assert FORMS[-1].name not in data
        print(f"selftest ok: {len(ins)} forms, golden {gold.stat().st_size} bytes (random D)")


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    cmd = argv[0]
    if cmd == "cuda":
        sys.stdout.write(cuda() + "\n")
    elif cmd == "ptx":
        ver = argv[argv.index("--version") + 1] if "--version" in argv else "9.0"
        ptx_files(argv[1], ver)
    elif cmd == "inputs":
        skip = set(argv[argv.index("--skip") + 1].split(",")) if "--skip" in argv else set()
        write_inputs(argv[1], skip)
    elif cmd == "pack":
        opt = lambda k: argv[argv.index(k) + 1] if k in argv else ""
        pack(argv[1], argv[2], argv[3], log=opt("--log") or None, device=opt("--device"),
             toolkit=opt("--toolkit"), notes=opt("--notes") or None)
    elif cmd == "summary":
        summary(argv[1])
    elif cmd == "selftest":
        selftest()
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
