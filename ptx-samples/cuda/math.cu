// The rest of the scalar ISA as CUDA programs reach it: half-precision math, transcendentals
// (libdevice tanhf/erff and the fast intrinsics __expf, __fdividef, rsqrtf, __tanhf), packed
// half2 FMA, int8 dot products (dp4a/dp2a), multi-word integer arithmetic (carry chains) and
// bit-manipulation intrinsics. Default nvcc flags (-O3, no fast-math): the approximate
// instructions come from the intrinsics, not from a compiler flag.
// Every kernel uses a 1-D grid and guards its index, so a launch whose size is not a multiple
// of the block is fine. The golden data is made by scripts/kernel-golden/gen.cpp (cases_math).
#include <cuda_fp16.h>

// GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), f16 in/out, f32 inside.
extern "C" __global__ void gelu_tanh_f16(const __half* in, __half* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = __half2float(in[i]);
        float t = tanhf(0.7978845608f * (x + 0.044715f * x * x * x));
        out[i] = __float2half_rn(0.5f * x * (1.0f + t));
    }
}
// The same with the hardware tanh (__tanhf is tanh.approx.f32).
extern "C" __global__ void gelu_tanh_fast_f16(const __half* in, __half* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = __half2float(in[i]);
        float t = __tanhf(0.7978845608f * (x + 0.044715f * x * x * x));
        out[i] = __float2half_rn(0.5f * x * (1.0f + t));
    }
}
// GELU, erf form: 0.5 x (1 + erf(x / sqrt(2))).
extern "C" __global__ void gelu_erf_f16(const __half* in, __half* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = __half2float(in[i]);
        out[i] = __float2half_rn(0.5f * x * (1.0f + erff(x * 0.7071067812f)));
    }
}

// Row softmax, one warp per row of `cols` floats (any cols): max, sum of __expf(x - max)
// (ex2.approx.ftz.f32), __fdividef (div.approx.f32). Launch with blockDim.x a multiple of 32
// and grid = ceil(rows * 32 / blockDim.x).
extern "C" __global__ void softmax_row(const float* in, float* out, int rows, int cols) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (warp >= rows) return;
    const float* x = in + (size_t)warp * cols;
    float* y = out + (size_t)warp * cols;
    float m = -INFINITY;
    for (int j = lane; j < cols; j += 32) m = fmaxf(m, x[j]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float s = 0.0f;
    for (int j = lane; j < cols; j += 32) s += __expf(x[j] - m);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    for (int j = lane; j < cols; j += 32) y[j] = __fdividef(__expf(x[j] - m), s);
}

// RMSNorm, one block per row: y = x * rsqrt(mean(x^2) + eps) * w. Block sum through warp
// shuffles and a shared array of per-warp partials (blockDim.x <= 1024, a multiple of 32).
extern "C" __global__ void rmsnorm_row(const float* in, const float* w, float* out, int cols, float eps) {
    __shared__ float partial[32];
    __shared__ float scale;
    const float* x = in + (size_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) ss += x[j] * x[j];
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_down_sync(0xffffffffu, ss, o);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = ss;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int k = 0; k < blockDim.x / 32; k++) total += partial[k];
        scale = rsqrtf(total / cols + eps);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < cols; j += blockDim.x) out[(size_t)blockIdx.x * cols + j] = x[j] * scale * w[j];
}

// A chain of packed half FMAs (fma.rn.f16x2): acc = acc * m + c, `iters` times, acc = c at first.
extern "C" __global__ void half2_fma_chain(const __half2* m, const __half2* c, __half2* out, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half2 mi = m[i], ci = c[i], acc = c[i];
        for (int k = 0; k < iters; k++) acc = __hfma2(acc, mi, ci);
        out[i] = acc;
    }
}

// int8 dot products: row i of `a` (k words of 4 int8 each) with `b`, signed (dp4a.s32.s32) and
// the same bytes as unsigned (dp4a.u32.u32), accumulated from bias[i].
extern "C" __global__ void dp4a_int8_dot(const int* a, const int* b, const int* bias, int* dot_s, unsigned* dot_u, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int s = bias[i];
        unsigned u = (unsigned)bias[i];
        for (int j = 0; j < k; j++) {
            s = __dp4a(a[i * k + j], b[j], s);
            u = __dp4a((unsigned)a[i * k + j], (unsigned)b[j], u);
        }
        dot_s[i] = s;
        dot_u[i] = u;
    }
}
// dp2a: out[4i + 0..3] = __dp2a_lo(a, b, c), __dp2a_hi(a, b, c) signed, then both unsigned.
extern "C" __global__ void dp2a_lo_hi(const int* a, const int* b, const int* c, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[4 * i + 0] = __dp2a_lo(a[i], b[i], c[i]);
        out[4 * i + 1] = __dp2a_hi(a[i], b[i], c[i]);
        out[4 * i + 2] = (int)__dp2a_lo((unsigned)a[i], (unsigned)b[i], (unsigned)c[i]);
        out[4 * i + 3] = (int)__dp2a_hi((unsigned)a[i], (unsigned)b[i], (unsigned)c[i]);
    }
}

