// The atomics sm_60 to sm_90 added, as mixed-precision and graphics code uses them: atomicAdd
// on __half, __half2 and __nv_bfloat162 (red/atom .f16x2 / .bf16x2), sm_90's vector float
// atomics (atomicAdd on float2 and float4, and their _block forms), 64-bit signed and unsigned
// atomicMin/atomicMax, atomicExch on float and 64-bit, atomicAnd/Or/Xor on 64-bit, and float
// atomicAdd in shared memory. Every addend is a small integer (or a multiple of 1/4), so every
// order of the additions gives the same exact result, which the host computes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstring>
#include <vector>
#include "check.h"

constexpr int THREADS = 256, BLOCKS = 8, N = THREADS * BLOCKS;

struct Out {
  __half2 h2[4];
  __half h[4];
  __nv_bfloat162 b2[4];
  float2 f2[4];
  float4 f4[4];
  long long smin, smax;
  unsigned long long umin, umax, uand, uor, uxor;
  float shared_sum[BLOCKS];
  float exch;
  unsigned long long exch64;
};

__global__ void atomics(Out *o) {
  __shared__ float block_sum;
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) block_sum = 0.0f;
  __syncthreads();
  int k = t & 3;
  atomicAdd(&o->h2[k], __halves2half2(__int2half_rn(t % 5 - 2), __int2half_rn(t % 3)));
  atomicAdd(&o->h[k], __int2half_rn(t % 7 - 3));
  if (t < 128) atomicAdd(&o->b2[k], __floats2bfloat162_rn(float(t % 4), float(-(t % 6))));
  atomicAdd(&o->f2[k], make_float2(0.25f * (t % 9), -1.0f));
  atomicAdd_block(&o->f4[k], make_float4(1.0f, float(t % 2), 0.5f * (t % 4), float(t % 11) - 5.0f));
  long long s = (long long)(t * 7919 % 1000003) - 500000;
  atomicMin(&o->smin, s);
  atomicMax(&o->smax, s);
  unsigned long long u = 0x9e3779b97f4a7c15ull * (unsigned long long)(t + 1);
  atomicMin(&o->umin, u);
  atomicMax(&o->umax, u);
  atomicAnd(&o->uand, u | 0x0f0f0f0f0f0f0f0full);
  atomicOr(&o->uor, u & 0x00ff00ff00ff00ffull);
  atomicXor(&o->uxor, u);
  atomicAdd(&block_sum, 0.5f * (threadIdx.x % 8));
  __syncthreads();
  if (threadIdx.x == 0) o->shared_sum[blockIdx.x] = block_sum;
  if (t == N - 1) {
    float old = atomicExch(&o->exch, 2.5f);
    unsigned long long old64 = atomicExch(&o->exch64, 77ull);
    o->exch += old;  // 2.5 + the initial 1.5
    o->exch64 += old64;
  }
}

int main() {
  Out init;
  std::memset(&init, 0, sizeof init);
  init.smin = (1ll << 62), init.smax = -(1ll << 62);
  init.umin = ~0ull, init.umax = 0, init.uand = ~0ull, init.uor = 0, init.uxor = 0;
  init.exch = 1.5f, init.exch64 = 5;
  Out *d;
  CUDA(cudaMalloc(&d, sizeof(Out)));
  CUDA(cudaMemcpy(d, &init, sizeof init, cudaMemcpyHostToDevice));
  atomics<<<BLOCKS, THREADS>>>(d);
  CUDA(cudaGetLastError());
  Out got;
  CUDA(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost));
  double h2[4][2] = {}, h[4] = {}, b2[4][2] = {}, f2[4][2] = {}, f4[4][4] = {};
  long long smin = init.smin, smax = init.smax;
  unsigned long long umin = ~0ull, umax = 0, uand = ~0ull, uor = 0, uxor = 0;
  for (int t = 0; t < N; ++t) {
    int k = t & 3;
    h2[k][0] += t % 5 - 2, h2[k][1] += t % 3;
    h[k] += t % 7 - 3;
    if (t < 128) b2[k][0] += t % 4, b2[k][1] -= t % 6;
    f2[k][0] += 0.25 * (t % 9), f2[k][1] -= 1.0;
    f4[k][0] += 1.0, f4[k][1] += t % 2, f4[k][2] += 0.5 * (t % 4), f4[k][3] += t % 11 - 5.0;
    long long s = (long long)(t * 7919 % 1000003) - 500000;
    smin = std::min(smin, s), smax = std::max(smax, s);
    unsigned long long u = 0x9e3779b97f4a7c15ull * (unsigned long long)(t + 1);
    umin = std::min(umin, u), umax = std::max(umax, u);
    uand &= u | 0x0f0f0f0f0f0f0f0full, uor |= u & 0x00ff00ff00ff00ffull, uxor ^= u;
  }
  for (int k = 0; k < 4; ++k) {
    // every partial sum is an integer below 2048 in magnitude (exact in half), below 256 for
    // bf16 (128 threads only)
    CHECK(__low2float(got.h2[k]) == h2[k][0] && __high2float(got.h2[k]) == h2[k][1], "half2[%d] (%g, %g) vs (%g, %g)", k,
          __low2float(got.h2[k]), __high2float(got.h2[k]), h2[k][0], h2[k][1]);
    CHECK(__half2float(got.h[k]) == h[k], "half[%d] %g vs %g", k, __half2float(got.h[k]), h[k]);
    CHECK(__low2float(got.b2[k]) == b2[k][0] && __high2float(got.b2[k]) == b2[k][1], "bf162[%d] (%g, %g) vs (%g, %g)", k,
          __low2float(got.b2[k]), __high2float(got.b2[k]), b2[k][0], b2[k][1]);
    CHECK(got.f2[k].x == f2[k][0] && got.f2[k].y == f2[k][1], "float2[%d] (%g, %g) vs (%g, %g)", k, got.f2[k].x, got.f2[k].y,
          f2[k][0], f2[k][1]);
    CHECK(got.f4[k].x == f4[k][0] && got.f4[k].y == f4[k][1] && got.f4[k].z == f4[k][2] && got.f4[k].w == f4[k][3],
          "float4[%d] (%g, %g, %g, %g)", k, got.f4[k].x, got.f4[k].y, got.f4[k].z, got.f4[k].w);
  }
  CHECK(got.smin == smin && got.smax == smax, "signed 64-bit min %lld max %lld", got.smin, got.smax);
  CHECK(got.umin == umin && got.umax == umax, "unsigned 64-bit min/max");
  CHECK(got.uand == uand && got.uor == uor && got.uxor == uxor, "64-bit and/or/xor");
  double block = 0;
  for (int i = 0; i < THREADS; ++i) block += 0.5 * (i % 8);
  for (int b = 0; b < BLOCKS; ++b) CHECK(got.shared_sum[b] == block, "shared float sum of block %d: %g vs %g", b, got.shared_sum[b], block);
  CHECK(got.exch == 4.0f && got.exch64 == 82ull, "exchanges %g %llu", got.exch, got.exch64);
  return report("atomics_sm90");
}
