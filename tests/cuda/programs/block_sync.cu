// Block-level cooperation in the classic styles: __syncthreads_count/_and/_or as block votes,
// a work-efficient (Blelloch) exclusive scan in dynamic shared memory with the bank-conflict
// padding of GPU Gems 3 ch. 39, dynamic shared memory carved into arrays of several types, the
// "last block" reduction with __threadfence and an atomic ticket (cuda-samples
// threadFenceReduction), Harris's templated reduction with the warp-synchronous tail written
// with volatile shared memory and no __syncwarp, as pre-Volta code (and the CUDA 8 samples) do
// it: a converged warp runs it in lock step, and a __syncthreads inside a loop whose trip count
// is uniform per block but differs between blocks.
#include <vector>
#include "check.h"

__global__ void votes(const int *in, int *out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  int count = __syncthreads_count(v > 0);
  int all = __syncthreads_and(v > -5);
  int any = __syncthreads_or(v == 42);
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x] = count;
    out[3 * blockIdx.x + 1] = all;
    out[3 * blockIdx.x + 2] = any;
  }
}

#define LOG_BANKS 5
#define PAD(i) ((i) >> LOG_BANKS)
__global__ void blelloch(const int *in, int *out, int n) {
  extern __shared__ int temp[];  // n + n / 32 ints
  int t = threadIdx.x;
  int ai = t, bi = t + n / 2;
  temp[ai + PAD(ai)] = in[blockIdx.x * n + ai];
  temp[bi + PAD(bi)] = in[blockIdx.x * n + bi];
  int offset = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
      temp[b + PAD(b)] += temp[a + PAD(a)];
    }
    offset *= 2;
  }
  if (t == 0) temp[n - 1 + PAD(n - 1)] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
      int x = temp[a + PAD(a)];
      temp[a + PAD(a)] = temp[b + PAD(b)];
      temp[b + PAD(b)] += x;
    }
  }
  __syncthreads();
  out[blockIdx.x * n + ai] = temp[ai + PAD(ai)];
  out[blockIdx.x * n + bi] = temp[bi + PAD(bi)];
}

// one dynamic allocation holding a double array, a float array and a char array
__global__ void carve(const double *d, double *out, int n) {
  extern __shared__ __align__(16) unsigned char smem[];
  double *sd = reinterpret_cast<double *>(smem);
  float *sf = reinterpret_cast<float *>(sd + n);
  char *sc = reinterpret_cast<char *>(sf + n);
  int t = threadIdx.x;
  sd[t] = d[t];
  sf[t] = float(d[t]) * 2.0f;
  sc[t] = char(t & 0x7f);
  __syncthreads();
  int r = n - 1 - t;
  out[t] = sd[r] + double(sf[(t + 1) % n]) + double(sc[r]);
}

__device__ unsigned int tickets = 0;
__global__ void fence_reduce(const float *in, int n, float *partial, float *result) {
  __shared__ float s[256];
  __shared__ bool last;
  float sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  s[threadIdx.x] = sum;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    unsigned ticket = atomicInc(&tickets, gridDim.x);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (last) {
    float x = 0;
    for (int i = threadIdx.x; i < gridDim.x; i += blockDim.x) x += partial[i];
    s[threadIdx.x] = x;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
      if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      *result = s[0];
      tickets = 0;
    }
  }
}

