// Global-memory atomics as histogram and statistics code writes them: a 256-bin byte histogram
// with atomicAdd straight to global memory, the same with warp-aggregated atomics
// (__match_any_sync picks the lanes of a bin, the leader adds __popc of them), float and double
// atomicAdd sums of values that are exact in binary (so any order gives the same result), a
// float atomicMax/atomicMin through atomicCAS on the int bits (the classic "atomicMaxFloat"),
// an unsigned long long counter handing out slots (atomicAdd as a queue), and atomicAdd's
// return values as unique tickets.
#include <algorithm>
#include <vector>
#include "check.h"

constexpr int N = 200000, BINS = 256;

__global__ void hist_global(const unsigned char *in, int n, unsigned *bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&bins[in[i]], 1u);
}

__global__ void hist_aggregated(const unsigned char *in, int n, unsigned *bins) {
  for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
    int i = base + threadIdx.x;
    unsigned active = __ballot_sync(0xffffffffu, i < n);
    if (i < n) {
      unsigned bin = in[i];
      unsigned peers = __match_any_sync(active, bin);
      int leader = __ffs(peers) - 1;
      if ((threadIdx.x & 31) == leader) atomicAdd(&bins[bin], __popc(peers));
    }
  }
}

__device__ float atomicMaxFloat(float *addr, float value) {
  int *as_int = reinterpret_cast<int *>(addr);
  int old = *as_int;
  while (__int_as_float(old) < value) {
    int assumed = old;
    old = atomicCAS(as_int, assumed, __float_as_int(value));
    if (old == assumed) break;
  }
  return __int_as_float(old);
}
__device__ float atomicMinFloat(float *addr, float value) {
  unsigned *as_u = reinterpret_cast<unsigned *>(addr);
  unsigned old = *as_u, assumed;
  do {
    assumed = old;
    if (__uint_as_float(assumed) <= value) break;
    old = atomicCAS(as_u, assumed, __float_as_uint(value));
  } while (old != assumed);
  return __uint_as_float(old);
}

struct Stats {
  float fsum;
  double dsum;
  float fmax, fmin;
  unsigned long long slots;
};

__global__ void stats(const float *x, int n, Stats *st, int *queue, unsigned *tickets) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float v = x[i];
    atomicAdd(&st->fsum, v);
    atomicAdd(&st->dsum, double(v) * 0.5);
    atomicMaxFloat(&st->fmax, v);
    atomicMinFloat(&st->fmin, v);
    if (v < 0.0f) {
      unsigned long long slot = atomicAdd(&st->slots, 1ull);
      queue[slot] = i;
    }
    tickets[i] = atomicInc(&tickets[n], 0xffffffffu);
  }
}

int main() {
  std::vector<unsigned char> bytes(N);
  unsigned s = 12345;
  for (auto &b : bytes) {
    unsigned r = lcg(s) >> 16;
    b = (r & 3) ? (unsigned char)(r >> 2) : (unsigned char)(r % 7);  // skewed: low bins hot
  }
  unsigned char *d_bytes;
  unsigned *d_bins;
  CUDA(cudaMalloc(&d_bytes, N));
  CUDA(cudaMalloc(&d_bins, 2 * BINS * 4));
  CUDA(cudaMemcpy(d_bytes, bytes.data(), N, cudaMemcpyHostToDevice));
  CUDA(cudaMemset(d_bins, 0, 2 * BINS * 4));
  hist_global<<<64, 256>>>(d_bytes, N, d_bins);
  CUDA(cudaGetLastError());
  hist_aggregated<<<50, 128>>>(d_bytes, N, d_bins + BINS);
  CUDA(cudaGetLastError());
  std::vector<unsigned> bins(2 * BINS), want(BINS, 0);
  CUDA(cudaMemcpy(bins.data(), d_bins, 2 * BINS * 4, cudaMemcpyDeviceToHost));
  for (auto b : bytes) want[b]++;
  for (int b = 0; b < BINS; ++b) {
    CHECK(bins[b] == want[b], "global bin %d: %u vs %u", b, bins[b], want[b]);
    CHECK(bins[BINS + b] == want[b], "aggregated bin %d: %u vs %u", b, bins[BINS + b], want[b]);
  }

  const int M = 40000;
  std::vector<float> x(M);
  for (int i = 0; i < M; ++i) x[i] = float(int(lcg(s) % 801) - 400) * 0.25f;  // quarters: every partial sum (below 2^22) exact
  x[777] = 1e4f;
  x[31337] = -3e4f;
  float *d_x;
  Stats *d_st;
  int *d_queue;
  unsigned *d_tickets;
  CUDA(cudaMalloc(&d_x, M * 4));
  CUDA(cudaMalloc(&d_st, sizeof(Stats)));
  CUDA(cudaMalloc(&d_queue, M * 4));
  CUDA(cudaMalloc(&d_tickets, (M + 1) * 4));
  CUDA(cudaMemcpy(d_x, x.data(), M * 4, cudaMemcpyHostToDevice));
  Stats init{0.0f, 0.0, -INFINITY, INFINITY, 0};
  CUDA(cudaMemcpy(d_st, &init, sizeof init, cudaMemcpyHostToDevice));
  CUDA(cudaMemset(d_tickets, 0, (M + 1) * 4));
  stats<<<40, 256>>>(d_x, M, d_st, d_queue, d_tickets);
  CUDA(cudaGetLastError());
  Stats st;
  CUDA(cudaMemcpy(&st, d_st, sizeof st, cudaMemcpyDeviceToHost));
  double sum = 0;
  long negatives = 0;
  for (float v : x) sum += v, negatives += v < 0.0f;
  CHECK(st.fsum == float(sum), "float sum %g vs %g", st.fsum, sum);  // every partial sum exact
  CHECK(st.dsum == sum * 0.5, "double sum %g vs %g", st.dsum, sum * 0.5);
  CHECK(st.fmax == 1e4f && st.fmin == -3e4f, "max %g min %g", st.fmax, st.fmin);
  CHECK(st.slots == (unsigned long long)negatives, "queue length %llu vs %ld", st.slots, negatives);
  std::vector<int> queue(M);
  CUDA(cudaMemcpy(queue.data(), d_queue, M * 4, cudaMemcpyDeviceToHost));
  queue.resize(negatives);
  std::sort(queue.begin(), queue.end());
  std::vector<int> want_q;
  for (int i = 0; i < M; ++i)
    if (x[i] < 0.0f) want_q.push_back(i);
  CHECK(queue == want_q, "queued indices");
  std::vector<unsigned> tickets(M + 1);
  CUDA(cudaMemcpy(tickets.data(), d_tickets, (M + 1) * 4, cudaMemcpyDeviceToHost));
  CHECK(tickets[M] == unsigned(M), "ticket counter %u", tickets[M]);
  tickets.resize(M);
  std::sort(tickets.begin(), tickets.end());
  bool unique = true;
  for (int i = 0; i < M; ++i) unique &= tickets[i] == unsigned(i);
  CHECK(unique, "tickets 0..M-1 each once");
  cudaFree(d_bytes);
  cudaFree(d_bins);
  cudaFree(d_x);
  cudaFree(d_st);
  cudaFree(d_queue);
  cudaFree(d_tickets);
  return report("global_histogram");
}
