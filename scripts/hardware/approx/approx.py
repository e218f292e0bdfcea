#!/usr/bin/env python3
"""What an sm_90 GPU gives for the approximate PTX instructions (ex2, lg2, sin, cos, tanh, rsqrt,
rcp, sqrt .approx; the f16/bf16 ex2/tanh; rcp/rsqrt .approx f64; div.approx/div.full f32) and
for integer div/rem corner cases. Stdlib only; used by scripts/hardware/approx/run.sh.

    approx.py cuda > approx.cu        # the CUDA program (one process runs every job)
    approx.py jobs                    # job names, one a line, in run order
    approx.py pack WORK OUTDIR        # WORK/sections.tsv + WORK/*.bin -> OUTDIR/approx-raw.bin
    approx.py list approx-raw.bin     # the sections
    approx.py dump approx-raw.bin SECTION   # input<TAB>output (hex), or the text of a text section

File formats: scripts/hardware/approx/README.md.
"""
from __future__ import annotations

import lzma
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

G = 0x9E3779B97F4A7C15
SEED = 0x70747873696D3031  # "ptxsim01"
HASH_LOW = 0x2545F491       # the second fixed low word of the f64 hashes
MAX_PACKED = 12 << 20       # approx-raw.bin above this drops sections, highest priority number first

# f32 unary forms: (ptx opcode, key-binade family, base form for the xor encoding or None)
F32 = [
    ("ex2.approx.f32", "ex2", None), ("ex2.approx.ftz.f32", "ex2", "ex2.approx.f32"),
    ("lg2.approx.f32", "lg2", None), ("lg2.approx.ftz.f32", "lg2", "lg2.approx.f32"),
    ("sin.approx.f32", "sin", None), ("sin.approx.ftz.f32", "sin", "sin.approx.f32"),
    ("cos.approx.f32", "sin", None), ("cos.approx.ftz.f32", "sin", "cos.approx.f32"),
    ("rsqrt.approx.f32", "rsq", None), ("rsqrt.approx.ftz.f32", "rsq", "rsqrt.approx.f32"),
    ("rcp.approx.f32", "rsq", None), ("rcp.approx.ftz.f32", "rsq", "rcp.approx.f32"),
    ("sqrt.approx.f32", "rsq", None), ("sqrt.approx.ftz.f32", "rsq", "sqrt.approx.f32"),
    ("tanh.approx.f32", "tanh", None),
]
# Key binades (first bit pattern of each; each spans 2^23 patterns) per family.
KEY = {
    "ex2": [0x3F000000, 0xBF000000],              # [0.5,1), [-1,-0.5)
    "lg2": [0x3F800000, 0x3F000000],              # [1,2), [0.5,1)
    "sin": [0x3F000000, 0x3F800000],              # [0.5,1), [1,2)
    "rsq": [0x3F800000, 0x40000000],              # [1,2), [2,4)
    "tanh": [0x3E800000, 0x3F000000, 0x3F800000],  # [0.25,0.5), [0.5,1), [1,2)
}
# Extra full-density ranges per family: (first pattern, count)
EXTRA = {
    "lg2": [(0x3F700000, 1 << 20), (0x3F800000, 1 << 16)],  # [0.9375,1) and just above 1
    "tanh": [(0x38000000, 1 << 16)],                         # near 2^-15
    "ex2": [(0x34000000, 1 << 16), (0xB4000000, 1 << 16)],   # near +-2^-23
    "sin": [(0x49000000, 1 << 16), (0x4B000000, 1 << 16)],   # large arguments, 2^19, 2^23
    "rsq": [],
}
# 16-bit forms: (ptx opcode, width of a lane); x2 forms name their scalar form
H16 = ["ex2.approx.f16", "ex2.approx.ftz.bf16", "tanh.approx.f16", "tanh.approx.bf16"]
X2 = [("ex2.approx.f16x2", "ex2.approx.f16"), ("ex2.approx.ftz.bf16x2", "ex2.approx.ftz.bf16"),
      ("tanh.approx.f16x2", "tanh.approx.f16"), ("tanh.approx.bf16x2", "tanh.approx.bf16")]
F64 = ["rcp.approx.ftz.f64", "rsqrt.approx.f64", "rsqrt.approx.ftz.f64"]
DIV = ["div.approx.f32", "div.approx.ftz.f32", "div.full.f32", "div.full.ftz.f32"]
SPECIALS = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00400000, 0x007FFFFF, 0x807FFFFF,
            0x00800000, 0x80800000, 0x01000000, 0x1F800000, 0x33800000, 0x3EAAAAAB, 0x3F000000,
            0x3F800000, 0xBF800000, 0x3FC00000, 0x40000000, 0x40400000, 0xC0400000, 0x40490FDB,
            0x4B000000, 0x5F000000, 0x7E7FFFFF, 0x7E800000, 0x7E800001, 0x7F000000, 0x7F7FFFFF,
            0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF]
INT_TYPES = [("u16", 16, False), ("s16", 16, True), ("u32", 32, False), ("s32", 32, True),
             ("u64", 64, False), ("s64", 64, True)]


def seg(segs):
    """Segments as text: start:count:stride in hex, comma separated (input k of a section is the
    k-th pattern walking the segments in order)."""
    return ",".join(f"{s:x}:{c:x}:{d:x}" for s, c, d in segs)


