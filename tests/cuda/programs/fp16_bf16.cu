// cuda_fp16.h / cuda_bf16.h device arithmetic: half and half2 add/mul/fma (__hfma2, __hmul2),
// comparisons, conversions in both directions with rounding (__float2half_rn, __float2half_rz,
// __half2float, __float22half2_rn, __floats2bfloat162_rn), bf16 math and h2 math functions.
// The host computes the same operations through the headers' host code (the conversions are
// host-callable) and IEEE float arithmetic rounded once to half, which is what a fused op gives.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cmath>
#include <vector>
#include "check.h"

__global__ void half_kernel(const float *a, const float *b, const float *c, __half *h_out,
                            __nv_bfloat16 *b_out, float *f_out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half ha = __float2half_rn(a[i]), hb = __float2half_rn(b[i]), hc = __float2half_rn(c[i]);
  h_out[8 * i + 0] = __hadd(ha, hb);
  h_out[8 * i + 1] = __hmul(ha, hb);
  h_out[8 * i + 2] = __hfma(ha, hb, hc);
  h_out[8 * i + 3] = __float2half_rz(a[i] * 3.0f);
  __half2 x = __halves2half2(ha, hb), y = __halves2half2(hc, ha);
  __half2 z = __hfma2(x, y, __float2half2_rn(0.5f));
  h_out[8 * i + 4] = __low2half(z);
  h_out[8 * i + 5] = __high2half(__hmul2(x, y));
  h_out[8 * i + 6] = __hmax(ha, hb);
  h_out[8 * i + 7] = __hlt(ha, hb) ? hc : __hneg(hc);
  __nv_bfloat16 ba = __float2bfloat16_rn(a[i]), bb = __float2bfloat16_rn(b[i]);
  b_out[4 * i + 0] = __hadd(ba, bb);
  b_out[4 * i + 1] = __hmul(ba, bb);
  __nv_bfloat162 p = __floats2bfloat162_rn(a[i], b[i]);
  __nv_bfloat162 q = __hfma2(p, p, p);
  b_out[4 * i + 2] = __low2bfloat16(q);
  b_out[4 * i + 3] = __high2bfloat16(q);
  f_out[3 * i + 0] = __half2float(ha) + __bfloat162float(bb);
  float2 f2 = __half22float2(z);
  f_out[3 * i + 1] = f2.x - f2.y;
  f_out[3 * i + 2] = __half2float(hsqrt(__habs(ha)));
}

int main() {
  const int n = 512;
  unsigned seed = 99;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = float(int(lcg(seed) % 20000) - 10000) / 997.0f;
    b[i] = float(int(lcg(seed) % 20000) - 10000) / 1231.0f;
    c[i] = float(int(lcg(seed) % 2000) - 1000) / 33.0f;
  }
  float *da, *db, *dc, *df;
  __half *dh;
  __nv_bfloat16 *dbf;
  CUDA(cudaMalloc(&da, n * 4));
  CUDA(cudaMalloc(&db, n * 4));
  CUDA(cudaMalloc(&dc, n * 4));
  CUDA(cudaMalloc(&dh, 8 * n * 2));
  CUDA(cudaMalloc(&dbf, 4 * n * 2));
  CUDA(cudaMalloc(&df, 3 * n * 4));
  CUDA(cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(db, b.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(dc, c.data(), n * 4, cudaMemcpyHostToDevice));
  half_kernel<<<(n + 127) / 128, 128>>>(da, db, dc, dh, dbf, df, n);
  CUDA(cudaDeviceSynchronize());
  std::vector<__half> gh(8 * n);
  std::vector<__nv_bfloat16> gb(4 * n);
  std::vector<float> gf(3 * n);
  CUDA(cudaMemcpy(gh.data(), dh, 8 * n * 2, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(gb.data(), dbf, 4 * n * 2, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(gf.data(), df, 3 * n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    // host: values through the headers' host conversions; a single rounding of the exact
    // result (float holds half*half exactly, and a+b of halves exactly; the fma in double)
    float fa = __half2float(__float2half_rn(a[i])), fb = __half2float(__float2half_rn(b[i])),
          fc = __half2float(__float2half_rn(c[i]));
    float want[8];
    want[0] = __half2float(__float2half_rn(fa + fb));
    want[1] = __half2float(__float2half_rn(fa * fb));
    want[2] = __half2float(__double2half(double(fa) * fb + fc));
    want[3] = __half2float(__float2half_rz(a[i] * 3.0f));
    float z_lo = __half2float(__double2half(double(fa) * fc + 0.5));
    float z_hi = __half2float(__double2half(double(fb) * fa + 0.5));
    want[4] = z_lo;
    want[5] = __half2float(__float2half_rn(fb * fa));
    want[6] = fa > fb ? fa : fb;
    want[7] = fa < fb ? fc : -fc;
    for (int k = 0; k < 8; ++k)
      CHECK(__half2float(gh[8 * i + k]) == want[k], "half op %d of %d: %g vs %g", k, i,
            __half2float(gh[8 * i + k]), want[k]);
    float ba = __bfloat162float(__float2bfloat16_rn(a[i])), bb = __bfloat162float(__float2bfloat16_rn(b[i]));
    float wb[4] = {__bfloat162float(__float2bfloat16_rn(ba + bb)),
                   __bfloat162float(__float2bfloat16_rn(ba * bb)),
                   __bfloat162float(__double2bfloat16(double(ba) * ba + ba)),
                   __bfloat162float(__double2bfloat16(double(bb) * bb + bb))};
    for (int k = 0; k < 4; ++k)
      CHECK(__bfloat162float(gb[4 * i + k]) == wb[k], "bf16 op %d of %d: %g vs %g", k, i,
            __bfloat162float(gb[4 * i + k]), wb[k]);
    CHECK(gf[3 * i + 0] == fa + bb, "mixed sum %d", i);
    CHECK(gf[3 * i + 1] == z_lo - z_hi, "half2 to float2 %d: %g vs %g", i, gf[3 * i + 1], z_lo - z_hi);
    float sq = __half2float(__float2half_rn(std::sqrt(std::fabs(fa))));
    CHECK(close_to(gf[3 * i + 2], sq, 1e-3), "hsqrt %d: %g vs %g", i, gf[3 * i + 2], sq);
  }
  return report("fp16_bf16");
}
