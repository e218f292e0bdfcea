// Atomics: atomicAdd on int, unsigned long long, float and double; atomicSub/Exch/Min/Max/And/
// Or/Xor; atomicInc/atomicDec wrap-around; atomicCAS loops for a float max, a double multiply and
// a 64-bit min; 16-bit atomicCAS (unsigned short); shared-memory atomics in a histogram; the
// _block and _system scoped variants.
#include <algorithm>
#include <vector>
#include "check.h"

__device__ float atomic_max_float(float *addr, float v) {
  int *p = reinterpret_cast<int *>(addr);
  int old = *p, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v) break;
    old = atomicCAS(p, assumed, __float_as_int(v));
  } while (assumed != old);
  return __int_as_float(old);
}
__device__ double atomic_mul_double(double *addr, double v) {
  unsigned long long *p = reinterpret_cast<unsigned long long *>(addr);
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, __double_as_longlong(__longlong_as_double(assumed) * v));
  } while (assumed != old);
  return __longlong_as_double(old);
}

struct Results {
  int i_add, i_sub, i_exch_count, i_min, i_max, i_and, i_or, i_xor;
  unsigned inc, dec;
  unsigned long long u64_add, u64_min, u64_max;
  float f_add, f_max;
  double d_add, d_mul;
  unsigned short u16;
  int exch;
  int block_scoped, system_scoped;
};

__global__ void atomics_kernel(Results *r, const int *vals, unsigned *hist) {
  __shared__ unsigned local_hist[16];
  if (threadIdx.x < 16) local_hist[threadIdx.x] = 0;
  __syncthreads();
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = vals[t];
  atomicAdd(&r->i_add, v);
  atomicSub(&r->i_sub, v);
  atomicMin(&r->i_min, v);
  atomicMax(&r->i_max, v);
  atomicAnd(&r->i_and, ~(1 << (t % 31)));
  atomicOr(&r->i_or, 1 << (t % 29));
  atomicXor(&r->i_xor, v);
  atomicInc(&r->inc, 99);   // counts 0..99 then wraps to 0
  atomicDec(&r->dec, 49);   // counts down, at 0 (or above 49) becomes 49
  atomicAdd(&r->u64_add, (unsigned long long)v * 1000000007ull);
  atomicMin(&r->u64_min, (unsigned long long)(v + 5000) << 32);
  atomicMax(&r->u64_max, (unsigned long long)(v + 5000) << 32);
  atomicAdd(&r->f_add, 0.25f);
  atomic_max_float(&r->f_max, float(v) * 0.5f);
  atomicAdd(&r->d_add, double(v) * 0.125);
  if (t < 20) atomic_mul_double(&r->d_mul, 1.5);
  // 16-bit CAS: every thread increments the halfword once
  unsigned short old = r->u16, assumed;
  do {
    assumed = old;
    old = atomicCAS(&r->u16, assumed, (unsigned short)(assumed + 1));
  } while (old != assumed);
  int prev = atomicExch(&r->exch, t);
  if (prev >= 0) atomicAdd(&r->i_exch_count, 1);
  atomicAdd_block(&r->block_scoped, 1);
  atomicAdd_system(&r->system_scoped, 2);
  atomicAdd(&local_hist[(v & 0xff) % 16], 1u);
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&hist[threadIdx.x], local_hist[threadIdx.x]);
}

int main() {
  const int blocks = 16, threads = 128, n = blocks * threads;
  unsigned seed = 77;
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = int(lcg(seed) % 4000) - 2000;
  Results init = {};
  init.i_min = 1 << 30;
  init.i_max = -(1 << 30);
  init.i_and = -1;
  init.dec = 0;
  init.u64_min = ~0ull;
  init.f_max = -1e30f;
  init.d_mul = 1.0;
  init.exch = -1;
  Results *dr;
  int *dv;
  unsigned *dh;
  CUDA(cudaMalloc(&dr, sizeof(Results)));
  CUDA(cudaMalloc(&dv, n * 4));
  CUDA(cudaMalloc(&dh, 16 * 4));
  CUDA(cudaMemset(dh, 0, 64));
  CUDA(cudaMemcpy(dr, &init, sizeof init, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(dv, v.data(), n * 4, cudaMemcpyHostToDevice));
  atomics_kernel<<<blocks, threads>>>(dr, dv, dh);
  CUDA(cudaDeviceSynchronize());
  Results r;
  unsigned hist[16];
  CUDA(cudaMemcpy(&r, dr, sizeof r, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(hist, dh, 64, cudaMemcpyDeviceToHost));
  long long sum = 0;
  int mn = 1 << 30, mx = -(1 << 30), x = 0, andm = -1, orm = 0;
  unsigned hh[16] = {};
  for (int t = 0; t < n; ++t) {
    sum += v[t];
    mn = std::min(mn, v[t]);
    mx = std::max(mx, v[t]);
    x ^= v[t];
    andm &= ~(1 << (t % 31));
    orm |= 1 << (t % 29);
    hh[(v[t] & 0xff) % 16]++;
  }
  CHECK(r.i_add == sum, "atomicAdd %d", r.i_add);
  CHECK(r.i_sub == -sum, "atomicSub %d", r.i_sub);
  CHECK(r.i_min == mn && r.i_max == mx, "atomicMin/Max %d %d", r.i_min, r.i_max);
  CHECK(r.i_and == andm && r.i_or == orm && r.i_xor == x, "and/or/xor %x %x %x", r.i_and, r.i_or, r.i_xor);
  CHECK(r.inc == unsigned(n % 100), "atomicInc %u vs %u", r.inc, unsigned(n % 100));
  // atomicDec: ((old == 0) | (old > 49)) ? 49 : old - 1, n times from 0
  unsigned dec = 0;
  for (int t = 0; t < n; ++t) dec = (dec == 0 || dec > 49) ? 49 : dec - 1;
  CHECK(r.dec == dec, "atomicDec %u vs %u", r.dec, dec);
  unsigned long long u = 0;
  for (int t = 0; t < n; ++t) u += (unsigned long long)v[t] * 1000000007ull;
  CHECK(r.u64_add == u, "u64 add");
  CHECK(r.u64_min == (unsigned long long)(mn + 5000) << 32 && r.u64_max == (unsigned long long)(mx + 5000) << 32,
        "u64 min/max");
  CHECK(r.f_add == 0.25f * n, "float add %g", r.f_add);
  CHECK(r.f_max == mx * 0.5f, "CAS float max %g", r.f_max);
  CHECK(r.d_add == sum * 0.125, "double add %.17g", r.d_add);
  double m = 1;
  for (int k = 0; k < 20; ++k) m *= 1.5;
  CHECK(r.d_mul == m, "CAS double mul %.17g vs %.17g", r.d_mul, m);
  CHECK(r.u16 == (unsigned short)n, "16-bit CAS %u", r.u16);
  CHECK(r.i_exch_count == n - 1 && r.exch >= 0 && r.exch < n, "exch %d %d", r.i_exch_count, r.exch);
  CHECK(r.block_scoped == n && r.system_scoped == 2 * n, "scoped %d %d", r.block_scoped, r.system_scoped);
  for (int b = 0; b < 16; ++b) CHECK(hist[b] == hh[b], "hist %d: %u vs %u", b, hist[b], hh[b]);
  return report("atomics");
}