def f32_sections(family):
    """(suffix, priority, segments) of the raw sections of one f32 form."""
    dense, stride = [], []
    for b in KEY[family]:
        dense += [(b + (k << 19), 1 << 16, 1) for k in range(16)]  # 16 windows of 2^16
        stride.append((b + 3, (1 << 23) // 7, 7))                   # the whole binade, every 7th
    dense += [(s, c, 1) for s, c in EXTRA[family]]
    common = []
    for sign in (0, 1):
        for e in range(256):
            b = (sign << 31) | (e << 23)
            common += [(b, 256, 1), (b + (1 << 23) - 256, 256, 1)]  # both ends of every binade
    n = ((1 << 32) - 1 - 0x1234) // 16385 + 1
    common.append((0x1234, n, 16385))                               # every 16385th pattern
    return [("common", 1, common), ("dense", 2, dense), ("stride7", 3, stride)]


F64_SEGS = [("common", 1, [(0, (1 << 32) // 16411 + 1, 16411 << 32)]),        # hi every 16411th, lo 0
            ("dense", 2, [(0x3FF0000000000000, 1 << 21, 1 << 32)]),            # hi in [1,4), lo 0
            ("dense-lo", 3, [(0x3FF0000000000000 + 0x2545F491, 1 << 21, 1 << 32)])]


def jobs():
    """(job name, kind, details) in run order."""
    out = [("int-divrem", "int", None)]
    out += [(f, "h16", None) for f in H16]
    out += [(f, "x2", s) for f, s in X2]
    out += [(f, "f32", (fam, base)) for f, fam, base in F32]
    out += [(f, "f64", None) for f in F64]
    out += [(f, "div", None) for f in DIV]
    return out


CUDA_HEAD = r"""// generated by scripts/hardware/approx/approx.py; see scripts/hardware/approx/README.md
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <string>
#include <vector>
#include <chrono>
#ifndef APPROX_FAKE
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
    fflush(stdout); exit(2); } } while (0)
#else
#define __host__
#define __device__
#define __forceinline__ inline
#endif
typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned short u16;
static const u64 G = 0x9E3779B97F4A7C15ull;
static const u64 SEED = @SEED@ull;
__host__ __device__ __forceinline__ u64 mix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
// Pair k (0-based) of the div inputs: z = SplitMix64 output k from state SEED, z2 = mix64(z).
__host__ __device__ __forceinline__ void div_pair(u64 k, u32* a, u32* b) {
    u64 z = mix64(SEED + (k + 1) * G), z2 = mix64(z);
    u32 lo = (u32)z, hi = (u32)(z >> 32);
    switch ((u32)(k & 3)) {
    case 0: *a = lo; *b = hi; break;
    case 1: *a = (lo & 0x807fffffu) | ((112u + (u32)(z2 & 31)) << 23);
            *b = (hi & 0x807fffffu) | ((112u + (u32)((z2 >> 8) & 31)) << 23); break;
    case 2: { const u32 ex[6] = {0u, 1u, 2u, 252u, 253u, 254u};
            *a = (lo & 0x807fffffu) | ((64u + (u32)((z2 >> 8) & 127)) << 23);
            *b = (hi & 0x807fffffu) | (ex[z2 % 6] << 23); break; }
    default: *a = (lo & 0x807fffffu) | ((112u + (u32)(z2 & 31)) << 23);
            *b = (hi & 0x80000000u) | ((112u + (u32)((z2 >> 8) & 31)) << 23) | (hi & 0x007f0000u); break;
    }
}
static std::string g_work, g_hashes;
static FILE* g_sections;
static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
struct Seg { u64 start, count, stride; };
template <class T> static std::vector<T> expand(const Seg* s, int n) {
    std::vector<T> v;
    for (int i = 0; i < n; i++)
        for (u64 k = 0; k < s[i].count; k++) v.push_back((T)(s[i].start + k * s[i].stride));
    return v;
}
static std::string segtext(const Seg* s, int n) {
    std::string t;
    char buf[80];
    for (int i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "%s%llx:%llx:%llx", i ? "," : "", s[i].start, s[i].count, s[i].stride);
        t += buf;
    }
    return t;
}
template <class T> struct Id { typedef T type; };
// Writes one raw section: delta (d[i] = y[i] - y[i-1] mod 2^w, y[-1] = 0) or xor with base.
template <class T> static void section(const char* name, const char* form, int prio,
        const std::vector<T>& y, const typename Id<std::vector<T> >::type* base, const char* base_name,
        const std::string& inputs) {
    std::vector<T> d(y.size());
    T prev = 0;
    for (size_t i = 0; i < y.size(); i++) {
        if (base) d[i] = (T)(y[i] ^ (*base)[i]);
        else { d[i] = (T)(y[i] - prev); prev = y[i]; }
    }
    std::string path = g_work + "/" + name + ".bin";
    FILE* f = fopen(path.c_str(), "wb");
    if (!f || fwrite(d.data(), sizeof(T), d.size(), f) != d.size() || fclose(f)) {
        fprintf(stderr, "cannot write %s\n", path.c_str()); exit(3);
    }
    std::string enc = base ? std::string("xor:") + base_name : std::string("delta");
    fprintf(g_sections, "%s\t%s\t%d\t%s\t%zu\t%d\t%s\n", name, form, (int)sizeof(T), enc.c_str(),
            y.size(), prio, inputs.c_str());
    fflush(g_sections);
    printf("  section %s: %zu x %d bytes (%s)\n", name, y.size(), (int)sizeof(T), enc.c_str());
}
static void hashline(const char* form, const char* variant, const u64* h, int n) {
    FILE* f = fopen(g_hashes.c_str(), "a");
    if (!f) { fprintf(stderr, "cannot open %s\n", g_hashes.c_str()); exit(3); }
    fprintf(f, "%s\t%s", form, variant);
    for (int c = 0; c < n; c++) fprintf(f, "\t%016llx", h[c]);
    fprintf(f, "\n");
    fclose(f);
}
static void fact(const char* form, const char* key, const std::string& value) {
    std::string path = g_work + "/facts.tsv";
    FILE* f = fopen(path.c_str(), "a");
    if (f) { fprintf(f, "%s\t%s\t%s\n", form, key, value.c_str()); fclose(f); }
    printf("  fact %s %s: %s\n", form, key, value.c_str());
}
#ifndef APPROX_FAKE
template <class T> static T* dalloc(size_t n) { T* p; CHECK(cudaMalloc(&p, n * sizeof(T) + 16)); return p; }
#define LAUNCHED() do { CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize()); } while (0)
#endif
"""

# (operand constraint, C type, bits-to-operand, operand-to-bits) per operand kind
OPK = {
    "f32": ("f", "float", "__uint_as_float", "__float_as_uint", "u32"),
    "f64": ("d", "double", "__longlong_as_double", "(u64)__double_as_longlong", "u64"),
    "h": ("h", "u16", "", "", "u16"),
    "r": ("r", "u32", "", "", "u32"),
}


def dev_fn(k, ptx, kind, nargs=1):
    c, ct, to, frm, bt = OPK[kind]
    args = ", ".join(f"{bt} a{i}" for i in range(nargs))
    ins = ", ".join(f'"{c}"(({ct}){to}(a{i}))' if to else f'"{c}"(a{i})' for i in range(nargs))
    ops = ", ".join(f"%{i + 1}" for i in range(nargs))
    body = [f"__device__ __forceinline__ {bt} op{k}({args}) {{",
            f"    {ct} y;",
            f'    asm volatile("{ptx} %0, {ops};" : "={c}"(y) : {ins});']
    body.append(f"    return {frm}(y);" if frm else "    return y;")
    body.append("}")
    return body


def fake_fn(k, kind, nargs=1):
    bt = OPK[kind][4]
    args = ", ".join(f"{bt} a{i}" for i in range(nargs))
    expr = " ^ ".join(f"(a{i} + (a{i} >> 3) + {k})" for i in range(nargs))
    return [f"static inline {bt} op{k}({args}) {{ return ({bt})({expr}); }}"]


def cuda():
    out = [CUDA_HEAD.replace("@SEED@", f"{SEED:#x}")]
    js = jobs()
    ops = {}  # ptx -> (index, kind, nargs)

    def need(ptx, kind, nargs=1):
        if ptx not in ops:
            ops[ptx] = (len(ops), kind, nargs)
        return ops[ptx][0]

    for name, kind, det in js:
        if kind == "h16":
            need(name, "h")
        elif kind == "x2":
            need(det, "h")
            need(name, "r")
        elif kind == "f32":
            need(name, "f32")
            if det[1]:
                need(det[1], "f32")
        elif kind == "f64":
            need(name, "f64")
        elif kind == "div":
            need(name, "f32", 2)
            need(name.replace(".ftz", ""), "f32", 2)
    dev, fake = [], []
    for ptx, (k, kind, nargs) in ops.items():
        bt = OPK[kind][4]
        dev += dev_fn(k, ptx, kind, nargs)
        fake += fake_fn(k, kind, nargs)
        if nargs == 1:
            dev += [f"__global__ void raw{k}(const {bt}* in, {bt}* out, u64 n) {{",
                    "    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;",
                    f"    if (i < n) out[i] = op{k}(in[i]);", "}"]
        if kind == "f32" and nargs == 1:
            dev += [f"__global__ void hash{k}(u64* sums) {{",
                    "    u64 start = ((u64)blockIdx.x * blockDim.x + threadIdx.x) * 16ull;",
                    "    u64 acc = 0;",
                    "    for (int j = 0; j < 16; j++) {",
                    "        u64 i = start + j;",
                    f"        acc += mix64((u64)op{k}((u32)i) ^ (i * G));",
                    "    }",
                    "    atomicAdd(&sums[start >> 24], acc);", "}"]
        if kind == "f64":
            dev += [f"__global__ void hash{k}(u64 low, u64* sums) {{",
                    "    u64 start = ((u64)blockIdx.x * blockDim.x + threadIdx.x) * 16ull;",
                    "    u64 acc = 0;",
                    "    for (int j = 0; j < 16; j++) {",
                    "        u64 i = start + j;",
                    f"        acc += mix64(op{k}((i << 32) | low) ^ (i * G));",
                    "    }",
                    "    atomicAdd(&sums[start >> 24], acc);", "}"]
        if kind == "r":
            dev += [f"__global__ void x2hash{k}(const u16* tab, u64* sums, u64* bad) {{",
                    "    u64 start = ((u64)blockIdx.x * blockDim.x + threadIdx.x) * 16ull;",
                    "    u64 acc = 0, blo = 0, bhi = 0;",
                    "    for (int j = 0; j < 16; j++) {",
                    "        u64 i = start + j;",
                    f"        u32 w = (u32)i, y = op{k}(w);",
                    "        acc += mix64((u64)y ^ (i * G));",
                    "        blo += (y & 0xffffu) != tab[w & 0xffffu];",
                    "        bhi += (y >> 16) != tab[w >> 16];",
                    "    }",
                    "    atomicAdd(&sums[start >> 24], acc);",
                    "    if (blo) atomicAdd(&bad[0], blo);",
                    "    if (bhi) atomicAdd(&bad[1], bhi);", "}"]
        if nargs == 2:
            dev += [f"__global__ void dhash{k}(u64* sums) {{",
                    "    u64 start = ((u64)blockIdx.x * blockDim.x + threadIdx.x) * 16ull;",
                    "    u64 acc = 0;",
                    "    for (int j = 0; j < 16; j++) {",
                    "        u64 i = start + j; u32 a, b;",
                    "        div_pair(i, &a, &b);",
                    f"        acc += mix64((u64)op{k}(a, b) ^ (i * G));",
                    "    }",
                    "    atomicAdd(&sums[start >> 16], acc);", "}",
                    f"__global__ void draw{k}(const u32* a, const u32* b, u32* out, u64 n) {{",
                    "    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;",
                    f"    if (i < n) out[i] = op{k}(a[i], b[i]);", "}"]
    out.append("#ifndef APPROX_FAKE")
    out += dev
    # integer div/rem: one kernel, case c is (op*6 + type) on operands a, b (bit patterns)
    out += ["__global__ void intk(const int* op, const u64* a, const u64* b, u64* y, int n) {",
            "    int i = blockIdx.x * blockDim.x + threadIdx.x;",
            "    if (i >= n) return;",
            "    u64 r = 0xDEADDEADDEADDEADull;",
            "    u16 h; u32 w; u64 d;",
            "    switch (op[i]) {"]
    c = 0
    for opn in ("div", "rem"):
        for t, bits, _ in INT_TYPES:
            if bits == 16:
                body = (f'asm volatile("{opn}.{t} %0, %1, %2;" : "=h"(h) : "h"((u16)a[i]), "h"((u16)b[i])); r = h;')
            elif bits == 32:
                body = (f'asm volatile("{opn}.{t} %0, %1, %2;" : "=r"(w) : "r"((u32)a[i]), "r"((u32)b[i])); r = w;')
            else:
                body = f'asm volatile("{opn}.{t} %0, %1, %2;" : "=l"(d) : "l"(a[i]), "l"(b[i])); r = d;'
            out.append(f"    case {c}: {body} break;")
            c += 1
    out += ["    }", "    y[i] = r;", "}"]
    out.append("#else")
    out += fake
    out.append("#endif")
    # host wrappers
    host = []
    for ptx, (k, kind, nargs) in ops.items():
        bt = OPK[kind][4]
        if nargs == 1:
            host += [f"static std::vector<{bt}> run_raw{k}(const std::vector<{bt}>& in) {{",
                     f"    std::vector<{bt}> y(in.size());",
                     "#ifndef APPROX_FAKE",
                     f"    {bt}* din = dalloc<{bt}>(in.size()); {bt}* dy = dalloc<{bt}>(in.size());",
                     f"    CHECK(cudaMemcpy(din, in.data(), in.size() * sizeof({bt}), cudaMemcpyHostToDevice));",
                     f"    CHECK(cudaMemset(dy, 0xA5, in.size() * sizeof({bt})));",
                     f"    raw{k}<<<(unsigned)((in.size() + 255) / 256), 256>>>(din, dy, in.size()); LAUNCHED();",
                     f"    CHECK(cudaMemcpy(y.data(), dy, in.size() * sizeof({bt}), cudaMemcpyDeviceToHost));",
                     "    CHECK(cudaFree(din)); CHECK(cudaFree(dy));",
                     "#else",
                     f"    for (size_t i = 0; i < in.size(); i++) y[i] = op{k}(in[i]);",
                     "#endif",
                     "    return y;", "}"]
        if kind == "f32" and nargs == 1:
            host += [f"static void run_hash{k}(u64* h) {{",
                     "#ifndef APPROX_FAKE",
                     "    u64* d = dalloc<u64>(256); CHECK(cudaMemset(d, 0, 256 * sizeof(u64)));",
                     f"    hash{k}<<<(1u << 20), 256>>>(d); LAUNCHED();",
                     "    CHECK(cudaMemcpy(h, d, 256 * sizeof(u64), cudaMemcpyDeviceToHost)); CHECK(cudaFree(d));",
                     "#else",
                     "    memset(h, 0, 256 * sizeof(u64));",
                     f"    for (u64 i = 0; i < (1ull << 32); i += 4099) h[i >> 24] += mix64((u64)op{k}((u32)i) ^ (i * G));",
                     "#endif", "}"]
        if kind == "f64":
            host += [f"static void run_hash{k}(u64 low, u64* h) {{",
                     "#ifndef APPROX_FAKE",
                     "    u64* d = dalloc<u64>(256); CHECK(cudaMemset(d, 0, 256 * sizeof(u64)));",
                     f"    hash{k}<<<(1u << 20), 256>>>(low, d); LAUNCHED();",
                     "    CHECK(cudaMemcpy(h, d, 256 * sizeof(u64), cudaMemcpyDeviceToHost)); CHECK(cudaFree(d));",
                     "#else",
                     "    memset(h, 0, 256 * sizeof(u64));",
                     f"    for (u64 i = 0; i < (1ull << 32); i += 4099) h[i >> 24] += mix64(op{k}((i << 32) | low) ^ (i * G));",
                     "#endif", "}"]
        if kind == "r":
            host += [f"static void run_x2hash{k}(const std::vector<u16>& tab, u64* h, u64* bad) {{",
                     "#ifndef APPROX_FAKE",
                     "    u64* d = dalloc<u64>(258); CHECK(cudaMemset(d, 0, 258 * sizeof(u64)));",
                     "    u16* dt = dalloc<u16>(65536);",
                     "    CHECK(cudaMemcpy(dt, tab.data(), 65536 * sizeof(u16), cudaMemcpyHostToDevice));",
                     f"    x2hash{k}<<<(1u << 20), 256>>>(dt, d, d + 256); LAUNCHED();",
                     "    CHECK(cudaMemcpy(h, d, 256 * sizeof(u64), cudaMemcpyDeviceToHost));",
                     "    CHECK(cudaMemcpy(bad, d + 256, 2 * sizeof(u64), cudaMemcpyDeviceToHost));",
                     "    CHECK(cudaFree(d)); CHECK(cudaFree(dt));",
                     "#else",
                     "    memset(h, 0, 256 * sizeof(u64)); bad[0] = bad[1] = 0;",
                     "    for (u64 i = 0; i < (1ull << 32); i += 4099) {",
                     f"        u32 w = (u32)i, y = op{k}(w); h[i >> 24] += mix64((u64)y ^ (i * G));",
                     "        bad[0] += (y & 0xffffu) != tab[w & 0xffffu]; bad[1] += (y >> 16) != tab[w >> 16];",
                     "    }",
                     "#endif", "}"]
        if nargs == 2:
            host += [f"static void run_dhash{k}(u64* h) {{",
                     "#ifndef APPROX_FAKE",
                     "    u64* d = dalloc<u64>(256); CHECK(cudaMemset(d, 0, 256 * sizeof(u64)));",
                     f"    dhash{k}<<<(1u << 12), 256>>>(d); LAUNCHED();",
                     "    CHECK(cudaMemcpy(h, d, 256 * sizeof(u64), cudaMemcpyDeviceToHost)); CHECK(cudaFree(d));",
                     "#else",
                     "    memset(h, 0, 256 * sizeof(u64));",
                     "    for (u64 i = 0; i < (1ull << 24); i++) { u32 a, b; div_pair(i, &a, &b);",
                     f"        h[i >> 16] += mix64((u64)op{k}(a, b) ^ (i * G)); }}",
                     "#endif", "}",
                     f"static std::vector<u32> run_draw{k}(const std::vector<u32>& a, const std::vector<u32>& b) {{",
                     "    std::vector<u32> y(a.size());",
                     "#ifndef APPROX_FAKE",
                     "    u32* da = dalloc<u32>(a.size()); u32* db = dalloc<u32>(a.size()); u32* dy = dalloc<u32>(a.size());",
                     "    CHECK(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice));",
                     "    CHECK(cudaMemcpy(db, b.data(), a.size() * 4, cudaMemcpyHostToDevice));",
                     "    CHECK(cudaMemset(dy, 0xA5, a.size() * 4));",
                     f"    draw{k}<<<(unsigned)((a.size() + 255) / 256), 256>>>(da, db, dy, a.size()); LAUNCHED();",
                     "    CHECK(cudaMemcpy(y.data(), dy, a.size() * 4, cudaMemcpyDeviceToHost));",
                     "    CHECK(cudaFree(da)); CHECK(cudaFree(db)); CHECK(cudaFree(dy));",
                     "#else",
                     f"    for (size_t i = 0; i < a.size(); i++) y[i] = op{k}(a[i], b[i]);",
                     "#endif",
                     "    return y;", "}"]
    out += host
    # jobs
    body = []
    for j, (name, kind, det) in enumerate(js):
        body.append(f"    case {j}: {{ // {name}")
        if kind == "int":
            body += int_job()
        elif kind == "h16":
            k = ops[name][0]
            body += ["        std::vector<u16> in(65536); for (u32 i = 0; i < 65536; i++) in[i] = (u16)i;",
                     f"        std::vector<u16> y = run_raw{k}(in);",
                     f'        section("{name}.table", "{name}", 0, y, nullptr, nullptr, "0:10000:1");']
        elif kind == "x2":
            k, ks = ops[name][0], ops[det][0]
            body += ["        std::vector<u16> in(65536); for (u32 i = 0; i < 65536; i++) in[i] = (u16)i;",
                     f"        std::vector<u16> tab = run_raw{ks}(in);",
                     "        u64 h[256], bad[2];",
                     f"        run_x2hash{k}(tab, h, bad);",
                     f'        hashline("{name}", "all-2^32", h, 256);',
                     "        char buf[160]; snprintf(buf, sizeof buf, \"lo-lane-mismatches=%llu hi-lane-mismatches=%llu (of 2^32 words)\", bad[0], bad[1]);",
                     f'        fact("{name}", "vs-{det}", buf);',
                     "        if (bad[0] || bad[1]) {",
                     "            std::vector<u32> w(65536);",
                     "            for (u32 i = 0; i < 65536; i++) w[i] = i | (((i * 40503u + 12345u) & 0xffffu) << 16);",
                     f"            std::vector<u32> y = run_raw{k}(w);",
                     f'            section("{name}.pairs", "{name}", 0, y, nullptr, nullptr, "x2perm");',
                     "        }"]
        elif kind == "f32":
            fam, base = det
            k = ops[name][0]
            for suf, prio, segs in f32_sections(fam):
                arr = f"S_{j}_{suf}"
                out.append(f"static const Seg {arr}[] = {{" + ", ".join(
                    f"{{{s:#x}ull, {c:#x}ull, {d:#x}ull}}" for s, c, d in segs) + "};")
                sec = f"{name}.{suf}"
                body += ["        {",
                         f"            std::vector<u32> in = expand<u32>({arr}, {len(segs)});",
                         f"            std::vector<u32> y = run_raw{k}(in);"]
                if base:
                    body += [f"            std::vector<u32> yb = run_raw{ops[base][0]}(in);",
                             f'            section("{sec}", "{name}", {prio}, y, &yb, "{base}.{suf}", segtext({arr}, {len(segs)}));']
                else:
                    body += [f'            section("{sec}", "{name}", {prio}, y, nullptr, nullptr, segtext({arr}, {len(segs)}));']
                body.append("        }")
            body += ["        u64 h[256];", f"        run_hash{k}(h);", f'        hashline("{name}", "all-2^32", h, 256);']
        elif kind == "f64":
            k = ops[name][0]
            for suf, prio, segs in F64_SEGS:
                arr = f"S_{j}_{suf.replace('-', '_')}"
                out.append(f"static const Seg {arr}[] = {{" + ", ".join(
                    f"{{{s:#x}ull, {c:#x}ull, {d:#x}ull}}" for s, c, d in segs) + "};")
                body += ["        {",
                         f"            std::vector<u64> in = expand<u64>({arr}, {len(segs)});",
                         f"            std::vector<u64> y = run_raw{k}(in);",
                         f'            section("{name}.{suf}", "{name}", {prio}, y, nullptr, nullptr, segtext({arr}, {len(segs)}));',
                         "        }"]
            body += ["        {",
                     "            // does the low word matter? hi every 4099th pattern x 8 low words, vs low 0",
                     "            const u64 lows[8] = {0ull, 1ull, 0x80000000ull, 0xffffffffull, 0x2545f491ull, 0x7fffffffull, 0x00000800ull, 0xfffff000ull};",
                     "            std::vector<u64> in;",
                     "            for (u64 hi = 0; hi < (1ull << 32); hi += 4099) for (int l = 0; l < 8; l++) in.push_back((hi << 32) | lows[l]);",
                     f"            std::vector<u64> y = run_raw{k}(in);",
                     "            u64 diff[8] = {0}, n = in.size() / 8, lowbits = 0; std::string ex;",
                     "            for (u64 i = 0; i < n; i++) {",
                     "                for (int l = 0; l < 8; l++) {",
                     "                    u64 yy = y[i * 8 + l];",
                     "                    lowbits += (yy & 0xffffffffull) != 0;",
                     "                    if (yy != y[i * 8]) { diff[l]++; if (ex.size() < 600) { char b[80]; snprintf(b, sizeof b, \" %016llx->%016llx(lo0:%016llx)\", in[i * 8 + l], yy, y[i * 8]); ex += b; } }",
                     "                }",
                     "            }",
                     "            std::string s; char b[64];",
                     "            for (int l = 1; l < 8; l++) { snprintf(b, sizeof b, \"%s%llx:%llu\", l > 1 ? \",\" : \"\", lows[l], diff[l]); s += b; }",
                     "            snprintf(b, sizeof b, \" of %llu his; results with nonzero low word: %llu\", n, lowbits); s += b;",
                     f'            fact("{name}", "low-word-differs", s);',
                     f'            if (!ex.empty()) fact("{name}", "low-word-examples", ex);',
                     "        }",
                     "        u64 h[256];",
                     f"        run_hash{k}(0, h); hashline(\"{name}\", \"hi-2^32-lo-00000000\", h, 256);",
                     f"        run_hash{k}({HASH_LOW:#x}ull, h); hashline(\"{name}\", \"hi-2^32-lo-{HASH_LOW:08x}\", h, 256);"]
        elif kind == "div":
            k = ops[name][0]
            body += ["        std::vector<u32> a, b;",
                     "        for (u64 i = 0; i < 65536; i++) { u32 x, z; div_pair(i, &x, &z); a.push_back(x); b.push_back(z); }",
                     f"        std::vector<u32> y = run_draw{k}(a, b);"]
            if ".ftz." in name:  # xor with the form without .ftz
                base = name.replace(".ftz", "")
                body += [f"        std::vector<u32> yb = run_draw{ops[base][0]}(a, b);",
                         f'        section("{name}.pairs", "{name}", 2, y, &yb, "{base}.pairs", "divpairs:0:10000");']
            else:
                body += [f'        section("{name}.pairs", "{name}", 2, y, nullptr, nullptr, "divpairs:0:10000");']
            body += [
                     "        a.clear(); b.clear();",
                     f"        static const u32 sp[] = {{{', '.join(f'{v:#x}u' for v in SPECIALS)}}};",
                     "        const int ns = sizeof sp / sizeof sp[0];",
                     "        for (int i = 0; i < ns; i++) for (int l = 0; l < ns; l++) { a.push_back(sp[i]); b.push_back(sp[l]); }",
                     f"        y = run_draw{k}(a, b);",
                     f'        section("{name}.specials", "{name}", 0, y, nullptr, nullptr, "specials");',
                     "        u64 h[256];",
                     f"        run_dhash{k}(h); hashline(\"{name}\", \"divpairs-2^24\", h, 256);"]
        body += ["        break;", "    }"]
    out += ["static void run_job(int j) {", "    switch (j) {"] + body + ["    }", "}"]
    names = ", ".join(f'"{n}"' for n, _, _ in js)
    out += [f"static const char* job_names[] = {{{names}}};",
            f"static const int njobs = {len(js)};",
            MAIN]
    print("\n".join(out))


def int_job():
    """Host side of the integer table: cases, launch, WORK/intdivrem.tsv."""
    lines = ["        std::vector<int> op; std::vector<u64> a, b; std::vector<std::string> label;",
             "        const char* tn[6] = {" + ", ".join(f'"{t}"' for t, _, _ in INT_TYPES) + "};",
             "        const int bits[6] = {" + ", ".join(str(b) for _, b, _ in INT_TYPES) + "};",
             "        for (int o = 0; o < 2; o++) for (int t = 0; t < 6; t++) {",
             "            u64 mask = bits[t] == 64 ? ~0ull : ((1ull << bits[t]) - 1), top = 1ull << (bits[t] - 1);",
             "            bool s = t & 1;",
             "            // dividends: 0, 1, 7, -7 (two's complement), max, min (signed) / top bit (unsigned), all ones",
             "            u64 as[7] = {0, 1, 7, (0 - 7ull) & mask, s ? top - 1 : mask, top, mask};",
             "            // divisors: 0, 1, all ones (-1 signed), 3",
             "            u64 bs[4] = {0, 1, mask, 3};",
             "            for (int x = 0; x < 7; x++) for (int z = 0; z < 4; z++) { op.push_back(o * 6 + t); a.push_back(as[x]); b.push_back(bs[z]); }",
             "        }",
             "        std::vector<u64> y(op.size());",
             "#ifndef APPROX_FAKE",
             "        int* dop = dalloc<int>(op.size()); u64* da = dalloc<u64>(op.size()); u64* db = dalloc<u64>(op.size()); u64* dy = dalloc<u64>(op.size());",
             "        CHECK(cudaMemcpy(dop, op.data(), op.size() * sizeof(int), cudaMemcpyHostToDevice));",
             "        CHECK(cudaMemcpy(da, a.data(), op.size() * 8, cudaMemcpyHostToDevice));",
             "        CHECK(cudaMemcpy(db, b.data(), op.size() * 8, cudaMemcpyHostToDevice));",
             "        intk<<<(unsigned)((op.size() + 127) / 128), 128>>>(dop, da, db, dy, (int)op.size()); LAUNCHED();",
             "        CHECK(cudaMemcpy(y.data(), dy, op.size() * 8, cudaMemcpyDeviceToHost));",
             "#else",
             "        for (size_t i = 0; i < op.size(); i++) y[i] = b[i] ? a[i] / b[i] : ~0ull;",
             "#endif",
             "        std::string path = g_work + \"/intdivrem.tsv\";",
             "        FILE* f = fopen(path.c_str(), \"w\");",
             "        if (!f) { fprintf(stderr, \"cannot write %s\\n\", path.c_str()); exit(3); }",
             "        fprintf(f, \"# op\\ttype\\ta\\tb\\td (hex bit patterns of the type's width)\\n\");",
             "        for (size_t i = 0; i < op.size(); i++) {",
             "            int t = op[i] % 6, w = bits[t] / 4;",
             "            u64 mask = bits[t] == 64 ? ~0ull : ((1ull << bits[t]) - 1);",
             "            char line[200];",
             "            snprintf(line, sizeof line, \"%s\\t%s\\t%0*llx\\t%0*llx\\t%0*llx\\n\", op[i] < 6 ? \"div\" : \"rem\", tn[t], w, a[i], w, b[i], w, y[i] & mask);",
             "            fputs(line, f); fputs(line, stdout);",
             "        }",
             "        fclose(f);"]
    return lines


MAIN = r"""int main(int argc, char** argv) {
    if (argc >= 2 && !strcmp(argv[1], "list")) {
        for (int j = 0; j < njobs; j++) printf("%d\t%s\n", j, job_names[j]);
        return 0;
    }
    if (argc < 3) { fprintf(stderr, "usage: approx WORK HASHES.tsv [JOB...] | approx list\n"); return 1; }
    g_work = argv[1]; g_hashes = argv[2];
    std::string sp = g_work + "/sections.tsv";
    g_sections = fopen(sp.c_str(), "a");
    if (!g_sections) { fprintf(stderr, "cannot open %s\n", sp.c_str()); return 1; }
    std::vector<int> todo;
    for (int i = 3; i < argc; i++) todo.push_back(atoi(argv[i]));
    if (todo.empty()) for (int j = 0; j < njobs; j++) todo.push_back(j);
    setvbuf(stdout, nullptr, _IOLBF, 0);
    for (int j : todo) {
        if (j < 0 || j >= njobs) continue;
        printf("job %d %s\n", j, job_names[j]);
        double t = now();
#ifdef APPROX_FAKE
        // tests of run.sh's retry path only: crash in job APPROX_FAKE_CRASH when running them all
        if (getenv("APPROX_FAKE_CRASH") && atoi(getenv("APPROX_FAKE_CRASH")) == j && argc == 3) abort();
#endif
        run_job(j);
        std::string done = g_work + "/done-" + std::to_string(j);
        FILE* f = fopen(done.c_str(), "w");
        if (f) fclose(f);
        printf("job %d %s done in %.2f s\n", j, job_names[j], now() - t);
    }
    return 0;
}"""


def _compress(path):
    data = Path(path).read_bytes()
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=9), len(data)


def pack(work, outdir):
    work, outdir = Path(work), Path(outdir)
    rows = []
    seen = set()
    sp = work / "sections.tsv"
    lines = sp.read_text().splitlines() if sp.exists() else []
    for line in lines:
        f = line.split("\t")
        if len(f) != 7 or f[0] in seen or not (work / f"{f[0]}.bin").exists():
            continue
        seen.add(f[0])
        rows.append(f)
    # text sections
    for name in ("facts.tsv", "intdivrem.tsv"):
        if (work / name).exists():
            (work / f"{name}.bin").write_bytes((work / name).read_bytes())
            rows.append([name, "-", "1", "text", str((work / name).stat().st_size), "0", "-"])
    with ProcessPoolExecutor(max_workers=min(16, os.cpu_count() or 1)) as ex:
        blobs = list(ex.map(_compress, [str(work / f"{r[0]}.bin") for r in rows]))
    dropped = []
    # size cap: drop sections, highest priority number (least needed) and largest first
    order = sorted(range(len(rows)), key=lambda i: (-int(rows[i][5]), -len(blobs[i][0])))
    keep = set(range(len(rows)))
    total = sum(len(b[0]) for b in blobs)
    for i in order:
        if total <= MAX_PACKED or int(rows[i][5]) <= 1:
            break
        keep.discard(i)
        total -= len(blobs[i][0])
        dropped.append(rows[i][0])
    # xor sections need their base
    names = {rows[i][0] for i in keep}
    for i in sorted(keep):
        enc = rows[i][3]
        if enc.startswith("xor:") and enc[4:] not in names:
            keep.discard(i)
            dropped.append(rows[i][0] + " (base missing)")
    index, data, off = [], [], 0
    for i in sorted(keep):
        name, form, w, enc, count, prio, inputs = rows[i]
        blob, rawlen = blobs[i]
        index.append("\t".join([name, form, w, enc, count, str(off), str(len(blob)), str(rawlen), inputs]))
        data.append(blob)
        off += len(blob)
    head = ("PTXSIM-APPROX-RAW 1\n"
            "# name\tform\telem_bytes\tencoding\tcount\txz_offset\txz_length\traw_length\tinputs\n"
            + "".join(line + "\n" for line in index) + "end\n")
    outdir.mkdir(parents=True, exist_ok=True)
    tmp = outdir / "approx-raw.bin.tmp"
    with open(tmp, "wb") as f:
        f.write(head.encode())
        for blob in data:
            f.write(blob)
    tmp.rename(outdir / "approx-raw.bin")
    print(f"approx-raw.bin: {len(index)} sections, {len(head) + off} bytes"
          + (f"; dropped for size: {', '.join(dropped)}" if dropped else ""))
    for line in index:
        f = line.split("\t")
        print(f"  {f[0]}: {f[4]} x {f[2]} bytes, {f[3]}, xz {f[6]} bytes")
    return 0


def read_raw(path):
    """approx-raw.bin -> (index rows as dicts, data bytes after 'end\n')."""
    data = Path(path).read_bytes()
    end = data.index(b"\nend\n") + 5
    head = data[:end].decode().splitlines()
    assert head[0] == "PTXSIM-APPROX-RAW 1", head[0]
    keys = ["name", "form", "elem_bytes", "encoding", "count", "xz_offset", "xz_length", "raw_length", "inputs"]
    rows = [dict(zip(keys, line.split("\t"))) for line in head[1:-1] if not line.startswith("#")]
    return rows, data[end:]


def inputs_of(spec, count):
    """The input bit patterns of a section whose inputs column is segments (start:count:stride)."""
    out = []
    for part in spec.split(","):
        s, c, d = (int(v, 16) for v in part.split(":"))
        out.extend(s + k * d for k in range(c))
    assert len(out) == count, (spec, len(out), count)
    return out


def decode(path):
    """{section name: list of outputs (ints)}: xz, then delta (running sum mod 2^w) or xor base."""
    import array
    rows, data = read_raw(path)
    out = {}
    for r in rows:
        off, n = int(r["xz_offset"]), int(r["xz_length"])
        raw = lzma.decompress(data[off:off + n])
        assert len(raw) == int(r["raw_length"]), r["name"]
        if r["encoding"] == "text":
            out[r["name"]] = raw.decode()
            continue
        w = int(r["elem_bytes"])
        a = array.array({2: "H", 4: "I", 8: "Q"}[w])
        a.frombytes(raw)
        assert sys.byteorder == "little" and len(a) == int(r["count"]), r["name"]
        mask = (1 << (8 * w)) - 1
        if r["encoding"] == "delta":
            acc, ys = 0, []
            for d in a:
                acc = (acc + d) & mask
                ys.append(acc)
        else:
            base = out[r["encoding"][4:]]
            ys = [x ^ b for x, b in zip(a, base)]
        out[r["name"]] = ys
    return rows, out


def dump(path, name):
    rows, out = decode(path)
    r = next(r for r in rows if r["name"] == name)
    ys = out[name]
    if isinstance(ys, str):
        print(ys, end="")
        return 0
    w = 2 * int(r["elem_bytes"])
    ins = inputs_of(r["inputs"], len(ys)) if ":" in r["inputs"] and not r["inputs"].startswith("divpairs") else None
    for i, y in enumerate(ys):
        print(f"{ins[i]:0{w}x}\t{y:0{w}x}" if ins else f"{i}\t{y:0{w}x}")
    return 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "cuda":
        cuda()
        return 0
    if len(sys.argv) >= 2 and sys.argv[1] == "jobs":
        for j, (name, _, _) in enumerate(jobs()):
            print(f"{j}\t{name}")
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "dump":
        return dump(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 3 and sys.argv[1] == "list":
        rows, _ = read_raw(sys.argv[2])
        for r in rows:
            print("\t".join(r[k] for k in ("name", "form", "elem_bytes", "encoding", "count", "xz_length")))
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "pack":
        return pack(sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
