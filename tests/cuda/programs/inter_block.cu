// CTAs that talk to each other through global memory while they run, as hand-written
// single-pass algorithms do: a chained scan (each CTA takes a ticket with atomicAdd so that its
// predecessor has started, then spins on a volatile flag until the predecessor publishes its
// inclusive prefix, with __threadfence between the data and the flag), a hand-rolled grid
// barrier (an atomic arrival counter and a generation word, with a grid no larger than what is
// resident at once, as CUDA programs size it from the occupancy API), and a work queue drained
// by all CTAs with atomicAdd. Checked against the host.
#include <vector>
#include "check.h"

constexpr int THREADS = 256;

__device__ unsigned ticket_counter = 0;

__global__ void chained_scan(const int *in, int *out, int n, volatile int *prefix, volatile int *ready) {
  __shared__ int tile[THREADS];
  __shared__ int block_id, carry;
  if (threadIdx.x == 0) block_id = int(atomicAdd(&ticket_counter, 1u));
  __syncthreads();
  int b = block_id, i = b * THREADS + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int off = 1; off < THREADS; off <<= 1) {  // Hillis-Steele inclusive scan in the tile
    int v = threadIdx.x >= off ? tile[threadIdx.x - off] : 0;
    __syncthreads();
    tile[threadIdx.x] += v;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    int before = 0;
    if (b > 0) {
      while (ready[b - 1] == 0) {
      }
      __threadfence();
      before = prefix[b - 1];
    }
    prefix[b] = before + tile[THREADS - 1];
    __threadfence();
    ready[b] = 1;
    carry = before;
  }
  __syncthreads();
  if (i < n) out[i] = tile[threadIdx.x] + carry;
}

__device__ void grid_barrier(unsigned *count, volatile unsigned *generation) {
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned gen = *generation;
    __threadfence();
    if (atomicAdd(count, 1u) == gridDim.x - 1) {
      *count = 0;
      __threadfence();
      *generation = gen + 1;
    } else {
      while (*generation == gen) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

// Jacobi-like smoothing with a grid barrier between sweeps: x[i] = (x[i-1] + x[i] + x[i+1]) / 3
// done as integer sums (x := x[i-1] + x[i+1]) so the host can follow it exactly.
__global__ void sweeps(int *a, int *b, int n, int rounds, unsigned *count, unsigned *generation) {
  for (int r = 0; r < rounds; ++r) {
    int *src = r % 2 ? b : a, *dst = r % 2 ? a : b;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
      dst[i] = (i > 0 ? src[i - 1] : 0) + (i + 1 < n ? src[i + 1] : 0) - src[i] % 7;
    grid_barrier(count, generation);
  }
}

__global__ void drain(unsigned *next, int total, int *done_by, unsigned *work_sum) {
  __shared__ unsigned item;
  for (;;) {
    if (threadIdx.x == 0) item = atomicAdd(next, 1u);
    __syncthreads();
    unsigned mine = item;
    __syncthreads();
    if (mine >= unsigned(total)) break;
    if (threadIdx.x == 0) done_by[mine] = blockIdx.x;
    atomicAdd(work_sum, mine % 13 + threadIdx.x % 3);
  }
}

int main() {
  const int n = 40 * THREADS - 17, blocks = (n + THREADS - 1) / THREADS;
  std::vector<int> in(n);
  unsigned s = 21;
  for (auto &v : in) v = int(lcg(s) % 200) - 90;
  int *din, *dout, *dprefix, *dready;
  CUDA(cudaMalloc(&din, n * 4));
  CUDA(cudaMalloc(&dout, n * 4));
  CUDA(cudaMalloc(&dprefix, blocks * 4));
  CUDA(cudaMalloc(&dready, blocks * 4));
  CUDA(cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemset(dready, 0, blocks * 4));
  chained_scan<<<blocks, THREADS>>>(din, dout, n, dprefix, dready);
  CUDA(cudaGetLastError());
  CUDA(cudaDeviceSynchronize());
  std::vector<int> out(n);
  CUDA(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));
  int bad = 0, run = 0;
  for (int i = 0; i < n; ++i) run += in[i], bad += out[i] != run;
  CHECK(bad == 0, "chained scan: %d wrong (last %d vs %d)", bad, out[n - 1], run);

  // the grid barrier, with a grid that is resident at once
  int per_sm = 0, sms = 0;
  CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sweeps, THREADS, 0));
  CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int grid = std::min(per_sm * sms, 8);
  const int m = 5000, rounds = 6;
  std::vector<int> x(m);
  for (auto &v : x) v = int(lcg(s) % 100);
  int *da, *db;
  unsigned *dcount, *dgen;
  CUDA(cudaMalloc(&da, m * 4));
  CUDA(cudaMalloc(&db, m * 4));
  CUDA(cudaMalloc(&dcount, 4));
  CUDA(cudaMalloc(&dgen, 4));
  CUDA(cudaMemcpy(da, x.data(), m * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemset(dcount, 0, 4));
  CUDA(cudaMemset(dgen, 0, 4));
  sweeps<<<grid, THREADS>>>(da, db, m, rounds, dcount, dgen);
  CUDA(cudaGetLastError());
  CUDA(cudaDeviceSynchronize());
  std::vector<int> y(m);
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < m; ++i) y[i] = (i > 0 ? x[i - 1] : 0) + (i + 1 < m ? x[i + 1] : 0) - x[i] % 7;
    x.swap(y);
  }
  std::vector<int> got(m);
  CUDA(cudaMemcpy(got.data(), rounds % 2 ? db : da, m * 4, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < m; ++i) bad += got[i] != x[i];
  CHECK(bad == 0, "grid barrier sweeps: %d wrong", bad);

  // a work queue
  const int items = 3000;
  unsigned *dnext, *dsum;
  int *ddone;
  CUDA(cudaMalloc(&dnext, 4));
  CUDA(cudaMalloc(&dsum, 4));
  CUDA(cudaMalloc(&ddone, items * 4));
  CUDA(cudaMemset(dnext, 0, 4));
  CUDA(cudaMemset(dsum, 0, 4));
  CUDA(cudaMemset(ddone, 0xff, items * 4));
  drain<<<12, 64>>>(dnext, items, ddone, dsum);
  CUDA(cudaGetLastError());
  unsigned sum = 0;
  std::vector<int> done(items);
  CUDA(cudaMemcpy(&sum, dsum, 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(done.data(), ddone, items * 4, cudaMemcpyDeviceToHost));
  unsigned want = 0;
  for (int k = 0; k < items; ++k)
    for (int t = 0; t < 64; ++t) want += k % 13 + t % 3;
  int undone = 0;
  for (int d : done) undone += d < 0 || d >= 12;
  CHECK(sum == want && undone == 0, "work queue: sum %u vs %u, %d items not done", sum, want, undone);
  return report("inter_block");
}