// 128-bit arithmetic on four 32-bit limbs (little-endian: .x is the lowest) with PTX carry
// chains: prod[2i], prod[2i+1] = the 256-bit product a*b (schoolbook, mad.lo.cc / madc.hi.cc /
// addc); sum[i] = a + b mod 2^128 and diff[i] = a - b mod 2^128 (add.cc / addc, sub.cc / subc);
// flags[i] = carry out of the sum | borrow out of the difference << 1.
extern "C" __global__ void mul128(const uint4* a, const uint4* b, uint4* prod, uint4* sum, uint4* diff, unsigned* flags, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint4 x = a[i], y = b[i];
    unsigned r0, r1, r2, r3, r4, r5, r6, r7;
    asm("{\n\t"
        "mul.lo.u32     %0, %8, %12;\n\t"
        "mul.hi.u32     %1, %8, %12;\n\t"
        "mad.lo.cc.u32  %1, %9, %12, %1;\n\t"
        "madc.hi.u32    %2, %9, %12, 0;\n\t"
        "mad.lo.cc.u32  %2, %10, %12, %2;\n\t"
        "madc.hi.u32    %3, %10, %12, 0;\n\t"
        "mad.lo.cc.u32  %3, %11, %12, %3;\n\t"
        "madc.hi.u32    %4, %11, %12, 0;\n\t"
        // row 1 (b.y): low halves into r1..r4, carry into r5; high halves into r2..r5, carry into r6
        "mad.lo.cc.u32  %1, %8, %13, %1;\n\t"
        "madc.lo.cc.u32 %2, %9, %13, %2;\n\t"
        "madc.lo.cc.u32 %3, %10, %13, %3;\n\t"
        "madc.lo.cc.u32 %4, %11, %13, %4;\n\t"
        "addc.u32       %5, 0, 0;\n\t"
        "mad.hi.cc.u32  %2, %8, %13, %2;\n\t"
        "madc.hi.cc.u32 %3, %9, %13, %3;\n\t"
        "madc.hi.cc.u32 %4, %10, %13, %4;\n\t"
        "madc.hi.cc.u32 %5, %11, %13, %5;\n\t"
        "addc.u32       %6, 0, 0;\n\t"
        // row 2 (b.z)
        "mad.lo.cc.u32  %2, %8, %14, %2;\n\t"
        "madc.lo.cc.u32 %3, %9, %14, %3;\n\t"
        "madc.lo.cc.u32 %4, %10, %14, %4;\n\t"
        "madc.lo.cc.u32 %5, %11, %14, %5;\n\t"
        "addc.u32       %6, %6, 0;\n\t"
        "mad.hi.cc.u32  %3, %8, %14, %3;\n\t"
        "madc.hi.cc.u32 %4, %9, %14, %4;\n\t"
        "madc.hi.cc.u32 %5, %10, %14, %5;\n\t"
        "madc.hi.cc.u32 %6, %11, %14, %6;\n\t"
        "addc.u32       %7, 0, 0;\n\t"
        // row 3 (b.w); the product is below 2^256, so the last carry is zero
        "mad.lo.cc.u32  %3, %8, %15, %3;\n\t"
        "madc.lo.cc.u32 %4, %9, %15, %4;\n\t"
        "madc.lo.cc.u32 %5, %10, %15, %5;\n\t"
        "madc.lo.cc.u32 %6, %11, %15, %6;\n\t"
        "addc.u32       %7, %7, 0;\n\t"
        "mad.hi.cc.u32  %4, %8, %15, %4;\n\t"
        "madc.hi.cc.u32 %5, %9, %15, %5;\n\t"
        "madc.hi.cc.u32 %6, %10, %15, %6;\n\t"
        "madc.hi.u32    %7, %11, %15, %7;\n\t"
        "}"
        : "=&r"(r0), "=&r"(r1), "=&r"(r2), "=&r"(r3), "=&r"(r4), "=&r"(r5), "=&r"(r6), "=&r"(r7)
        : "r"(x.x), "r"(x.y), "r"(x.z), "r"(x.w), "r"(y.x), "r"(y.y), "r"(y.z), "r"(y.w));
    prod[2 * i] = make_uint4(r0, r1, r2, r3);
    prod[2 * i + 1] = make_uint4(r4, r5, r6, r7);
    unsigned s0, s1, s2, s3, carry, d0, d1, d2, d3, borrow;
    asm("add.cc.u32  %0, %5, %9;\n\t"
        "addc.cc.u32 %1, %6, %10;\n\t"
        "addc.cc.u32 %2, %7, %11;\n\t"
        "addc.cc.u32 %3, %8, %12;\n\t"
        "addc.u32    %4, 0, 0;"
        : "=r"(s0), "=r"(s1), "=r"(s2), "=r"(s3), "=r"(carry)
        : "r"(x.x), "r"(x.y), "r"(x.z), "r"(x.w), "r"(y.x), "r"(y.y), "r"(y.z), "r"(y.w));
    asm("sub.cc.u32  %0, %5, %9;\n\t"
        "subc.cc.u32 %1, %6, %10;\n\t"
        "subc.cc.u32 %2, %7, %11;\n\t"
        "subc.cc.u32 %3, %8, %12;\n\t"
        "subc.u32    %4, 0, 0;"
        : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3), "=r"(borrow)
        : "r"(x.x), "r"(x.y), "r"(x.z), "r"(x.w), "r"(y.x), "r"(y.y), "r"(y.z), "r"(y.w));
    sum[i] = make_uint4(s0, s1, s2, s3);
    diff[i] = make_uint4(d0, d1, d2, d3);
    flags[i] = carry | (borrow & 2u);
}
// The same product's low 128 bits in plain C++ (unsigned __int128), as nvcc lowers it.
extern "C" __global__ void mul_u128(const unsigned long long* a, const unsigned long long* b, unsigned long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned __int128 x = ((unsigned __int128)a[2 * i + 1] << 64) | a[2 * i];
        unsigned __int128 y = ((unsigned __int128)b[2 * i + 1] << 64) | b[2 * i];
        unsigned __int128 p = x * y;
        out[2 * i] = (unsigned long long)p;
        out[2 * i + 1] = (unsigned long long)(p >> 64);
    }
}

