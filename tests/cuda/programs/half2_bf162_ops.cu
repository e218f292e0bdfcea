// __half2 and __nv_bfloat162 arithmetic, saturation, NaN-propagating min/max, comparisons (the
// bool, __half2 and mask forms, ordered and unordered), and integer/float conversions in every
// rounding mode: each function the headers define for both host and device is applied by the
// same __host__ __device__ code on both sides, so cuda_fp16.hpp/cuda_bf16.hpp's host
// implementations are the reference. Device-only ones (__half2int_rd ..., h2floor/h2ceil,
// __hfma2_sat/__hfma2_relu, h2sqrt) are checked against float/double computations.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include <cstring>
#include <vector>
#include "check.h"

constexpr int OPS = 18, CONVS = 16;

template <typename T2> __host__ __device__ unsigned bits(T2 v) {
  unsigned u;
  memcpy(&u, &v, 4);
  return u;
}
__host__ __device__ unsigned lows(__half2 a, __half2 b) { return bits(__lows2half2(a, b)); }
__host__ __device__ unsigned lows(__nv_bfloat162 a, __nv_bfloat162 b) { return bits(__lows2bfloat162(a, b)); }

// Operation `op` on the pairs a and b: its 32 bits.
template <typename T2> __host__ __device__ unsigned apply(int op, T2 a, T2 b) {
  switch (op) {
  case 0: return bits(__hadd2_sat(a, b));
  case 1: return bits(__hsub2_sat(a, b));
  case 2: return bits(__hmul2_sat(a, b));
  case 3: return bits(__h2div(a, b));
  case 4: return bits(__hmax2_nan(a, b));
  case 5: return bits(__hmin2_nan(a, b));
  case 6: return bits(__hmax2(a, b));
  case 7: return bits(__hmin2(a, b));
  case 8: return __hlt2_mask(a, b) ^ (__hgeu2_mask(a, b) << 1);
  case 9: return __hequ2_mask(a, b) ^ __hne2_mask(a, b) ^ (__hgt2_mask(a, b) >> 3);
  case 10: return bits(__hleu2(a, b));
  case 11: return bits(__hneu2(a, b));
  case 12:
    return unsigned(__hbgtu2(a, b)) | unsigned(__hble2(a, b)) << 1 | unsigned(__hbequ2(a, b)) << 2 |
           unsigned(__hbne2(a, b)) << 3 | unsigned(__hbltu2(a, b)) << 4;
  case 13: return bits(__hisnan2(a));
  case 14: return bits(__hadd2_rn(a, b)) ^ bits(__hmul2_rn(a, b));
  case 15: return lows(a, b);
  case 16: return bits(__habs2(a)) ^ bits(__hneg2(b));
  case 17: return bits(__lowhigh2highlow(a));
  default: return 0;
  }
}

// Conversion `op` of the integers/floats to half (low 16 bits) and bf16 (high 16 bits).
__host__ __device__ unsigned convert(int op, int i, long long l, unsigned short us, float f) {
  __half h;
  __nv_bfloat16 b = __float2bfloat16_rn(0.0f);
  switch (op) {
  case 0: h = __int2half_rz(i); b = __float2bfloat16_rz(f); break;
  case 1: h = __int2half_rd(i); b = __float2bfloat16_rd(f); break;
  case 2: h = __int2half_ru(i); b = __float2bfloat16_ru(f); break;
  case 3: h = __ll2half_rz(l); break;
  case 4: h = __ll2half_rd(l); break;
  case 5: h = __ll2half_ru(l); break;
  case 6: h = __ushort2half_rd(us); break;
  case 7: h = __ushort2half_ru(us); break;
  case 8: h = __uint2half_rz(unsigned(i)); break;
  case 9: h = __ull2half_ru((unsigned long long)l); break;
  case 10: h = __short2half_rd(short(i)); break;
  case 11: h = __float2half_rz(f); break;
  case 12: h = __float2half_rd(f); break;
  case 13: h = __float2half_ru(f); break;
  case 14: { __half2 p = __floats2half2_rn(f, -f); h = __high2half(p); break; }
  default: { __nv_bfloat162 p = __floats2bfloat162_rn(f, f * 3.0f); h = __float2half_rn(__high2float(p)); b = __low2bfloat16(p); }
  }
  unsigned short hb, bb;
  memcpy(&hb, &h, 2);
  memcpy(&bb, &b, 2);
  return hb | unsigned(bb) << 16;
}

