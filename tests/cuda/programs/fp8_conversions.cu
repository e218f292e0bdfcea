// The 8-bit floating-point types of cuda_fp8.h (Hopper's E4M3 and E5M2): __nv_fp8_e4m3 /
// __nv_fp8_e5m2 constructed from float, with and without saturation (__nv_cvt_float_to_fp8,
// __NV_SATFINITE / __NV_NOSAT), pairs (__nv_cvt_float2_to_fp8x2, __nv_fp8x2_e4m3), conversions
// back to half pairs (__nv_cvt_fp8x2_to_halfraw2) and float, and from bfloat16 and double, over
// 4,000 values including halfway cases, subnormals, overflow, infinities and NaN. On sm_90 these
// are cvt.*.e4m3x2 / e5m2x2 instructions; the reference is the header's own host code (its
// software conversion), run on the host.
#include <cuda_fp8.h>
#include <cuda_bf16.h>
#include <cstring>
#include <vector>
#include "check.h"

constexpr int K = 8;  // results per input

// The conversions of one value (and its neighbour, for the pair ones): on the device the
// sm_90 instructions, on the host the header's software conversions.
__host__ __device__ void conversions(float v, float w, unsigned short *o) {
  o[0] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
  o[1] = __nv_cvt_float_to_fp8(v, __NV_NOSAT, __NV_E4M3);
  o[2] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E5M2);
  o[3] = __nv_cvt_float_to_fp8(v, __NV_NOSAT, __NV_E5M2);
  o[4] = __nv_cvt_float2_to_fp8x2(make_float2(v, w), __NV_SATFINITE, __NV_E4M3);
  __half_raw h = __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t(o[2]), __NV_E5M2);
  o[5] = h.x;
  __half2_raw h2 = __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t(o[4]), __NV_E4M3);
  o[6] = h2.x ^ h2.y;
  __nv_bfloat16 b = __float2bfloat16(v);
  o[7] = __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw(b), __NV_SATFINITE, __NV_E4M3) |
         (__nv_cvt_double_to_fp8(double(v) * 3.0, __NV_SATFINITE, __NV_E5M2) << 8);
}

__global__ void convert(const float *x, unsigned short *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) conversions(x[i], x[(i + 1) % n], out + K * i);
}

__global__ void classes(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_fp8_e4m3 a(x[i]);
  __nv_fp8_e5m2 b(x[i]);
  __nv_fp8x2_e4m3 pair(make_float2(x[i], -x[i]));
  float2 back = float2(pair);
  out[3 * i] = float(a);
  out[3 * i + 1] = float(b);
  out[3 * i + 2] = back.x + back.y;
}

int main() {
  std::vector<float> x;
  unsigned s = 8;
  // the E4M3 grid around 1 (step 1/8) and its halfway points, subnormals, large values
  for (int k = -64; k <= 64; ++k) x.push_back(1.0f + k / 16.0f), x.push_back(-(1.0f + k / 16.0f));
  for (int e = -12; e <= 18; ++e)
    for (int m = 0; m < 16; ++m) x.push_back(std::ldexp(1.0f + m / 16.0f, e)), x.push_back(-std::ldexp(1.0f + m / 32.0f, e));
  x.push_back(448.0f), x.push_back(464.0f), x.push_back(480.0f), x.push_back(57344.0f), x.push_back(61440.0f);
  x.push_back(1e6f), x.push_back(-1e6f), x.push_back(INFINITY), x.push_back(-INFINITY), x.push_back(NAN);
  x.push_back(0.0f), x.push_back(-0.0f), x.push_back(std::ldexp(1.0f, -9)), x.push_back(std::ldexp(1.0f, -10)), x.push_back(std::ldexp(3.0f, -11));
  while (x.size() < 4000) {
    unsigned bits = lcg(s);
    float f;
    bits = (bits & 0x807fffffu) | ((100u + (bits >> 23) % 60u) << 23);  // exponents around fp8's range
    std::memcpy(&f, &bits, 4);
    x.push_back(f);
  }
  int n = int(x.size());
  float *dx, *dcl;
  unsigned short *dout;
  CUDA(cudaMalloc(&dx, n * 4));
  CUDA(cudaMalloc(&dout, n * K * 2));
  CUDA(cudaMalloc(&dcl, n * 3 * 4));
  CUDA(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
  convert<<<(n + 127) / 128, 128>>>(dx, dout, n);
  CUDA(cudaGetLastError());
  classes<<<(n + 127) / 128, 128>>>(dx, dcl, n);
  CUDA(cudaGetLastError());
  std::vector<unsigned short> out(n * K);
  std::vector<float> cl(n * 3);
  CUDA(cudaMemcpy(out.data(), dout, out.size() * 2, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(cl.data(), dcl, cl.size() * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    float v = x[i], w = x[(i + 1) % n];
    unsigned short want[K];
    conversions(v, w, want);
    for (int k = 0; k < K; ++k)
      CHECK(out[K * i + k] == want[k], "value %d (%a) result %d: %04x vs %04x", i, v, k, out[K * i + k], want[k]);
    __nv_fp8_e4m3 a(v);
    __nv_fp8_e5m2 bb(v);
    __nv_fp8x2_e4m3 pair(make_float2(v, -v));
    float2 back = float2(pair);
    float wc[3] = {float(a), float(bb), back.x + back.y};
    for (int k = 0; k < 3; ++k) {
      bool same = std::isnan(wc[k]) ? std::isnan(cl[3 * i + k]) : cl[3 * i + k] == wc[k];
      CHECK(same, "value %d (%a) class op %d: %a vs %a", i, v, k, cl[3 * i + k], wc[k]);
    }
  }
  return report("fp8_conversions");
}