// Bit-manipulation intrinsics: out[8i + k] for k = __brev(a), __ffs(a), __clz(a),
// __fns(a, b & 31, offset) with offset = (int)c % 40 (fns.b32), __sad(a, b, c),
// __funnelshift_l(a, b, c), __funnelshift_rc(a, b, c), __byte_perm(a, b, c).
extern "C" __global__ void bit_ops(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = a[i], y = b[i], z = c[i];
        out[8 * i + 0] = __brev(x);
        out[8 * i + 1] = __ffs((int)x);
        out[8 * i + 2] = __clz((int)x);
        out[8 * i + 3] = __fns(x, y & 31, (int)z % 40);
        out[8 * i + 4] = __sad((int)x, (int)y, z);
        out[8 * i + 5] = __funnelshift_l(x, y, z);
        out[8 * i + 6] = __funnelshift_rc(x, y, z);
        out[8 * i + 7] = __byte_perm(x, y, z);
    }
}
// Float classification and sign: out[3i] = copysignf(a, b); out[3i+1] = the bits of a 0 / ~0 mask
// of a < b (set.lt.u32.f32); out[3i+2] = 1.0f if a > b or unordered, else 0.0f (set.gtu.f32.f32);
// cls[i] = isnan(a) | isinf(a) << 1 | isfinite(a) << 2 | signbit(a) << 3 | (testp.normal a) << 4
// | (testp.subnormal a) << 5 (the set and testp forms as inline PTX).
extern "C" __global__ void float_classify(const float* a, const float* b, float* out, unsigned* cls, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i], y = b[i];
        unsigned lt, normal, subnormal;
        float gtu;
        asm("set.lt.u32.f32 %0, %1, %2;" : "=r"(lt) : "f"(x), "f"(y));
        asm("set.gtu.f32.f32 %0, %1, %2;" : "=f"(gtu) : "f"(x), "f"(y));
        asm("{ .reg .pred p; testp.normal.f32 p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(normal) : "f"(x));
        asm("{ .reg .pred p; testp.subnormal.f32 p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(subnormal) : "f"(x));
        out[3 * i] = copysignf(x, y);
        out[3 * i + 1] = __uint_as_float(lt);
        out[3 * i + 2] = gtu;
        cls[i] = (unsigned)__isnanf(x) | (unsigned)__isinff(x) << 1 | (unsigned)__finitef(x) << 2 |
                 (unsigned)(__signbitf(x) != 0) << 3 | normal << 4 | subnormal << 5;
    }
}