struct DeviceOnly {
  int i_rd, i_ru, i_rn;
  long long ll_rd, ll_ru;
  unsigned short us_rn, us_ru;
  short s_rd;
  __half2 floor2, ceil2, trunc2, rint2, fma_sat, fma_relu, sqrt2;
  __nv_bfloat162 bfma;
};

__global__ void half_kernel(const __half2 *a, const __half2 *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int op = 0; op < OPS; ++op) out[i * OPS + op] = apply(op, a[i], b[i]);
}
__global__ void bf16_kernel(const __nv_bfloat162 *a, const __nv_bfloat162 *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int op = 0; op < OPS; ++op) out[i * OPS + op] = apply(op, a[i], b[i]);
}
__global__ void conv_kernel(const int *ii, const long long *ll, const float *ff, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int op = 0; op < CONVS; ++op)
      out[i * CONVS + op] = convert(op, ii[i], ll[i], (unsigned short)ii[i], ff[i]);
}
__global__ void device_only(const __half2 *a, const __half2 *b, const __half2 *c,
                            const __nv_bfloat162 *x, DeviceOnly *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half h = __low2half(a[i]);
  DeviceOnly d;
  d.i_rd = __half2int_rd(h); d.i_ru = __half2int_ru(h); d.i_rn = __half2int_rn(h);
  d.ll_rd = __half2ll_rd(h); d.ll_ru = __half2ll_ru(h);
  d.us_rn = __half2ushort_rn(h); d.us_ru = __half2ushort_ru(h); d.s_rd = __half2short_rd(h);
  d.floor2 = h2floor(a[i]); d.ceil2 = h2ceil(a[i]); d.trunc2 = h2trunc(a[i]); d.rint2 = h2rint(a[i]);
  d.fma_sat = __hfma2_sat(a[i], b[i], c[i]);
  d.fma_relu = __hfma2_relu(a[i], b[i], c[i]);
  d.sqrt2 = h2sqrt(__habs2(a[i]));
  d.bfma = __hfma2(x[i], x[(i + 1) % n], x[(i + 2) % n]);
  out[i] = d;
}

static float hf(__half h) { return __half2float(h); }
static bool same_half(__half a, __half b) {
  unsigned short x, y;
  memcpy(&x, &a, 2); memcpy(&y, &b, 2);
  return x == y || (std::isnan(hf(a)) && std::isnan(hf(b)));
}
// cvt's float-to-integer: clamped; NaN is 0, or 1 << 63 for a 64-bit destination (PTX ISA).
template <typename T> static T sat_int(double v) {
  if (std::isnan(v)) return sizeof(T) == 8 ? T(1ull << 63) : T(0);
  if (v <= (double)std::numeric_limits<T>::min()) return std::numeric_limits<T>::min();
  if (v >= (double)std::numeric_limits<T>::max()) return std::numeric_limits<T>::max();
  return (T)v;
}

