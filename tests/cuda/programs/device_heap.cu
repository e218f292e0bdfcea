// The device heap: malloc/free and new/delete[] in kernels (per-thread buffers, a block-shared
// buffer allocated by one thread, objects with constructors and destructors), memory passed from
// one kernel to the next, cudaDeviceSetLimit(cudaLimitMallocHeapSize) / cudaDeviceGetLimit, and
// malloc returning NULL when a request cannot be met.
#include <vector>
#include "check.h"

struct Counter {
  int *log;
  int id;
  __device__ Counter(int *l, int i) : log(l), id(i) { atomicAdd(&log[0], 1); }
  __device__ ~Counter() { atomicAdd(&log[1], 1); }
};

__device__ int *g_saved[64];

__global__ void per_thread(int *out, int *log) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int len = 1 + t % 13;
  int *buf = (int *)malloc(len * sizeof(int));
  if (!buf) {
    out[t] = -1;
    return;
  }
  for (int i = 0; i < len; ++i) buf[i] = t * i;
  int s = 0;
  for (int i = 0; i < len; ++i) s += buf[i];
  free(buf);
  double *arr = new double[len];
  for (int i = 0; i < len; ++i) arr[i] = 0.5 * i;
  double ds = 0;
  for (int i = 0; i < len; ++i) ds += arr[i];
  delete[] arr;
  Counter *c = new Counter(log, t);
  s += c->id;
  delete c;
  out[t] = s + int(ds * 2);
}

__global__ void shared_buffer(int *out) {
  __shared__ int *block_buf;
  if (threadIdx.x == 0) block_buf = (int *)malloc(blockDim.x * sizeof(int));
  __syncthreads();
  block_buf[threadIdx.x] = threadIdx.x * 2;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = block_buf[blockDim.x - 1 - threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    if (blockIdx.x < 64) g_saved[blockIdx.x] = block_buf;  // kept for the next kernel
    else free(block_buf);
  }
}

__global__ void read_saved(int *out, int blocks, int threads) {
  int b = blockIdx.x, t = threadIdx.x;
  if (b < blocks && t < threads) out[b * threads + t] = g_saved[b][t] + 1;
  __syncthreads();
  if (t == 0) free(g_saved[b]);
}

__global__ void too_big(unsigned long long *result) {
  void *p = malloc(size_t(1) << 40);  // 1 TiB: more than the heap
  result[0] = (unsigned long long)p;
  if (p) free(p);
}

int main() {
  size_t heap = 0;
  CUDA(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64u << 20));
  CUDA(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
  CHECK(heap >= (64u << 20), "heap limit %zu", heap);
  const int blocks = 8, threads = 64, n = blocks * threads;
  int *out, *log;
  CUDA(cudaMalloc(&out, n * 4));
  CUDA(cudaMalloc(&log, 8));
  CUDA(cudaMemset(log, 0, 8));
  per_thread<<<blocks, threads>>>(out, log);
  CUDA(cudaDeviceSynchronize());
  std::vector<int> got(n);
  int lg[2];
  CUDA(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(lg, log, 8, cudaMemcpyDeviceToHost));
  for (int t = 0; t < n; ++t) {
    int len = 1 + t % 13, s = 0;
    double ds = 0;
    for (int i = 0; i < len; ++i) {
      s += t * i;
      ds += 0.5 * i;
    }
    CHECK(got[t] == s + t + int(ds * 2), "thread %d: %d vs %d", t, got[t], s + t + int(ds * 2));
  }
  CHECK(lg[0] == n && lg[1] == n, "constructors %d, destructors %d", lg[0], lg[1]);
  shared_buffer<<<blocks, threads>>>(out);
  CUDA(cudaDeviceSynchronize());
  CUDA(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
  for (int t = 0; t < n; ++t) CHECK(got[t] == (threads - 1 - t % threads) * 2, "shared buffer %d", t);
  read_saved<<<blocks, threads>>>(out, blocks, threads);
  CUDA(cudaDeviceSynchronize());
  CUDA(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
  for (int t = 0; t < n; ++t) CHECK(got[t] == (t % threads) * 2 + 1, "saved buffer %d", t);
  unsigned long long *res;
  CUDA(cudaMalloc(&res, 8));
  too_big<<<1, 1>>>(res);
  CUDA(cudaDeviceSynchronize());
  unsigned long long p = 1;
  CUDA(cudaMemcpy(&p, res, 8, cudaMemcpyDeviceToHost));
  CHECK(p == 0, "malloc of 1 TiB gave %llx", p);
  return report("device_heap");
}