template <unsigned BLOCK>
__device__ void warp_reduce(volatile int *s, unsigned t) {
  if (BLOCK >= 64) s[t] += s[t + 32];
  if (BLOCK >= 32) s[t] += s[t + 16];
  if (BLOCK >= 16) s[t] += s[t + 8];
  if (BLOCK >= 8) s[t] += s[t + 4];
  if (BLOCK >= 4) s[t] += s[t + 2];
  if (BLOCK >= 2) s[t] += s[t + 1];
}
template <unsigned BLOCK>
__global__ void reduce6(const int *in, int *out, unsigned n) {
  __shared__ int s[BLOCK];
  unsigned t = threadIdx.x, i = blockIdx.x * BLOCK * 2 + t, grid = BLOCK * 2 * gridDim.x;
  int sum = 0;
  while (i < n) {
    sum += in[i];
    if (i + BLOCK < n) sum += in[i + BLOCK];
    i += grid;
  }
  s[t] = sum;
  __syncthreads();
  if (BLOCK >= 512) { if (t < 256) s[t] += s[t + 256]; __syncthreads(); }
  if (BLOCK >= 256) { if (t < 128) s[t] += s[t + 128]; __syncthreads(); }
  if (BLOCK >= 128) { if (t < 64) s[t] += s[t + 64]; __syncthreads(); }
  if (t < 32) warp_reduce<BLOCK>(s, t);
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void uneven_loops(int *out) {
  __shared__ int acc[64];
  int rounds = blockIdx.x + 1;  // uniform in the block, different per block
  acc[threadIdx.x] = 0;
  for (int r = 0; r < rounds; ++r) {
    __syncthreads();
    acc[(threadIdx.x + r) % 64] += r + 1;
    __syncthreads();
  }
  out[blockIdx.x * 64 + threadIdx.x] = acc[threadIdx.x];
}

int main() {
  unsigned s = 5;
  // votes
  const int VB = 6, VT = 128;
  std::vector<int> vin(VB * VT);
  for (int b = 0; b < VB; ++b)
    for (int t = 0; t < VT; ++t) vin[b * VT + t] = b == 2 ? 42 : int(lcg(s) % 40) - (b == 4 ? 10 : 4);
  int *dv, *dvo;
  CUDA(cudaMalloc(&dv, vin.size() * 4));
  CUDA(cudaMalloc(&dvo, VB * 3 * 4));
  CUDA(cudaMemcpy(dv, vin.data(), vin.size() * 4, cudaMemcpyHostToDevice));
  votes<<<VB, VT>>>(dv, dvo);
  CUDA(cudaGetLastError());
  std::vector<int> vo(VB * 3);
  CUDA(cudaMemcpy(vo.data(), dvo, vo.size() * 4, cudaMemcpyDeviceToHost));
  for (int b = 0; b < VB; ++b) {
    int count = 0, all = 1, any = 0;
    for (int t = 0; t < VT; ++t) {
      int v = vin[b * VT + t];
      count += v > 0, all &= v > -5, any |= v == 42;
    }
    CHECK(vo[3 * b] == count, "block %d count %d vs %d", b, vo[3 * b], count);
    CHECK((vo[3 * b + 1] != 0) == (all != 0) && (vo[3 * b + 2] != 0) == (any != 0), "block %d and %d or %d", b, vo[3 * b + 1],
          vo[3 * b + 2]);
  }

  // scan
  const int SN = 1024, SB = 3;
  std::vector<int> sin(SN * SB);
  for (auto &v : sin) v = int(lcg(s) % 100) - 30;
  int *dsi, *dso;
  CUDA(cudaMalloc(&dsi, sin.size() * 4));
  CUDA(cudaMalloc(&dso, sin.size() * 4));
  CUDA(cudaMemcpy(dsi, sin.data(), sin.size() * 4, cudaMemcpyHostToDevice));
  blelloch<<<SB, SN / 2, (SN + SN / 32) * sizeof(int)>>>(dsi, dso, SN);
  CUDA(cudaGetLastError());
  std::vector<int> so(sin.size());
  CUDA(cudaMemcpy(so.data(), dso, so.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int b = 0; b < SB; ++b) {
    int run = 0;
    for (int i = 0; i < SN; ++i) bad += so[b * SN + i] != run, run += sin[b * SN + i];
  }
  CHECK(bad == 0, "blelloch scan: %d wrong", bad);

  // carved dynamic shared memory
  const int CN = 96;
  std::vector<double> cd(CN);
  for (int i = 0; i < CN; ++i) cd[i] = 0.5 * i - 7.25;
  double *dcd, *dco;
  CUDA(cudaMalloc(&dcd, CN * 8));
  CUDA(cudaMalloc(&dco, CN * 8));
  CUDA(cudaMemcpy(dcd, cd.data(), CN * 8, cudaMemcpyHostToDevice));
  carve<<<1, CN, CN * (8 + 4 + 1)>>>(dcd, dco, CN);
  CUDA(cudaGetLastError());
  std::vector<double> co(CN);
  CUDA(cudaMemcpy(co.data(), dco, CN * 8, cudaMemcpyDeviceToHost));
  for (int t = 0; t < CN; ++t) {
    int r = CN - 1 - t;
    double want = cd[r] + double(float(cd[(t + 1) % CN]) * 2.0f) + double(r & 0x7f);
    CHECK(co[t] == want, "carve[%d] %g vs %g", t, co[t], want);
  }

  // reductions
  const int RN = 100000;
  std::vector<float> rf(RN);
  std::vector<int> ri(RN);
  long long isum = 0;
  double fsum = 0;
  for (int i = 0; i < RN; ++i) ri[i] = int(lcg(s) % 1000) - 500, isum += ri[i], rf[i] = float(ri[i]) * 0.5f, fsum += rf[i];
  float *drf, *dpart, *dres;
  int *dri, *dro;
  CUDA(cudaMalloc(&drf, RN * 4));
  CUDA(cudaMalloc(&dri, RN * 4));
  CUDA(cudaMalloc(&dpart, 64 * 4));
  CUDA(cudaMalloc(&dres, 4));
  CUDA(cudaMalloc(&dro, 64 * 4));
  CUDA(cudaMemcpy(drf, rf.data(), RN * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(dri, ri.data(), RN * 4, cudaMemcpyHostToDevice));
  for (int rep = 0; rep < 2; ++rep) {  // the ticket resets itself
    fence_reduce<<<40, 256>>>(drf, RN, dpart, dres);
    CUDA(cudaGetLastError());
    float got = 0;
    CUDA(cudaMemcpy(&got, dres, 4, cudaMemcpyDeviceToHost));
    CHECK(got == float(fsum), "threadfence reduction %g vs %g", got, fsum);  // halves: exact
  }
  reduce6<256><<<64, 256>>>(dri, dro, RN);
  CUDA(cudaGetLastError());
  std::vector<int> ro(64);
  CUDA(cudaMemcpy(ro.data(), dro, 64 * 4, cudaMemcpyDeviceToHost));
  long long rsum = 0;
  for (int v : ro) rsum += v;
  CHECK(rsum == isum, "reduce6<256> %lld vs %lld", rsum, isum);
  reduce6<64><<<64, 64>>>(dri, dro, RN);
  CUDA(cudaGetLastError());
  CUDA(cudaMemcpy(ro.data(), dro, 64 * 4, cudaMemcpyDeviceToHost));
  rsum = 0;
  for (int v : ro) rsum += v;
  CHECK(rsum == isum, "reduce6<64> %lld vs %lld", rsum, isum);

  int *dul;
  CUDA(cudaMalloc(&dul, 5 * 64 * 4));
  uneven_loops<<<5, 64>>>(dul);
  CUDA(cudaGetLastError());
  std::vector<int> ul(5 * 64);
  CUDA(cudaMemcpy(ul.data(), dul, ul.size() * 4, cudaMemcpyDeviceToHost));
  for (int b = 0; b < 5; ++b)
    for (int t = 0; t < 64; ++t) {
      int want = 0;
      for (int r = 0; r <= b; ++r) want += r + 1;  // each slot gets every round's r+1 once
      CHECK(ul[b * 64 + t] == want, "uneven loops block %d slot %d: %d vs %d", b, t, ul[b * 64 + t], want);
    }
  return report("block_sync");
}