int main() {
  const int n = 2048;
  unsigned seed = 99;
  std::vector<__half2> ha(n), hb(n), hc(n);
  std::vector<__nv_bfloat162> ba(n), bb(n), bc(n);
  std::vector<int> ii(n);
  std::vector<long long> ll(n);
  std::vector<float> ff(n);
  const unsigned short special[] = {0x7c00, 0xfc00, 0x7e00, 0x0000, 0x8000, 0x0001, 0x7bff, 0x3c00};
  for (int i = 0; i < n; ++i) {
    unsigned r1 = lcg(seed), r2 = lcg(seed);
    // halves of moderate magnitude (exponent field 8..22), specials now and then
    auto mk = [&](unsigned r) -> unsigned short {
      if (r % 17 == 0) return special[(r >> 5) % 8];
      return (unsigned short)((r & 0x8000) | ((8 + (r >> 16) % 15) << 10) | (r >> 3 & 0x3ff));
    };
    unsigned short a0 = mk(r1), a1 = mk(r1 >> 7 | r2 << 25), b0 = mk(r2), b1 = mk(r2 * 31 + 5);
    unsigned wa = a0 | unsigned(a1) << 16, wb = b0 | unsigned(b1) << 16;
    memcpy(&ha[i], &wa, 4); memcpy(&hb[i], &wb, 4);
    unsigned wc = mk(lcg(seed)) | unsigned(mk(lcg(seed))) << 16;
    memcpy(&hc[i], &wc, 4);
    unsigned xa = lcg(seed), xb = lcg(seed);
    if (i % 23 == 0) xa = 0x7fc07f80;  // NaN and +inf
    memcpy(&ba[i], &xa, 4); memcpy(&bb[i], &xb, 4);
    // bf16 of exponents 2^-7 .. 2^7 for the fma, whose a*b+c is then exact in double
    auto mb = [&](unsigned r) { return (r & 0x807f) | ((120 + (r >> 8) % 15) << 7); };
    unsigned xc = mb(lcg(seed)) | mb(lcg(seed)) << 16;
    memcpy(&bc[i], &xc, 4);
    ii[i] = int(lcg(seed)) >> (lcg(seed) % 28);
    ll[i] = (long long)(((unsigned long long)lcg(seed) << 32) | lcg(seed)) >> (lcg(seed) % 60);
    unsigned fb = lcg(seed);
    fb = (fb & 0x807fffff) | ((100 + (fb >> 23) % 60) << 23);  // exponents 2^-27 .. 2^32
    memcpy(&ff[i], &fb, 4);
  }
  __half2 *ga, *gb, *gc;
  __nv_bfloat162 *gba, *gbb, *gbc;
  int *gi; long long *gl; float *gf;
  unsigned *gho, *gbo, *gco;
  DeviceOnly *gd;
  CUDA(cudaMalloc(&ga, n * 4)); CUDA(cudaMalloc(&gb, n * 4)); CUDA(cudaMalloc(&gc, n * 4));
  CUDA(cudaMalloc(&gba, n * 4)); CUDA(cudaMalloc(&gbb, n * 4)); CUDA(cudaMalloc(&gbc, n * 4));
  CUDA(cudaMalloc(&gi, n * 4)); CUDA(cudaMalloc(&gl, n * 8)); CUDA(cudaMalloc(&gf, n * 4));
  CUDA(cudaMalloc(&gho, n * OPS * 4)); CUDA(cudaMalloc(&gbo, n * OPS * 4));
  CUDA(cudaMalloc(&gco, n * CONVS * 4)); CUDA(cudaMalloc(&gd, n * sizeof(DeviceOnly)));
  CUDA(cudaMemcpy(ga, ha.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gb, hb.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gc, hc.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gba, ba.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gbb, bb.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gbc, bc.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gi, ii.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gl, ll.data(), n * 8, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gf, ff.data(), n * 4, cudaMemcpyHostToDevice));
  half_kernel<<<n / 128, 128>>>(ga, gb, gho, n);
  bf16_kernel<<<n / 128, 128>>>(gba, gbb, gbo, n);
  conv_kernel<<<n / 128, 128>>>(gi, gl, gf, gco, n);
  device_only<<<n / 128, 128>>>(ga, gb, gc, gbc, gd, n);
  CUDA(cudaGetLastError());
  CUDA(cudaDeviceSynchronize());
  std::vector<unsigned> ho(n * OPS), bo(n * OPS), co(n * CONVS);
  std::vector<DeviceOnly> dev(n);
  CUDA(cudaMemcpy(ho.data(), gho, ho.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(bo.data(), gbo, bo.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(co.data(), gco, co.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(dev.data(), gd, n * sizeof(DeviceOnly), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    for (int op = 0; op < OPS; ++op) {
      unsigned want = apply(op, ha[i], hb[i]);
      CHECK(ho[i * OPS + op] == want, "half2 op %d (%08x, %08x): %08x, want %08x", op, bits(ha[i]),
            bits(hb[i]), ho[i * OPS + op], want);
      want = apply(op, ba[i], bb[i]);
      CHECK(bo[i * OPS + op] == want, "bfloat162 op %d (%08x, %08x): %08x, want %08x", op, bits(ba[i]),
            bits(bb[i]), bo[i * OPS + op], want);
    }
    for (int op = 0; op < CONVS; ++op) {
      unsigned want = convert(op, ii[i], ll[i], (unsigned short)ii[i], ff[i]);
      CHECK(co[i * CONVS + op] == want, "conversion %d (%d, %lld, %a): %08x, want %08x", op, ii[i], ll[i],
            (double)ff[i], co[i * CONVS + op], want);
    }
    const DeviceOnly &d = dev[i];
    double h = hf(__low2half(ha[i]));
    CHECK(d.i_rd == sat_int<int>(std::floor(h)) && d.i_ru == sat_int<int>(std::ceil(h)) &&
              d.i_rn == sat_int<int>(std::nearbyint(h)),
          "half2int %g: %d %d %d", h, d.i_rd, d.i_ru, d.i_rn);
    CHECK(d.ll_rd == sat_int<long long>(std::floor(h)) && d.ll_ru == sat_int<long long>(std::ceil(h)),
          "half2ll %g: %lld %lld", h, d.ll_rd, d.ll_ru);
    CHECK(d.us_rn == sat_int<unsigned short>(std::nearbyint(h)) && d.us_ru == sat_int<unsigned short>(std::ceil(h)) &&
              d.s_rd == sat_int<short>(std::floor(h)),
          "half2ushort/short %g: %u %u %d", h, d.us_rn, d.us_ru, d.s_rd);
    for (int lane = 0; lane < 2; ++lane) {
      auto pick = [&](__half2 v) { return lane ? __high2half(v) : __low2half(v); };
      double x = hf(pick(ha[i])), y = hf(pick(hb[i])), z = hf(pick(hc[i]));
      CHECK(same_half(pick(d.floor2), __double2half(std::floor(x))), "h2floor %g", x);
      CHECK(same_half(pick(d.ceil2), __double2half(std::ceil(x))), "h2ceil %g", x);
      CHECK(same_half(pick(d.trunc2), __double2half(std::trunc(x))), "h2trunc %g", x);
      CHECK(same_half(pick(d.rint2), __double2half(std::nearbyint(x))), "h2rint %g", x);
      // halves of exponent 8..22 or specials: x*y+z is exact in double, one rounding to half
      double f = x * y + z;
      __half r = __double2half(f);
      double rf = hf(r);
      // .sat: "NaN results are flushed to +0.0" (PTX ISA, half-precision fma)
      __half sat = std::isnan(rf) ? __double2half(0.0) : __double2half(std::fmin(std::fmax(rf, 0.0), 1.0));
      CHECK(same_half(pick(d.fma_sat), sat), "hfma2_sat %g*%g+%g: %g", x, y, z, hf(pick(d.fma_sat)));
      __half relu = std::isnan(rf) ? __double2half(NAN) : (rf < 0 ? __double2half(0.0) : r);
      CHECK(same_half(pick(d.fma_relu), relu), "hfma2_relu %g*%g+%g: %g", x, y, z, hf(pick(d.fma_relu)));
      double s = std::sqrt(std::fabs(x));
      double got = hf(pick(d.sqrt2));
      CHECK(close_to(got, s, 1.0 / 1024), "h2sqrt %g: %g", x, got);
    }
    // bf16 fma: one rounding of the exact a*b+c
    for (int lane = 0; lane < 2; ++lane) {
      auto pick = [&](__nv_bfloat162 v) { return lane ? __high2float(v) : __low2float(v); };
      double x = pick(bc[i]), y = pick(bc[(i + 1) % n]), z = pick(bc[(i + 2) % n]);
      double f = x * y + z;
      float want = __bfloat162float(__double2bfloat16(f));
      float got = pick(d.bfma);
      CHECK(want == got, "bf16 hfma2 %g*%g+%g: %g, want %g", x, y, z, got, want);
    }
  }
  return report("half2_bf162_ops");
}
